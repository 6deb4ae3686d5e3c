"""What exact decision values (brand setting ``hints``) cost an Act: the cold dealer table of
one up card (once per process, rules and up card), a first lookup of a hand, and a cached one;
then split hands, a resplit, insurance and Power Double's keep/replace, cold and cached.

Run: ``.venv/bin/python bench/hints.py [--variant V]``. Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from fractions import Fraction

from rgs.engine import RuleSet
from rgs.math.hints import HintTables
from rgs.variants import VARIANTS, find_variant


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="vip-platinum", choices=sorted(VARIANTS))
    rules = find_variant(parser.parse_args().variant)
    hints = HintTables()  # as the app owns one
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
    _others(hints, rules)
    print(hints.cache_info())


def _timed(label: str, call: Callable[[], object], n: int = 100_000) -> None:
    """One call cold, then ``n`` cached ones."""
    start = time.perf_counter()
    call()
    cold = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(n):
        call()
    cached = (time.perf_counter() - start) / n
    print(f"{label:<56}{cold * 1e3:8.2f} ms cold, {cached * 1e6:6.2f} µs cached")


def _others(hints: HintTables, rules: RuleSet) -> None:
    """Split hands (a table of their own per first card and other cards of the box), a resplit,
    insurance and Power Double's keep/replace, with every up card's table built (as a replica
    has them after start-up: HintTables.warm_in_background)."""
    hints.warm(rules)
    rid = rules.id
    _timed(f"{rid}: split hand 8-3 v 6 (8 out), first decision",
           lambda: hints.split_hand_values(rules, "6H", ("8S", "3D"), ("8C",), power=False))
    _timed(f"{rid}: that hand after a hit (same table)",
           lambda: hints.split_hand_values(rules, "6H", ("8S", "3D", "2C"), ("8C",),
                                           power=False))
    _timed(f"{rid}: second split hand 8-T v 6 (8-3-2 out)",
           lambda: hints.split_hand_values(rules, "6H", ("8C", "TD"), ("8S", "3D", "2C"),
                                           power=False))
    if rules.max_split_depth >= 2:
        _timed(f"{rid}: resplit 8-8 v 6 (8 out)",
               lambda: hints.split_hand_values(rules, "6H", ("8S", "8D"), ("8C",), power=False,
                                               resplit_hands=2))
    _timed(f"{rid}: insurance T-7 v A",
           lambda: hints.insurance_values(rules, "AH", ("TS", "7D"), Fraction(1, 2)))
    if rules.power_double_counts:
        _timed(f"{rid}: Power Double keep/replace 6-4 (2) v T",
               lambda: hints.power_choice_values(rules, "TH", ("6S", "4D", "2C")))


if __name__ == "__main__":
    main()
