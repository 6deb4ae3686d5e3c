"""The table-driven basic-strategy player's observed return through the engine.

Expectation: the exact composition-dependent return of each variant from ``rgs.math``'s
combinatorial analysis, as committed on its PAR sheet (``services/rgs/math/par/<id>.json``), and
for vip-platinum also the operator's published 99.29%. The player uses the total-dependent
table derived from that analysis plus its two-card exceptions, which gives up a few hundredths
of a percent against composition-dependent play — far inside the 4-standard-error band of a
CI-sized run (about ±1.9 points at 60,000 rounds). A gross rule error moves the return by
whole points (a dealer 7+4 counted as blackjack cost power 5 points) and fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rgs.math
from rgs.math.simulate import simulate
from rgs.math.strategy_tables import (
    load_power_double_choices,
    load_strategy,
    load_two_card_strategy,
)
from rgs.variants import VARIANTS

ROUNDS = 60_000
PAR = Path(rgs.math.__file__).parent / "par"


def _expected(variant: str) -> dict[str, float]:
    par = json.loads((PAR / f"{variant}.json").read_text("utf-8"))
    return {"main": float(par["rtp"]), **{k: float(v) for k, v in par["side_bets"].items()}}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_basic_strategy_return_within_4_standard_errors_of_the_analysis(variant: str) -> None:
    rules = VARIANTS[variant]
    res = simulate(rules, ROUNDS, seed=20261129, table=load_strategy(variant),
                   power_choices=load_power_double_choices(variant),
                   two_card=load_two_card_strategy(variant))
    expected = _expected(variant)
    assert abs(res.main.rtp - expected["main"]) < 4 * res.main.stderr, (
        f"{variant}: observed {res.main.rtp:.3f}% ± {res.main.stderr:.3f}, "
        f"analysis {expected['main']:.3f}%")
    assert set(res.side_bets) == {k for k in expected if k != "main"}
    for name, bet in res.side_bets.items():
        assert abs(bet.rtp - expected[name]) < 4 * bet.stderr, (name, bet, expected[name])


def test_vip_platinum_basic_strategy_return_matches_the_published_99_29() -> None:
    res = simulate(VARIANTS["vip-platinum"], ROUNDS, seed=7, side_bets=False,
                   table=load_strategy("vip-platinum"))
    assert abs(res.main.rtp - 99.29) < 4 * res.main.stderr
