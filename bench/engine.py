"""Engine throughput beside an earlier revision's, same run: rounds per CPU-second per variant.

Single-box basic-strategy rounds per CPU-second on one core, this tree against an earlier
revision in the same run.

Run: ``.venv/bin/python bench/engine.py [--rounds N] [--repeat R] [--before REV] [--instructions]
[--json]``. Every round is dealt from a freshly shuffled shoe, played by the table-driven
basic-strategy player through the production engine (events, legal-action checks and settlement
included), exactly as ``rgs simulate`` does (seed 1, side bets off).

``--before`` names the revision measured beside this tree (default: the previous release,
``ops/previous-release``; ``none`` measures this tree alone). Its ``services/rgs`` is extracted
with ``git archive`` and each measurement runs in a fresh process of its own, before and after
alternating (the one that runs second of a pair loses about 1%, so each repeat swaps the order);
the figure is the median of ``--repeat`` runs. The load average is printed with the figures:
CPU-seconds stretch on a busy machine. ``--instructions`` also counts the instructions per round
under valgrind (callgrind, ``--count-rounds`` minus ``--base-rounds`` rounds, hash seed 0):
exact to a few instructions whatever the load, the figure to compare changes by.
Goal (issue 27): 50,000 rounds per CPU-second or more per variant.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from revision import (
    THIS_TREE,
    Revision,
    child_env,
    previous_release,
    resolve,
    services_of,
    this_tree,
)

VARIANT_IDS = ("vegas-20-plus", "classic-resplit", "electronic-h17", "power", "vip-platinum")
WARM_UP = 2_000


def _child(tree: str, variant: str, rounds: int, timed: bool) -> None:
    """Measure in this process (started by :func:`_run`): ``rgs`` from ``tree``."""
    import rgs
    from rgs.math.simulate import simulate
    from rgs.variants import VARIANTS
    if not str(Path(rgs.__file__).resolve()).startswith(str(Path(tree).resolve())):
        raise SystemExit(f"imported {rgs.__file__}, not the tree {tree}")
    rules = VARIANTS[variant]
    simulate(rules, WARM_UP, seed=1)  # warm-up (side bets on: every path imported and run)
    cpu = time.process_time()
    simulate(rules, rounds, seed=1, side_bets=False)
    cpu = time.process_time() - cpu
    if timed:
        print(json.dumps({"rounds_per_cpu_second": round(rounds / cpu)}))


def _command(tree: Path, variant: str, rounds: int, timed: bool) -> list[str]:
    return [sys.executable, __file__, "--child", str(tree), "--variant", variant,
            "--rounds", str(rounds), *(["--timed"] if timed else [])]


def _one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _speed(tree: Path, variant: str, rounds: int) -> int:
    done = subprocess.run(_command(tree, variant, rounds, True), env=child_env(tree),
                          capture_output=True, text=True, check=False, preexec_fn=_one_core)
    if done.returncode != 0:
        raise SystemExit(f"{variant} in {tree} failed:\n{done.stderr[-3000:]}")
    rate: int = json.loads(done.stdout.splitlines()[-1])["rounds_per_cpu_second"]
    return rate


def _collected(tree: Path, variant: str, rounds: int) -> int:
    """Instructions of a whole child process (start-up and warm-up included) under callgrind."""
    env = child_env(tree) | {"PYTHONHASHSEED": "0"}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         *_command(tree, variant, rounds, False)],
        env=env, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"valgrind on {variant} in {tree} failed:\n{done.stderr[-3000:]}")
    return int(found.group(1))


def _instructions(trees: dict[str, Path], variants: list[str], base: int, count: int
                  ) -> dict[str, dict[str, int]]:
    """Instructions per round of each variant in each tree: a run of ``count`` rounds minus one
    of ``base`` rounds (exact whatever the load, so the runs go side by side, one per CPU)."""
    for tree in trees.values():  # every run reads compiled modules (else the first compiles)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "rgs")], check=True)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        runs = {(v, side, n): pool.submit(_collected, tree, v, n)
                for v in variants for side, tree in trees.items() for n in (base, count)}
        return {v: {side: round((runs[v, side, count].result() - runs[v, side, base].result())
                                / (count - base)) for side in trees} for v in variants}


def _say(quiet: bool, text: str) -> None:
    if not quiet:
        print(text, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000, help="rounds per timed run")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs per variant and tree (the median is reported)")
    parser.add_argument("--before", default=None,
                        help="revision measured beside this tree (default: the previous release "
                             "in ops/previous-release; 'none': this tree alone)")
    parser.add_argument("--variant", action="append", choices=VARIANT_IDS,
                        help="measure only this variant (repeatable; default: all five)")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions per round under valgrind (slow: minutes)")
    parser.add_argument("--base-rounds", type=int, default=500,
                        help="--instructions: the shorter run's rounds (default 500)")
    parser.add_argument("--count-rounds", type=int, default=3_500,
                        help="--instructions: the longer run's rounds (default 3500)")
    parser.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--timed", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.variant[0], args.rounds, args.timed)
        return
    if args.rounds < 1 or args.repeat < 1 or not 0 < args.base_rounds < args.count_rounds:
        parser.error("--rounds and --repeat must be at least 1, and "
                     "0 < --base-rounds < --count-rounds")
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind (apt-get install valgrind)")
    variants = args.variant or list(VARIANT_IDS)
    before_rev = args.before or previous_release()
    before = None if before_rev == "none" else resolve(before_rev)
    with services_of(before) if before else contextlib.nullcontext() as old_tree:
        trees: dict[str, Path] = {"after": THIS_TREE}
        if old_tree is not None:
            trees = {"before": old_tree, "after": THIS_TREE}
        report = _measure(args, variants, trees, before)
    if args.json:
        print(json.dumps(report))
    else:
        _print(report)


def _measure(args: argparse.Namespace, variants: list[str], trees: dict[str, Path],
             before: Revision | None) -> dict[str, object]:
    quiet = args.json
    load_start = os.getloadavg()
    runs: dict[str, dict[str, list[int]]] = {v: {side: [] for side in trees} for v in variants}
    sides = list(trees)
    for r in range(args.repeat):
        for i, variant in enumerate(variants):
            order = sides if (r + i) % 2 == 0 else sides[::-1]
            for side in order:
                rate = _speed(trees[side], variant, args.rounds)
                runs[variant][side].append(rate)
                _say(quiet, f"  run {r + 1}/{args.repeat} {variant:<16} {side:<6} {rate:>8,} "
                            f"rounds/CPU-s (load {os.getloadavg()[0]:.1f})")
    instructions: dict[str, dict[str, int]] = {}
    if args.instructions:
        _say(quiet, f"  counting instructions under callgrind ({len(variants) * len(trees) * 2} "
                    f"runs, {os.cpu_count()} at a time)")
        instructions = _instructions(trees, variants, args.base_rounds, args.count_rounds)
    per_variant: dict[str, dict[str, object]] = {}
    for variant in variants:
        row: dict[str, object] = {}
        for side in sides:
            row[side] = {"runs": runs[variant][side],
                         "median": round(statistics.median(runs[variant][side]))}
        if variant in instructions:
            row["instructions_per_round"] = instructions[variant]
        per_variant[variant] = row
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "rounds": args.rounds, "repeat": args.repeat,
        "before": None if before is None else {"rev": before.rev, "commit": before.commit,
                                               "subject": before.subject},
        "after": this_tree(),
        "load_average": {"start": [round(x, 2) for x in load_start],
                         "end": [round(x, 2) for x in os.getloadavg()]},
        "rounds_per_cpu_second": per_variant,
    }


def _print(report: dict[str, object]) -> None:
    before = report["before"]
    load = report["load_average"]
    assert isinstance(load, dict)
    print(f"engine: single-box basic-strategy rounds per CPU-second on one core "
          f"({report['python']}, {report['machine']}, {report['rounds']:,} rounds, median of "
          f"{report['repeat']}; load average {load['start'][0]:.1f} at the start, "
          f"{load['end'][0]:.1f} at the end)")
    if isinstance(before, dict):
        named = "" if before["commit"].startswith(before["rev"]) else f"{before['rev']} = "
        print(f"  before: {named}{before['commit'][:10]} ({before['subject'][:60]})")
    print(f"  after:  this tree, {report['after']}")
    rows = report["rounds_per_cpu_second"]
    assert isinstance(rows, dict)
    for variant, row in rows.items():
        after = row["after"]["median"]
        line = f"  {variant:<16}"
        if "before" in row:
            b = row["before"]["median"]
            line += f" before {b:>8,}  after {after:>8,} rounds/s  (x{after / b:.2f})"
        else:
            line += f" {after:>8,} rounds/s"
        ins = row.get("instructions_per_round")
        if ins:
            if "before" in ins:
                line += (f"   instructions/round {ins['before']:,} -> {ins['after']:,} "
                         f"({100 * (ins['after'] / ins['before'] - 1):+.1f}%)")
            else:
                line += f"   instructions/round {ins['after']:,}"
        print(line)


if __name__ == "__main__":
    main()
