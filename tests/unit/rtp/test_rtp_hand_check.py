"""The per-hand check catches a wrong Cash Out, a wrong Charlie and a wrong Bet Behind payout in
the first round each touches (issue 25), independently of the engine: the Cash Out against the
offer of the rule set's Cash Out table for the hand's total and the up card (the offer the
player was shown), the Charlie against the rule set's card-count rule, with the math's own
totals.

The faults are injected into the engine in the test only, while the rounds are played: an
engine whose Cash Out table offers 1% less than the declared one, an engine whose Charlie is 6
cards where the rules say 7, one with no Charlie, and an engine whose settlement pays a Charlie
or a Bet Behind wrongly. The monitor values the rounds afterwards, under the declared rules,
with the engine put right again (it rebuilds each round to read its hands).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from rgs.engine import (
    Action,
    BehindBet,
    BehindSettled,
    BoxBet,
    CardDealt,
    CashOutTable,
    Event,
    HandSettled,
    Outcome,
    Round,
    RuleSet,
    settlement,
)
from rgs.engine.cards import SequenceSource, hand_total
from rgs.math.hints import HintTables
from rgs.rtp.expected import party_figures, round_figures
from rgs.rtp.play import SEAT_PLAYER, play_rounds
from rgs.rtp.sheets import par_figures
from rgs.variants import VARIANTS

#: The analysis caches the rounds are valued from.
TABLES = HintTables()

VIP = VARIANTS["vip-platinum"]          # Cash Out, Bet Behind
ELECTRONIC = VARIANTS["electronic-h17"]  # 7-card Charlie, wins at once
#: A 7-card 13 (2 2 A A 2 2 3) against the dealer's T 8: a Charlie, paid 2x, beats 18.
CHARLIE_CARDS = ["2C", "TD", "2D", "8S", "AC", "AD", "2H", "2S", "3C"]
Rounds = list[tuple[Event, ...]]


def _flagged(rules: RuleSet, rounds: Rounds) -> list[int]:
    par = par_figures(rules)
    out = []
    for i, events in enumerate(rounds):
        f = round_figures(rules, events, par, tables=TABLES)
        assert f is not None
        if f.faults:
            out.append(i)
    return out


def _touched(rounds: Rounds, outcome: Outcome) -> list[int]:
    return [i for i, ev in enumerate(rounds)
            if any(isinstance(e, HandSettled) and e.outcome is outcome for e in ev)]


def _charlie_round(engine: RuleSet) -> tuple[Event, ...]:
    """A round whose player hits to seven cards (the engine stops the hand where its rules
    say)."""
    rnd = Round.deal(engine, SequenceSource(CHARLIE_CARDS), (BoxBet(seat=1, stake=1000),),
                     engine.limits)
    while not rnd.finished:
        assert rnd.to_act is not None
        rnd.act(*rnd.to_act, Action.HIT)
    return rnd.events


def _with_charlies(engine: RuleSet = ELECTRONIC) -> Rounds:
    """120 ordinary rounds with a 7-card hand dealt at rounds 30 and 90."""
    rounds = [p.events for p in play_rounds(ELECTRONIC, "basic", 120, seed=31,
                                            engine_rules=engine)]
    rounds[30] = rounds[90] = _charlie_round(engine)
    return rounds


def test_a_correct_engine_passes_cash_out_charlie_and_bet_behind() -> None:
    behind = (BehindBet(player="b", stake=700, follow_double=True),)
    cashed = [p.events for p in play_rounds(VIP, "cash-out", 150, seed=21, behind=behind)]
    assert _touched(cashed, Outcome.CASHED_OUT)
    assert any(isinstance(e, BehindSettled) and e.outcome is Outcome.CASHED_OUT
               for ev in cashed for e in ev)
    assert _flagged(VIP, cashed) == []
    charlies = _with_charlies()
    assert _touched(charlies, Outcome.CHARLIE) == [30, 90]
    assert _flagged(ELECTRONIC, charlies) == []


def test_a_cash_out_paid_off_the_rules_table_is_flagged_in_the_first_round_it_touches() -> None:
    table = VIP.cash_out
    assert table is not None
    cheaper = CashOutTable(offers_bp={k: v - 100 for k, v in table.offers_bp.items()},
                           source="a wrong table")
    rounds = [p.events for p in play_rounds(VIP, "cash-out", 150, seed=22,
                                            engine_rules=replace(VIP, cash_out=cheaper))]
    touched = _touched(rounds, Outcome.CASHED_OUT)
    assert touched and _flagged(VIP, rounds) == touched
    first = round_figures(VIP, rounds[touched[0]], par_figures(VIP), tables=TABLES)
    assert first is not None
    paid = next(e.payout for e in rounds[touched[0]] if isinstance(e, HandSettled))
    assert first.faults == (
        f"seat 1 hand 0: cashed_out of 1000 paid {paid}, the rules pay {paid + 10}",)


def test_a_cash_out_where_the_rules_table_makes_no_offer_is_flagged() -> None:
    table = VIP.cash_out
    assert table is not None
    declared = replace(VIP, cash_out=CashOutTable(
        offers_bp={k: v for k, v in table.offers_bp.items() if k[:2] != (16, False)},
        source="no offer on hard 16"))
    rounds = [p.events for p in play_rounds(VIP, "cash-out", 200, seed=23)]
    on_16 = [i for i in _touched(rounds, Outcome.CASHED_OUT)
             if hand_total([e.card for e in rounds[i]
                            if isinstance(e, CardDealt) and e.seat == 1]) == (16, False)]
    assert on_16 and _flagged(declared, rounds) == on_16
    f = round_figures(declared, rounds[on_16[0]], par_figures(declared), tables=TABLES)
    assert f is not None and f.faults[0] == (
        "seat 1 hand 0: cash_out taken where the rules refuse it (no Cash Out offer for this "
        "hand)")
    assert f.faults[1].endswith("where the rules' Cash Out table makes no offer")


def _wrap(monkeypatch: pytest.MonkeyPatch, name: str, change: Any) -> None:
    real = getattr(settlement, name)

    def wrong(*args: Any, **kw: Any) -> Any:
        return change(real(*args, **kw), *args)
    monkeypatch.setattr(settlement, name, wrong)


def test_a_charlie_paid_wrong_is_flagged_in_the_first_round_it_touches(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def even_money(paid: tuple[Outcome, int, Fraction], *args: Any) -> Any:
        outcome, _, kept = paid
        return (outcome, args[3].stake, kept) if outcome is Outcome.CHARLIE else paid

    _wrap(monkeypatch, "settle_hand", even_money)
    rounds = _with_charlies()
    monkeypatch.undo()  # the monitor rebuilds rounds with the engine as it should be
    assert _touched(rounds, Outcome.CHARLIE) == [30, 90]
    assert _flagged(ELECTRONIC, rounds) == [30, 90]
    f = round_figures(ELECTRONIC, rounds[30], par_figures(ELECTRONIC), tables=TABLES)
    assert f is not None and f.faults == (
        "seat 1 hand 0: charlie of 1000 paid 1000, the rules pay 2000",)


def test_an_engine_whose_charlie_is_six_cards_is_flagged_in_the_first_round_it_touches(
        ) -> None:
    rounds = _with_charlies(replace(ELECTRONIC, charlie_cards=6))
    touched = _touched(rounds, Outcome.CHARLIE)
    assert {30, 90} <= set(touched)
    assert _flagged(ELECTRONIC, rounds) == touched
    f = round_figures(ELECTRONIC, rounds[30], par_figures(ELECTRONIC), tables=TABLES)
    assert f is not None and f.faults == (
        "seat 1 hand 0: 6-card 2C+2D+AC+AD+2H+2S settled charlie, the rules' Charlie is 7 "
        "cards not bust",)


def test_a_seven_card_hand_the_engine_does_not_pay_as_a_charlie_is_flagged() -> None:
    engine = replace(ELECTRONIC, charlie_cards=None)
    rnd = Round.deal(engine, SequenceSource([*CHARLIE_CARDS, "5D"]),
                     (BoxBet(seat=1, stake=1000),), engine.limits)
    for _ in range(5):
        rnd.act(1, 0, Action.HIT)
    rnd.act(1, 0, Action.STAND)  # 13 on seven cards: this engine plays on and loses to 18
    f = round_figures(ELECTRONIC, rnd.events, par_figures(ELECTRONIC), tables=TABLES)
    assert f is not None
    assert f.faults == ("seat 1 hand 0: 7-card 13 settled lose, the rules make it a Charlie "
                        "(pays 2x)",)


@pytest.mark.parametrize("follow", [True, False])
def test_a_bet_behind_paid_wrong_is_flagged_for_its_bettor_in_the_first_round(
        monkeypatch: pytest.MonkeyPatch, follow: bool) -> None:
    def short(paid: tuple[int, Fraction], *args: Any) -> tuple[int, Fraction]:
        return (paid[0] - 1, paid[1]) if paid[0] > 0 else paid

    _wrap(monkeypatch, "behind_payout", short)
    behind = (BehindBet(player="bettor", stake=700, follow_double=follow),)
    rounds = [p.events for p in play_rounds(VIP, "basic", 80, seed=24, behind=behind)]
    monkeypatch.undo()
    paid = [i for i, ev in enumerate(rounds)
            if any(isinstance(e, BehindSettled) and e.payout > 0 for e in ev)]
    par = par_figures(VIP)
    flagged = []
    for i, ev in enumerate(rounds):
        parts = party_figures(VIP, ev, par, lambda seat, player: player, tables=TABLES)
        assert parts[SEAT_PLAYER].faults == ()  # the seat was paid right
        if parts["bettor"].faults:
            flagged.append(i)
    assert paid and flagged == paid
