"""Same cards, same results: this tree's engine against an earlier revision's, seeded.

Run: ``.venv/bin/python bench/engine_results.py [--before REV] [--rounds N] [--seed S]
[--digest-rounds N] [--json]``. Two checks, each run by both trees in processes of their own:

- ``rgs simulate --seed S --json`` for every variant, both strategies (``analysis``,
  ``textbook``) and side bets on and off: the printed figures (RTP and standard error of the main
  game and of every side bet, to the last digit) must be identical;
- a digest (SHA-256) of every event, view, legal-action list and amount per player of
  ``--digest-rounds`` rounds per variant played through the engine's public calls with one box
  and with every box of the table, side bets placed, insurance taken on odd seats, Bet Behind
  stakes where the variant has them, and the table-driven basic strategy deciding.

``--before`` defaults to ``main`` (a branch against the code it branches from); name a commit to
compare with anything else. Exit status 1 when anything differs. A speed change to the engine,
the variants or the simulation's card source must leave both checks identical.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from revision import THIS_TREE, child_env, resolve, services_of, this_tree

VARIANT_IDS = ("vegas-20-plus", "classic-resplit", "electronic-h17", "power", "vip-platinum")
STRATEGIES = ("analysis", "textbook")


def _digest(variant: str, rounds: int, seed: int) -> str:
    """SHA-256 of everything the engine shows of ``rounds`` rounds (run in the child)."""
    from rgs.engine import BehindBet, BoxBet, Round, Shoe, ShoeSource
    from rgs.math.basic_strategy import BasicStrategyPlayer
    from rgs.variants import VARIANTS

    rules = VARIANTS[variant]
    player = BasicStrategyPlayer(rules)
    rng = random.Random(seed)
    h = hashlib.sha256()
    side = rules.limits.side_min
    offered = {k.value for k in rules.side_bets}
    for i in range(rounds):
        seats = 1 if i % 2 == 0 else rules.max_boxes
        bets = [BoxBet(
            seat=s, stake=rules.limits.main_min * (1 + (i + s) % 3),
            twenty_plus=side if "twenty_plus" in offered and s % 2 else 0,
            perfect_pairs=side if "perfect_pairs" in offered and s % 2 else 0,
            twenty_one_plus_three=side if "twenty_one_plus_three" in offered and s != 2 else 0,
            player=f"p{s}",
            behind=(BehindBet(player=f"b{s}", stake=rules.limits.main_min + 50,
                              follow_double=s % 2 == 1, follow_split=s % 3 != 0,
                              insure=s == 2),) if rules.bet_behind else ())
            for s in range(1, seats + 1)]
        rnd = Round.deal(rules, ShoeSource(Shoe.of_decks(rules.decks), rng.randrange), bets)
        h.update(repr(rnd.view()).encode())
        while not rnd.finished:
            to_act = rnd.to_act
            if to_act is None:  # insurance: odd seats take it
                for seat in rnd.seats():
                    h.update(repr(rnd.legal_actions(seat, 0)).encode())
                    if rnd.view().boxes[seat - 1].insurance_allowed:
                        rnd.insure(seat, take=seat % 2 == 1)
                continue
            seat, hand = to_act
            h.update(repr((rnd.legal_actions(seat, hand), rnd.hand_cards(seat, hand),
                           rnd.hand_count(seat))).encode())
            h.update(repr(rnd.act(seat, hand, player.decide(rnd, seat, hand))).encode())
        h.update(repr((rnd.events, rnd.view(), rnd.money_by_player(), rnd.money_by_seat(),
                       rnd.total_staked, rnd.total_paid)).encode())
    return h.hexdigest()


def _child(tree: str, variants: list[str], rounds: int, seed: int) -> None:
    import rgs
    if not str(Path(rgs.__file__).resolve()).startswith(str(Path(tree).resolve())):
        raise SystemExit(f"imported {rgs.__file__}, not the tree {tree}")
    print(json.dumps({v: _digest(v, rounds, seed) for v in variants}))


def _simulate(tree: Path, combo: tuple[str, str, bool], rounds: int, seed: int
              ) -> dict[str, object]:
    variant, strategy, side_bets = combo
    done = subprocess.run(
        [sys.executable, "-m", "rgs", "simulate", "--variant", variant, "--rounds", str(rounds),
         "--seed", str(seed), "--strategy", strategy, "--json",
         *([] if side_bets else ["--no-side-bets"])],
        env=child_env(tree), cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"rgs simulate in {tree} failed:\n{done.stderr[-3000:]}")
    figures: dict[str, object] = json.loads(done.stdout)
    figures.pop("seconds")
    figures.pop("rounds_per_second")
    return figures


def _digests(tree: Path, variants: list[str], rounds: int, seed: int) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(tree), "--digest-rounds", str(rounds),
         "--seed", str(seed), *itertools.chain.from_iterable(("--variant", v) for v in variants)],
        env=child_env(tree), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the digest in {tree} failed:\n{done.stderr[-3000:]}")
    result: dict[str, str] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="revision to compare with (default main)")
    parser.add_argument("--rounds", type=int, default=30_000, help="rounds per rgs simulate run")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--digest-rounds", type=int, default=3_000,
                        help="rounds per variant in the digest of events and views")
    parser.add_argument("--variant", action="append", choices=VARIANT_IDS,
                        help="check only this variant (repeatable; default: all five)")
    parser.add_argument("--jobs", type=int, default=2, help="processes at a time (default 2)")
    parser.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    variants = args.variant or list(VARIANT_IDS)
    if args.child:
        _child(args.child, variants, args.digest_rounds, args.seed)
        return
    if args.rounds < 1 or args.digest_rounds < 0 or args.jobs < 1:
        parser.error("--rounds and --jobs must be at least 1, --digest-rounds 0 or more")
    before = resolve(args.before)
    combos = [(v, s, b) for v in variants for s in STRATEGIES for b in (True, False)]
    rows: list[dict[str, object]] = []
    with services_of(before) as old, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        trees = {"before": old, "after": THIS_TREE}
        runs = {(side, c): pool.submit(_simulate, tree, c, args.rounds, args.seed)
                for c in combos for side, tree in trees.items()}
        digests = {side: pool.submit(_digests, tree, variants, args.digest_rounds, args.seed)
                   for side, tree in trees.items()} if args.digest_rounds else {}
        for c in combos:
            b, a = runs["before", c].result(), runs["after", c].result()
            rows.append({"variant": c[0], "strategy": c[1], "side_bets": c[2],
                         "identical": a == b, "before": b, "after": a})
            if not args.json:
                sides = a["side_bets"]
                assert isinstance(sides, dict)
                also = {0: "", 1: " (and its side bet)"}.get(
                    len(sides), f" (and its {len(sides)} side bets)")
                print(f"  rgs simulate {c[0]:<16} {c[1]:<9} side bets {'on ' if c[2] else 'off'}"
                      f"  RTP {a['rtp']:.4f} ± {a['stderr']:.4f}{also}  "
                      f"{'identical' if a == b else 'DIFFERENT: before ' + json.dumps(b)}",
                      flush=True)
        digest_rows = []
        if digests:
            b_d, a_d = digests["before"].result(), digests["after"].result()
            for v in variants:
                digest_rows.append({"variant": v, "identical": a_d[v] == b_d[v],
                                    "before": b_d[v], "after": a_d[v]})
                if not args.json:
                    print(f"  events and views {v:<16} {args.digest_rounds:,} rounds  "
                          f"{a_d[v][:16]}  "
                          f"{'identical' if a_d[v] == b_d[v] else 'DIFFERENT: before ' + b_d[v]}")
    same = all(r["identical"] for r in rows) and all(r["identical"] for r in digest_rows)
    if args.json:
        print(json.dumps({"before": before.commit, "after": this_tree(), "rounds": args.rounds,
                          "seed": args.seed, "identical": same, "simulate": rows,
                          "digests": digest_rows}))
    else:
        print(f"before {before.label()}, after this tree ({this_tree()}): "
              f"{'IDENTICAL' if same else 'DIFFERENT'}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
