"""The shared tables' use cases: the players' commands and the transitions the table clock
drives (betting close, insurance close, a decision's time-out).

Every transition is one journal transaction with a compare-and-set on the table's version
(:class:`~rgs.service.tables.ports.TableCommit`); a clock-driven one also checks the clock's
lease epoch. Money stays each player's own: a stake is debited from the player's operator's
wallet when it is placed (under that player's journal, with the solo rounds' outbox,
:mod:`rgs.service.money`) and booked by the transition that records the bet; a Bet Behind on a
seat that sits the round out is refunded at once (a rollback of its debit); the settlement
writes one credit per player in the transition that ends the round and pays them after the
commit (the reconciler of any replica retries what is not confirmed).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from datetime import timedelta

from rgs.engine import (
    Action,
    EngineError,
    RuleSet,
    SideBetKind,
)
from rgs.rng.fair import FairInputError, check_client_seed
from rgs.service import money
from rgs.service.common import translate_engine
from rgs.service.errors import (
    Busy,
    InvalidRequest,
    NotAllowedNow,
    PermissionDenied,
    Unavailable,
)
from rgs.service.model import Session
from rgs.service.ports import (
    CardSourceUnavailable,
    JournalBusy,
)
from rgs.service.tables import fairness, public
from rgs.service.tables.core import _RETRIES, _h, _Step, _who
from rgs.service.tables.model import (
    Behind,
    BehindInsurance,
    BetCommand,
    InsuranceChoice,
    Seat,
    SeatBet,
    StoredTable,
    TableAct,
    TableAnswer,
    TableConfig,
    TablePhase,
    TableState,
    Who,
)
from rgs.service.tables.ports import (
    HeldPlayer,
    TableConflict,
)
from rgs.service.tables.transitions import ClockTransitions
from rgs.wallet.port import Party

log = logging.getLogger(__name__)


class TableService(ClockTransitions):
    """Shared tables: commands from players (any replica) and the clock's transitions."""

    async def take_seat(self, session: Session, table_id: str, request_id: str,
                        seat: int, *, hints: bool = False) -> TableAnswer:
        who = _who(session)

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            if type(seat) is not int or not 1 <= seat <= cfg.seats:
                raise InvalidRequest(f"seat must be 1..{cfg.seats}", reason="INVALID_SEAT",
                                     field="seat")
            if any(x.who.player_key == who.player_key for x in s.seats):
                raise NotAllowedNow("you already have a seat at this table",
                                    reason="ALREADY_SEATED")
            if s.seat(seat) is not None:
                raise NotAllowedNow(f"seat {seat} is taken; pick a free one",
                                    reason="SEAT_TAKEN")
            state = replace(s, seats=tuple(sorted((*s.seats, Seat(seat=seat, who=who)),
                                                  key=lambda x: x.seat)))
            return _Step(state=state, events=[public.event(
                "seat_taken", seat=seat, player_id=who.player_id)]), ()

        return await self._command(session, table_id, request_id=request_id,
                                   method="take_seat", cmd=(seat,), build=build, hints=hints)

    async def leave_seat(self, session: Session, table_id: str, request_id: str,
                         seat: int, *, hints: bool = False) -> TableAnswer:
        who = _who(session)

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            taken = s.seat(seat)
            if taken is None or taken.who.player_key != who.player_key:
                raise NotAllowedNow(f"seat {seat} is not yours", reason="NOT_YOUR_SEAT")
            if s.bet(seat) is not None:
                raise NotAllowedNow("your bet on this seat is in play; leave after the round",
                                    reason="BET_IN_PLAY")
            state = replace(s, seats=tuple(x for x in s.seats if x.seat != seat))
            return _Step(state=state, events=[public.event(
                "seat_left", seat=seat, player_id=who.player_id)]), ()

        return await self._command(session, table_id, request_id=request_id,
                                   method="leave_seat", cmd=(seat,), build=build,
                                   hints=hints)

    # ---- bets

    async def place_bets(self, session: Session, table_id: str, request_id: str,
                         bets: Sequence[BetCommand], client_seed: str = "", *,
                         hints: bool = False) -> TableAnswer:
        """Bets on the caller's seat and behind others'; ``client_seed`` goes with the bet on
        the caller's own seat (its share of the round's client seed, provably fair rounds)."""
        who = _who(session)
        bets = tuple(bets)
        if not bets:
            raise InvalidRequest("place at least one bet", reason="INVALID_BET", field="bets")
        try:
            check_client_seed(client_seed)
        except FairInputError as exc:
            raise InvalidRequest(f"client_seed: {exc}", reason="INVALID_CLIENT_SEED",
                                 field="client_seed") from exc
        if client_seed and all(b.behind for b in bets):
            raise InvalidRequest("a client seed goes with a bet on your own seat (a Bet Behind "
                                 "adds none)", reason="INVALID_CLIENT_SEED", field="client_seed")

        async def build(cfg: TableConfig, t: StoredTable, with_money: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            if s.phase not in (TablePhase.IDLE, TablePhase.BETTING):
                raise NotAllowedNow("betting is closed; bet on the next round",
                                    reason="BETTING_CLOSED")
            rules = self._rules(cfg)
            state = s
            events: list[tuple[str, str]] = []
            if s.phase is TablePhase.IDLE:
                # 96 bits: short enough that every money id of the round fits a wallet's 64
                # characters with its player tag, retry number and rollback suffix (the longest
                # is a follow's rollback: see rgs.wallet.port.transaction_id).
                round_id = secrets.token_hex(12)
                # The round takes the table's committed seed and a fresh one is committed for
                # the next round, stored by this transition before either commitment is shown
                # (drawn before any money moves: an unhealthy RNG refuses here).
                fair, next_seed = fairness.open_round(
                    s, round_no=s.round_no + 1, decks=rules.decks,
                    fresh=fairness.fresh_seeds(self._cards.picker()))
                state = replace(s, phase=TablePhase.BETTING, round_id=round_id,
                                round_no=s.round_no + 1,
                                deadline=self._clock() + timedelta(seconds=cfg.betting_s),
                                fair=fair, next_seed=next_seed)
                events.append(public.event("betting_opened", round_id=round_id,
                                           round_no=state.round_no,
                                           deadline=state.deadline,
                                           fair=fairness.public(fair, revealed=False)))
            seen: set[tuple[int, bool]] = set()
            for b in bets:
                self._check_bet(cfg, rules, state, who, b)
                if (b.seat, b.behind) in seen:
                    raise InvalidRequest(f"two bets on seat {b.seat}", reason="INVALID_BET")
                seen.add((b.seat, b.behind))
            step = _Step(state=state, events=events)
            return step, (who.player_key,)

        async def funded(cfg: TableConfig, t: StoredTable, held: Mapping[str, HeldPlayer],
                         step: _Step) -> _Step:
            state = step.state
            for b in bets:
                if b.behind:
                    tag = f"bh{b.seat}x{_h(who.player_key)}"
                    m = await self._debit(cfg, step, held, who, round_id=state.round_id,
                                   tag=tag, amount=b.stake)
                    state = replace(state, behind=(*state.behind, Behind(
                        seat=b.seat, who=who, stake=b.stake, follow_double=b.follow_double,
                        follow_split=b.follow_split, insurance=b.insurance,
                        debit=m.transaction_id)))
                    step.events.append(public.event(
                        "behind_placed", seat=b.seat, player_id=who.player_id, stake=b.stake,
                        follow_double=b.follow_double, follow_split=b.follow_split,
                        insurance=b.insurance.value))
                else:
                    sb = SeatBet(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                                 twenty_one_plus_three=b.twenty_one_plus_three,
                                 twenty_plus=b.twenty_plus, client_seed=client_seed)
                    m = await self._debit(cfg, step, held, who, round_id=state.round_id,
                                   tag=f"seat{b.seat}", amount=sb.total)
                    state = replace(state, bets=tuple(sorted(
                        (*state.bets, replace(sb, debit=m.transaction_id)),
                        key=lambda x: x.seat)))
                    step.events.append(public.event(
                        "bet_placed", seat=b.seat, player_id=who.player_id, stake=b.stake,
                        perfect_pairs=b.perfect_pairs,
                        twenty_one_plus_three=b.twenty_one_plus_three,
                        twenty_plus=b.twenty_plus, client_seed=client_seed))
            step.state = state
            return step

        return await self._money_command(session, table_id, request_id=request_id,
                                         method="place_bets",
                                         cmd=(bets, client_seed) if client_seed else bets,
                                         build=build, funded=funded, hints=hints)

    def _check_bet(self, cfg: TableConfig, rules: RuleSet, s: TableState, who: Who,
                   b: BetCommand) -> None:
        lim = cfg.limits
        for name, amount in (("stake", b.stake), ("perfect_pairs", b.perfect_pairs),
                             ("twenty_one_plus_three", b.twenty_one_plus_three),
                             ("twenty_plus", b.twenty_plus)):
            if type(amount) is not int or amount < 0:
                raise InvalidRequest(f"{name} must be a non-negative integer of minor units",
                                     reason="INVALID_BET", field=name)
        if not lim.main_min <= b.stake <= lim.main_max:
            raise NotAllowedNow(f"seat {b.seat}: stake {b.stake} is outside the table limits "
                                f"{lim.main_min}..{lim.main_max}", reason="STAKE_OUT_OF_LIMITS")
        seat = s.seat(b.seat)
        if b.behind:
            if rules.bet_behind is False:
                raise NotAllowedNow(f"table {cfg.id} has no Bet Behind", reason="INVALID_BET")
            if b.perfect_pairs or b.twenty_one_plus_three or b.twenty_plus:
                raise InvalidRequest("a Bet Behind has no side bets", reason="INVALID_BET")
            if seat is None:
                raise NotAllowedNow(f"nobody sits at seat {b.seat}", reason="SEAT_EMPTY")
            if seat.who.player_key == who.player_key:
                raise NotAllowedNow("a Bet Behind goes on another player's seat, never your "
                                    "own", reason="BET_BEHIND_OWN_SEAT")
            if any(x.seat == b.seat and x.who.player_key == who.player_key
                   for x in s.behind):
                raise NotAllowedNow(f"you already bet behind seat {b.seat}",
                                    reason="ALREADY_BET")
            return
        if seat is None or seat.who.player_key != who.player_key:
            raise NotAllowedNow(f"seat {b.seat} is not yours; take a seat first",
                                reason="NOT_YOUR_SEAT")
        if s.bet(b.seat) is not None:
            raise NotAllowedNow(f"seat {b.seat} already has its bet for this round",
                                reason="ALREADY_BET")
        offered = rules.side_bets
        for kind, amount in ((SideBetKind.PERFECT_PAIRS, b.perfect_pairs),
                             (SideBetKind.TWENTY_ONE_PLUS_THREE, b.twenty_one_plus_three),
                             (SideBetKind.TWENTY_PLUS, b.twenty_plus)):
            if not amount:
                continue
            if kind not in offered:
                raise NotAllowedNow(f"table {cfg.id} does not offer {kind.value}",
                                    reason="INVALID_BET")
            if not lim.side_min <= amount <= lim.side_max:
                raise NotAllowedNow(f"{kind.value} {amount} is outside the table limits "
                                    f"{lim.side_min}..{lim.side_max}",
                                    reason="STAKE_OUT_OF_LIMITS")

    async def _money_command(self, session: Session, table_id: str, *, request_id: str,
                             method: str, cmd: object,
                             build: Callable[..., Awaitable[tuple[_Step, Sequence[str]]]],
                             funded: Callable[..., Awaitable[_Step]],
                             hints: bool = False) -> TableAnswer:
        """A command that moves money: checked first without, then again under the journals
        of the players it debits; debits, then one commit that books them."""
        cfg, fingerprint = self._admitted(session, table_id, request_id, method, cmd)
        for _ in range(_RETRIES):
            answered = await self._answered(table_id, session.player_key, request_id,
                                            method, fingerprint, hints=hints)
            if answered is not None:
                return answered
            t = await self._load(table_id)
            step, keys = await build(cfg, t, None)
            try:
                async with self._tables.hold_players(keys) as held:
                    # Under the players' journals: settle their open outbox rows first, and
                    # answer a duplicate that committed meanwhile from its record.
                    for hp in held.values():
                        rows = await hp.journal.open_movements()
                        if rows:
                            # Each row carries its own brand, session and currency; the
                            # wallet knows the player by the key's operator and player ids.
                            operator_id, _, player_id = hp.key.partition("/")
                            await money.reconcile(hp.journal, self._wallet, Party(
                                operator_id=operator_id, brand_id=rows[0].brand_id,
                                player_id=player_id, session_id=rows[0].session_id,
                                currency=rows[0].currency), rows)
                    if await self._tables.find_request(table_id, session.player_key,
                                                       request_id) is not None:
                        continue
                    step = await funded(cfg, t, held, step)
                    return await self._commit_step(session, cfg, t, step, held,
                                                   request_id=request_id, method=method,
                                                   fingerprint=fingerprint, hints=hints)
            except TableConflict:
                continue
            except JournalBusy as exc:
                raise Busy("your journal is busy with another call; retry",
                           reason="REQUEST_IN_PROGRESS") from exc
        raise Busy("the table is busy; retry", reason="REQUEST_IN_PROGRESS")

    async def deal_now(self, session: Session, table_id: str, request_id: str,
                       forced_cards: tuple[str, ...] = (), *,
                       hints: bool = False) -> TableAnswer:
        """The player is ready: once every seated player who bet pressed it, betting closes."""
        who = _who(session)
        if forced_cards and not self._test_mode:
            raise PermissionDenied("forced cards are accepted in test mode only",
                                   reason="FORCED_CARDS_NOT_ALLOWED")

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            mine = [b for b in s.bets
                    if (st := s.seat(b.seat)) is not None and st.who.player_key == who.player_key]
            if s.phase is not TablePhase.BETTING or not mine:
                raise NotAllowedNow("Deal Now is for a seated player who has bet, while "
                                    "betting is open", reason="BETTING_CLOSED")
            bets = tuple(replace(b, deal_now=True) if b in mine else b for b in s.bets)
            state = replace(s, bets=bets, forced=forced_cards or s.forced)
            events = [public.event("deal_now", seat=b.seat, player_id=who.player_id)
                      for b in mine]
            if all(b.deal_now for b in bets):
                state = replace(state, deadline=self._clock())
                events.append(public.event("betting_closing", reason="deal_now"))
            return _Step(state=state, events=events), ()

        return await self._command(session, table_id, request_id=request_id,
                                   method="deal_now", cmd=forced_cards, build=build,
                                   hints=hints)

    # ---- decisions

    async def act(self, session: Session, table_id: str, request_id: str,
                  cmd: TableAct, *, hints: bool = False) -> TableAnswer:
        who = _who(session)

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            if s.phase is not TablePhase.PLAYING or s.round_id != cmd.round_id:
                raise NotAllowedNow("no decision of this round is awaited now",
                                    reason="WRONG_PHASE")
            seat = s.seat(cmd.seat)
            if seat is None or seat.who.player_key != who.player_key:
                raise NotAllowedNow(f"seat {cmd.seat} is not yours", reason="NOT_YOUR_SEAT")
            keys = [who.player_key, *(b.who.player_key for b in s.behind
                                      if b.seat == cmd.seat and self._follows(b, cmd.action))]
            return _Step(state=s), keys

        async def funded(cfg: TableConfig, t: StoredTable, held: Mapping[str, HeldPlayer],
                         step: _Step) -> _Step:
            s = t.state
            rnd = await self._round(cfg, s)
            assert rnd is not None
            try:
                rnd.verify(cmd.seat, cmd.hand, cmd.action)
                cost = next((la.cost for la in rnd.legal_actions(cmd.seat, cmd.hand)
                             if la.action is cmd.action), 0)
            except EngineError as exc:
                raise translate_engine(exc) from exc
            tag = f"a{rnd.seq + 1}"
            if cost:
                await self._debit(cfg, step, held, who, round_id=s.round_id,
                                   tag=tag, amount=cost)
            unfunded: set[str] = set()
            if cmd.hand == 0:
                for b in s.behind:
                    if b.seat != cmd.seat or not self._follows(b, cmd.action):
                        continue
                    try:
                        await self._debit(cfg, step, held, b.who, round_id=s.round_id,
                                   tag=f"{tag}x{_h(b.who.player_key)}", amount=b.stake)
                    except (NotAllowedNow, Unavailable) as exc:
                        log.info("Bet Behind of %s does not follow: %s", b.who.player_id, exc)
                        unfunded.add(b.who.player_key)
            start = len(rnd.events)
            try:
                rnd.act(cmd.seat, cmd.hand, cmd.action, unfunded=frozenset(unfunded))
            except (EngineError, CardSourceUnavailable) as exc:
                await self._undo(cfg, step, held)
                step.debits.clear()
                if isinstance(exc, CardSourceUnavailable):
                    raise
                raise translate_engine(exc) from exc
            self._after_play(cfg, s, rnd, start, step)
            return step

        return await self._money_command(session, table_id, request_id=request_id, method="act",
                                         cmd=cmd, build=build, funded=funded, hints=hints)

    async def decide_insurance(self, session: Session, table_id: str, request_id: str, *,
                               round_id: str, seat: int, take: bool,
                               behind: bool, hints: bool = False) -> TableAnswer:
        """A seat player's insurance decision, or a Bet Behind player's live one (preset
        ``ask``), while insurance is open; applied when it closes."""
        who = _who(session)
        player = who.player_key if behind else ""

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            if s.phase is not TablePhase.INSURANCE or s.round_id != round_id:
                raise NotAllowedNow("insurance is not open", reason="WRONG_PHASE")
            if behind:
                mine = next((b for b in s.behind if b.seat == seat
                             and b.who.player_key == who.player_key), None)
                if mine is None or mine.insurance is not BehindInsurance.ASK:
                    raise NotAllowedNow("you have no Bet Behind on this seat that asks for "
                                        "insurance", reason="NOT_YOUR_SEAT")
            else:
                st = s.seat(seat)
                if st is None or st.who.player_key != who.player_key:
                    raise NotAllowedNow(f"seat {seat} is not yours", reason="NOT_YOUR_SEAT")
            if any(c.seat == seat and c.player == player for c in s.insurance):
                raise NotAllowedNow("insurance is already decided", reason="ACTION_NOT_ALLOWED")
            return _Step(state=s), (who.player_key,) if take else ()

        async def funded(cfg: TableConfig, t: StoredTable, held: Mapping[str, HeldPlayer],
                         step: _Step) -> _Step:
            s = t.state
            rnd = await self._round(cfg, s)
            assert rnd is not None
            view = next((b for b in rnd.view().boxes if b.seat == seat), None)
            if view is None:
                raise NotAllowedNow(f"seat {seat} has no box in this round",
                                    reason="NOT_YOUR_SEAT")
            debit = ""
            if behind:
                reason = rnd.behind_insurance_refusal(seat, who.player_key)
                if reason is not None:
                    raise NotAllowedNow(reason, reason="ACTION_NOT_ALLOWED")
                stake = next(b.stake for b in s.behind
                             if b.seat == seat and b.who.player_key == who.player_key)
                cost = stake // 2
            else:
                if not view.insurance_allowed:
                    raise NotAllowedNow(f"seat {seat} is not offered insurance",
                                        reason="ACTION_NOT_ALLOWED")
                cost = next(la.cost for la in view.insurance_allowed
                            if la.action is Action.INSURE)
            if take and held:
                tag = f"ins{seat}" + (f"x{_h(who.player_key)}" if behind else "")
                debit = (await self._debit(cfg, step, held, who, round_id=s.round_id,
                                   tag=tag, amount=cost)).transaction_id
            state = replace(s, insurance=(*s.insurance, InsuranceChoice(
                seat=seat, player=player, take=take, debit=debit)))
            step.events.append(public.event("insurance_decided", seat=seat,
                                            player_id=who.player_id, behind=behind,
                                            take=take))
            if self._insurance_complete(state, rnd):
                state = replace(state, deadline=self._clock())
            step.state = state
            return step

        return await self._money_command(session, table_id, request_id=request_id,
                                         method="insurance",
                                         cmd=(round_id, seat, take, behind), build=build,
                                         funded=funded, hints=hints)
