"""The engine, played with the analysis strategy, returns what the analysis says.

The full check (10,000,000 rounds per variant on every core, within 3 standard errors) is the
slow-tier ``test_math_engine_matches_par.py`` and ``rgs par V --check-rounds 10000000``; CI runs
this small, seeded version. Per rule: ``test_math_situations.py``.
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
