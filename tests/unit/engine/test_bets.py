"""Bet validation and VerifiedBets: bets checked once may be dealt many times, and only under
the rules and limits they were checked against."""

from __future__ import annotations

import pytest

from rgs.engine import (
    BoxBet,
    InvalidBet,
    Round,
    SequenceSource,
    StakeOutOfLimits,
    TableLimits,
    VerifiedBets,
)
from rgs.variants import find_variant

CLASSIC = find_variant("classic-resplit")
H17 = find_variant("electronic-h17")  # seven boxes
CARDS = ["TS", "6H", "9D", "7C", "9S", "8H"]


@pytest.mark.parametrize(("bet", "rule"), [
    (BoxBet(seat=True, stake=100), "seat"),
    (BoxBet(seat=1, stake=100.0), "stake_integer"),  # type: ignore[arg-type]
    (BoxBet(seat=1, stake=True), "stake_integer"),
    (BoxBet(seat=1, stake=100, perfect_pairs=100), "side_bet_offered"),
])
def test_verified_bets_cannot_be_built_from_bets_the_rules_refuse(bet: BoxBet, rule: str) -> None:
    with pytest.raises(InvalidBet) as err:
        VerifiedBets(rules=CLASSIC, boxes=(bet,))
    assert err.value.rule == rule


def test_verified_bets_deal_the_same_round_as_the_raw_bets_in_seat_order() -> None:
    raw = [BoxBet(seat=2, stake=100), BoxBet(seat=1, stake=300)]
    verified = VerifiedBets(rules=H17, boxes=tuple(raw))
    assert [b.seat for b in verified.boxes] == [1, 2]
    dealt = Round.deal(H17, SequenceSource(CARDS), verified)
    assert dealt.events == Round.deal(H17, SequenceSource(CARDS), raw).events


def test_verified_bets_are_checked_again_under_other_limits_or_rules() -> None:
    verified = VerifiedBets(rules=CLASSIC, boxes=(BoxBet(seat=1, stake=100),))
    tight = TableLimits(main_min=200, main_max=1_000, side_min=100, side_max=1_000)
    with pytest.raises(StakeOutOfLimits):
        Round.deal(CLASSIC, SequenceSource(CARDS), verified, tight)
    two = VerifiedBets(rules=H17, boxes=(BoxBet(seat=1, stake=100), BoxBet(seat=2, stake=100)))
    with pytest.raises(InvalidBet) as err:
        Round.deal(CLASSIC, SequenceSource(CARDS), two)  # a one-box table
    assert err.value.rule == "box_count"


def test_a_bool_seat_is_refused_after_an_equal_verified_int_bet_was_dealt() -> None:
    Round.deal(CLASSIC, SequenceSource(CARDS),
               VerifiedBets(rules=CLASSIC, boxes=(BoxBet(seat=1, stake=100),)))
    with pytest.raises(InvalidBet) as err:
        Round.deal(CLASSIC, SequenceSource(CARDS), [BoxBet(seat=True, stake=100)])
    assert err.value.rule == "seat"
