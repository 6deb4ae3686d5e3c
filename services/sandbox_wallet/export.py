"""``sandbox-wallet export``: the sandbox wallet's ledger of one operator between two times, in
the wallet export format ``rgs reconcile`` reads (docs/backoffice.md).

    python -m sandbox_wallet export --operator-id demo-operator --from 2026-12-01T00:00Z \\
        --to 2026-12-02T00:00Z --format csv --output wallet.csv

Reads the wallet's database from ``--database-url`` (default: the development database the
sandbox wallet itself finds).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg

from rgs import devdb
from rgs.finance.wallet_export import WalletRow, render

Q_EXPORT = """
SELECT seq, transaction_id, kind, round_id, player_id, amount, currency, rolled_back_by,
       created_at
FROM sandbox_wallet.transactions
WHERE operator_id = $1 AND created_at >= $2 AND created_at < $3
ORDER BY seq
"""


def _row(r: Any) -> WalletRow:
    return WalletRow(
        transaction_id=r["transaction_id"], wallet_reference=f"sw-{r['seq']}", kind=r["kind"],
        round_id=r["round_id"], player_id=r["player_id"], amount=int(r["amount"]),
        currency=r["currency"], status="rolled_back" if r["rolled_back_by"] else "applied",
        created_at=r["created_at"].isoformat())


async def export_rows(pool_or_conn: Any, operator_id: str, start: datetime,
                      end: datetime) -> list[WalletRow]:
    """The wallet's movements for ``operator_id`` in ``[start, end)``, in the order applied."""
    return [_row(r) for r in await pool_or_conn.fetch(Q_EXPORT, operator_id, start, end)]


def _time(text: str) -> datetime:
    at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if at.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r}: give a time zone, e.g. {text}Z")
    return at


async def _run(ns: argparse.Namespace) -> str:
    from sandbox_wallet.server import DEV_DATABASE

    url = ns.database_url or await devdb.resolve_dev_database(DEV_DATABASE)
    conn = await asyncpg.connect(url)
    try:
        rows = await export_rows(conn, ns.operator_id, ns.start, ns.end)
    finally:
        await conn.close()
    print(f"{len(rows)} movements exported", file=sys.stderr)
    return render(rows, fmt=ns.format)


def main(argv: Sequence[str]) -> int:
    """``sandbox-wallet export ...``; 0 on success, 2 on a bad argument or database."""
    parser = argparse.ArgumentParser(prog="sandbox-wallet export", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--operator-id", required=True)
    parser.add_argument("--from", dest="start", type=_time, required=True,
                        help="ISO 8601 time with zone, inclusive")
    parser.add_argument("--to", dest="end", type=_time, required=True,
                        help="ISO 8601 time with zone, exclusive")
    parser.add_argument("--format", choices=("csv", "json"), default="csv")
    parser.add_argument("--output", type=Path, help="file to write (default: standard output)")
    parser.add_argument("--database-url", help="PostgreSQL URL (default: rgs.devdb resolution)")
    ns = parser.parse_args(argv)
    try:
        text = asyncio.run(_run(ns))
    except (OSError, asyncpg.PostgresError, devdb.DevDbError) as exc:
        print(f"sandbox-wallet export: cannot read the ledger: {exc}; give --database-url",
              file=sys.stderr)
        return 2
    if ns.output:
        ns.output.write_text(text, "utf-8")
    else:
        sys.stdout.write(text)
    return 0
