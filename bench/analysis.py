"""Time a full analysis (main game, outcome distribution, side bets, Cash Out, strategy) per
variant.

    .venv/bin/python bench/analysis.py
"""

from __future__ import annotations

import time

from rgs.math.report import analyse_variant
from rgs.variants import VARIANTS


def main() -> None:
    """Print seconds per variant and the total."""
    total = 0.0
    for rules in VARIANTS.values():
        start = time.perf_counter()
        report = analyse_variant(rules)
        took = time.perf_counter() - start
        total += took
        print(f"{rules.id:16s} {took:6.2f} s   RTP {report.rtp:.4f}%")
    print(f"{'all':16s} {total:6.2f} s")


if __name__ == "__main__":
    main()
