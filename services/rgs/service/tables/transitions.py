"""The transitions a shared table's clock drives: betting close (the deal), insurance close
and a decision's time-out. Only the holder of the table's lease runs them, and every write checks
its epoch (:meth:`~rgs.service.tables.ports.TableCommit`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

from rgs.engine import (
    Action,
    BehindBet,
    BoxBet,
    EngineError,
    Round,
)
from rgs.engine.timeout import timeout_decision
from rgs.service import money
from rgs.service.errors import (
    NotAllowedNow,
    Unavailable,
)
from rgs.service.model import Movement, Session
from rgs.service.ports import (
    CardSourceUnavailable,
)
from rgs.service.restore import deal_source
from rgs.service.tables import fairness, public
from rgs.service.tables.core import TableCore, _h, _Step
from rgs.service.tables.model import (
    BehindInsurance,
    StoredTable,
    TableConfig,
    TablePhase,
)
from rgs.service.tables.ports import (
    HeldPlayer,
)
from rgs.wallet.port import MoneyKind

log = logging.getLogger(__name__)


class ClockTransitions(TableCore):
    """The clock's transitions of a shared table."""

    async def tick(self, table_id: str, epoch: int) -> bool:
        """Fire the table's deadline if it is due (the clock's holder only: every write checks
        ``epoch``). True when a transition was committed."""
        cfg = self.config(table_id)
        t = await self._load(table_id)
        s = t.state
        if s.deadline is None or s.deadline > self._clock():
            return False
        if s.phase is TablePhase.BETTING:
            await self._close_betting(cfg, t, epoch)
        elif s.phase is TablePhase.INSURANCE:
            await self._close_insurance(cfg, t, epoch)
        elif s.phase is TablePhase.PLAYING:
            await self._time_out(cfg, t, epoch)
        else:
            return False
        return True

    async def _clock_commit(self, cfg: TableConfig, t: StoredTable, step: _Step, epoch: int,
                            held: Mapping[str, HeldPlayer] | None = None) -> None:
        nobody = Session(session_id="", player_key="", operator_id="", brand_id="",
                         player_id="", currency="", expires_at=self._clock())
        await self._commit_step(nobody, cfg, t, step, held or {}, request_id="", method="",
                                fingerprint="", clock_epoch=epoch)

    async def _close_betting(self, cfg: TableConfig, t: StoredTable, epoch: int) -> None:
        s = t.state
        step = _Step(state=s)
        betting = {b.seat for b in s.bets}
        kept = []
        for b in s.behind:
            if b.seat in betting:
                kept.append(b)
                continue
            debit = Movement(transaction_id=b.debit, round_id=s.round_id,
                             kind=MoneyKind.DEBIT, amount=b.stake,
                             session_id=b.who.session_id, currency=cfg.currency,
                             brand_id=b.who.brand_id)
            step.movements.append((b.who.player_key, money.rollback_of(debit)))
            step.events.append(public.event("behind_refunded", seat=b.seat,
                                            player_id=b.who.player_id, amount=b.stake,
                                            reason="seat_sat_out"))
        # The client seed is fixed now, before any card (a round opened by a release without
        # provably fair table rounds has no seeds and deals from the shoe).
        fair = (None if s.fair is None
                else fairness.close(s.fair, s.bets, forced=bool(s.forced)))
        if not s.bets:
            # Nothing is dealt: the round's seed is revealed at once (it deals no card).
            step.events.append(public.event(
                "betting_closed", round_id=s.round_id, seats=[],
                fair=fairness.public(fair, revealed=True) if fair is not None else None))
            step.state = fairness.idle_after(s, seats=s.seats, fair=fair)
            await self._clock_commit(cfg, t, step, epoch)
            return
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
            source = (fairness.source(fair) if fair is not None and fair.verifiable
                      else deal_source(self._rules(cfg), self._cards.picker(), s.forced))
            rnd = Round.deal(self._rules(cfg), source, boxes, cfg.limits)
        except (EngineError, CardSourceUnavailable) as exc:
            # The round cannot be dealt: void it, every stake refunded.
            log.error("table %s round %s voided: %s", cfg.id, s.round_id, exc)
            for sb in s.bets:
                w = whos[sb.seat]
                debit = Movement(transaction_id=sb.debit, round_id=s.round_id,
                                 kind=MoneyKind.DEBIT, amount=sb.total,
                                 session_id=w.session_id, currency=cfg.currency,
                                 brand_id=w.brand_id)
                step.movements.append((w.player_key, money.rollback_of(debit)))
            for x in kept:
                debit = Movement(transaction_id=x.debit, round_id=s.round_id,
                                 kind=MoneyKind.DEBIT, amount=x.stake,
                                 session_id=x.who.session_id, currency=cfg.currency,
                                 brand_id=x.who.brand_id)
                step.movements.append((x.who.player_key, money.rollback_of(debit)))
            step.events.append(public.event(
                "round_voided", round_id=s.round_id, reason=type(exc).__name__,
                fair=fairness.public(fair, revealed=True) if fair is not None else None))
            step.state = fairness.idle_after(s, seats=s.seats, fair=fair)
            await self._clock_commit(cfg, t, step, epoch)
            return
        step.state = state
        self._after_play(cfg, state, rnd, 0, step)
        await self._clock_commit(cfg, t, step, epoch)

    async def _close_insurance(self, cfg: TableConfig, t: StoredTable, epoch: int) -> None:
        s = t.state
        rnd = await self._round(cfg, s)
        assert rnd is not None
        step = _Step(state=s)
        start = len(rnd.events)
        always = [b for b in s.behind if b.insurance is BehindInsurance.ALWAYS
                  and rnd.behind_insurance_refusal(b.seat, b.who.player_key) is None]
        taken = [c for c in s.insurance if c.player and c.take]
        async with self._tables.hold_players([b.who.player_key for b in always]) as held:
            for b in always:
                try:
                    await self._debit(cfg, step, held, b.who, round_id=s.round_id,
                                   tag=f"ins{b.seat}x{_h(b.who.player_key)}", amount=b.stake // 2)
                    rnd.insure_behind(b.seat, b.who.player_key)
                except (NotAllowedNow, Unavailable) as exc:
                    log.info("Bet Behind insurance of %s not funded: %s", b.who.player_id, exc)
            for c in taken:
                if rnd.behind_insurance_refusal(c.seat, c.player) is None:
                    rnd.insure_behind(c.seat, c.player)
            decided = {c.seat: c.take for c in s.insurance if not c.player}
            for box in rnd.view().boxes:
                if box.insurance_allowed and not rnd.finished:
                    take = decided.get(box.seat, False)
                    rnd.act(box.seat, 0, Action.INSURE if take else Action.DECLINE_INSURANCE)
            self._after_play(cfg, s, rnd, start, step)
            if not rnd.finished:
                step.state = replace(step.state, insurance=())
            await self._clock_commit(cfg, t, step, epoch, held)

    async def _time_out(self, cfg: TableConfig, t: StoredTable, epoch: int) -> None:
        s = t.state
        rnd = await self._round(cfg, s)
        assert rnd is not None
        decision = timeout_decision(rnd)
        if decision is None:
            return
        step = _Step(state=s)
        start = len(rnd.events)
        seat, hand, action = decision
        rnd.act(seat, hand, action)
        step.events.append(public.event("decision_timed_out", seat=seat, hand=hand,
                                        action=action.value))
        self._after_play(cfg, s, rnd, start, step)
        await self._clock_commit(cfg, t, step, epoch)
