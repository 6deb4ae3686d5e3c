"""Rule effects against the published ones of variants.md (house-edge change, in points)."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from rgs.engine.rules import Peek, RuleSet, Surrender
from rgs.math.analysis import analyse_main

#: 6 decks, S17, peek, double after split, one split, no surrender: the base of each effect.
BASE: dict[str, Any] = {"id": "base", "name": "base", "decks": 6, "double_after_split": True,
                        "max_split_depth": 1, "max_hands": 2}


@cache
def _ev(**changes: Any) -> float:
    return 100.0 * analyse_main(RuleSet(**{**BASE, **changes})).ev


def _effect(before: dict[str, Any], after: dict[str, Any]) -> float:
    """Player's gain in points (house-edge change with the sign of variants.md)."""
    return _ev(**after) - _ev(**before)


def test_h17_costs_the_player_0_21() -> None:
    assert _effect({}, {"dealer_hits_soft_17": True}) == pytest.approx(-0.21, abs=0.03)


def test_double_after_split_is_worth_0_12() -> None:
    assert _effect({"double_after_split": False}, {}) == pytest.approx(0.12, abs=0.03)


@pytest.mark.slow
def test_late_surrender_at_6d_h17_is_worth_0_09() -> None:
    h17 = {"dealer_hits_soft_17": True}
    assert _effect(h17, {**h17, "surrender": Surrender.LATE}) == pytest.approx(0.09, abs=0.03)


@pytest.mark.slow
def test_resplit_to_4_hands_is_worth_0_05() -> None:
    assert _effect({}, {"max_split_depth": 3, "max_hands": 4}) == pytest.approx(0.05, abs=0.03)


@pytest.mark.slow
def test_double_on_any_number_of_cards_is_worth_0_23() -> None:
    assert _effect({}, {"double_any_cards": True}) == pytest.approx(0.23, abs=0.03)


@pytest.mark.slow
def test_six_to_eight_decks_costs_0_03() -> None:
    assert _effect({}, {"decks": 8}) == pytest.approx(-0.03, abs=0.03)


@pytest.mark.slow
def test_no_hole_card_losing_all_to_blackjack_costs_0_11() -> None:
    assert _effect({}, {"hole_card": False, "peek": Peek.NEVER}) == pytest.approx(-0.11, abs=0.03)


@pytest.mark.slow
def test_dealer_22_pushes_costs_6_81_on_the_base_game() -> None:
    # published "about 6.9"; on this base (6D S17 DAS, one split, peek) the exact cost is 6.81
    effect = _effect({}, {"dealer_push_total": 22})
    assert effect == pytest.approx(-6.81, abs=0.02)
    assert effect == pytest.approx(-6.9, abs=0.15)
