"""Time a full analysis (main game, outcome distribution, side bets, Cash Out, strategy) per
variant.

    .venv/bin/python bench/math.py
"""

from __future__ import annotations

import sys
from pathlib import Path

# This script is named math.py: drop its directory from the path so that it does not shadow
# the standard library's math module for everything imported below.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import time  # noqa: E402

from rgs.math.report import analyse_variant  # noqa: E402
from rgs.variants import VARIANTS  # noqa: E402


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
