"""The resplit approximation and the outcome distribution behind the PAR sheet."""

from __future__ import annotations

import pytest

from rgs.math.report import cached_report
from rgs.math.splits import expected_counts, split_hand_counts
from rgs.variants import find_variant


def test_one_split_always_ends_with_two_hands() -> None:
    counts = split_hand_counts(0.1, max_depth=1, max_hands=2, resplit=True)
    assert counts == pytest.approx({(2, 0): 0.81, (1, 1): 0.18, (0, 2): 0.01})


def test_resplit_to_three_hands_adds_a_hand_when_either_hand_pairs() -> None:
    p = 0.08
    counts = split_hand_counts(p, max_depth=3, max_hands=3, resplit=True)
    assert sum(counts.values()) == pytest.approx(1.0)
    e_np, e_pp = expected_counts(counts)
    assert e_np + e_pp == pytest.approx(3 - (1 - p) ** 2)
    assert split_hand_counts(p, max_depth=3, max_hands=4, resplit=True)[(4, 0)] > 0.02


def test_depth_two_lets_each_split_hand_split_once_more() -> None:
    counts = split_hand_counts(0.5, max_depth=2, max_hands=4, resplit=True)
    assert max(a + b for a, b in counts) == 4
    assert counts[(0, 4)] == pytest.approx(0.5 ** 6)


@pytest.mark.parametrize("variant_id", ["vegas-20-plus", "power", "vip-platinum"])
def test_outcome_distribution_sums_to_one_with_the_analysis_mean(variant_id: str) -> None:
    report = cached_report(find_variant(variant_id))
    dist = report.distribution
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-9)
    mean = sum(k / 2 * p for k, p in dist.items())
    # the distribution's dealer ignores the player's later cards: means agree within 0.02
    assert mean == pytest.approx(report.game.ev, abs=2e-4)
    assert 1.05 < report.standard_deviation < 1.25
    assert 0.38 < report.hit_frequency < 0.45
