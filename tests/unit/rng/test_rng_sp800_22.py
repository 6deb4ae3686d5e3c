"""SP 800-22 implementations against NIST's worked examples and Appendix B
(``tests/data/rng/sp800_22_expected.md``, rows marked reproducible, with their tolerances).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pytest

from rgs.rng import sp800_22 as t1
from rgs.rng import sp800_22_more as t2
from rgs.rng.sp800_22 import Bits, TestResult, bits_from_text
from support.data import data_file

PI100 = ("1100100100001111110110101010001000100001011010001100001000110100110001001100011001"
         "100010100010111000")
LONGEST_128 = ("1100110000010101011011000100110011100000000000100100110101010001000100111101011010"
               "0000001101011111001100111001101101100010110010")


@cache
def e_bits() -> Bits:
    return bits_from_text(data_file("rng", "sp800_22_data_e.txt").read_text())[:1_000_000]


def test_e_data_set_is_the_one_nist_used() -> None:
    assert len(e_bits()) == 1_000_000
    assert int(e_bits().sum()) == 500_029
    assert "".join(map(str, e_bits()[:2])) == "10"


Case = tuple[str, Callable[[], TestResult], tuple[float, ...], float]

APPENDIX_B: list[Case] = [
    ("frequency", lambda: t1.frequency(e_bits()), (0.953749,), 1e-6),
    ("block_frequency_m128", lambda: t1.block_frequency(e_bits(), 128), (0.211072,), 1e-6),
    ("cusum_forward", lambda: t1.cumulative_sums(e_bits()), (0.669887,), 2e-6),
    ("cusum_reverse", lambda: t1.cumulative_sums(e_bits(), reverse=True), (0.724266,), 2e-6),
    ("runs", lambda: t1.runs(e_bits()), (0.561917,), 1e-6),
    ("longest_run_m10000", lambda: t1.longest_run_of_ones(e_bits()), (0.718945,), 1e-6),
    ("rank_32x32", lambda: t1.binary_matrix_rank(e_bits()), (0.306156,), 1e-6),
    ("dft", lambda: t1.dft(e_bits()), (0.847187,), 1e-6),
    ("non_overlapping_000000001",
     lambda: t2.non_overlapping_template(e_bits(), "000000001", 8), (0.078790,), 1e-6),
    ("overlapping_m9", lambda: t2.overlapping_template(e_bits(), 9, 1032), (0.110434,), 1e-6),
    ("universal_l7_q1280", lambda: t2.universal(e_bits(), 7, 1280), (0.282568,), 1e-6),
    ("approximate_entropy_m10", lambda: t1.approximate_entropy(e_bits(), 10), (0.700073,), 1e-6),
    ("linear_complexity_m500", lambda: t2.linear_complexity(e_bits(), 500), (0.826335,), 1e-6),
    ("serial_m16", lambda: t1.serial(e_bits(), 16), (0.766182, 0.462921), 1e-6),
]

SECTION_2_E: list[Case] = [
    ("rank_2_5_8", lambda: t1.binary_matrix_rank(e_bits()[:100_000]), (0.532069,), 1e-6),
    ("linear_complexity_2_10_8", lambda: t2.linear_complexity(e_bits(), 1000), (0.845406,), 1e-6),
    ("serial_2_11_8", lambda: t1.serial(e_bits(), 2), (0.843764, 0.561915), 1e-6),
    ("random_excursions_2_14_8", lambda: t2.random_excursions(e_bits()),
     (0.573306, 0.197996, 0.164011, 0.007779, 0.786868, 0.440912, 0.797854, 0.778186), 1e-6),
    ("random_excursions_variant_2_15_8", lambda: t2.random_excursions_variant(e_bits()),
     (0.858946, 0.794755, 0.576249, 0.493417, 0.633873, 0.917283, 0.934708, 0.816012, 0.826009,
      0.137861, 0.200642, 0.441254, 0.939291, 0.505683, 0.445935, 0.512207, 0.538635, 0.593930),
     1e-6),
]

ROUNDED_RANK = (0.2888, 0.5776, 0.1336)

SMALL_EXAMPLES: list[Case] = [
    ("frequency_2_1_4", lambda: t1.frequency(bits_from_text("1011010101")), (0.527089,), 1e-6),
    ("frequency_2_1_8", lambda: t1.frequency(bits_from_text(PI100)), (0.109599,), 1e-6),
    ("block_frequency_2_2_4", lambda: t1.block_frequency(bits_from_text("0110011010"), 3),
     (0.801252,), 1e-6),
    ("block_frequency_2_2_8", lambda: t1.block_frequency(bits_from_text(PI100), 10),
     (0.706438,), 1e-6),
    ("runs_2_3_4", lambda: t1.runs(bits_from_text("1001101011")), (0.147232,), 1e-6),
    ("runs_2_3_8", lambda: t1.runs(bits_from_text(PI100)), (0.500798,), 1e-6),
    ("longest_run_2_4_4", lambda: t1.longest_run_of_ones(bits_from_text(LONGEST_128)),
     (0.180598,), 2e-5),
    ("rank_2_5_4", lambda: t1.binary_matrix_rank(bits_from_text("01011001001010101101"), 3, 3,
                                                 ROUNDED_RANK), (0.741948,), 1e-6),
    ("non_overlapping_2_7_4",
     lambda: t2.non_overlapping_template(bits_from_text("10100100101110010110"), "001", 2),
     (0.344154,), 1e-6),
    ("serial_2_11_4", lambda: t1.serial(bits_from_text("0011011101"), 3),
     (0.808792, 0.670320), 1e-6),
    ("approximate_entropy_2_12_4", lambda: t1.approximate_entropy(bits_from_text("0100110101"), 3),
     (0.261961,), 1e-6),
    ("approximate_entropy_2_12_8", lambda: t1.approximate_entropy(bits_from_text(PI100), 2),
     (0.235301,), 1e-6),
    ("cusum_2_13_4", lambda: t1.cumulative_sums(bits_from_text("1011010111")), (0.4116588,), 1e-4),
    ("cusum_2_13_8_forward", lambda: t1.cumulative_sums(bits_from_text(PI100)), (0.219194,), 1e-6),
    ("cusum_2_13_8_reverse", lambda: t1.cumulative_sums(bits_from_text(PI100), reverse=True),
     (0.114866,), 1e-6),
]


def _check(run: Callable[[], TestResult], expected: tuple[float, ...], tol: float) -> None:
    got = run().p_values
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert abs(g - e) <= tol, (got, expected)


@pytest.mark.parametrize(("name", "run", "expected", "tol"), APPENDIX_B,
                         ids=[c[0] for c in APPENDIX_B])
def test_sp800_22_matches_appendix_b_on_e(name: str, run: Callable[[], TestResult],
                                          expected: tuple[float, ...], tol: float) -> None:
    _check(run, expected, tol)


@pytest.mark.parametrize(("name", "run", "expected", "tol"), SECTION_2_E,
                         ids=[c[0] for c in SECTION_2_E])
def test_sp800_22_matches_section_2_examples_on_e(name: str, run: Callable[[], TestResult],
                                                  expected: tuple[float, ...], tol: float) -> None:
    _check(run, expected, tol)


@pytest.mark.parametrize(("name", "run", "expected", "tol"), SMALL_EXAMPLES,
                         ids=[c[0] for c in SMALL_EXAMPLES])
def test_sp800_22_matches_small_worked_examples(name: str, run: Callable[[], TestResult],
                                                expected: tuple[float, ...], tol: float) -> None:
    _check(run, expected, tol)


def test_intermediate_statistics_match_the_document() -> None:
    nov = t2.non_overlapping_template(e_bits(), "000000001", 8).statistics
    assert [nov[f"W{i}"] for i in range(1, 9)] == [239, 235, 254, 278, 207, 229, 225, 242]
    ovl = t2.overlapping_template(e_bits()).statistics
    assert [ovl[f"nu{i}"] for i in range(6)] == [329, 164, 150, 111, 78, 136]
    lc = t2.linear_complexity(e_bits(), 1000).statistics
    assert [lc[f"nu{i}"] for i in range(7)] == [11, 31, 116, 501, 258, 57, 26]
    rank = t1.binary_matrix_rank(e_bits()[:100_000]).statistics
    assert (rank["F_M"], rank["F_M-1"]) == (23, 60)
    assert t1.cumulative_sums(e_bits()).statistics["z"] == 956
    assert t1.cumulative_sums(e_bits(), reverse=True).statistics["z"] == 898
    assert t1.cumulative_sums(bits_from_text("1011010111")).statistics["z"] == 4
    assert t2.random_excursions(e_bits()).statistics["J"] == 1490
    serial = t1.serial(bits_from_text("0011011101"), 3).statistics
    assert serial["psi2_m"] == pytest.approx(2.8)
    assert serial["del_psi2"] == pytest.approx(1.6)
    assert serial["del2_psi2"] == pytest.approx(0.8)


def test_overlapping_template_pi_uses_eta_1() -> None:
    expected = (0.367879, 0.183940, 0.137955, 0.099634, 0.069935, 0.140657)
    got = t2.overlapping_template_probabilities(1.0)
    assert got == pytest.approx(expected, abs=1e-6)


def test_rank_probabilities_for_32x32_are_exact() -> None:
    assert t1.rank_probabilities(32, 32) == pytest.approx((0.288788, 0.577576, 0.133636), abs=1e-6)


def test_universal_statistic_2_9_4() -> None:
    f_n = t2.universal_statistic(bits_from_text("01011010011101010111"), 2, 4)
    assert f_n == pytest.approx(1.1949875, abs=1e-7)


def test_random_excursions_small_examples_2_14_4_and_2_15_4() -> None:
    bits = bits_from_text("0110110101")
    # J = 3 is below the 500-cycle minimum: the battery declines, the formulas still apply.
    assert t2.random_excursions(bits).p_values == ()
    assert t2.random_excursions_variant(bits).p_values == ()
    exc = t2.random_excursions(bits, require_cycles=False)
    assert exc.statistics["J"] == 3
    assert exc.p_values[4] == pytest.approx(0.502529, abs=1e-4)  # state +1
    var = t2.random_excursions_variant(bits, require_cycles=False)
    assert var.statistics["xi[1]"] == 4
    assert var.p_values[9] == pytest.approx(0.683091, abs=1e-6)  # state +1


def test_linear_complexity_of_known_sequences() -> None:
    assert t2.linear_complexity_of([0] * 10) == 0
    assert t2.linear_complexity_of([1] * 10) == 1
    assert t2.linear_complexity_of([0] * 9 + [1]) == 10
    # The 1101011110001 example of §2.10.4 (M = 13) has linear complexity 4.
    assert t2.linear_complexity_of([int(c) for c in "1101011110001"]) == 4


def test_runs_fails_the_frequency_prerequisite_with_p_0() -> None:
    assert t1.runs(bits_from_text("1" * 90 + "0" * 10)).p_values == (0.0,)
