"""Play use cases: list variants, deal, act, settle and read a round.

Every mutating call runs inside the player's exclusive journal (one call per player at a time,
across every replica), in this order: answer a replayed request id from its record; drive open
outbox rows to a final state; verify the command against the engine before any money moves;
write the debit's outbox row, call the wallet; apply the command; commit the round's new events,
header, idempotency record and (when the round ended) the credit's outbox row in one transaction;
then pay the credit.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace

from rgs.codec import encode_value
from rgs.engine import (
    CardSource,
    EngineError,
    Round,
    RuleSet,
    TableLimits,
)
from rgs.engine.cards import check_card
from rgs.math.hints import HintTables
from rgs.rng.fair import FairInputError, check_client_seed
from rgs.service import advice, fairness, money, stakes
from rgs.service.authenticity import SoftwareAuthenticity
from rgs.service.controls import ControlBoard
from rgs.service.errors import (
    InvalidRequest,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
    preview,
    translate_engine,
)
from rgs.service.fingerprints import request_hash, sha256_hex
from rgs.service.freebets import FreeBets, round_free_bet
from rgs.service.identifiers import check_request_id, is_round_id, token_player_key
from rgs.service.model import (
    ActCommand,
    Brand,
    CallRead,
    Channel,
    DealCommand,
    FairView,
    Movement,
    MovementStatus,
    PlayResult,
    RequestScope,
    Session,
    SessionSeed,
    SettleCommand,
    StoredRequest,
    StoredRound,
)
from rgs.service.ports import (
    CardSourceFactory,
    CardSourceUnavailable,
    Clock,
    Journal,
    JournalStale,
    PlayerJournal,
)
from rgs.service.positions import SessionRules
from rgs.service.replays import in_context as _in_context
from rgs.service.replays import open_call as _open
from rgs.service.replays import stored_response as _stored_response
from rgs.service.restore import autoplay, deal_source, restore_stored
from rgs.service.session_cache import SessionCache
from rgs.variants import VARIANTS
from rgs.variants.options import DEFAULT_OPTIONS, VariantOptions, effective_rules
from rgs.wallet.port import MoneyKind, Party, Wallet, WalletError

log = logging.getLogger(__name__)


def _party(session: Session) -> Party:
    return Party(operator_id=session.operator_id, brand_id=session.brand_id,
                 player_id=session.player_id, session_id=session.session_id,
                 currency=session.currency)


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


#: How far back ``last_rounds`` looks for each variant's last settled round.
RECENT_ROUNDS = 50


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


async def _reconcile(pj: PlayerJournal, wallet: Wallet, session: Session,
                     open_rows: list[Movement] | None = None) -> bool:
    """Drive the player's open outbox rows (``open_rows`` when this call has just read
    them); True when there were any (the journal holds the player, so when there were
    none, there are none until this call writes one)."""
    if open_rows is None:
        open_rows = await pj.open_movements()
    if open_rows:
        await money.reconcile(pj, wallet, _party(session), open_rows)
    return bool(open_rows)


async def _again_if_stale(call: Callable[[CallRead], Awaitable[PlayResult]],
                          first: CallRead) -> PlayResult:
    """A call held from what the replica remembered of the player, and once more reading the
    journal when that was out of date (:class:`JournalStale`: nothing was written)."""
    try:
        return await call(first)
    except JournalStale:
        return await call(replace(first, resumable=False))


class GameService:
    """The game client's use cases."""

    def __init__(self, *, journal: Journal, wallet: Wallet, cards: CardSourceFactory,
                 brands: Mapping[str, Brand], clock: Clock, test_mode: bool = False,
                 sessions: SessionCache | None = None,
                 software: SoftwareAuthenticity | None = None,
                 controls: ControlBoard | None = None,
                 free_bets: FreeBets | None = None, hints: HintTables | None = None) -> None:
        self._journal = journal
        #: The analysis' caches the hints are valued from (the app's; else this service's own).
        self.hints = hints if hints is not None else HintTables()
        #: The operators' free bets (a Deal's free_bet_id; the credit of a free-bet round).
        self.free_bets = free_bets if free_bets is not None else FreeBets.none(clock)
        #: The software authentication's word on new rounds (always admitted without one).
        self.software = software if software is not None else SoftwareAuthenticity()
        #: The game controls (None: nothing is ever refused by one).
        self.controls = controls
        self._sessions = sessions if sessions is not None else SessionCache()
        self._wallet = wallet
        self._cards = cards
        self._brands = brands
        self._clock = clock
        self._test_mode = test_mode
        #: The brands' jurisdiction profiles on sessions: rules, position, reality checks.
        self.session_rules = SessionRules(journal=journal, brands=brands, clock=clock)

    # ------------------------------------------------------------------ sessions and variants

    async def authenticate(self, token: str, *, allow_expired: bool = False) -> Session:
        """The session a bearer token opens; Unauthenticated otherwise.

        An expired session may still read and finish its rounds (``allow_expired``): expiry
        stops new rounds, it must not strand a player's stake in an unfinished one. A session
        read in the last seconds is not read again (:mod:`rgs.service.session_cache`).
        """
        key = token_player_key(token)
        if key is None:
            raise Unauthenticated("not a session token", reason="INVALID_SESSION_TOKEN")
        token_hash = sha256_hex(token)
        now = self._clock()
        session = self._sessions.get(key, token_hash, now)
        if session is None:
            session = await self._journal.find_session(key, token_hash)
            if session is None:
                raise Unauthenticated("unknown session token", reason="INVALID_SESSION_TOKEN")
            self._sessions.put(token_hash, session, now)
        if not allow_expired and session.expires_at <= now:
            raise Unauthenticated("the session has expired", reason="SESSION_EXPIRED")
        return session

    async def balance(self, session: Session) -> int:
        """The player's balance now, as the operator's wallet reports it."""
        return await money.balance(self._wallet, _party(session))

    async def balance_or_none(self, session: Session) -> int | None:
        """The player's balance, or None when the wallet does not answer."""
        return await money.balance_or_none(self._wallet, _party(session))

    def brands(self) -> tuple[Brand, ...]:
        """Every brand this service plays for."""
        return tuple(self._brands.values())

    def brand(self, session: Session) -> Brand:
        """The session's brand (brands are loaded at start and never disappear)."""
        brand = self._brands.get(session.brand_id)
        if brand is None:
            raise NotFound(f"brand {session.brand_id} is not configured",
                           reason="BRAND_NOT_FOUND")
        return brand

    def variants(self, session: Session) -> list[tuple[RuleSet, TableLimits]]:
        """The variants the session's brand offers, with the brand's options applied (its
        effective rules) and its limits in the session's currency for each."""
        brand = self.brand(session)
        return [self._rules(session, v) for v in brand.variants]

    async def next_commitment(self, session: Session) -> str:
        """The commitment of the seed the session's next round will use ("" before the
        session has one: a session opened before fair rounds gets it at its first Deal)."""
        seed = await self._journal.next_seed(session.player_key, session.session_id)
        return seed.commitment if seed is not None else ""

    async def last_rounds(self, session: Session) -> list[StoredRound]:
        """The player's most recent settled round of each variant the brand offers (newest
        first), for a client's Rebet and Ride Bet."""
        offered = set(self.brand(session).variants)
        recent = await self._journal.list_rounds(session.player_key, session.brand_id,
                                                 before=None, limit=RECENT_ROUNDS)
        last: dict[str, StoredRound] = {}
        for r in recent:
            if r.status == "settled" and r.variant in offered:
                last.setdefault(r.variant, r)
        return list(last.values())

    def _rules(self, session: Session, variant_id: str) -> tuple[RuleSet, TableLimits]:
        brand = self.brand(session)
        if variant_id not in brand.variants:
            raise InvalidRequest(f"variant {preview(variant_id)} is not offered by this brand",
                                 reason="UNKNOWN_VARIANT", field="variant_id")
        limits = brand.limits.get(session.currency, {}).get(variant_id)
        if limits is None:  # the brand no longer plays the session's currency
            raise NotAllowedNow(f"brand {brand.id} no longer plays in {session.currency}",
                                reason="WRONG_CURRENCY")
        rules = effective_rules(VARIANTS[variant_id], brand.variant_options(variant_id))
        return rules, limits

    # ------------------------------------------------------------------ reading

    async def get_round(self, session: Session, round_id: str = "") -> PlayResult:
        """A round's public view; without an id, the player's unfinished round."""
        if round_id:
            stored = (await self._journal.get_round(session.player_key, round_id)
                      if is_round_id(round_id) else None)
        else:
            stored = await self._journal.active_round(session.player_key, session.brand_id,
                                                      session.currency)
        if stored is None or not _in_context(stored, session):
            raise NotFound("no such round", reason="ROUND_NOT_FOUND")
        rnd = restore_stored(self._cards, stored)
        movements = await self._journal.movements(session.player_key, stored.round_id)
        return await self._result(session, stored.round_id, rnd, movements, balance=None,
                                  fair=fairness.view(stored),
                                  fresh_free_bets=stored.free_bet is not None)

    # ------------------------------------------------------------------ commands

    async def deal(self, session: Session, cmd: DealCommand, *,
                   channel: Channel | None = None) -> PlayResult:
        """Take the stakes and deal a new round (``channel``: the edge the Deal came through,
        journalled with the round; not part of the request, so a retry through the other
        edge is the same request)."""
        self.software.admit_new_round()
        check_request_id(cmd.request_id)
        rules, limits = self._rules(session, cmd.variant_id)
        if cmd.forced_cards and not self._test_mode:
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
            pick = self._cards.picker()
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
        async with self._journal.player(session.player_key, first) as pj:
            fingerprint = request_hash("deal", cmd, added=("client_seed", "free_bet_id"))
            state = await _open(pj, first)
            stored = await _stored_response(pj, session, state.request, "deal", fingerprint,
                                            known=state.round)
            if stored is not None:
                return stored
            if self.controls is not None:  # a disabled game deals no new round (no query)
                self.controls.check(session.brand_id, cmd.variant_id)
            await _reconcile(pj, self._wallet, session, state.open_movements)
            if state.round is not None:  # settling outbox rows finishes no round
                raise NotAllowedNow("finish the unfinished round first (GetRound finds it)",
                                    reason="ROUND_IN_PROGRESS")
            grant = await stakes.check(self.free_bets, session, cmd)
            await self.session_rules.before_round(pj, session,
                                                  sum(b.total_stake for b in cmd.boxes))
            round_id = secrets.token_hex(16)
            taken = await stakes.take(pj, self._wallet, _party(session), self.free_bets,
                                      session=session, cmd=cmd, grant=grant, round_id=round_id)
            fair = following = None
            try:
                if fresh is not None:
                    # The seed the session committed to; the commit stores it as the round's
                    # and the next one in its place, atomically with the round.
                    fair, following = fairness.prepare(
                        session, state.next_seed, client_seed=cmd.client_seed,
                        decks=rules.decks, fresh=fresh)
                    source = fairness.source(self._cards, fair)
                rnd = Round.deal(rules, source, cmd.boxes, limits)
            except (EngineError, CardSourceUnavailable) as exc:
                await stakes.give_back(pj, self._wallet, _party(session), self.free_bets,
                                       taken, round_id=round_id, session=session)
                if isinstance(exc, CardSourceUnavailable):
                    raise  # answered UNAVAILABLE by the error table
                raise translate_engine(exc) from exc
            header = replace(_header(session, rnd, round_id=round_id, forced=cmd.forced_cards,
                                     options=self.brand(session).variant_options(
                                         cmd.variant_id)), fair=fair,
                             free_bet=round_free_bet(grant, cmd.boxes[0].seat if grant else 0),
                             channel=channel)
            return await self._commit(pj, session, header, rnd, new_from=0,
                                      balance=taken.balance,
                                      request=(cmd.request_id, "deal", fingerprint),
                                      booked=taken.booked, applied=taken.applied,
                                      references=taken.references, next_seed=following)

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
        async with self._journal.player(session.player_key, first) as pj:
            fingerprint = request_hash("act", cmd)
            state = await _open(pj, first)
            stored_resp = await _stored_response(pj, session, state.request, "act",
                                                 fingerprint, known=state.round)
            if stored_resp is not None:
                return stored_resp
            outbox_was_open = await _reconcile(pj, self._wallet, session, state.open_movements)
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
            rnd = restore_stored(self._cards, stored)
            try:
                rnd.verify(cmd.seat, cmd.hand, cmd.action)
                cost = next((la.cost for la in rnd.legal_actions(cmd.seat, cmd.hand)
                             if la.action is cmd.action), 0)
            except EngineError as exc:
                raise translate_engine(exc) from exc
            booked: tuple[str, ...] = ()
            balance: int | None = None
            debit: Movement | None = None
            if cost > 0:
                debit, balance = await money.debit(pj, self._wallet, _party(session),
                                                   round_id=stored.round_id, step=rnd.seq + 1,
                                                   amount=cost, round_movements=round_movements,
                                                   record_applied=False)
                booked = (debit.transaction_id,)
                round_movements = None  # a debit was written: no longer the round's movements
            new_from = len(rnd.events)
            try:
                rnd.act(cmd.seat, cmd.hand, cmd.action)
            except (EngineError, CardSourceUnavailable) as exc:
                if debit is not None and balance is not None:
                    await money.record(pj, debit, balance)
                    await money.roll_back(pj, self._wallet, _party(session), debit)
                if isinstance(exc, CardSourceUnavailable):
                    raise  # answered UNAVAILABLE / RNG_UNAVAILABLE by the error table
                raise translate_engine(exc) from exc
            header = _header(session, rnd, round_id=stored.round_id,
                             forced=stored.forced_cards, base=stored)
            return await self._commit(pj, session, header, rnd, new_from=new_from,
                                      balance=balance,
                                      request=(cmd.request_id, "act", fingerprint),
                                      booked=booked, round_movements=round_movements,
                                      applied=None if debit is None or balance is None
                                      else {debit.transaction_id: balance},
                                      references=None if debit is None
                                      else {debit.transaction_id: debit.wallet_reference})

    async def settle(self, session: Session, cmd: SettleCommand, *,
                     scope: RequestScope = RequestScope.PLAYER) -> PlayResult:
        """Finish the round on the player's behalf and make sure its win is paid (``scope``:
        whose request id it is; the sweeper's are the server's own)."""
        check_request_id(cmd.request_id)
        async with self._journal.player(session.player_key) as pj:
            fingerprint = request_hash("settle", cmd)
            stored_resp = await _stored_response(
                pj, session, await pj.find_request(cmd.request_id, scope), "settle",
                fingerprint)
            if stored_resp is not None:
                return stored_resp
            stored = await _own_round(pj, session, cmd.round_id)
            await _reconcile(pj, self._wallet, session)
            if not stored.finished:
                await _no_stake_in_doubt(pj, stored.round_id)
            rnd = restore_stored(self._cards, stored)
            new_from = len(rnd.events)
            for _ in range(64):  # a round has far fewer decisions; the bound is a safety net
                if rnd.finished:
                    break
                autoplay(rnd)
            header = _header(session, rnd, round_id=stored.round_id,
                             forced=stored.forced_cards, base=stored)
            return await self._commit(pj, session, header, rnd, new_from=new_from,
                                      balance=None,
                                      request=(cmd.request_id, "settle", fingerprint),
                                      booked=(), already_finished=stored.finished,
                                      scope=scope)

    # ------------------------------------------------------------------ internals

    async def _commit(self, pj: PlayerJournal, session: Session, header: StoredRound,
                      rnd: Round, *, new_from: int, balance: int | None,
                      request: tuple[str, str, str], booked: tuple[str, ...],
                      already_finished: bool = False,
                      scope: RequestScope = RequestScope.PLAYER,
                      round_movements: list[Movement] | None = None,
                      applied: Mapping[str, int] | None = None,
                      next_seed: SessionSeed | None = None,
                      references: Mapping[str, str] | None = None) -> PlayResult:
        """Commit the step atomically, then pay the round's win if it just ended (``applied``,
        ``references`` and ``next_seed``: see :meth:`PlayerJournal.commit_round`)."""
        credit: Movement | None = None
        if rnd.finished and not already_finished:
            credit = await self.free_bets.credit(session, header, rnd.view())
        request_id, method, fingerprint = request
        # The round's stored movements tell a balance when this call moved none (the last one
        # the wallet reported: an Act that moves no money does not ask the wallet), and a win
        # still unpaid when the round had finished before; a round that moved money in this
        # call and was unfinished before has neither to tell.
        movements = ([] if balance is not None and not already_finished
                     else round_movements if round_movements is not None
                     else await pj.movements(header.round_id))
        result = await self._result(session, header.round_id, rnd,
                                    [*movements, *([credit] if credit else [])],
                                    balance=balance, fetch_balance=False,
                                    fair=fairness.view(header),
                                    fresh_free_bets=header.free_bet is not None)
        record = StoredRequest(request_id=request_id, method=method,
                               request_hash=fingerprint, response=encode_value(result),
                               scope=scope)
        # Without a win to pay or a finished round to look after, the commit is the call's
        # last write: the player's journal is given back with it.
        await pj.commit_round(round=header, new_events_from=new_from, request=record,
                              movements=(credit,) if credit else (), booked=booked,
                              last=credit is None and not already_finished, applied=applied,
                              next_seed=next_seed, references=references)
        if credit is None:
            if already_finished:
                # Settle of a finished round: retry its credit if the outbox still has it open.
                await _reconcile(pj, self._wallet, session)
                fresh = await self._result(session, header.round_id, rnd,
                                           await pj.movements(header.round_id), balance=None,
                                           fair=fairness.view(header),
                                           fresh_free_bets=header.free_bet is not None)
                await pj.update_response(request_id, encode_value(fresh), scope)
                return fresh
            return result
        try:
            answer = await money.send(pj, self._wallet, _party(session), credit,
                                      record_applied=False)
        except (NotAllowedNow, Unavailable) as exc:
            # The round is settled in the journal; the credit stays open in the outbox and is
            # retried by Settle or the player's next call. The player is told it is pending.
            log.warning("credit %s not confirmed: %s", credit.transaction_id, exc)
            return result
        paid = replace(result, balance=answer.balance, payment_pending=False)
        # The credit's outcome, the new answer and the journal given back: one write.
        await pj.settle_and_answer(credit.transaction_id, MovementStatus.APPLIED, answer.balance,
                                   request_id=request_id, response=encode_value(paid),
                                   scope=scope, wallet_reference=answer.wallet_reference)
        return paid

    async def _result(self, session: Session, round_id: str, rnd: Round,
                      movements: list[Movement], *, balance: int | None,
                      fetch_balance: bool = True, fair: FairView | None = None,
                      fresh_free_bets: bool = False) -> PlayResult:
        """The answer of a call about a round (``fresh_free_bets``: a free-bet round, whose
        use may have been recorded through another replica, reads the free bets left)."""
        pending = any(m.kind is MoneyKind.CREDIT and m.is_open for m in movements)
        if balance is None and fetch_balance:
            try:
                balance = await self._wallet.balance(_party(session))
            except WalletError as exc:
                log.warning("balance not available: %s", exc)
        if balance is None:
            known = [m.balance_after for m in movements if m.balance_after is not None]
            balance = known[-1] if known else 0
        view = rnd.view()
        brand = self._brands.get(session.brand_id)
        shown = (advice.hints(self.hints, rnd.rules, view)
                 if brand is not None and brand.hints else ())
        return PlayResult(round_id=round_id, view=view, balance=balance,
                          currency=session.currency, payment_pending=pending,
                          fair=fairness.with_dealt(fair, rnd.events), hints=shown,
                          position=await self.session_rules.in_view(session, round_id, rnd),
                          free_bets=await self.free_bets.left(session, fresh=fresh_free_bets))

