"""The engine, played with the analysis strategy, returns what the analysis says.

The full check (a few million rounds, within 3 standard errors) is:
    rgs simulate --variant V --rounds 3000000 --json
compared with ``rtp`` of ``rgs par V --json``. CI runs a smaller, seeded version.
"""

from __future__ import annotations

import pytest

from rgs.math.report import cached_report
from rgs.math.simulate import simulate
from rgs.math.strategy_tables import (
    load_power_double_choices,
    load_strategy,
    load_two_card_strategy,
)
from rgs.variants import VARIANTS


def _observed(variant_id: str, rounds: int, seed: int) -> tuple[float, float]:
    result = simulate(VARIANTS[variant_id], rounds, seed=seed,
                      table=load_strategy(variant_id),
                      power_choices=load_power_double_choices(variant_id),
                      two_card=load_two_card_strategy(variant_id), side_bets=False)
    return result.main.rtp, result.main.stderr


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_engine_rtp_with_analysis_strategy_is_within_3_standard_errors(variant_id: str) -> None:
    rtp, se = _observed(variant_id, 20_000, seed=20261129)
    assert abs(rtp - cached_report(VARIANTS[variant_id]).rtp) < 3 * se


@pytest.mark.slow
@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_engine_rtp_over_a_million_rounds_is_within_3_standard_errors(variant_id: str) -> None:
    rtp, se = _observed(variant_id, 1_000_000, seed=7)
    assert abs(rtp - cached_report(VARIANTS[variant_id]).rtp) < 3 * se
