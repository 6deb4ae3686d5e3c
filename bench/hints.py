"""What exact decision values (brand setting ``hints``) cost an Act: the cold dealer table of
one up card (once per process, rules and up card), a first lookup of a hand, and a cached one.

Run: ``.venv/bin/python bench/hints.py [--variant V]``. Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import time

from rgs.math import hints
from rgs.variants import VARIANTS, find_variant


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="vip-platinum", choices=sorted(VARIANTS))
    rules = find_variant(parser.parse_args().variant)
    start = time.perf_counter()
    hints.decision_values(rules, "TH", ("TS", "6D"), first=True)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    hints.decision_values(rules, "TH", ("9S", "7D"), first=True)
    first = time.perf_counter() - start
    start = time.perf_counter()
    hints.decision_values(rules, "TH", ("5S", "4D", "3C"), first=False)
    later = time.perf_counter() - start
    n = 100_000
    start = time.perf_counter()
    for _ in range(n):
        hints.decision_values(rules, "TH", ("9S", "7D"), first=True)
    cached = (time.perf_counter() - start) / n
    print(f"{rules.id}: cold (dealer table of one up card + the hand) {cold * 1e3:10.1f} ms")
    print(f"{rules.id}: a new two-card hand, table warm             {first * 1e3:10.2f} ms")
    print(f"{rules.id}: a new later decision, table warm            {later * 1e3:10.2f} ms")
    print(f"{rules.id}: cached                                      {cached * 1e6:10.2f} µs")
    print(hints.cache_info())


if __name__ == "__main__":
    main()
