"""The transitions a shared table's clock drives: betting close (the deal), insurance close
and a decision's time-out. Only the holder of the table's lease runs them, and every write
checks its epoch; each is computed under the table's lock from the table as it is, and does
nothing when a player's command got there first (the deadline moved, the round went on)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from rgs.engine import Action, BehindBet, BoxBet, EngineError, Round
from rgs.engine.timeout import timeout_decision
from rgs.service import money
from rgs.service.errors import NotAllowedNow, NotFound, Unavailable
from rgs.service.model import Movement
from rgs.service.ports import CardSourceFactory, CardSourceUnavailable
from rgs.service.restore import deal_source
from rgs.service.tables import announce, behind, fairness, public, seats
from rgs.service.tables.model import (
    Behind,
    BehindInsurance,
    TableConfig,
    TableFair,
    TablePhase,
    TableState,
)
from rgs.service.tables.money import Funding, TableMoney
from rgs.service.tables.ports import RoundRecord, TableJournal
from rgs.service.tables.rounds import Rounds, after_play, player_tag, rules_of
from rgs.service.tables.turns import Applied, Deadline, Step, Turn, Turns, View
from rgs.wallet.port import MoneyKind

log = logging.getLogger(__name__)

#: How often the clock looks for seats to give back, per table (seconds).
IDLE_CHECK_S = 1.0

Now = Callable[[], datetime]


def _undealt(cfg: TableConfig, s: TableState, fair: TableFair | None,
             status: str) -> RoundRecord:
    """The record of a round that ends at betting close without a card: every stake returned
    (its recall shows them with its players' movements)."""
    return RoundRecord(round_id=s.round_id, round_no=s.round_no, variant=cfg.variant,
                       status=status, events=(), table_id=cfg.id, fair=fair,
                       names=tuple(sorted(public.names(cfg.id, s).items())))


class ClockTransitions:
    """The clock's transitions of the shared tables."""

    def __init__(self, *, tables: TableJournal, money: TableMoney, turns: Turns,
                 rounds: Rounds, cards: CardSourceFactory, clock: Now,
                 limit_s: float) -> None:
        self._tables = tables
        self._money = money
        self._turns = turns
        self._rounds = rounds
        self._cards = cards
        self._clock = clock
        self._limit_s = limit_s
        #: table id -> when its seats were last looked at (time.monotonic()).
        self._idle_checked: dict[str, float] = {}

    async def tick(self, cfg: TableConfig, epoch: int) -> bool:
        """Fire the table's deadline if it is due, and give back the seats of players gone
        away (the clock's holder only: every write checks ``epoch``). True when a transition
        was committed."""
        t = await self._tables.load(cfg.id)
        if t is None:
            raise NotFound("no such table", reason="TABLE_NOT_FOUND")
        if t.state.seats and await self._release_idle(cfg, t.state, epoch):
            return True
        s = t.state
        if s.deadline is None or s.deadline > self._clock():
            return False
        if s.phase not in (TablePhase.BETTING, TablePhase.INSURANCE, TablePhase.PLAYING):
            return False
        always = ([b for b in s.behind if b.insurance is BehindInsurance.ALWAYS]
                  if s.phase is TablePhase.INSURANCE else [])
        deadline = Deadline(self._limit_s)
        async with self._tables.link(deadline.left()) as link:
            async with link.hold_players([b.who.player_key for b in always],
                                         waiting=()) as held:
                funding = Funding(held=held)
                if always:
                    await self._money.reconcile_held(held)
                    await self._insure_always(cfg, s, always, funding)

                def apply(view: View) -> Applied | None:
                    step = self._transition(cfg, view, s, funding)
                    return None if step is None else Applied(step=step)

                turn = Turn(apply=apply, clock=epoch,
                            players=[(k, h.epoch) for k, h in held.items()])
                try:
                    applied = await self._turns.take(link, cfg.id, turn, deadline)
                except BaseException:
                    if funding.debits:
                        await self._money.undo(cfg, funding)
                    raise
                if applied is None:
                    if funding.debits:
                        await self._money.undo(cfg, funding)
                    return False
                await self._money.pay_held(applied.step.movements, held)
            self._money.pay_later([(k, m) for k, m in applied.step.movements if k not in held])
        return True

    async def _release_idle(self, cfg: TableConfig, seen: TableState, epoch: int) -> bool:
        """Give back the seats whose players are away or whose sessions expired (looked at
        about once a second per table). True when a transition was committed."""
        now = time.monotonic()
        if now - self._idle_checked.get(cfg.id, 0.0) < IDLE_CHECK_S:
            return False
        self._idle_checked[cfg.id] = now
        watching = await self._tables.watching(cfg.id)
        if not seats.idle_seats(cfg, seen, watching, self._clock()):
            return False

        def apply(view: View) -> Applied | None:
            gone = seats.idle_seats(cfg, view.state, watching, self._clock())
            if not gone:
                return None
            step = Step(state=view.state)
            step.state = seats.release(cfg, view.state, gone, step)
            return Applied(step=step)

        deadline = Deadline(self._limit_s)
        async with self._tables.link(deadline.left()) as link:
            applied = await self._turns.take(link, cfg.id, Turn(apply=apply, clock=epoch),
                                             deadline)
        if applied is None:
            return False
        self._money.pay_later(list(applied.step.movements))  # Bet Behinds returned
        return True

    async def _insure_always(self, cfg: TableConfig, s: TableState, always: list[Behind],
                             funding: Funding) -> None:
        """The insurance of every Bet Behind preset ``always`` whose player's journal could be
        held and whose wallet pays it."""
        rec = await self._tables.get_round(s.round_id)
        rnd = self._rounds.current(cfg, s, rec)
        assert rnd is not None
        for b in always:
            if (b.who.player_key not in funding.held
                    or rnd.behind_insurance_refusal(b.seat, b.who.player_key) is not None):
                continue
            try:
                await self._money.debit(
                    cfg, funding, b.who, round_id=s.round_id, caller=False,
                    tag=f"ins{b.seat}x{player_tag(b.who.player_key)}", amount=b.stake // 2)
            except (NotAllowedNow, Unavailable) as exc:
                log.info("Bet Behind insurance of %s not funded: %s", b.who.player_id, exc)

    def _transition(self, cfg: TableConfig, view: View, seen: TableState,
                    funding: Funding) -> Step | None:
        s = view.state
        now = self._clock()
        if (s.phase is not seen.phase or s.round_id != seen.round_id or s.deadline is None
                or s.deadline > now):
            return None  # a command moved the table meanwhile: look again on the next pass
        if s.phase is TablePhase.BETTING:
            return self._close_betting(cfg, s, now)
        rnd = self._rounds.current(cfg, s, view.round)
        assert rnd is not None
        if s.phase is TablePhase.INSURANCE:
            return self._close_insurance(cfg, s, rnd, funding, now)
        return self._time_out(cfg, s, rnd, now)

    def _close_betting(self, cfg: TableConfig, s: TableState, now: datetime) -> Step:
        step = Step(state=s)
        betting = {b.seat for b in s.bets}
        sitting = {x.seat: x.who.player_key for x in s.seats}
        kept = []
        for b in s.behind:
            # (A Bet Behind on a row of its own whose seat changed hands while it was placed
            # is returned: it follows the player it was placed behind, not the chair.)
            followed = behind.on_its_seat(b, sitting.get(b.seat))
            if b.seat in betting and followed:
                kept.append(b)
                continue
            step.movements.append((b.who.player_key, seats.refund_behind(b, cfg, s.round_id)))
            step.events.append(public.event("behind_refunded", seat=b.seat,
                                            player=public.player(cfg.id, b.who), amount=b.stake,
                                            reason="seat_sat_out" if followed
                                            else "seat_released"))
        # The client seed is fixed now, before any card (a round opened by a release without
        # provably fair table rounds has no seeds and deals from the shoe).
        fair = (None if s.fair is None
                else fairness.close(s.fair, s.bets, forced=bool(s.forced)))
        if not s.bets:
            # Nothing is dealt: the round's seed is revealed at once (it deals no card). The
            # round is recorded all the same: its Bet Behinds' debits and refunds are its own.
            step.round = _undealt(cfg, s, fair, "not_dealt")
            step.events.append(public.event(
                "betting_closed", round_id=s.round_id, seats=[],
                fair=fairness.public(fair, revealed=True) if fair is not None else None))
            step.state = fairness.idle_after(s, seats=s.seats, fair=fair)
            return step
        totals, s = announce.at_close(s, kept)
        if totals is not None:
            step.events.append(totals)
        step.events.append(public.event(
            "betting_closed", round_id=s.round_id, seats=sorted(betting),
            fair=fairness.public(fair, revealed=False) if fair is not None else None))
        whos = {x.seat: x.who for x in s.seats}
        boxes = [BoxBet(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                        twenty_one_plus_three=b.twenty_one_plus_three,
                        twenty_plus=b.twenty_plus, player=whos[b.seat].player_key,
                        behind=tuple(BehindBet(player=x.who.player_key, stake=x.stake,
                                               follow_double=x.follow_double,
                                               follow_split=x.follow_split)
                                     for x in kept if x.seat == b.seat))
                 for b in s.bets]
        state = replace(s, behind=tuple(kept), fair=fair)
        try:
            source = (fairness.source(self._cards, fair) if fair is not None and fair.verifiable
                      else deal_source(rules_of(cfg), self._cards.picker(), s.forced))
            rnd = Round.deal(rules_of(cfg), source, boxes, cfg.limits)
        except (EngineError, CardSourceUnavailable) as exc:
            # The round cannot be dealt: void it, every stake refunded.
            log.error("table %s round %s voided: %s", cfg.id, s.round_id, exc)
            for sb in s.bets:
                if not sb.debit:  # a free bet alone: nothing was debited (the bet is used)
                    continue
                w = whos[sb.seat]
                step.movements.append((w.player_key, money.rollback_of(Movement(
                    transaction_id=sb.debit, round_id=s.round_id, kind=MoneyKind.DEBIT,
                    amount=sb.cost, session_id=w.session_id, currency=cfg.currency,
                    brand_id=w.brand_id))))
            for x in kept:
                step.movements.append((x.who.player_key, seats.refund_behind(x, cfg, s.round_id)))
            step.round = _undealt(cfg, s, fair, "voided")
            step.events.append(public.event(
                "round_voided", round_id=s.round_id, reason=type(exc).__name__,
                fair=fairness.public(fair, revealed=True) if fair is not None else None))
            step.state = seats.release(cfg, fairness.idle_after(s, seats=s.seats, fair=fair),
                                       seats.leaving(s), step)
            return step
        # Seats that sat out too many dealt rounds in a row are given back now.
        state, sat_out = seats.count_sit_outs(cfg, state)
        step.state = state = seats.release(cfg, state, sat_out, step)
        after_play(cfg, state, rnd, 0, step, now=now)
        return step

    def _close_insurance(self, cfg: TableConfig, s: TableState, rnd: Round, funding: Funding,
                         now: datetime) -> Step:
        step = Step(state=s, booked=funding.booked())
        # The Bet Behinds' live decisions made on rows of their own are announced now (each
        # to its own player), before the round goes on.
        whos = {(b.seat, b.who.player_key): b.who for b in s.behind}
        step.events.extend(public.event(
            "insurance_decided", seat=c.seat, player=public.player(cfg.id, who), behind=True,
            take=c.take) for c in s.insurance
            if not c.announced and (who := whos.get((c.seat, c.player))) is not None)
        start = len(rnd.events)
        insured = {w.player_key for w, _ in funding.debits}
        for b in s.behind:
            if b.insurance is BehindInsurance.ALWAYS and b.who.player_key in insured:
                rnd.insure_behind(b.seat, b.who.player_key)
        for c in s.insurance:
            if c.player and c.take and rnd.behind_insurance_refusal(c.seat, c.player) is None:
                rnd.insure_behind(c.seat, c.player)
        decided = {c.seat: c.take for c in s.insurance if not c.player}
        for box in rnd.view().boxes:
            if box.insurance_allowed and not rnd.finished:
                take = decided.get(box.seat, False)
                rnd.act(box.seat, 0, Action.INSURE if take else Action.DECLINE_INSURANCE)
        after_play(cfg, s, rnd, start, step, now=now)
        if not rnd.finished:
            step.state = replace(step.state, insurance=())
        return step

    def _time_out(self, cfg: TableConfig, s: TableState, rnd: Round,
                  now: datetime) -> Step | None:
        decision = timeout_decision(rnd)
        if decision is None:
            return None
        step = Step(state=s)
        start = len(rnd.events)
        seat, hand, action = decision
        rnd.act(seat, hand, action)
        step.events.append(public.event("decision_timed_out", seat=seat, hand=hand,
                                        action=action.value))
        after_play(cfg, s, rnd, start, step, now=now)
        return step
