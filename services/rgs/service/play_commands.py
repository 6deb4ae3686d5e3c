"""Solo play's commands: Deal, Act and Settle.

Every command runs inside the player's exclusive journal (one call per player at a time,
across every replica), in this order: answer a replayed request id from its record; drive open
outbox rows to a final state; verify the command against the engine before any money moves;
write the debit's outbox row, call the wallet; apply the command; then commit the step and pay
the round's win through :class:`~rgs.service.settlement.Settlement` (the round's new events,
header, idempotency record and, when the round ended, the credit's outbox row in one
transaction; then the credit).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from rgs.engine import CardSource, EngineError, Round, RuleSet, TableLimits
from rgs.engine.cards import check_card
from rgs.rng.fair import FairInputError, check_client_seed
from rgs.service import fairness, money, stakes
from rgs.service.errors import (
    InvalidRequest,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    Unavailable,
    translate_engine,
)
from rgs.service.fingerprints import request_hash
from rgs.service.freebets import round_free_bet
from rgs.service.identifiers import check_request_id, is_round_id
from rgs.service.model import (
    ActCommand,
    CallRead,
    Channel,
    DealCommand,
    Movement,
    PlayResult,
    RequestScope,
    Session,
    SettleCommand,
    StoredRound,
)
from rgs.service.play_context import PlayContext, party, reconcile
from rgs.service.play_queries import PlayQueries
from rgs.service.ports import CardSourceUnavailable, JournalStale, PlayerJournal
from rgs.service.replays import in_context as _in_context
from rgs.service.replays import stored_response as _stored_response
from rgs.service.restore import autoplay, deal_source, restore_stored
from rgs.service.settlement import Settlement
from rgs.service.writes import Booking, StepWrite
from rgs.variants.options import DEFAULT_OPTIONS, VariantOptions
from rgs.wallet.port import MoneyKind


def _header(session: Session, rnd: Round, *, round_id: str, forced: tuple[str, ...],
            base: StoredRound | None = None,
            options: VariantOptions = DEFAULT_OPTIONS) -> StoredRound:
    """The stored form of a round after a command."""
    first = base or StoredRound(
        round_id=round_id, player_key=session.player_key, session_id=session.session_id,
        operator_id=session.operator_id, brand_id=session.brand_id,
        player_id=session.player_id, currency=session.currency, variant=rnd.rules.id, seq=0,
        status="", forced_cards=forced, total_staked=0, total_paid=0, events=(),
        options=options)
    return replace(first, seq=rnd.seq, status=rnd.phase.value, total_staked=rnd.total_staked,
                   total_paid=rnd.total_paid, events=rnd.events)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Dealing:
    """What a Deal prepared before taking the player's journal: the rules and limits, the
    card randomness and the source it deals from, and the seeds drawn for a fair round."""

    rules: RuleSet
    limits: TableLimits
    source: CardSource
    fresh: tuple[bytes, bytes] | None


def _in_context_or_not_found(stored: StoredRound | None, session: Session) -> StoredRound:
    if stored is None or not _in_context(stored, session):
        raise NotFound("no such round", reason="ROUND_NOT_FOUND")
    return stored


async def _no_stake_in_doubt(pj: PlayerJournal, round_id: str) -> None:
    """Refuse to go on with a round while one of its debits is still open (its outcome or
    its rollback unconfirmed): the round could settle and close at the wallet first, and a
    debit must never be rolled back after a credit of its round was sent."""
    if any(m.round_id == round_id and m.kind is not MoneyKind.CREDIT
           for m in await pj.open_movements()):
        raise Unavailable("an earlier stake of this round is still being resolved with the "
                          "wallet; retry", reason="WALLET_UNAVAILABLE")


async def _own_round(pj: PlayerJournal, session: Session, round_id: str) -> StoredRound:
    stored = await pj.get_round(round_id) if is_round_id(round_id) else None
    return _in_context_or_not_found(stored, session)


async def _again_if_stale(call: Callable[[CallRead], Awaitable[PlayResult]],
                          first: CallRead) -> PlayResult:
    """A call held from what the replica remembered of the player, and once more reading the
    journal when that was out of date (:class:`JournalStale`: nothing was written)."""
    try:
        return await call(first)
    except JournalStale:
        return await call(replace(first, resumable=False))


class PlayCommands:
    """The game client's commands (each one's step committed and paid by ``settlement``;
    the variant's rules and the brand read through ``queries``)."""

    def __init__(self, ctx: PlayContext, queries: PlayQueries, settlement: Settlement) -> None:
        self._ctx = ctx
        self._queries = queries
        self._settlement = settlement

    async def deal(self, session: Session, cmd: DealCommand, *,
                   channel: Channel | None = None) -> PlayResult:
        """Take the stakes and deal a new round (``channel``: the edge the Deal came through,
        journalled with the round; not part of the request, so a retry through the other
        edge is the same request)."""
        self._ctx.software.admit_new_round()
        check_request_id(cmd.request_id)
        rules, limits = self._queries.rules(session, cmd.variant_id)
        if cmd.forced_cards and not self._ctx.test_mode:
            raise PermissionDenied("forced cards are accepted in test mode only",
                                   reason="FORCED_CARDS_NOT_ALLOWED")
        try:
            check_client_seed(cmd.client_seed)
        except FairInputError as exc:
            raise InvalidRequest(f"client_seed: {exc}", reason="INVALID_CLIENT_SEED",
                                 field="client_seed") from exc
        try:
            for card in cmd.forced_cards:
                check_card(card)
            Round.verify_bets(rules, cmd.boxes, limits)
            # Built before any money moves: forced cards the shoe does not hold are refused here.
            pick = self._ctx.cards.picker()
            source: CardSource = deal_source(rules, pick, cmd.forced_cards)
            # A forced-card round (test mode) takes no seed; any other draws its successor's
            # seed now, while nothing has moved (an unhealthy RNG refuses here).
            fresh = None if cmd.forced_cards else (fairness.draw_seed(pick),
                                                   fairness.draw_seed(pick))
        except EngineError as exc:
            raise translate_engine(exc) from exc
        # A free bet is used before the round's first write (another store): not resumable.
        first = CallRead(request_id=cmd.request_id, scope=RequestScope.PLAYER,
                         active_in=(session.brand_id, session.currency),
                         seed_of=session.session_id, resumable=not cmd.free_bet_id)
        dealing = _Dealing(rules=rules, limits=limits, source=source, fresh=fresh)
        return await _again_if_stale(
            lambda read: self._deal_held(session, cmd, read, dealing, channel), first)

    async def _deal_held(self, session: Session, cmd: DealCommand, first: CallRead,
                         dealing: _Dealing, channel: Channel | None) -> PlayResult:
        """The Deal with the player's journal held."""
        rules, limits, fresh, source = dealing.rules, dealing.limits, dealing.fresh, dealing.source
        async with self._ctx.journal.player(session.player_key, first) as pj:
            fingerprint = request_hash("deal", cmd, added=("client_seed", "free_bet_id"))
            state = await pj.open_call(first)
            stored = await _stored_response(pj, session, state.request, "deal", fingerprint,
                                            known=state.round)
            if stored is not None:
                return await self._settlement.replayed(pj, session, stored,
                                                       request_id=cmd.request_id,
                                                       scope=RequestScope.PLAYER)
            if self._ctx.controls is not None:  # a disabled game deals no new round (no query)
                self._ctx.controls.check(session.brand_id, cmd.variant_id)
            await reconcile(pj, self._ctx.wallet, session, state.open_movements)
            if state.round is not None:  # settling outbox rows finishes no round
                raise NotAllowedNow("finish the unfinished round first (GetRound finds it)",
                                    reason="ROUND_IN_PROGRESS")
            grant = await stakes.check(self._ctx.free_bets, session, cmd)
            await self._ctx.session_rules.before_round(pj, session,
                                                  sum(b.total_stake for b in cmd.boxes))
            round_id = secrets.token_hex(16)
            taken = await stakes.take(pj, self._ctx.wallet, party(session), self._ctx.free_bets,
                                      session=session, cmd=cmd, grant=grant, round_id=round_id)
            fair = following = None
            try:
                if fresh is not None:
                    # The seed the session committed to; the commit stores it as the round's
                    # and the next one in its place, atomically with the round.
                    fair, following = fairness.prepare(
                        session, state.next_seed, client_seed=cmd.client_seed,
                        decks=rules.decks, fresh=fresh)
                    source = fairness.source(self._ctx.cards, fair)
                rnd = Round.deal(rules, source, cmd.boxes, limits)
            except (EngineError, CardSourceUnavailable) as exc:
                await stakes.give_back(pj, self._ctx.wallet, party(session), self._ctx.free_bets,
                                       taken, round_id=round_id, session=session)
                if isinstance(exc, CardSourceUnavailable):
                    raise  # answered UNAVAILABLE by the error table
                raise translate_engine(exc) from exc
            header = replace(_header(session, rnd, round_id=round_id, forced=cmd.forced_cards,
                                     options=self._queries.brand(session).variant_options(
                                         cmd.variant_id)), fair=fair,
                             free_bet=round_free_bet(grant, cmd.boxes[0].seat if grant else 0),
                             channel=channel)
            step = StepWrite(round=header, new_events_from=0, bookings=taken.bookings,
                             next_seed=following)
            return await self._settlement.commit(pj, session, step, rnd, balance=taken.balance,
                                                 request=(cmd.request_id, "deal", fingerprint))

    async def act(self, session: Session, cmd: ActCommand) -> PlayResult:
        """Apply one decision; debit its stake first when it adds one."""
        check_request_id(cmd.request_id)
        first = CallRead(request_id=cmd.request_id, scope=RequestScope.PLAYER,
                         round_id=cmd.round_id if is_round_id(cmd.round_id) else None,
                         resumable=True)
        return await _again_if_stale(lambda read: self._act_held(session, cmd, read), first)

    async def _act_held(self, session: Session, cmd: ActCommand, first: CallRead
                        ) -> PlayResult:
        """The Act with the player's journal held."""
        async with self._ctx.journal.player(session.player_key, first) as pj:
            fingerprint = request_hash("act", cmd)
            state = await pj.open_call(first)
            stored_resp = await _stored_response(pj, session, state.request, "act",
                                                 fingerprint, known=state.round)
            if stored_resp is not None:
                return await self._settlement.replayed(pj, session, stored_resp,
                                                       request_id=cmd.request_id,
                                                       scope=RequestScope.PLAYER)
            outbox_was_open = await reconcile(pj, self._ctx.wallet, session, state.open_movements)
            stored = _in_context_or_not_found(state.round, session)
            if stored.finished:
                raise NotAllowedNow("the round is finished", reason="ROUND_FINISHED")
            # The round's movements as read, unless settling open outbox rows changed them.
            round_movements = None if outbox_was_open else state.round_movements
            if outbox_was_open:  # else the outbox is empty: nothing can be in doubt
                await _no_stake_in_doubt(pj, stored.round_id)
            if cmd.expected_seq != stored.seq:
                raise NotAllowedNow(f"the round is at seq {stored.seq}, not {cmd.expected_seq}",
                                    reason="STALE_SEQ")
            rnd = restore_stored(self._ctx.cards, stored)
            try:
                rnd.verify(cmd.seat, cmd.hand, cmd.action)
                cost = next((la.cost for la in rnd.legal_actions(cmd.seat, cmd.hand)
                             if la.action is cmd.action), 0)
            except EngineError as exc:
                raise translate_engine(exc) from exc
            bookings: tuple[Booking, ...] = ()
            balance: int | None = None
            debit: Movement | None = None
            if cost > 0:
                debit, balance = await money.debit(pj, self._ctx.wallet, party(session),
                                                   round_id=stored.round_id, step=rnd.seq + 1,
                                                   amount=cost, round_movements=round_movements)
                bookings = (Booking.applied(debit, balance),)
                round_movements = None  # a debit was written: no longer the round's movements
            new_from = len(rnd.events)
            try:
                rnd.act(cmd.seat, cmd.hand, cmd.action)
            except (EngineError, CardSourceUnavailable) as exc:
                if debit is not None and balance is not None:
                    await money.record(pj, debit, balance)
                    await money.roll_back(pj, self._ctx.wallet, party(session), debit)
                if isinstance(exc, CardSourceUnavailable):
                    raise  # answered UNAVAILABLE / RNG_UNAVAILABLE by the error table
                raise translate_engine(exc) from exc
            header = _header(session, rnd, round_id=stored.round_id,
                             forced=stored.forced_cards, base=stored)
            step = StepWrite(round=header, new_events_from=new_from, bookings=bookings)
            return await self._settlement.commit(pj, session, step, rnd, balance=balance,
                                                 request=(cmd.request_id, "act", fingerprint),
                                                 round_movements=round_movements)

    async def settle(self, session: Session, cmd: SettleCommand, *,
                     scope: RequestScope = RequestScope.PLAYER) -> PlayResult:
        """Finish the round on the player's behalf and make sure its win is paid (``scope``:
        whose request id it is; the sweeper's are the server's own)."""
        check_request_id(cmd.request_id)
        async with self._ctx.journal.player(session.player_key) as pj:
            fingerprint = request_hash("settle", cmd)
            stored_resp = await _stored_response(
                pj, session, await pj.find_request(cmd.request_id, scope), "settle",
                fingerprint)
            if stored_resp is not None:
                return await self._settlement.replayed(pj, session, stored_resp,
                                                       request_id=cmd.request_id, scope=scope)
            stored = await _own_round(pj, session, cmd.round_id)
            await reconcile(pj, self._ctx.wallet, session)
            if not stored.finished:
                await _no_stake_in_doubt(pj, stored.round_id)
            rnd = restore_stored(self._ctx.cards, stored)
            new_from = len(rnd.events)
            for _ in range(64):  # a round has far fewer decisions; the bound is a safety net
                if rnd.finished:
                    break
                autoplay(rnd)
            header = _header(session, rnd, round_id=stored.round_id,
                             forced=stored.forced_cards, base=stored)
            step = StepWrite(round=header, new_events_from=new_from)
            return await self._settlement.commit(pj, session, step, rnd, balance=None,
                                                 request=(cmd.request_id, "settle", fingerprint),
                                                 already_finished=stored.finished, scope=scope)
