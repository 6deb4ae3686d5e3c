"""``rgs movements`` and ``rgs reconcile``: the operator's back office (docs/backoffice.md;
``rgs report ggr`` is in :mod:`rgs.cli.report`).

    rgs movements --operator demo-operator --from 2026-12-01T00:00Z --to 2026-12-02T00:00Z
    rgs reconcile --operator demo-operator --from 2026-12-01T00:00Z --to 2026-12-02T00:00Z \\
        --wallet-export wallet.csv           # exit 1 when any mismatch, each one listed

Each reads the journal database directly, from ``--database-url`` or ``RGS_DATABASE_URL`` (as
``rgs audit verify`` does): finance runs them beside the journal, read-only, without an
operator key. Progress goes to standard error; ``--json`` prints one JSON object and nothing
else.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rgs.cli.common import UserError
from rgs.finance import movements
from rgs.finance.reconcile import Reconciliation, reconcile
from rgs.finance.wallet_export import ExportError, WalletRow, parse

MARGIN = timedelta(minutes=5)
"""How far outside the window the RGS's own ids are looked up, so that a wallet row written a
moment after the RGS's row (the call's duration) is not reported missing."""


def _time(text: str) -> datetime:
    try:
        at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 time, e.g. "
                                         "2026-12-01T00:00Z") from exc
    if at.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no time zone: write {text}Z for UTC")
    return at


async def journal_pool(ns: argparse.Namespace) -> Any:
    from rgs.cli.service import _settings, database_url
    from rgs.journal.audit import open_pool

    settings = _settings(ns)
    return await open_pool(await database_url(settings),
                           pool_mode=settings.database_pool_mode, max_size=1)


def journal_errors() -> tuple[type[BaseException], ...]:
    from rgs.service.ports import JournalError

    return (JournalError, OSError)


def _window(ns: argparse.Namespace) -> tuple[datetime, datetime]:
    if ns.end <= ns.start:
        raise UserError("--to must be after --from")
    return ns.start, ns.end


async def reconcile_window(pool: Any, operator_id: str, start: datetime, end: datetime,
                           rows: list[WalletRow], *, quiet: bool = True) -> Reconciliation:
    """Read the operator's movements of ``[start, end)`` (and the ids just outside it) and
    compare them with the wallet's ``rows``."""
    lines = []
    async for line in movements.every(pool, operator_id, start, end):
        lines.append(line)
        if not quiet and len(lines) % 10_000 == 0:
            print(f"{len(lines):,} movements read", file=sys.stderr)
    nearby = set()
    for a, b in ((start - MARGIN, start), (end, end + MARGIN)):
        async for line in movements.every(pool, operator_id, a, b):
            nearby.add(line.transaction_id)
    return reconcile(lines, rows, known_elsewhere=frozenset(nearby))


def cannot_read(what: str, exc: BaseException) -> UserError:
    return UserError(f"cannot read the journal for {what}: {exc}; give --database-url or set "
                     "RGS_DATABASE_URL (run `rgs migrate` first)")


def run_movements(ns: argparse.Namespace) -> int:
    """One page of the operator's movements, and the cursor to give ``--cursor`` for the next."""
    start, end = _window(ns)
    try:
        after = movements.Cursor.decode(ns.cursor) if ns.cursor else None
    except ValueError as exc:
        raise UserError(f"--cursor: {exc}; give the cursor a previous page printed") from exc

    async def go() -> tuple[list[movements.MovementLine], movements.Cursor | None]:
        pool = await journal_pool(ns)
        try:
            return await movements.page(pool, ns.operator, start, end, after=after,
                                        limit=ns.limit)
        finally:
            await pool.close()

    try:
        lines, cursor = asyncio.run(go())
    except journal_errors() as exc:
        raise cannot_read("the movements", exc) from exc
    nxt = cursor.encode() if cursor else ""
    if ns.json:
        print(json.dumps({"movements": [m.as_dict() for m in lines], "next_cursor": nxt}))
        return 0
    for m in lines:
        where = f"table {m.table_id}" if m.at_table else "solo"
        print(f"{m.created_at.isoformat()} {m.transaction_id} {m.player_id} {m.kind} "
              f"{m.amount} {m.currency} {m.status} attempts={m.attempts} {where}")
    print(f"next page: --cursor {nxt}" if nxt else "last page", file=sys.stderr)
    return 0


def run_reconcile(ns: argparse.Namespace) -> int:
    """Compare the movements with a wallet export; 0 when they agree, 1 on any mismatch."""
    start, end = _window(ns)
    path: Path = ns.wallet_export
    try:
        rows = parse(path.read_text("utf-8"), fmt=ns.format)
    except OSError as exc:
        raise UserError(f"cannot read --wallet-export {path}: {exc.strerror}") from exc
    except ExportError as exc:
        raise UserError(f"--wallet-export {path}: {exc} (the columns are in "
                        "docs/backoffice.md)") from exc

    async def go() -> Reconciliation:
        pool = await journal_pool(ns)
        try:
            return await reconcile_window(pool, ns.operator, start, end, rows, quiet=ns.json)
        finally:
            await pool.close()

    try:
        out = asyncio.run(go())
    except journal_errors() as exc:
        raise cannot_read("the reconciliation", exc) from exc
    if ns.json:
        print(json.dumps({"clean": out.clean, "rgs_movements": out.rgs_movements,
                          "wallet_rows": out.wallet_rows, "matched": out.matched,
                          "counts": out.counts(),
                          "mismatches": [m.as_dict() for m in out.mismatches]}))
    else:
        for m in out.mismatches:
            print(f"{m.kind.value}\t{m.transaction_id}\tround {m.round_id}\tplayer "
                  f"{m.player_id}\trgs: {m.rgs or '-'}\twallet: {m.wallet or '-'}")
        print(f"{out.rgs_movements} RGS movements, {out.wallet_rows} wallet rows, "
              f"{out.matched} matched, {len(out.mismatches)} mismatches", file=sys.stderr)
    return 0 if out.clean else 1


def common_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--operator", required=True, help="the operator id")
    p.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    p.add_argument("--json", action="store_true", help="print one JSON object, no progress")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rgs movements`` and ``rgs reconcile``."""
    p = sub.add_parser("movements", help="one operator's money movements, page by page")
    common_arguments(p)
    p.add_argument("--from", dest="start", type=_time, required=True, help="ISO time, included")
    p.add_argument("--to", dest="end", type=_time, required=True, help="ISO time, excluded")
    p.add_argument("--cursor", help="resume after the page that printed this cursor")
    p.add_argument("--limit", type=int, default=movements.PAGE_SIZE, help="rows per page")
    p.set_defaults(func=run_movements)
    p = sub.add_parser("reconcile", help="compare the movements with a wallet's export")
    common_arguments(p)
    p.add_argument("--from", dest="start", type=_time, required=True, help="ISO time, included")
    p.add_argument("--to", dest="end", type=_time, required=True, help="ISO time, excluded")
    p.add_argument("--wallet-export", type=Path, required=True,
                   help="the wallet's export, CSV or JSON (docs/backoffice.md)")
    p.add_argument("--format", choices=("csv", "json"), help="default: guessed from the file")
    p.set_defaults(func=run_reconcile)
