"""A shared table's round in the engine: several players' boxes, Bet Behind presets, a follow
that the bettor's wallet did not fund, live behind insurance, and the decisions the table takes
when a seat's time runs out. Amounts per player, and every round replays to the same events."""

from __future__ import annotations

import pytest

from rgs.engine import (
    Action,
    ActionNotAllowed,
    BehindBet,
    BehindFollowSkipped,
    BoxBet,
    Phase,
    Round,
    SequenceSource,
    replay,
)
from rgs.engine.timeout import timeout_decision
from rgs.variants import find_variant

VIP = find_variant("vip-platinum")


def _doubling_round() -> Round:
    # seat 1 (p1): 6 5 = 11, doubles onto T = 21; seat 2 (p2): T 9 = 19 stands, perfect
    # pairs lost; dealer 9 7 = 16 draws T and busts. b1 follows the double, b2's follow is
    # not funded, b3 never follows.
    rnd = Round.deal(VIP, SequenceSource(["6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC"]), [
        BoxBet(seat=1, stake=1000, player="p1", behind=(
            BehindBet(player="b1", stake=500, follow_double=True),
            BehindBet(player="b2", stake=300, follow_double=True),
            BehindBet(player="b3", stake=200))),
        BoxBet(seat=2, stake=2000, player="p2", perfect_pairs=100),
    ])
    rnd.act(1, 0, Action.DOUBLE, unfunded=frozenset({"b2"}))
    rnd.stand(2)
    return rnd


def test_each_player_at_the_table_is_paid_their_own_result() -> None:
    rnd = _doubling_round()
    assert rnd.phase is Phase.SETTLED
    assert rnd.money_by_player() == {
        "p1": (2000, 4000),   # doubled 1000, won
        "b1": (1000, 2000),   # followed the double
        "b2": (300, 600),     # follow not funded: stays at 300, wins with the hand
        "b3": (200, 400),     # never follows
        "p2": (2100, 4000),   # 2000 won, perfect pairs 100 lost
    }
    skipped = [e for e in rnd.events if isinstance(e, BehindFollowSkipped)]
    assert [(e.seat, e.player, e.action) for e in skipped] == [(1, "b2", Action.DOUBLE)]


def test_a_round_with_a_skipped_follow_replays_to_the_same_events() -> None:
    rnd = _doubling_round()
    again = replay(VIP, rnd.events)
    assert again.events == rnd.events
    assert again.money_by_player() == rnd.money_by_player()


def _ace_up() -> Round:
    # seat 1 (p1): T 9 = 19; dealer A, hole 7 (soft 18, no blackjack).
    return Round.deal(VIP, SequenceSource(["TS", "AS", "9C", "7D"]), [
        BoxBet(seat=1, stake=1000, player="p1", behind=(
            BehindBet(player="b1", stake=400), BehindBet(player="b2", stake=600))),
    ])


def test_a_behind_player_insures_live_and_the_timed_out_seat_declines_and_stands() -> None:
    rnd = _ace_up()
    assert rnd.phase is Phase.INSURANCE
    rnd.insure_behind(1, "b1")
    with pytest.raises(ActionNotAllowed):
        rnd.insure_behind(1, "b1")  # once
    assert timeout_decision(rnd) == (1, 0, Action.DECLINE_INSURANCE)
    rnd.act(*timeout_decision(rnd) or (0, 0, Action.STAND))
    assert rnd.phase is Phase.PLAYER_TURN
    assert timeout_decision(rnd) == (1, 0, Action.STAND)
    rnd.act(1, 0, Action.STAND)
    assert rnd.phase is Phase.SETTLED and timeout_decision(rnd) is None
    # 19 beats 18; b1's insurance (200) is lost, b2 never insured.
    assert rnd.money_by_player() == {"p1": (1000, 2000), "b1": (600, 800), "b2": (600, 1200)}
    assert replay(VIP, rnd.events).events == rnd.events


def test_behind_insurance_is_refused_outside_the_insurance_phase_and_for_strangers() -> None:
    rnd = _ace_up()
    assert rnd.behind_insurance_refusal(1, "nobody") is not None
    assert rnd.behind_insurance_refusal(3, "b1") is not None
    rnd.act(1, 0, Action.DECLINE_INSURANCE)
    with pytest.raises(ActionNotAllowed):
        rnd.insure_behind(1, "b1")
