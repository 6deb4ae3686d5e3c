"""Engine throughput: single-box basic-strategy rounds per second per variant, on one core.

Run: ``.venv/bin/python bench/engine.py [--rounds N] [--json]``. Every round is dealt from a
freshly shuffled shoe, played by the table-driven basic-strategy player through the production
engine (events, legal-action checks and settlement included), exactly as ``rgs simulate`` does.
Goal (issue 14): 50,000 rounds per CPU-second or more per variant.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

from rgs.math.simulate import simulate
from rgs.variants import VARIANTS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rows = {}
    for vid, rules in VARIANTS.items():
        simulate(rules, 2_000, seed=1)  # warm-up
        # CPU time of this process: other work on the machine does not count against it
        cpu = time.process_time()
        simulate(rules, args.rounds, seed=1, side_bets=False)
        rows[vid] = round(args.rounds / (time.process_time() - cpu))
    if args.json:
        print(json.dumps({"rounds": args.rounds, "rounds_per_second": rows}))
        return
    print(f"engine: single-box basic-strategy rounds per CPU-second on one core "
          f"({platform.python_implementation()} {platform.python_version()}, "
          f"{args.rounds:,} rounds each)")
    for vid, rate in rows.items():
        print(f"  {vid:<16} {rate:>8,} rounds/s")


if __name__ == "__main__":
    main()
