"""``rgs simulate``: basic strategy through the production engine, observed RTP and its error."""

from __future__ import annotations

import argparse
import json
import os

from rgs.cli.common import Progress, UserError
from rgs.engine import EngineError
from rgs.math.basic_strategy import PowerChoiceTable, StrategyTable, TwoCardTable
from rgs.math.errors import MathError
from rgs.math.simulate import CHUNK_ROUNDS, SimulationResult, simulate
from rgs.math.strategy_tables import (
    load_power_double_choices,
    load_strategy,
    load_two_card_strategy,
)
from rgs.variants import VARIANTS, find_variant


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``simulate`` command."""
    p = sub.add_parser(
        "simulate", help="play basic strategy through the engine and report the observed RTP",
        description="Plays single-box rounds of basic strategy through the production engine "
        "and prints the observed return to player of the main game and every side bet, with "
        "standard errors.")
    p.add_argument("--variant", required=True, metavar="V",
                   help=f"variant id: {', '.join(VARIANTS)}")
    p.add_argument("--rounds", type=int, default=100_000, metavar="N",
                   help="rounds to play (default 100000)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for a reproducible run (default: fresh entropy)")
    p.add_argument("--strategy", choices=("analysis", "textbook"), default="analysis",
                   help="the math module's strategy for the variant (default) or the textbook "
                   "chart adjusted by the rules")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="processes playing side by side (default 1; 0: one per CPU); the "
                   f"result of a seed does not depend on it (chunks of {CHUNK_ROUNDS:,} rounds "
                   "carry their own seeds)")
    p.add_argument("--no-side-bets", action="store_true", help="do not place side bets")
    p.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    p.set_defaults(func=run)


def _tables(variant: str, strategy: str) -> tuple[StrategyTable | None,
                                                   PowerChoiceTable | None,
                                                   TwoCardTable | None]:
    if strategy == "textbook":
        return None, None, None
    try:
        return (load_strategy(variant), load_power_double_choices(variant),
                load_two_card_strategy(variant))
    except (OSError, MathError) as exc:
        raise UserError(f"no analysis strategy for {variant} ({exc}); regenerate it with "
                        f"`rgs par {variant}` or use --strategy textbook") from None


def run(args: argparse.Namespace) -> int:
    """Run the simulation and print its figures."""
    try:
        rules = find_variant(args.variant)
    except EngineError as exc:
        raise UserError(str(exc)) from None
    if args.rounds < 1:
        raise UserError("--rounds must be at least 1")
    if args.jobs < 0:
        raise UserError("--jobs must be 0 (one per CPU) or more")
    jobs = args.jobs or len(os.sched_getaffinity(0))
    table, choices, two_card = _tables(rules.id, args.strategy)
    progress = Progress(args.rounds, f"simulate {rules.id}", quiet=args.json)
    result = simulate(rules, args.rounds, seed=args.seed, table=table, power_choices=choices,
                      two_card=two_card,
                      side_bets=not args.no_side_bets, progress=progress, jobs=jobs)
    progress.close()
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(_report(result))
    return 0


def _report(r: SimulationResult) -> str:
    lines = [
        f"variant      {r.variant}",
        f"rounds       {r.rounds:,} (seed {r.seed}; the same result with any --jobs)",
        f"main game    RTP {r.main.rtp:8.4f}%  ± {r.main.stderr:.4f} (1 s.e.)",
    ]
    for name, b in r.side_bets.items():
        lines.append(f"{name:<12} RTP {b.rtp:8.4f}%  ± {b.stderr:.4f}")
    lines.append(f"speed        {r.rounds / r.seconds:,.0f} rounds/s" if r.seconds else "")
    return "\n".join(lines)
