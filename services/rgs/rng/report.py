"""The statistical battery and the lab report (``rgs rng report``).

The battery follows SP 800-22 §4: the DRBG stream is cut into ``m`` sequences of ``n`` bits,
each of the 15 tests runs on every sequence, and for every P-value the report gives

* the **proportion** of sequences passing at α = 0.01, which must lie in
  ``p̂ ± 3·sqrt(p̂(1 − p̂)/m)`` with ``p̂ = 0.99`` (§4.2.1), and
* the **uniformity** of the P-values: a chi-square over ten bins, whose P-value must be at least
  0.0001 (§4.2.2; reported once there are at least 55 sequences, as §4.2.2 asks).

Cards are then dealt through the real engine and shuffled (see :mod:`rgs.rng.cardstats`) and
their chi-square tests are listed. The Markdown report names the generator, its settings, the
volume and the decision rules, so a lab can read it without this code; the PNG shows the
distribution of every P-value of the run (uniform on [0, 1] for a good generator).
"""

from __future__ import annotations

import math
import platform
import time
from collections.abc import Callable, MutableSequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import binom

from rgs.engine import CardSource, Shoe
from rgs.rng import sp800_22 as t1
from rgs.rng import sp800_22_more as t2
from rgs.rng.cardstats import (
    ChiSquare,
    deal_rounds,
    engine_draw_shuffle,
    pair_tests,
    position_test,
    rank_suit_card_tests,
    shuffle_position_test,
)
from rgs.rng.sp800_22 import Bits, TestResult, bits_from_bytes, igamc
from rgs.variants import find_variant

ALPHA = 0.01
#: Aperiodic 9-bit templates used for the non-overlapping template test (a spread of the 148
#: that sts-2.1.2 runs; each costs a pass over the sequence).
TEMPLATES = ("000000001", "000000011", "000010111", "001000111", "010011111", "100000000",
             "110100000", "111111110")
#: §4.2.2 asks for at least 55 sequences before judging the P-value distribution.
MIN_SEQUENCES_FOR_UNIFORMITY = 55


def battery(bits: Bits) -> list[TestResult]:
    """All 15 SP 800-22 tests on one sequence, with the document's recommended parameters.

    Parameters are those of sts-2.1.2 for n = 10^6 (block frequency M = 128, serial m = 16,
    approximate entropy m = 10, linear complexity M = 500, universal L = 7 / Q = 1280); tests
    that need more bits than given are left out rather than run outside their range.
    """
    n = len(bits)
    out = [t1.frequency(bits), t1.block_frequency(bits, 128), t1.cumulative_sums(bits),
           t1.cumulative_sums(bits, reverse=True), t1.runs(bits), t1.longest_run_of_ones(bits)]
    if n >= 38 * 1024:
        out.append(t1.binary_matrix_rank(bits))
    out.append(t1.dft(bits))
    out += [t2.non_overlapping_template(bits, tpl, 8) for tpl in TEMPLATES]
    out.append(t2.overlapping_template(bits))
    if n >= 387_840:
        out.append(t2.universal(bits, 7, 1280))
    out.append(t1.approximate_entropy(bits, 10 if n >= 100_000 else 2))
    out.append(t2.random_excursions(bits))
    out.append(t2.random_excursions_variant(bits))
    out.append(t1.serial(bits, 16 if n >= 1_000_000 else 8))
    if n >= 1_000_000:
        out.append(t2.linear_complexity(bits, 500))
    return out


def _battery_on_bytes(data: bytes) -> list[TestResult]:
    return battery(bits_from_bytes(data))


@dataclass(frozen=True, slots=True, kw_only=True)
class PValueSummary:
    """One P-value of one test across all sequences (one row of the report)."""

    name: str
    p_values: tuple[float, ...]
    proportion: float
    proportion_low: float
    uniformity_p: float | None
    #: Chance that a perfect generator fails this row (proportion rule, exact binomial, plus the
    #: uniformity rule's 0.0001 when judged).
    false_flag: float

    @property
    def passed(self) -> bool:
        """Both §4.2 criteria met (uniformity only when judged)."""
        ok = self.proportion >= self.proportion_low
        return ok and (self.uniformity_p is None or self.uniformity_p >= 0.0001)


def summarize(results: list[list[TestResult]]) -> list[PValueSummary]:
    """Group per-sequence results into one row per (test, P-value slot), in first-seen order."""
    slots: dict[str, list[float]] = {}
    for seq in results:
        for r in seq:
            for i, p in enumerate(r.p_values):
                label = r.labels[i] if i < len(r.labels) else f"#{i + 1}"
                key = r.name if len(r.p_values) == 1 else f"{r.name} {label}"
                slots.setdefault(key, []).append(p)
    out = []
    for name, ps in slots.items():
        m = len(ps)
        prop = sum(1 for p in ps if p >= ALPHA) / m
        low = (1 - ALPHA) - 3 * math.sqrt(ALPHA * (1 - ALPHA) / m)
        uni = None
        if m >= MIN_SEQUENCES_FOR_UNIFORMITY:
            counts = np.histogram(np.clip(ps, 0, 1), bins=10, range=(0, 1))[0]
            chi2 = float(((counts - m / 10) ** 2 / (m / 10)).sum())
            uni = igamc(9 / 2, chi2 / 2)
        min_passes = math.ceil(low * m - 1e-9)
        false_flag = float(binom.cdf(min_passes - 1, m, 1 - ALPHA))
        if uni is not None:
            false_flag += 0.0001
        out.append(PValueSummary(name=name, p_values=tuple(ps), proportion=prop,
                                 proportion_low=low, uniformity_p=uni, false_flag=false_flag))
    return out


def tolerated_flags(rows: list[PValueSummary] | tuple[PValueSummary, ...],
                    level: float = 0.999) -> int:
    """How many rows a perfect generator may fail at the given level.

    With dozens of rows, each failing by chance with probability q (SP 800-22's rule fails a row
    of 100 sequences about 2 % of the time), some flags are expected. The rows are treated as
    independent, which is approximate (frequency and cumulative sums are correlated, for one).
    """
    if not rows:
        return 0
    q = sum(r.false_flag for r in rows) / len(rows)
    return int(binom.ppf(level, len(rows), q))


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """Everything a report shows: generator, volume, SP 800-22 rows, card chi-squares."""

    generator: str
    sequences: int
    bits: int
    rows: tuple[PValueSummary, ...]
    cards: tuple[ChiSquare, ...]
    rounds: int
    shuffles: int
    variant: str
    seconds: float
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                time.gmtime()))

    @property
    def flagged(self) -> int:
        """SP 800-22 rows that miss a §4.2 criterion."""
        return sum(1 for r in self.rows if not r.passed)

    @property
    def tolerated(self) -> int:
        """Flagged rows a perfect generator produces by chance (99.9 % level)."""
        return tolerated_flags(self.rows)

    @property
    def passed(self) -> bool:
        """No more flagged rows than chance allows, and every card test has P ≥ 0.0001."""
        return self.flagged <= self.tolerated and all(c.p_value >= 0.0001 for c in self.cards)

    def to_json(self) -> dict[str, object]:
        """A JSON-ready summary (the ``--json`` output)."""
        return {
            "passed": self.passed, "flagged_rows": self.flagged,
            "tolerated_rows": self.tolerated, "generator": self.generator,
            "sequences": self.sequences,
            "bits_per_sequence": self.bits, "rounds": self.rounds, "shuffles": self.shuffles,
            "variant": self.variant, "seconds": round(self.seconds, 1), "created": self.created,
            "sp800_22": [{"test": r.name, "proportion": r.proportion,
                          "proportion_min": r.proportion_low, "uniformity_p": r.uniformity_p,
                          "passed": r.passed} for r in self.rows],
            "cards": [{"test": c.name, "chi2": c.statistic, "dof": c.dof, "p": c.p_value,
                       "samples": c.samples} for c in self.cards],
        }


def run_report(read: Callable[[int], bytes], source_for: Callable[[Shoe], CardSource],
               shuffle: Callable[[MutableSequence[str]], None], *, generator: str, sequences: int,
               bits: int, rounds: int, shuffles: int, variant: str = "vip-platinum",
               jobs: int = 1, progress: Callable[[str], None] | None = None) -> Report:
    """Run the battery on ``sequences`` × ``bits`` bits from ``read`` and the card tests.

    ``jobs`` > 1 runs the SP 800-22 battery on that many worker processes. The stream is still
    read here, in order, so sequence ``k`` is the ``k``-th slice of the stream either way.

    ``read(nbytes)`` supplies the raw stream (the DRBG, or a captured file); ``source_for`` and
    ``shuffle`` are the card-source factory and the shuffle under test.
    """
    say = progress or (lambda _msg: None)
    start = time.monotonic()
    nbytes = bits // 8

    def chunk() -> bytes:
        return b"".join(read(min(65536, nbytes - i)) for i in range(0, nbytes, 65536))

    results: list[list[TestResult]] = []
    if jobs <= 1:
        for s in range(sequences):
            say(f"SP 800-22: sequence {s + 1}/{sequences}")
            results.append(_battery_on_bytes(chunk()))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_battery_on_bytes, chunk()) for _ in range(sequences)]
            for s, future in enumerate(futures):
                say(f"SP 800-22: sequence {s + 1}/{sequences} ({jobs} jobs)")
                results.append(future.result())
    cards: list[ChiSquare] = []
    rules = find_variant(variant)
    if rounds:
        say(f"dealing {rounds} rounds of {variant} through the engine")
        dealt = deal_rounds(rules, source_for, rounds,
                            progress=lambda r: say(f"dealing: round {r}/{rounds}"))
        cards += [*rank_suit_card_tests(dealt, rules.decks), position_test(dealt),
                  *pair_tests(dealt, rules.decks)]
    if shuffles:
        say(f"{shuffles} full one-deck shuffles")
        cards.append(shuffle_position_test(shuffle, shuffles, name="Fisher–Yates position × card",
                                           progress=lambda s: say(f"shuffles: {s}/{shuffles}")))
        cards.append(shuffle_position_test(engine_draw_shuffle(source_for), shuffles,
                                           name="engine draw order position × card"))
    return Report(generator=generator, sequences=sequences, bits=bits,
                  rows=tuple(summarize(results)), cards=tuple(cards), rounds=rounds,
                  shuffles=shuffles, variant=variant, seconds=time.monotonic() - start)


def _fmt(p: float | None) -> str:
    return "—" if p is None else f"{p:.6f}"


def write_markdown(report: Report, path: Path, png_name: str) -> None:
    """Write the report as Markdown (readable without this code)."""
    m = report.sequences
    lines = [
        "# RNG statistical report",
        "",
        f"**Verdict: {'PASS' if report.passed else 'FAIL'}** — {report.flagged} of "
        f"{len(report.rows)} SP 800-22 rows flagged (chance alone flags up to {report.tolerated} "
        "at the 99.9 % level); "
        f"{sum(1 for c in report.cards if c.p_value < 0.0001)} of {len(report.cards)} card "
        "tests below P = 0.0001.",
        "",
        "| | |", "|---|---|",
        f"| Generator | {report.generator} |",
        f"| Created (UTC) | {report.created} |",
        f"| Host | {platform.node()} · Python {platform.python_version()} |",
        f"| SP 800-22 volume | {m} sequences × {report.bits:,} bits |",
        f"| Card volume | {report.rounds:,} rounds of `{report.variant}`, "
        f"{report.shuffles:,} shuffles |",
        f"| Run time | {report.seconds:.0f} s |",
        "",
        "## Decision rules",
        "",
        "* SP 800-22 §4.2.1: a P-value passes at α = 0.01; the proportion of passing sequences "
        "must be at least p̂ − 3·sqrt(p̂(1 − p̂)/m) with p̂ = 0.99 "
        f"(here {report.rows[0].proportion_low:.4f} for m = {m})." if report.rows else "",
        "* SP 800-22 §4.2.2: the P-values of each test must be uniform: chi-square over ten bins, "
        f"P-value ≥ 0.0001 (judged when m ≥ {MIN_SEQUENCES_FOR_UNIFORMITY}).",
        "* Verdict: a perfect generator still fails a row now and then (the chance is given per "
        "row); the run passes when no more rows are flagged than chance allows at the 99.9 % "
        "level (exact binomial, rows treated as independent).",
        "* Card tests: Pearson chi-square, P ≥ 0.0001 (see `services/rgs/rng/README.md`).",
        "* Random excursions (variant) run only on sequences with at least 500 cycles (§2.14.7), "
        "so their count of sequences can be lower than m.",
        "",
        "## SP 800-22 results",
        "",
        "| Test | Sequences | Proportion passing | Minimum | Uniformity P | Chance of a flag "
        "| Result |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in report.rows:
        lines.append(f"| {r.name} | {len(r.p_values)} | {r.proportion:.4f} | "
                     f"{r.proportion_low:.4f} | {_fmt(r.uniformity_p)} | {r.false_flag:.4f} | "
                     f"{'pass' if r.passed else '**flagged**'} |")
    lines += ["", "## Card outcomes through the engine", "",
              "| Test | Samples | χ² | dof | P-value | Result |", "|---|---:|---:|---:|---:|---|"]
    for c in report.cards:
        lines.append(f"| {c.name} | {c.samples:,} | {c.statistic:.2f} | {c.dof} | "
                     f"{c.p_value:.6f} | {'pass' if c.p_value >= 0.0001 else '**FAIL**'} |")
    lines += ["", "## P-value distribution", "", f"![P-values]({png_name})", "",
              "All SP 800-22 P-values of the run in ten bins; a good generator gives a flat "
              "histogram (dashed line: the expected count per bin).", ""]
    path.write_text("\n".join(line for line in lines if line is not None) + "\n")


def write_png(report: Report, path: Path) -> None:
    """Histogram of every SP 800-22 P-value of the run, with the expected flat level."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ps = [p for r in report.rows for p in r.p_values]
    height = max(4.0, 0.16 * len(report.rows) + 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, height),
                                      gridspec_kw={"width_ratios": (1, 1.3)})
    left.hist(ps, bins=10, range=(0, 1), color="#4477aa", edgecolor="white")
    left.axhline(len(ps) / 10, color="black", linestyle="--", linewidth=1)
    left.set_title(f"All SP 800-22 P-values ({len(ps)})")
    left.set_xlabel("P-value")
    left.set_ylabel("count")
    names = [r.name for r in report.rows]
    props = [r.proportion for r in report.rows]
    right.barh(range(len(names)), props, color=["#4477aa" if r.passed else "#cc3311"
                                                 for r in report.rows])
    lows = [r.proportion_low for r in report.rows]
    right.scatter(lows, range(len(names)), marker="|", color="black", s=60, zorder=3)
    right.set_yticks(range(len(names)), names, fontsize=6)
    right.set_xlim(min([*props, *lows, 0.95]) - 0.01, 1.0)
    right.set_title("Proportion passing at α = 0.01 (black tick: minimum for the row)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
