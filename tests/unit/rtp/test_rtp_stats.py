"""The monitoring's arithmetic (docs/rtp-monitoring.md): returns per base stake, the
difference's standard error and z-score, the rounds a shift needs, and the stake bands."""

from __future__ import annotations

import math

from rgs.rtp.expected import RoundFigures
from rgs.rtp.stats import Tally, rounds_to_flag, summarise
from rgs.rtp.worker import stake_band


def _f(observed: int, expected: float, par: float, base: int = 100) -> RoundFigures:
    return RoundFigures(base_stake=base, observed_net=observed, par_net=par,
                        expected_net=expected, regret=max(par - expected, 0.0), decisions=1)


def test_summary_is_the_documented_arithmetic() -> None:
    figs = [_f(100, -10.0, -1.0), _f(-100, -20.0, -1.0), _f(0, 5.0, -1.0), _f(150, 0.0, -1.0)]
    s = summarise(Tally.of(figs))
    base = 400
    assert s.rounds == 4
    assert math.isclose(s.observed, 1 + 150 / base)
    assert math.isclose(s.expected, 1 - 25 / base)
    assert math.isclose(s.par, 1 - 4 / base)
    r = [110.0, -80.0, -5.0, 150.0]
    mean = sum(r) / 4
    var = sum((x - mean) ** 2 for x in r) / 3
    assert math.isclose(s.difference, sum(r) / base)
    assert math.isclose(s.standard_error, math.sqrt(4 * var) / base)
    assert math.isclose(s.z, s.difference / s.standard_error)
    assert math.isclose(s.regret, (9 + 19) / base)


def test_one_round_has_no_standard_error_and_no_z() -> None:
    s = summarise(Tally.of([_f(100, 0.0, 0.0)]))
    assert (s.standard_error, s.z) == (0.0, 0.0)


def test_rounds_to_flag() -> None:
    # ((4.5 + 1.2816) * 1.0 / 0.01)^2 = 334,268.99...
    assert rounds_to_flag(-0.01, 1.0, z=4.5) == 334_269


def test_stake_bands_are_powers_of_ten_of_minor_units() -> None:
    assert [stake_band(n) for n in (1, 9, 10, 150, 1000, 99_999)] == [
        "1-9", "1-9", "10-99", "100-999", "1000-9999", "10000-99999"]
