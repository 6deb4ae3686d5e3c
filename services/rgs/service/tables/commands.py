"""The players' commands at a shared table: each a plan (checked on the table as read, with the
stakes it debits) and a transition (checked again and applied under the table's lock).
:mod:`~rgs.service.tables.runner` runs them."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from functools import partial

from rgs.rng.fair import FairInputError, check_client_seed
from rgs.service import market_rules
from rgs.service.errors import (
    InvalidRequest,
    NotAllowedNow,
    PermissionDenied,
)
from rgs.service.freebets import FreeBets
from rgs.service.jurisdiction import NONE, JurisdictionProfile
from rgs.service.model import Channel, Session
from rgs.service.ports import CardSourceFactory
from rgs.service.tables import fairness, free_bets, public, seats
from rgs.service.tables.answers import TableAnswer
from rgs.service.tables.bets import check_bet
from rgs.service.tables.free_bets import TableFreeBets
from rgs.service.tables.model import (
    Behind,
    BetCommand,
    Seat,
    SeatBet,
    SeatRelease,
    StoredTable,
    TableConfig,
    TablePhase,
    TableState,
    Who,
)
from rgs.service.tables.money import Funding, TableMoney
from rgs.service.tables.ports import TableLink
from rgs.service.tables.rounds import (
    Rounds,
    player_tag,
    rules_of,
)
from rgs.service.tables.runner import (
    CommandRunner,
    Placing,
    Plan,
    RoundReader,
    who_of,
)
from rgs.service.tables.turns import Applied, Deadline, Step, Turn, Turns, View

log = logging.getLogger(__name__)

Now = Callable[[], datetime]


def _behind(b: BetCommand, who: Who, debit: str, channel: Channel | None, *,
            seat_player: str = "") -> Behind:
    """A Bet Behind as the table keeps it."""
    return Behind(seat=b.seat, who=who, stake=b.stake, follow_double=b.follow_double,
                  follow_split=b.follow_split, insurance=b.insurance, debit=debit,
                  channel=channel, seat_player=seat_player)


def _on_rows(s: TableState, who: Who, bets: Sequence[BetCommand]) -> bool:
    """Whether the bets go on rows of their own: Bet Behinds only, of a player who holds no
    seat here (their placement neither reads nor writes the table's state:
    :mod:`rgs.service.tables.behind`)."""
    return all(b.behind for b in bets) and seats.held_by(s, who.player_key) is None


def _placing(s: TableState, who: Who, bets: Sequence[BetCommand], channel: Channel | None,
             funding: Funding) -> Placing:
    """Bet Behinds to place on rows of their own, with the stakes ``funding`` took, each
    recording the seat's player now."""
    taken = iter(m for _, m in funding.debits)
    placed = tuple(_behind(b, who, next(taken).transaction_id if free_bets.cost(b) else "",
                           channel, seat_player=st.who.player_key if (st := s.seat(b.seat))
                           else "") for b in bets)
    return Placing(round_id=s.round_id, bets=placed,
                   state=replace(s, behind=(*s.behind, *placed)))


class BettingOpener:
    """Opens betting on an idle table: the first bet's own transition, before its stake."""

    def __init__(self, *, turns: Turns, cards: CardSourceFactory, clock: Now) -> None:
        self._turns = turns
        self._cards = cards
        self._clock = clock

    async def __call__(self, link: TableLink, cfg: TableConfig, deadline: Deadline) -> None:
        """Open betting (nothing when another command opened it first)."""
        # Drawn before the turn (an unhealthy RNG refuses here, nothing moved).
        fresh = fairness.fresh_seeds(self._cards.picker())
        rules = rules_of(cfg)

        def opening(view: View) -> Applied | None:
            s = view.state
            if s.phase is not TablePhase.IDLE:
                return None
            # 96 bits: short enough that every money id of the round fits a wallet's 64
            # characters with its player tag, retry number and rollback suffix (the longest is
            # a follow's rollback: see rgs.wallet.port.transaction_id).
            round_id = secrets.token_hex(12)
            # The round takes the table's committed seed and a fresh one is committed for the
            # next round, stored by this transition before either commitment is shown.
            fair, next_seed = fairness.open_round(s, round_no=s.round_no + 1,
                                                  decks=rules.decks, fresh=fresh)
            state = replace(s, phase=TablePhase.BETTING, round_id=round_id,
                            round_no=s.round_no + 1,
                            deadline=self._clock() + timedelta(seconds=cfg.betting_s),
                            fair=fair, next_seed=next_seed)
            return Applied(step=Step(state=state, events=[public.event(
                "betting_opened", round_id=round_id, round_no=state.round_no,
                deadline=state.deadline, fair=fairness.public(fair, revealed=False))]))

        await self._turns.take(link, cfg.id, Turn(apply=opening), deadline)



class TableCommands:
    """TakeSeat, LeaveSeat, PlaceBets and DealNow (Act and DecideInsurance:
    :class:`~rgs.service.tables.decisions.DecisionCommands`)."""

    def __init__(self, *, runner: CommandRunner, money: TableMoney, turns: Turns,
                 rounds: Rounds, cards: CardSourceFactory, clock: Now,
                 test_mode: bool = False,
                 profiles: Mapping[str, JurisdictionProfile] | None = None,
                 free_bets: FreeBets | None = None, behind_rows: bool = True) -> None:
        self._runner = runner
        self._behind_rows = behind_rows  # RGS_TABLE_BEHIND_ROWS: see _on_rows
        self._free_bets = TableFreeBets(free_bets or FreeBets.none(clock))
        #: Each brand's jurisdiction profile (a brand not named: none).
        self._profiles = profiles or {}
        self._money = money
        self._turns = turns
        self._rounds = rounds
        self._cards = cards
        self._clock = clock
        self._test_mode = test_mode

    # ---- seats

    async def take_seat(self, session: Session, cfg: TableConfig, request_id: str,
                        seat: int, *, hints: bool = False) -> TableAnswer:
        """Sit down at a free seat; on the seat the player still holds (back on a new page
        or with a new session), it is theirs again and played with this session."""
        who = who_of(session, cfg.id)

        def check(s: TableState) -> Seat | None:
            if type(seat) is not int or not 1 <= seat <= cfg.seats:
                raise InvalidRequest(f"seat must be 1..{cfg.seats}", reason="INVALID_SEAT",
                                     field="seat")
            mine = seats.held_by(s, who.player_key)
            if mine is not None:
                if mine.seat != seat:
                    raise NotAllowedNow(f"you hold seat {mine.seat} at this table; leave it "
                                        "before you take another", reason="ALREADY_SEATED")
                return mine
            if s.seat(seat) is not None:
                raise NotAllowedNow(f"seat {seat} is taken; pick a free one",
                                    reason="SEAT_TAKEN")
            if any(b.seat == seat and b.who.player_key == who.player_key for b in s.behind):
                # Else betting would close on a seat bet behind by its own player.
                raise NotAllowedNow(f"your Bet Behind is on seat {seat} this round: take "
                                    "another seat, or this one after the round",
                                    reason="BET_BEHIND_OWN_SEAT")
            return None

        def apply(view: View, _f: Funding) -> Step:
            s = view.state
            mine = check(s)
            if mine is not None:  # back: the runner marks it seen, with this session
                return Step(state=replace(s, seats=tuple(
                    replace(x, leaving=False) if x.seat == seat else x for x in s.seats)))
            state = replace(s, seats=tuple(sorted((*s.seats, Seat(seat=seat, who=who)),
                                                  key=lambda x: x.seat)))
            return Step(state=state, events=[public.event(
                "seat_taken", seat=seat, player=public.player(cfg.id, who))])

        async def plan(cfg: TableConfig, t: StoredTable, _r: RoundReader) -> Plan:
            check(t.state)
            return Plan(apply=apply)

        return await self._runner.run(session, cfg, request_id=request_id, method="take_seat",
                                      cmd=(seat,), plan=plan, hints=hints)

    async def leave_seat(self, session: Session, cfg: TableConfig, request_id: str,
                         seat: int, *, hints: bool = False) -> TableAnswer:
        """Give the seat back; with a bet of the player's on it in play, when the round ends
        (the bet plays on: an undecided hand stands when its time runs out)."""
        who = who_of(session, cfg.id)

        def check(s: TableState) -> None:
            taken = s.seat(seat)
            if taken is None or taken.who.player_key != who.player_key:
                raise NotAllowedNow(f"seat {seat} is not yours", reason="NOT_YOUR_SEAT")

        def apply(view: View, _f: Funding) -> Step:
            s = view.state
            check(s)
            step = Step(state=s)
            if seats.bet_in_play(s, seat):
                step.state = replace(s, seats=tuple(replace(x, leaving=True) if x.seat == seat
                                                    else x for x in s.seats))
                return step
            step.state = seats.release(cfg, s, {seat: SeatRelease.LEFT}, step)
            return step

        async def plan(cfg: TableConfig, t: StoredTable, _r: RoundReader) -> Plan:
            check(t.state)
            return Plan(apply=apply)

        return await self._runner.run(session, cfg, request_id=request_id,
                                      method="leave_seat", cmd=(seat,), plan=plan, hints=hints)

    # ---- bets

    async def place_bets(self, session: Session, cfg: TableConfig, request_id: str,
                         bets: Sequence[BetCommand], client_seed: str = "", *,
                         hints: bool = False, channel: Channel | None = None) -> TableAnswer:
        """Bets on the caller's seat and behind others'; ``client_seed`` goes with the bet on
        the caller's own seat (its share of the round's client seed, provably fair rounds).
        ``channel``: the edge the bets came through, kept with them for the round's record
        (not part of the request: a retry through the other edge is the same request)."""
        who = who_of(session, cfg.id)
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
        rules = rules_of(cfg)

        def check(s: TableState) -> None:
            seen: set[tuple[int, bool]] = set()
            for b in bets:
                check_bet(cfg, rules, s, who, b)
                if (b.seat, b.behind) in seen:
                    raise InvalidRequest(f"two bets on seat {b.seat}", reason="INVALID_BET")
                seen.add((b.seat, b.behind))
            free_bets.check_bets(s, who, bets)

        funded: list[str] = []  # the round the stakes were taken for

        def apply(view: View, funding: Funding) -> Step:
            s = view.state
            debits = [m for _, m in funding.debits]
            if s.phase is not TablePhase.BETTING or (funded and s.round_id != funded[0]):
                raise NotAllowedNow("betting closed before your bet reached the table; bet on "
                                    "the next round", reason="BETTING_CLOSED")
            check(s)
            step = Step(state=s)
            state = s
            step.booked = funding.booked()
            taken = iter(debits)
            for b in bets:
                debit = next(taken).transaction_id if free_bets.cost(b) else ""
                if b.behind:
                    state = replace(state, behind=(*state.behind, _behind(b, who, debit,
                                                                          channel)))
                    step.events.append(public.event(
                        "behind_placed", seat=b.seat, player=public.player(cfg.id, who),
                        stake=b.stake,
                        follow_double=b.follow_double, follow_split=b.follow_split,
                        insurance=b.insurance.value))
                else:
                    sb = free_bets.seat_bet(b, client_seed)
                    state = replace(state, bets=tuple(sorted(
                        (*state.bets, replace(sb, debit=debit, channel=channel)),
                        key=lambda x: x.seat)))
                    step.events.append(public.event(
                        "bet_placed", seat=b.seat, player=public.player(cfg.id, who), stake=b.stake,
                        perfect_pairs=b.perfect_pairs,
                        twenty_one_plus_three=b.twenty_one_plus_three,
                        twenty_plus=b.twenty_plus, client_seed=client_seed))
            step.state = state
            return step

        async def plan(cfg: TableConfig, t: StoredTable, _r: RoundReader) -> Plan:
            s = t.state
            if s.phase not in (TablePhase.IDLE, TablePhase.BETTING):
                raise NotAllowedNow("betting is closed; bet on the next round",
                                    reason="BETTING_CLOSED")
            if s.phase is TablePhase.IDLE:
                check(replace(s, phase=TablePhase.BETTING))
                return Plan(apply=apply, keys=(who.player_key,), opens_betting=True)
            check(s)
            async def fund(funding: Funding) -> None:
                # The market's rules, in the player's journal before any stake is taken.
                await market_rules.before_round(
                    funding.held[who.player_key].journal, session,
                    self._profiles.get(session.brand_id, NONE),
                    stake=sum(b.stake if b.behind else free_bets.seat_bet(b, client_seed).total
                              for b in bets), now=self._clock(), table_round=s.round_id)
                funded.append(s.round_id)
                await self._free_bets.take(session, cfg, funding, round_id=s.round_id,
                                           bets=bets)
                for b in bets:
                    tag = (f"bh{b.seat}x{player_tag(who.player_key)}" if b.behind
                           else f"seat{b.seat}")
                    if free_bets.cost(b):
                        await self._money.debit(cfg, funding, who, round_id=s.round_id,
                                                tag=tag, amount=free_bets.cost(b))
                if not funding.debits:  # a free bet alone: the balance as it is
                    await self._money.read_balance(cfg, funding, who)

            return Plan(apply=apply, keys=(who.player_key,), fund=fund,
                        place=partial(_placing, s, who, bets, channel)
                        if self._behind_rows and _on_rows(s, who, bets) else None)

        return await self._runner.run(session, cfg, request_id=request_id, method="place_bets",
                                      cmd=(bets, client_seed) if client_seed else bets,
                                      plan=plan, hints=hints)

    async def deal_now(self, session: Session, cfg: TableConfig, request_id: str,
                       forced_cards: tuple[str, ...] = (), *,
                       hints: bool = False) -> TableAnswer:
        """The player is ready: once every seated player who bet pressed it, betting closes."""
        who = who_of(session, cfg.id)
        if forced_cards and not self._test_mode:
            raise PermissionDenied("forced cards are accepted in test mode only",
                                   reason="FORCED_CARDS_NOT_ALLOWED")

        def mine(s: TableState) -> list[SeatBet]:
            out = [b for b in s.bets if (st := s.seat(b.seat)) is not None
                   and st.who.player_key == who.player_key]
            if s.phase is not TablePhase.BETTING:
                raise NotAllowedNow("betting is not open: Deal Now closes it early while it is",
                                    reason="BETTING_CLOSED")
            if not out:
                raise NotAllowedNow("Deal Now is for a player with a bet on their own seat; a "
                                    "Bet Behind is dealt with the seat it is on",
                                    reason="NO_SEAT_BET")
            return out

        def apply(view: View, _f: Funding) -> Step:
            s = view.state
            own = mine(s)
            bets = tuple(replace(b, deal_now=True) if b in own else b for b in s.bets)
            state = replace(s, bets=bets, forced=forced_cards or s.forced)
            events = [public.event("deal_now", seat=b.seat, player=public.player(cfg.id, who))
                      for b in own]
            if all(b.deal_now for b in bets):
                # Never sooner than the least time between round starts (RTS 14G): betting
                # opened betting_s before its deadline, after the last round had started.
                earliest = (s.deadline - timedelta(seconds=cfg.betting_s)
                            + timedelta(seconds=cfg.min_round_interval_s)
                            if s.deadline is not None and cfg.min_round_interval_s else None)
                now = self._clock()
                state = replace(state, deadline=max(now, earliest) if earliest else now)
                events.append(public.event("betting_closing", reason="deal_now"))
            return Step(state=state, events=events)

        async def plan(cfg: TableConfig, t: StoredTable, _r: RoundReader) -> Plan:
            mine(t.state)
            return Plan(apply=apply)

        return await self._runner.run(session, cfg, request_id=request_id, method="deal_now",
                                      cmd=forced_cards, plan=plan, hints=hints)
