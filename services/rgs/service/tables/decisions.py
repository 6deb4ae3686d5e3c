"""The players' decisions in a shared table's round: Act and DecideInsurance, each a plan
(checked on the table as read, with the stakes it debits) and a transition (checked again and
applied under the table's lock), or for a Bet Behind's live insurance decision a row of its own
(:mod:`~rgs.service.tables.live_insurance`). :mod:`~rgs.service.tables.runner` runs them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial

from rgs.engine import Action, EngineError, Round
from rgs.service.errors import NotAllowedNow, Unavailable, translate_engine
from rgs.service.model import Session
from rgs.service.ports import CardSourceUnavailable
from rgs.service.tables import live_insurance, public
from rgs.service.tables.answers import TableAnswer
from rgs.service.tables.model import (
    BehindInsurance,
    InsuranceChoice,
    StoredTable,
    TableAct,
    TableConfig,
    TablePhase,
    TableState,
)
from rgs.service.tables.money import Funding, TableMoney
from rgs.service.tables.rounds import (
    Rounds,
    after_play,
    follows,
    insurance_complete,
    player_tag,
)
from rgs.service.tables.runner import CommandRunner, Deciding, Plan, RoundReader, who_of
from rgs.service.tables.turns import Applied, Step, View

log = logging.getLogger(__name__)


class DecisionCommands:
    """Act and DecideInsurance."""

    def __init__(self, *, runner: CommandRunner, money: TableMoney, rounds: Rounds,
                 clock: Callable[[], datetime], behind_rows: bool = True) -> None:
        self._runner = runner
        self._money = money
        self._rounds = rounds
        self._clock = clock
        #: RGS_TABLE_BEHIND_ROWS: Bet Behinds' live insurance decisions on rows of their own.
        self._behind_rows = behind_rows


    async def act(self, session: Session, cfg: TableConfig, request_id: str,
                  cmd: TableAct, *, hints: bool = False) -> TableAnswer:
        who = who_of(session, cfg.id)

        def check(s: TableState) -> None:
            if s.phase is not TablePhase.PLAYING or s.round_id != cmd.round_id:
                raise NotAllowedNow("no decision of this round is awaited now",
                                    reason="WRONG_PHASE")
            seat = s.seat(cmd.seat)
            if seat is None or seat.who.player_key != who.player_key:
                raise NotAllowedNow(f"seat {cmd.seat} is not yours", reason="NOT_YOUR_SEAT")

        async def plan(cfg: TableConfig, t: StoredTable, reader: RoundReader) -> Plan:
            s = t.state
            check(s)
            rec = await reader.get_round(s.round_id)
            rnd = self._rounds.current(cfg, s, rec)
            assert rnd is not None
            try:
                rnd.verify(cmd.seat, cmd.hand, cmd.action)
                cost = next((la.cost for la in rnd.legal_actions(cmd.seat, cmd.hand)
                             if la.action is cmd.action), 0)
            except EngineError as exc:
                raise translate_engine(exc) from exc
            at = len(rnd.events)
            tag = f"a{rnd.seq + 1}"
            followers = [b for b in s.behind if b.seat == cmd.seat and follows(b, cmd.action)]

            async def fund(funding: Funding) -> None:
                if cost:
                    await self._money.debit(cfg, funding, who, round_id=s.round_id, tag=tag,
                                            amount=cost)
                if cmd.hand != 0:
                    return
                for b in followers:
                    if b.who.player_key not in funding.held:
                        log.info("Bet Behind of %s does not follow: their journal is busy",
                                 b.who.player_id)
                        funding.unfunded.add(b.who.player_key)
                        continue
                    try:
                        await self._money.debit(
                            cfg, funding, b.who, round_id=s.round_id, caller=False,
                            tag=f"{tag}x{player_tag(b.who.player_key)}", amount=b.stake)
                    except (NotAllowedNow, Unavailable) as exc:
                        log.info("Bet Behind of %s does not follow: %s", b.who.player_id, exc)
                        funding.unfunded.add(b.who.player_key)

            def apply(view: View, funding: Funding) -> Step:
                s = view.state
                check(s)
                if view.round is None or len(view.round.events) != at:
                    raise NotAllowedNow("the round moved on before your decision reached the "
                                        "table (its time ran out?)", reason="WRONG_PHASE")
                step = Step(state=s, booked=funding.booked())
                live = rnd if len(rnd.events) == at else self._rounds.current(cfg, s,
                                                                               view.round)
                assert live is not None
                try:
                    live.act(cmd.seat, cmd.hand, cmd.action,
                             unfunded=frozenset(funding.unfunded) if cmd.hand == 0
                             else frozenset())
                except (EngineError, CardSourceUnavailable) as exc:
                    if isinstance(exc, CardSourceUnavailable):
                        raise Unavailable(str(exc), reason="RNG_UNAVAILABLE") from exc
                    raise translate_engine(exc) from exc
                after_play(cfg, s, live, at, step, now=self._clock())
                if live.finished:
                    step.ended = live
                else:
                    step.live = live
                return step

            return Plan(apply=apply, keys=(who.player_key, *(b.who.player_key
                                                            for b in followers)),
                        fund=fund if cost or followers else None)

        return await self._runner.run(session, cfg, request_id=request_id, method="act",
                                      cmd=cmd, plan=plan, hints=hints)

    async def decide_insurance(self, session: Session, cfg: TableConfig, request_id: str, *,
                               round_id: str, seat: int, take: bool,
                               behind: bool, hints: bool = False) -> TableAnswer:
        """A seat player's insurance decision, or a Bet Behind player's live one (preset
        ``ask``), while insurance is open; applied when it closes."""
        who = who_of(session, cfg.id)
        player = who.player_key if behind else ""

        def check(s: TableState) -> None:
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

        def cost_of(s: TableState, rnd: Round) -> int:
            view = next((b for b in self._rounds.shown(rnd)[0].boxes if b.seat == seat), None)
            if view is None:
                raise NotAllowedNow(f"seat {seat} has no box in this round",
                                    reason="NOT_YOUR_SEAT")
            if behind:
                reason = rnd.behind_insurance_refusal(seat, who.player_key)
                if reason is not None:
                    raise NotAllowedNow(reason, reason="ACTION_NOT_ALLOWED")
                return next(b.stake for b in s.behind
                            if b.seat == seat and b.who.player_key == who.player_key) // 2
            if not view.insurance_allowed:
                raise NotAllowedNow(f"seat {seat} is not offered insurance",
                                    reason="ACTION_NOT_ALLOWED")
            return next(la.cost for la in view.insurance_allowed if la.action is Action.INSURE)

        async def plan(cfg: TableConfig, t: StoredTable, reader: RoundReader) -> Plan:
            s = t.state
            check(s)
            # (Read only: the same round for every command that reads this version.)
            rnd = await self._rounds.peek(cfg, t, reader.get_round)
            assert rnd is not None
            cost = cost_of(s, rnd)
            tag = f"ins{seat}" + (f"x{player_tag(who.player_key)}" if behind else "")

            async def fund(funding: Funding) -> None:
                await self._money.debit(cfg, funding, who, round_id=s.round_id, tag=tag,
                                        amount=cost)

            def apply(view: View, funding: Funding) -> Step:
                s = view.state
                check(s)
                debit = funding.debits[0][1].transaction_id if funding.debits else ""
                state = replace(s, insurance=(*s.insurance, InsuranceChoice(
                    seat=seat, player=player, take=take, debit=debit)))
                step = Step(state=state, booked=funding.booked(),
                            events=[public.event("insurance_decided", seat=seat,
                                                 player=public.player(cfg.id, who), behind=behind,
                                                 take=take)], live=rnd)
                if insurance_complete(state, rnd):
                    step.state = replace(state, deadline=self._clock())
                return step

            def deciding(funding: Funding) -> Deciding:
                debit = funding.debits[0][1].transaction_id if funding.debits else ""
                choice = InsuranceChoice(seat=seat, player=player, take=take, debit=debit,
                                         announced=False)
                # Every Bet Behind that asks has decided once the rows hold those the state
                # does not (decisions made by transitions: a release without these rows).
                in_state = sum(1 for c in s.insurance if c.player and c.announced)
                mine = who.player_key
                own = replace(s, behind=tuple(b for b in s.behind if b.who.player_key == mine),
                              insurance=tuple(c for c in (*s.insurance, choice)
                                              if c.player in ("", mine)))
                return Deciding(round_id=s.round_id, choice=choice, state=own, live=rnd,
                                needed=live_insurance.asks(s) - in_state,
                                close=partial(self._close_insurance_when_decided, s.round_id,
                                              rnd))

            return Plan(apply=apply, keys=(who.player_key,) if take else (),
                        fund=fund if take else None,
                        decide=deciding if behind and self._behind_rows else None)

        return await self._runner.run(session, cfg, request_id=request_id, method="insurance",
                                      cmd=(round_id, seat, take, behind), plan=plan,
                                      hints=hints)

    def _close_insurance_when_decided(self, round_id: str, rnd: Round,
                                      view: View) -> Applied | None:
        """Insurance closes now (the clock's next pass) once every seat offered it and every
        Bet Behind that asks has decided (the decisions on rows merged into ``view``)."""
        s, now = view.state, self._clock()
        if (s.phase is not TablePhase.INSURANCE or s.round_id != round_id
                or (s.deadline is not None and s.deadline <= now)
                or not insurance_complete(s, rnd)):
            return None
        return Applied(step=Step(state=replace(s, deadline=now)))

