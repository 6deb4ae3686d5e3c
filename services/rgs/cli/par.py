"""``rgs par``: write a variant's PAR sheet, or print its figures as JSON.

    rgs par power                 # par-sheets/power.md, .png and .json (printed as written)
    rgs par vip-platinum --json   # the figures as one JSON object on stdout
    rgs par electronic-h17 --decks 2   # electronic-h17-2d.*: as a brand plays it with 2 decks
    rgs par all --out services/rgs/math/par --update-data   # regenerate what the repo keeps
    rgs par power --check-rounds 10000000 --out services/rgs/math/par   # + simulation check

``all`` also writes a sheet for every deck count a brand may choose (variants.options).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rgs.engine.rules import RuleSet
from rgs.math.par_check import CHECK_SEED
from rgs.variants import VARIANTS
from rgs.variants.options import DECK_CHOICES, OptionError, VariantOptions, effective_rules


def run_par(args: argparse.Namespace) -> int:
    """Carry out ``rgs par``; return the exit status."""
    from rgs.cli.common import Progress
    from rgs.math.par import PAR_DIR, recorded_check, sheet_figures, write_data, write_par
    from rgs.math.par_check import describe, run_check
    from rgs.math.report import analyse_variant, cached_report

    names = list(VARIANTS) if args.variant == "all" else [args.variant]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        print(f"rgs par: unknown variant {unknown[0]!r}; choose one of: "
              f"{', '.join(VARIANTS)} (or 'all')", file=sys.stderr)
        return 2
    if args.json and len(names) > 1:
        print("rgs par: --json prints one variant's figures; name a variant instead of 'all'",
              file=sys.stderr)
        return 2
    if args.check_rounds is not None and args.check_rounds < 1:
        print("rgs par: --check-rounds must be at least 1 (10000000 is what a lab would run)",
              file=sys.stderr)
        return 2
    if args.decks is not None and len(names) > 1:
        print("rgs par: --decks applies to one variant; name it instead of 'all'",
              file=sys.stderr)
        return 2
    chatty = not args.json and sys.stderr.isatty()
    failed = False

    def say(msg: str) -> None:
        if chatty:
            print(f"... {msg}", file=sys.stderr, flush=True)

    jobs: list[tuple[RuleSet, bool]] = []
    for name in names:
        try:
            jobs.append((effective_rules(VARIANTS[name], VariantOptions(decks=args.decks)),
                         args.decks is None))
        except OptionError as exc:
            print(f"rgs par: {exc}", file=sys.stderr)
            return 2
        if args.variant == "all":
            jobs += [(effective_rules(VARIANTS[name], VariantOptions(decks=n)), False)
                     for n in DECK_CHOICES.get(name, ()) if n != VARIANTS[name].decks]
    for rules, own_data in jobs:
        name = rules.id
        # quiet runs share the per-process cache (tests, tools calling main() repeatedly)
        report = analyse_variant(rules, progress=say) if chatty else cached_report(rules)
        check: dict[str, Any] | None
        if args.check_rounds is not None:
            meter = Progress(args.check_rounds, f"{name}: simulation check", quiet=args.json)
            check = run_check(report, args.check_rounds, seed=args.seed, jobs=args.jobs,
                              progress=meter)
            meter.close()
            failed = failed or not check["passed"]
            if not args.json:
                print(f"{name}: {describe(check)}", file=sys.stderr)
        else:
            # a check run before against these very figures stays on the sheet
            check = recorded_check(report, Path(args.out), PAR_DIR)
        if args.json:
            print(json.dumps(sheet_figures(report, check), indent=1))
            continue
        try:
            written = write_par(report, Path(args.out), check)
            if args.update_data and own_data:  # the engine's tables are the variant's own
                written += write_data(report)
        except OSError as exc:
            print(f"rgs par: cannot write the sheet ({exc}); pass a writable --out directory",
                  file=sys.stderr)
            return 1
        for p in written:
            print(p)
        say(f"{name}: analysed in {report.seconds:.1f} s")
    if failed:
        print("rgs par: the engine does not return the sheet's RTP; find the rule the engine "
              "plays otherwise than the analysis values it (per-situation checks: "
              "tests/unit/math/test_math_situations.py)", file=sys.stderr)
        return 1
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``par`` command to the ``rgs`` command line."""
    p = subparsers.add_parser(
        "par", help="write a variant's PAR sheet (RTP, volatility, side bets, strategy)",
        description="Analyse a variant exactly and write its PAR sheet (Markdown + PNG chart "
                    "+ JSON figures), or print the figures with --json.")
    p.add_argument("variant", help=f"variant id ({', '.join(VARIANTS)}) or 'all'")
    p.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    p.add_argument("--out", default="par-sheets",
                   help="directory for the sheet, created if missing (default: par-sheets, "
                        "so the three files do not land among yours)")
    p.add_argument("--decks", type=int,
                   help="analyse with this deck count, as a brand may choose it (e.g. "
                        "electronic-h17: 1, 2, 4, 6, 8)")
    p.add_argument("--update-data", action="store_true",
                   help="also rewrite the generated strategy and cash-out tables in the package")
    p.add_argument("--check-rounds", type=int, default=None, metavar="N",
                   help="also play the sheet's strategy through the engine for N rounds on "
                        "every core and record the result on the sheet (a lab runs 10000000)")
    p.add_argument("--seed", type=int, default=CHECK_SEED,
                   help=f"seed of the simulation check (default {CHECK_SEED})")
    p.add_argument("--jobs", type=int, default=None, metavar="J",
                   help="processes for the simulation check (default: every core)")
    p.set_defaults(func=run_par)

