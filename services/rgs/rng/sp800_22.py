"""NIST SP 800-22 Rev. 1a statistical tests, part 1: frequency, runs, rank, spectral, serial.

Each test takes a bit sequence (a NumPy array of 0/1, ``ε1`` first) and returns a
:class:`TestResult` with one or more P-values. Formulas and constants follow SP 800-22 Rev. 1a
section 2 and section 3; where the document and its reference code (sts-2.1.2) differ, the choice
is the one that reproduces Appendix B, noted at the function. Every test is checked against the
document's worked examples and Appendix B in ``tests/unit/rng/test_rng_sp800_22.py``.

The remaining tests (templates, universal, linear complexity, random excursions) are in
:mod:`rgs.rng.sp800_22_more`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from scipy.special import gammaincc, ndtr

Bits = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True, kw_only=True)
class TestResult:
    """The outcome of one SP 800-22 test: its P-values and the statistics behind them."""

    __test__ = False  # not a pytest test class despite the name

    name: str
    p_values: tuple[float, ...]
    statistics: dict[str, float] = field(default_factory=dict)
    #: What each P-value is about when there are several (a state, a statistic).
    labels: tuple[str, ...] = ()

    def passed(self, alpha: float = 0.01) -> bool:
        """True when every P-value is at least ``alpha`` (SP 800-22 §4.2.1 decision rule)."""
        return all(p >= alpha for p in self.p_values)


def bits_from_bytes(data: bytes) -> Bits:
    """The bits of ``data``, most significant bit of each byte first."""
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8))


def bits_from_text(text: str) -> Bits:
    """The ``0``/``1`` characters of ``text`` as bits (other characters are ignored)."""
    raw = np.frombuffer(text.encode("ascii", "ignore"), dtype=np.uint8)
    out: Bits = (raw[(raw == 48) | (raw == 49)] - 48).astype(np.uint8)
    return out


def igamc(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x), as in SP 800-22 §5.5.3."""
    return float(gammaincc(a, x))


def _erfc(x: float) -> float:
    return math.erfc(x)


def frequency(bits: Bits) -> TestResult:
    """§2.1 Frequency (monobit): is the proportion of ones about one half."""
    n = len(bits)
    s = 2 * int(bits.sum()) - n
    s_obs = abs(s) / math.sqrt(n)
    return TestResult(name="Frequency", p_values=(_erfc(s_obs / math.sqrt(2)),),
                      statistics={"S_n": s, "s_obs": s_obs})


def block_frequency(bits: Bits, m: int = 128) -> TestResult:
    """§2.2 Frequency within a block of ``m`` bits (trailing bits are discarded)."""
    blocks = len(bits) // m
    pi = bits[: blocks * m].reshape(blocks, m).mean(axis=1)
    chi2 = 4 * m * float(((pi - 0.5) ** 2).sum())
    return TestResult(name="BlockFrequency", p_values=(igamc(blocks / 2, chi2 / 2),),
                      statistics={"chi2": chi2, "M": m, "N": blocks})


def cumulative_sums(bits: Bits, *, reverse: bool = False) -> TestResult:
    """§2.13 Cumulative sums, forward (mode 0) or reverse (mode 1)."""
    n = len(bits)
    x = 2 * bits.astype(np.int64) - 1
    s = np.cumsum(x[::-1] if reverse else x)
    z = int(np.abs(s).max())
    sq = math.sqrt(n)
    # Summation bounds truncate toward zero, as in the reference implementation.
    k1 = np.arange(int((-n / z + 1) / 4), int((n / z - 1) / 4) + 1)
    k2 = np.arange(int((-n / z - 3) / 4), int((n / z - 1) / 4) + 1)
    sum1 = float((ndtr((4 * k1 + 1) * z / sq) - ndtr((4 * k1 - 1) * z / sq)).sum())
    sum2 = float((ndtr((4 * k2 + 3) * z / sq) - ndtr((4 * k2 + 1) * z / sq)).sum())
    p = 1.0 - sum1 + sum2
    return TestResult(name="CumulativeSums" + ("Reverse" if reverse else "Forward"),
                      p_values=(p,), statistics={"z": z})


def runs(bits: Bits) -> TestResult:
    """§2.3 Runs: the number of uninterrupted runs of identical bits."""
    n = len(bits)
    pi = float(bits.mean())
    if abs(pi - 0.5) >= 2 / math.sqrt(n):
        # The frequency prerequisite fails; SP 800-22 §2.3.4 step 2 sets P = 0.
        return TestResult(name="Runs", p_values=(0.0,), statistics={"pi": pi})
    v = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    num = abs(v - 2 * n * pi * (1 - pi))
    p = _erfc(num / (2 * math.sqrt(2 * n) * pi * (1 - pi)))
    return TestResult(name="Runs", p_values=(p,), statistics={"pi": pi, "V_obs": v})


_LONGEST_RUN = {  # M: (lowest class, highest class, probabilities), §2.4.4 and §3.4
    8: (1, 4, (0.2148, 0.3672, 0.2305, 0.1875)),
    128: (4, 9, (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124)),
    10000: (10, 16, (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727)),
}


def longest_run_of_ones(bits: Bits) -> TestResult:
    """§2.4 Longest run of ones in a block; M is chosen from n as in §2.4.2 (n ≥ 128)."""
    n = len(bits)
    if n < 128:
        raise ValueError("the longest-run test needs at least 128 bits")
    m = 8 if n < 6272 else 128 if n < 750000 else 10000
    lo, hi, pis = _LONGEST_RUN[m]
    blocks = n // m
    mat = bits[: blocks * m].reshape(blocks, m).astype(np.int8)
    padded = np.zeros((blocks, m + 2), dtype=np.int8)
    padded[:, 1:-1] = mat
    longest = np.zeros(blocks, dtype=np.int64)
    for row, d in enumerate(np.diff(padded, axis=1)):
        starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        if len(starts):
            # np.max, not ndarray.max(): numpy 2.5's stubs give the method no whole-array
            # overload for this dtype, while the function is typed the same in 2.4 and 2.5.
            longest[row] = int(np.max(ends - starts))
    nu = np.bincount(np.clip(longest, lo, hi) - lo, minlength=hi - lo + 1)
    expected = blocks * np.array(pis)
    chi2 = float(((nu - expected) ** 2 / expected).sum())
    k = len(pis) - 1
    return TestResult(name="LongestRun", p_values=(igamc(k / 2, chi2 / 2),),
                      statistics={"chi2": chi2, "M": m, "N": blocks})


def rank_probabilities(m: int, q: int) -> tuple[float, float, float]:
    """P(rank = min(m,q)), P(rank = min(m,q) − 1) and the rest, for random m×q matrices (§3.5)."""

    def p(r: int) -> float:
        prod = 1.0
        for i in range(r):
            prod *= (1 - 2.0 ** (i - q)) * (1 - 2.0 ** (i - m)) / (1 - 2.0 ** (i - r))
        return 2.0 ** (r * (q + m - r) - m * q) * prod

    full = min(m, q)
    p_full, p_minus = p(full), p(full - 1)
    return p_full, p_minus, 1.0 - p_full - p_minus


def _gf2_rank(rows: list[int], width: int) -> int:
    rank = 0
    for bit in range(width - 1, -1, -1):
        pivot = next((i for i in range(rank, len(rows)) if rows[i] >> bit & 1), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        top = rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i] >> bit & 1:
                rows[i] ^= top
        rank += 1
    return rank


def binary_matrix_rank(bits: Bits, m: int = 32, q: int = 32,
                       probabilities: tuple[float, float, float] | None = None) -> TestResult:
    """§2.5 Rank of disjoint m×q sub-matrices over GF(2).

    The class probabilities default to the exact values for m×q (0.288788, 0.577576, 0.133636
    for 32×32); the document's rounded 0.2888/0.5776/0.1336 shift the Appendix B P-value.
    """
    probs = probabilities or rank_probabilities(m, q)
    count = len(bits) // (m * q)
    weights = 1 << np.arange(q - 1, -1, -1, dtype=np.uint64)
    rows = (bits[: count * m * q].reshape(count * m, q).astype(np.uint64) * weights).sum(axis=1)
    full = min(m, q)
    ranks = [_gf2_rank([int(r) for r in rows[i * m:(i + 1) * m]], q) for i in range(count)]
    f_full = sum(1 for r in ranks if r == full)
    f_minus = sum(1 for r in ranks if r == full - 1)
    observed = (f_full, f_minus, count - f_full - f_minus)
    chi2 = sum((o - count * p) ** 2 / (count * p) for o, p in zip(observed, probs, strict=True))
    return TestResult(name="Rank", p_values=(math.exp(-chi2 / 2),),
                      statistics={"chi2": chi2, "F_M": f_full, "F_M-1": f_minus, "N": count})


def dft(bits: Bits) -> TestResult:
    """§2.6 Discrete Fourier transform (spectral): peaks above the 95 % threshold."""
    n = len(bits)
    x = 2.0 * bits - 1.0
    modulus = np.abs(np.fft.fft(x)[: n // 2])
    threshold = math.sqrt(math.log(1 / 0.05) * n)
    n0 = 0.95 * n / 2
    n1 = int(np.count_nonzero(modulus < threshold))
    d = (n1 - n0) / math.sqrt(n * 0.95 * 0.05 / 4)
    return TestResult(name="FFT", p_values=(_erfc(abs(d) / math.sqrt(2)),),
                      statistics={"N0": n0, "N1": n1, "d": d})


def _pattern_counts(bits: Bits, m: int) -> npt.NDArray[np.int64]:
    """Counts of every overlapping m-bit pattern, the sequence wrapped by m − 1 bits (§2.11)."""
    n = len(bits)
    ext = np.concatenate([bits, bits[: m - 1]]).astype(np.int64)
    vals = np.zeros(n, dtype=np.int64)
    for k in range(m):
        vals = (vals << 1) | ext[k:k + n]
    return np.bincount(vals, minlength=1 << m)


def _psi2(bits: Bits, m: int) -> float:
    if m <= 0:
        return 0.0
    n = len(bits)
    counts = _pattern_counts(bits, m).astype(np.float64)
    return float((1 << m) / n * (counts**2).sum() - n)


def serial(bits: Bits, m: int = 16) -> TestResult:
    """§2.11 Serial: uniformity of overlapping m-bit patterns; two P-values."""
    p0, p1, p2 = _psi2(bits, m), _psi2(bits, m - 1), _psi2(bits, m - 2)
    d1, d2 = p0 - p1, p0 - 2 * p1 + p2
    return TestResult(name="Serial",
                      p_values=(igamc(2 ** (m - 2), d1 / 2), igamc(2 ** (m - 3), d2 / 2)),
                      statistics={"psi2_m": p0, "del_psi2": d1, "del2_psi2": d2},
                      labels=("∇ψ²", "∇²ψ²"))


def _phi(bits: Bits, m: int) -> float:
    counts = _pattern_counts(bits, m)
    pi = counts[counts > 0] / len(bits)
    return float((pi * np.log(pi)).sum())


def approximate_entropy(bits: Bits, m: int = 10) -> TestResult:
    """§2.12 Approximate entropy: frequency of overlapping m- and (m+1)-bit patterns."""
    n = len(bits)
    apen = _phi(bits, m) - _phi(bits, m + 1)
    chi2 = 2 * n * (math.log(2) - apen)
    return TestResult(name="ApproximateEntropy", p_values=(igamc(2 ** (m - 1), chi2 / 2),),
                      statistics={"ApEn": apen, "chi2": chi2})
