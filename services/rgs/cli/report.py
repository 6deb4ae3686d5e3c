"""``rgs report ggr``: gross gaming revenue per brand, variant, table, day and currency
(docs/backoffice.md), from the journal's movements as ``rgs reconcile`` reads them; ``rgs
report freebets``: each free-bet grant's usage (docs/freebets.md).

    rgs report ggr --operator demo-operator --from 2026-12-01 --to 2026-12-01 --csv
    rgs report ggr --operator demo-operator --from 2026-12-01 --to 2026-12-31 \\
        --reporting-currency EUR --rates USD=0.95,GBP=1.17 --json
    rgs report freebets --operator demo-operator --brand demo-casino --from 2026-12-01 --csv
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import sys
from datetime import UTC, date, datetime, time, timedelta

from rgs.cli.common import UserError
from rgs.cli.finance import cannot_read, common_arguments, journal_errors, journal_pool
from rgs.finance import free_stakes, ggr, movements


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day, e.g. 2026-12-01") from exc


def run_ggr(ns: argparse.Namespace) -> int:
    """The GGR report of the operator's days ``--from`` to ``--to`` (both included)."""
    if ns.end < ns.start:
        raise UserError("--to must be the same day as --from or later")
    try:
        rates = ggr.parse_rates(ns.rates or "")
    except ValueError as exc:
        raise UserError(f"--rates: {exc}") from exc
    if rates and not ns.reporting_currency:
        raise UserError("--rates needs --reporting-currency (the currency of the total)")
    start = datetime.combine(ns.start, time(), UTC)
    end = datetime.combine(ns.end + timedelta(days=1), time(), UTC)

    async def go() -> list[ggr.GgrLine]:
        pool = await journal_pool(ns)
        try:
            return ggr.report([m async for m in movements.every(pool, ns.operator, start, end)],
                              await free_stakes.of_window(pool, ns.operator, start, end))
        finally:
            await pool.close()

    try:
        groups = asyncio.run(go())
    except journal_errors() as exc:
        raise cannot_read("the report", exc) from exc
    total = None
    if ns.reporting_currency:
        try:
            total = ggr.total(groups, ns.reporting_currency, rates)
        except KeyError as exc:
            raise UserError(f"no rate for {exc.args[0]}: add it to --rates, e.g. "
                            f"--rates {exc.args[0]}=1.0") from exc
    _print_ggr(ns, groups, total)
    return 0


def _print_ggr(ns: argparse.Namespace, groups: list[ggr.GgrLine], total: ggr.Total | None
               ) -> None:
    if ns.json:
        print(json.dumps({"lines": [g.as_dict() for g in groups],
                          "total": None if total is None else {
                              "currency": total.currency, "staked": total.staked,
                              "paid": total.paid, "ggr": total.ggr,
                              "free_bet_staked": total.free_bet_staked}}))
        return
    out = io.StringIO()
    writer = csv.writer(out, delimiter="," if ns.csv else "\t", lineterminator="\n")
    writer.writerow(ggr.COLUMNS)
    for g in groups:
        d = g.as_dict()
        writer.writerow(["" if d[c] is None else d[c] for c in ggr.COLUMNS])
    if total is not None:
        writer.writerow(["TOTAL", "", "", "", total.currency, "", "", total.staked, total.paid,
                         total.ggr, "", total.free_bet_staked, ""])
    sys.stdout.write(out.getvalue())


def run_freebets(ns: argparse.Namespace) -> int:
    """Each grant of the operator (of ``--brand``; granted from ``--from`` to ``--to``, both
    included, when given) with its usage as of now."""
    from rgs.finance.grants import COLUMNS, usage_report

    if ns.start and ns.end and ns.end < ns.start:
        raise UserError("--to must be the same day as --from or later")
    start = None if ns.start is None else datetime.combine(ns.start, time(), UTC)
    end = None if ns.end is None else datetime.combine(ns.end + timedelta(days=1), time(), UTC)

    async def go() -> list[dict[str, object]]:
        pool = await journal_pool(ns)
        try:
            return await usage_report(pool, ns.operator, ns.brand or "", start=start, end=end)
        finally:
            await pool.close()

    try:
        rows = asyncio.run(go())
    except journal_errors() as exc:
        raise cannot_read("the report", exc) from exc
    if ns.json:
        print(json.dumps({"grants": rows}))
        return 0
    out = io.StringIO()
    writer = csv.writer(out, delimiter="," if ns.csv else "\t", lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([row[c] for c in COLUMNS])
    sys.stdout.write(out.getvalue())
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rgs report``."""
    p = sub.add_parser("report", help="the operator's reports")
    commands = p.add_subparsers(dest="report_command", metavar="REPORT", required=True)
    g = commands.add_parser("ggr", help="GGR per brand, variant, table, day and currency")
    common_arguments(g)
    g.add_argument("--from", dest="start", type=_day, required=True, help="first day (UTC)")
    g.add_argument("--to", dest="end", type=_day, required=True, help="last day, included")
    g.add_argument("--csv", action="store_true", help="comma-separated (default: tabs)")
    g.add_argument("--reporting-currency", help="add a total in this currency")
    g.add_argument("--rates", help="CODE=RATE,...: reporting-currency units per unit")
    g.set_defaults(func=run_ggr)
    f = commands.add_parser("freebets", help="each free-bet grant's usage")
    common_arguments(f)
    f.add_argument("--brand", help="one brand's grants only")
    f.add_argument("--from", dest="start", type=_day, help="granted on this day (UTC) or later")
    f.add_argument("--to", dest="end", type=_day, help="granted on this day or earlier")
    f.add_argument("--csv", action="store_true", help="comma-separated (default: tabs)")
    f.set_defaults(func=run_freebets)
