"""NIST SP 800-22 Rev. 1a statistical tests, part 2: templates, universal, linear complexity,
random excursions. Conventions as in :mod:`rgs.rng.sp800_22`.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from rgs.rng.sp800_22 import Bits, TestResult, igamc


def _window_values(bits: Bits, m: int) -> npt.NDArray[np.int64]:
    """The integer value of the m-bit window starting at each position (no wrap)."""
    count = len(bits) - m + 1
    vals = np.zeros(count, dtype=np.int64)
    b = bits.astype(np.int64)
    for k in range(m):
        vals = (vals << 1) | b[k:k + count]
    return vals


def non_overlapping_template(bits: Bits, template: str = "000000001",
                             blocks: int = 8) -> TestResult:
    """§2.7 Non-overlapping template matching for one aperiodic ``template``, in N blocks."""
    m = len(template)
    target = int(template, 2)
    size = len(bits) // blocks
    counts = []
    for j in range(blocks):
        hits = np.flatnonzero(_window_values(bits[j * size:(j + 1) * size], m) == target)
        w, next_free = 0, 0
        for i in hits.tolist():
            if i >= next_free:  # after a match the window jumps past it (no overlap)
                w += 1
                next_free = i + m
        counts.append(w)
    mu = (size - m + 1) / 2**m
    var = size * (1 / 2**m - (2 * m - 1) / 2 ** (2 * m))
    chi2 = sum((w - mu) ** 2 / var for w in counts)
    stats: dict[str, float] = {"chi2": chi2, "mu": mu, "sigma2": var}
    stats.update({f"W{j + 1}": w for j, w in enumerate(counts)})
    return TestResult(name=f"NonOverlappingTemplate[{template}]",
                      p_values=(igamc(blocks / 2, chi2 / 2),), statistics=stats)


def overlapping_template_probabilities(eta: float, classes: int = 6) -> tuple[float, ...]:
    """π_i of §3.8 for U = 0 … classes−2 matches, plus the tail class."""
    pis = [math.exp(-eta)]
    for u in range(1, classes - 1):
        total = sum(math.comb(u - 1, ell - 1) * eta**ell / math.factorial(ell)
                    for ell in range(1, u + 1))
        pis.append(math.exp(-eta) / 2**u * total)
    pis.append(1 - sum(pis))
    return tuple(pis)


def overlapping_template(bits: Bits, m: int = 9, block: int = 1032) -> TestResult:
    """§2.8 Overlapping template matching of ``1…1`` (m ones), K = 5, blocks of ``block`` bits.

    π is computed from λ = (M − m + 1) / 2^m, η = λ / 2 (§3.8), which reproduces Appendix B;
    sts-2.1.2's hard-coded π give a different P-value.
    """
    count = len(bits) // block
    target = (1 << m) - 1
    vals = _window_values(bits[: count * block], m)
    hits = np.zeros(count, dtype=np.int64)
    for j in range(count):
        hits[j] = np.count_nonzero(vals[j * block: j * block + block - m + 1] == target)
    nu = np.bincount(np.minimum(hits, 5), minlength=6)
    eta = (block - m + 1) / 2**m / 2
    pis = np.array(overlapping_template_probabilities(eta))
    chi2 = float(((nu - count * pis) ** 2 / (count * pis)).sum())
    return TestResult(name="OverlappingTemplate", p_values=(igamc(5 / 2, chi2 / 2),),
                      statistics={"chi2": chi2, **{f"nu{i}": int(v) for i, v in enumerate(nu)}})


_UNIVERSAL = {  # L: (expectedValue, variance), §2.9.4 step 5
    6: (5.2177052, 2.954), 7: (6.1962507, 3.125), 8: (7.1836656, 3.238),
    9: (8.1764248, 3.311), 10: (9.1723243, 3.356), 11: (10.170032, 3.384),
    12: (11.168765, 3.401), 13: (12.168070, 3.410), 14: (13.167693, 3.416),
    15: (14.167488, 3.419), 16: (15.167379, 3.421),
}


def universal_statistic(bits: Bits, block: int, init_blocks: int) -> float:
    """f_n of §2.9: mean log2 distance to each test block's previous occurrence."""
    total = len(bits) // block
    vals = _window_values(bits[: total * block], block)[::block].tolist()
    last = [0] * (1 << block)
    for i in range(init_blocks):
        last[vals[i]] = i + 1
    acc = 0.0
    for i in range(init_blocks, total):
        acc += math.log2(i + 1 - last[vals[i]])
        last[vals[i]] = i + 1
    return acc / (total - init_blocks)


def universal(bits: Bits, block: int = 7, init_blocks: int = 1280) -> TestResult:
    """§2.9 Maurer's universal statistical test (L = ``block``, Q = ``init_blocks``)."""
    if block not in _UNIVERSAL:
        raise ValueError("Maurer's test has reference values for L = 6 … 16 only")
    k = len(bits) // block - init_blocks
    fn = universal_statistic(bits, block, init_blocks)
    expected, variance = _UNIVERSAL[block]
    c = 0.7 - 0.8 / block + (4 + 32 / block) * k ** (-3 / block) / 15
    sigma = c * math.sqrt(variance / k)
    p = math.erfc(abs(fn - expected) / (math.sqrt(2) * sigma))
    return TestResult(name="Universal", p_values=(p,), statistics={"f_n": fn, "K": k})


def linear_complexity_of(seq: list[int]) -> int:
    """The length of the shortest LFSR that generates ``seq`` (Berlekamp–Massey, GF(2))."""
    c, b = 1, 1
    length, m = 0, -1
    window = 0
    for n, s in enumerate(seq):
        window = (window << 1) | s
        if (c & window).bit_count() & 1:  # discrepancy d = s_n + Σ c_i s_{n-i}
            t = c
            c ^= b << (n - m)
            if 2 * length <= n:
                length, m, b = n + 1 - length, n, t
    return length


# π_0 = 0.01047 as in sts-2.1.2 (the document's 0.010417 changes Appendix B's P-value).
_LC_PI = (0.01047, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833)


def linear_complexity(bits: Bits, block: int = 500) -> TestResult:
    """§2.10 Linear complexity of N blocks of M = ``block`` bits, K = 6 classes."""
    count = len(bits) // block
    mat = bits[: count * block].reshape(count, block)
    mu = block / 2 + (9 + (-1) ** (block + 1)) / 36 - (block / 3 + 2 / 9) / 2**block
    sign = (-1) ** block
    nu = [0] * 7
    for row in mat.tolist():
        t = sign * (linear_complexity_of(row) - mu) + 2 / 9
        cls = 0 if t <= -2.5 else 6 if t > 2.5 else math.ceil(t - 0.5) + 3
        nu[cls] += 1
    chi2 = sum((v - count * p) ** 2 / (count * p) for v, p in zip(nu, _LC_PI, strict=True))
    return TestResult(name="LinearComplexity", p_values=(igamc(3, chi2 / 2),),
                      statistics={"chi2": chi2, **{f"nu{i}": v for i, v in enumerate(nu)}})


def _excursion_walk(bits: Bits) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    s = np.cumsum(2 * bits.astype(np.int64) - 1)
    zero = s == 0
    cycle = np.cumsum(zero) - zero  # cycle number of each step (a zero closes its cycle)
    j = int(zero.sum()) + (1 if s[-1] != 0 else 0)
    return s, cycle, j


def random_excursions_applicable(j: int, n: int) -> bool:
    """§2.14.7: the test needs J ≥ max(0.005·√n, 500) cycles."""
    return j >= max(0.005 * math.sqrt(n), 500)


def random_excursions(bits: Bits, *, require_cycles: bool = True) -> TestResult:
    """§2.14 Random excursions: visits per cycle to states ±1…±4; eight P-values.

    When there are too few cycles the test does not apply (§2.14.7); the result then has no
    P-values and ``statistics["J"]`` says why. ``require_cycles=False`` lifts the rule, for the
    document's 10-bit worked example only.
    """
    s, cycle, j = _excursion_walk(bits)
    if require_cycles and not random_excursions_applicable(j, len(bits)):
        return TestResult(name="RandomExcursions", p_values=(), statistics={"J": j})
    stats: dict[str, float] = {"J": j}
    ps = []
    for x in (-4, -3, -2, -1, 1, 2, 3, 4):
        visits = np.bincount(cycle[s == x], minlength=j)[:j]
        nu = np.bincount(np.minimum(visits, 5), minlength=6)
        a = 1 - 1 / (2 * abs(x))
        pis = [a] + [1 / (4 * x * x) * a ** (k - 1) for k in range(1, 5)] + [a**4 / (2 * abs(x))]
        chi2 = sum((v - j * p) ** 2 / (j * p) for v, p in zip(nu.tolist(), pis, strict=True))
        stats[f"chi2[{x}]"] = chi2
        ps.append(igamc(5 / 2, chi2 / 2))
    return TestResult(name="RandomExcursions", p_values=tuple(ps), statistics=stats,
                      labels=tuple(f"x={x:+d}" for x in (-4, -3, -2, -1, 1, 2, 3, 4)))


def random_excursions_variant(bits: Bits, *, require_cycles: bool = True) -> TestResult:
    """§2.15 Random excursions variant: total visits to states ±1…±9; eighteen P-values.

    Applicability and ``require_cycles`` as in :func:`random_excursions`.
    """
    s, _, j = _excursion_walk(bits)
    if require_cycles and not random_excursions_applicable(j, len(bits)):
        return TestResult(name="RandomExcursionsVariant", p_values=(), statistics={"J": j})
    stats: dict[str, float] = {"J": j}
    ps = []
    states = [*range(-9, 0), *range(1, 10)]
    counts = np.bincount(s[np.abs(s) <= 9] + 9, minlength=19)
    for x in states:
        xi = int(counts[x + 9])
        stats[f"xi[{x}]"] = xi
        ps.append(math.erfc(abs(xi - j) / math.sqrt(2 * j * (4 * abs(x) - 2))))
    return TestResult(name="RandomExcursionsVariant", p_values=tuple(ps), statistics=stats,
                      labels=tuple(f"x={x:+d}" for x in states))
