"""The SP 800-22 battery on DRBG output, and the report's decision rules."""

from __future__ import annotations

import numpy as np
import pytest

from rgs.rng.drbg import HmacDrbg
from rgs.rng.report import PValueSummary, battery, summarize, tolerated_flags
from rgs.rng.sp800_22 import TestResult, bits_from_bytes


def _drbg_bits(tag: bytes, nbits: int) -> np.ndarray:
    drbg = HmacDrbg.instantiate(entropy_input=tag.ljust(32, b"\x00"), nonce=b"battery-ci-nonce",
                                personalization=b"tests/stats", reseed_interval=1 << 48)
    nbytes = nbits // 8
    data = b"".join(drbg.generate(min(65536, nbytes - i)) for i in range(0, nbytes, 65536))
    return bits_from_bytes(data)


def test_drbg_output_passes_every_sp800_22_test_on_a_million_bits() -> None:
    # Deterministic input: it passes or fails for good. α = 0.001 leaves room for the ~60
    # P-values of one sequence while still catching a broken generator.
    results = battery(_drbg_bits(b"battery", 1_000_000))
    names = {r.name.split("[")[0] for r in results}
    assert names == {"Frequency", "BlockFrequency", "CumulativeSumsForward",
                     "CumulativeSumsReverse", "Runs", "LongestRun", "Rank", "FFT",
                     "NonOverlappingTemplate", "OverlappingTemplate", "Universal",
                     "ApproximateEntropy", "RandomExcursions", "RandomExcursionsVariant",
                     "Serial", "LinearComplexity"}
    low = {r.name: r.p_values for r in results if not r.passed(0.001)}
    assert low == {}


def test_battery_rejects_a_generator_with_a_one_percent_bias_towards_ones() -> None:
    bits = _drbg_bits(b"biased", 1_000_000)
    force = np.random.default_rng(7).random(len(bits)) < 0.02  # 2 % forced to one: 51 % ones
    biased = np.where(force, 1, bits).astype(np.uint8)
    results = {r.name: r for r in battery(biased)}
    assert results["Frequency"].p_values[0] < 1e-6
    assert results["CumulativeSumsForward"].p_values[0] < 1e-6


def _row(ps: list[float]) -> list[list[TestResult]]:
    return [[TestResult(name="T", p_values=(p,))] for p in ps]


def test_proportion_rule_flags_a_row_with_too_many_failures() -> None:
    # m = 100: the minimum proportion is 0.99 − 3·sqrt(0.0099/100) = 0.9602, so 4 failures flag.
    ok = summarize(_row([0.005] * 3 + [0.5] * 97))[0]
    bad = summarize(_row([0.005] * 4 + [0.5] * 96))[0]
    assert ok.proportion_low == pytest.approx(0.960151, abs=1e-6)
    assert ok.proportion == 0.97
    assert bad.proportion == 0.96
    assert ok.uniformity_p is not None
    assert bad.proportion < bad.proportion_low


def test_uniformity_rule_flags_clustered_p_values() -> None:
    clustered = summarize(_row([0.55 + i / 10_000 for i in range(100)]))[0]
    assert clustered.proportion == 1.0
    assert clustered.uniformity_p is not None
    assert clustered.uniformity_p < 0.0001
    assert not clustered.passed
    even = summarize(_row([(i + 0.5) / 100 for i in range(100)]))[0]
    assert even.uniformity_p == pytest.approx(1.0)
    assert even.passed


def test_tolerated_flags_follow_the_binomial_false_flag_rate() -> None:
    rows = [PValueSummary(name=str(i), p_values=(0.5,), proportion=1.0, proportion_low=0.96,
                          uniformity_p=None, false_flag=0.02) for i in range(60)]
    # Binomial(60, 0.02): P(X ≤ 5) = 0.99873 < 0.999 ≤ P(X ≤ 6) = 0.99980.
    assert tolerated_flags(rows) == 6
    assert tolerated_flags([]) == 0


@pytest.mark.slow
def test_live_drbg_stream_passes_the_sp800_22_report() -> None:
    from rgs.rng import CertifiedRng
    from rgs.rng.report import run_report

    rng = CertifiedRng()
    report = run_report(rng.raw, rng.card_source, rng.shuffle, generator="live", sequences=60,
                        bits=1_000_000, rounds=0, shuffles=0)
    assert report.flagged <= report.tolerated, [r.name for r in report.rows if not r.passed]
    assert report.passed
