"""The strategy hand-off: format and the textbook plays it must contain."""

from __future__ import annotations

import pytest

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
