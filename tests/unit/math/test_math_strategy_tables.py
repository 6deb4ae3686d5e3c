"""The strategy hand-off: format and the textbook plays it must contain."""

from __future__ import annotations

import pytest

from rgs.engine import Action, BoxBet, ForcedCards, Round
from rgs.math.basic_strategy import BasicStrategyPlayer
from rgs.math.errors import MathError
from rgs.math.strategy_tables import load_power_double_choices, load_strategy
from rgs.variants import VARIANTS

UPS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_strategy_covers_every_hard_soft_and_pair_hand_against_every_up_card(
        variant_id: str) -> None:
    table = load_strategy(variant_id)
    for up in UPS:
        for total in range(4, 22):
            assert ("hard", total, up) in table
        for total in range(12, 22):
            assert ("soft", total, up) in table
        for pair in range(1, 11):
            assert ("pair", pair, up) in table
        assert table[("hard", 21, up)] == "S"


def test_electronic_h17_surrenders_16_against_ten_and_doubles_11_against_ace() -> None:
    table = load_strategy("electronic-h17")
    assert table[("hard", 16, "T")] == "Rh"
    assert table[("hard", 11, "A")] == "D"
    assert table[("pair", 8, "2")] == "P"
    assert table[("soft", 18, "2")] == "Ds"


def test_classic_resplit_stands_hard_17_and_never_splits_tens() -> None:
    table = load_strategy("classic-resplit")
    assert all(table[("hard", 17, up)] == "S" for up in UPS)
    assert all(table[("pair", 10, up)] == "S" for up in UPS)


def test_power_power_doubles_11_and_replaces_a_low_double_card() -> None:
    table = load_strategy("power")
    assert table[("hard", 11, "6")] == "PD"
    choices = load_power_double_choices("power")
    assert choices[("hard", 11, "hard", 13, "6")] == "R"
    assert choices[("hard", 11, "hard", 21, "6")] == "K"


def test_variants_without_power_double_have_no_keep_replace_choices() -> None:
    assert load_power_double_choices("vip-platinum") == {}


def test_unknown_strategy_names_the_known_variants() -> None:
    with pytest.raises(MathError, match="vip-platinum"):
        load_strategy("nope")


def test_power_split_hands_do_not_take_the_power_double_fallback_to_a_double() -> None:
    # The original hard 10/soft 19 are Power Doubled; a split hand cannot, and its best play
    # is to hit 10 against a ten and stand on soft 19 (issue 11: doubling them cost 0.2 points).
    table = load_strategy("power")
    assert table[("hard", 10, "T")] == "PD"
    assert table[("split_hard", 10, "T")] == "H"
    assert table[("soft", 19, "7")] == "PDs"
    assert table[("split_soft", 19, "7")] == "S"
    assert not any(k.startswith("split_") for k, _, _ in load_strategy("electronic-h17"))


def test_the_table_player_plays_a_split_hand_by_its_split_entry() -> None:
    rules = VARIANTS["power"]
    player = BasicStrategyPlayer(rules, load_strategy("power"))
    # T-6 against a ten: Power Split; the ten draws a 9 and stands, the 6 draws a 4 (hard 10)
    rnd = Round.deal(rules, ForcedCards(["TS", "TD", "6C", "9H", "4S"]), [BoxBet(seat=1,
                                                                             stake=100)])
    assert player.decide(rnd, 1, 0) is Action.POWER_SPLIT
    rnd.act(1, 0, Action.POWER_SPLIT)
    assert player.decide(rnd, 1, 0) is Action.STAND
    rnd.stand(1, 0)
    assert rnd.hand_cards(1, 1) == ("6C", "4S") and rnd.can(1, 1, Action.DOUBLE)
    assert player.decide(rnd, 1, 1) is Action.HIT
