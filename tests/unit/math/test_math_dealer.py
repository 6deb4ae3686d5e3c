"""Dealer final-hand probabilities: exact values that can be checked by hand or by tables."""

from __future__ import annotations

import numpy as np
import pytest

from rgs.math.dealer import (
    BLACKJACK,
    BUST,
    D17,
    PUSH,
    DealerRules,
    dealer_distributions,
    dealer_finals,
)
from rgs.math.shoe import full_shoe

S17 = DealerRules(hits_soft_17=False, push_total=None)
NONE_REMOVED = np.zeros((1, 10), dtype=np.int64)


def _dist(up: int, rules: DealerRules = S17, decks: int = 6) -> np.ndarray:
    return dealer_distributions(dealer_finals(up, rules), full_shoe(decks), NONE_REMOVED)[0]


def test_dealer_outcomes_sum_to_one_for_every_up_card() -> None:
    for up in range(10):
        assert _dist(up).sum() == pytest.approx(1.0, abs=1e-12)


def test_dealer_six_up_busts_42_28_percent_at_6_decks_s17() -> None:
    assert _dist(5)[BUST] == pytest.approx(0.42284, abs=1e-5)


def test_dealer_blackjack_with_ace_up_is_tens_over_cards_left() -> None:
    assert _dist(0)[BLACKJACK] == pytest.approx(96 / 311, abs=1e-12)


def test_h17_lowers_the_dealer_17s_with_ace_up() -> None:
    h17 = DealerRules(hits_soft_17=True, push_total=None)
    assert _dist(0, h17)[D17] < _dist(0)[D17]


def test_dealer_22_push_takes_hard_22_out_of_the_busts() -> None:
    d22 = DealerRules(hits_soft_17=False, push_total=22)
    plain, pushed = _dist(9), _dist(9, d22)
    assert pushed[PUSH] > 0.05
    assert pushed[PUSH] + pushed[BUST] == pytest.approx(plain[BUST], abs=1e-12)


def test_removed_cards_change_the_dealer_odds_exactly() -> None:
    # one deck, ace up, every ten removed: the dealer cannot make blackjack
    removed = np.zeros((1, 10), dtype=np.int64)
    removed[0, 9] = 16
    dist = dealer_distributions(dealer_finals(0, S17), full_shoe(1), removed)[0]
    assert dist[BLACKJACK] == 0.0
    assert dist.sum() == pytest.approx(1.0, abs=1e-12)
