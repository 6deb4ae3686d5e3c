"""What a reconciliation costs: N money movements of one operator in the journal's outbox
(half debits, half credits, over N/2 solo rounds, among other operators' movements), the
wallet's export of them in CSV, and ``rgs reconcile``'s work on them: reading the listing page
by page, reading the export, comparing.

    .venv/bin/python bench/reconcile.py [--movements 100000] [--other 100000] [--json]

Starts nothing: makes a fresh database on the local (or embedded) PostgreSQL, migrates it, fills
it with COPY, and drops it at the end. Figures only: nothing asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "services"))

from rgs import devdb
from rgs.cli.finance import reconcile_window
from rgs.finance import ggr
from rgs.finance.wallet_export import WalletRow, parse, render
from rgs.journal.audit import open_pool
from rgs.journal.migrate import migrate

OPERATOR = "bench-operator"
T0 = datetime(2026, 12, 1, tzinfo=UTC)


def _rows(operator: str, n: int) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Outbox rows and solo rounds of ``n`` movements (a debit and a credit per round)."""
    outbox: list[tuple[object, ...]] = []
    rounds: list[tuple[object, ...]] = []
    for i in range(n // 2):
        key, rid = f"{operator}/p{i % 500}", f"{operator[:2]}{i:022x}"
        at = T0 + timedelta(milliseconds=i * 10)
        outbox.append((key, f"{rid}:0:debit", rid, "debit", 1000, "booked", "EUR", "casino", 1,
                       at))
        outbox.append((key, f"{rid}:settle:credit", rid, "credit", (i % 3) * 1000, "applied",
                       "EUR", "casino", 1, at + timedelta(milliseconds=5)))
        rounds.append((key, rid, "s", operator, "casino", f"p{i % 500}", "EUR", "classic", 1,
                       "settled", 1000, (i % 3) * 1000, at))
    return outbox, rounds


async def _fill(url: str, n: int, other: int) -> None:
    import asyncpg

    conn = await asyncpg.connect(url, server_settings={"search_path": "rgs"})
    try:
        for operator, count in ((OPERATOR, n), ("other-operator", other)):
            outbox, rounds = _rows(operator, count)
            await conn.copy_records_to_table(
                "wallet_transactions", records=outbox, columns=[
                    "player_key", "transaction_id", "round_id", "kind", "amount", "status",
                    "currency", "brand_id", "attempts", "created_at"])
            await conn.copy_records_to_table("rounds", records=rounds, columns=[
                "player_key", "round_id", "session_id", "operator_id", "brand_id", "player_id",
                "currency", "variant", "seq", "status", "total_staked", "total_paid",
                "created_at"])
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


def _export(n: int) -> str:
    outbox, _ = _rows(OPERATOR, n)
    return render(WalletRow(transaction_id=str(r[1]), wallet_reference=f"sw-{i}",
                            kind=str(r[3]), round_id=str(r[2]),
                            player_id=str(r[0]).partition("/")[2], amount=int(str(r[4])),
                            currency="EUR", status="applied", created_at=str(r[9]))
                  for i, r in enumerate(outbox))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movements", type=int, default=100_000)
    parser.add_argument("--other", type=int, default=100_000,
                        help="another operator's movements in the same outbox")
    parser.add_argument("--json", action="store_true")
    ns = parser.parse_args()
    choice = await devdb.resolve_server()
    server = choice.url
    name = devdb.unique_name("bench_reconcile")
    url = await devdb.create_database(server, name)
    try:
        await migrate(url)
        t = time.perf_counter()
        await _fill(url, ns.movements, ns.other)
        fill_s = time.perf_counter() - t
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "wallet.csv"
            path.write_text(_export(ns.movements), "utf-8")
            pool = await open_pool(url, max_size=1)
            try:
                t = time.perf_counter()
                rows = parse(path.read_text("utf-8"))
                parse_s = time.perf_counter() - t
                out = await reconcile_window(pool, OPERATOR, T0, T0 + timedelta(days=2), rows)
                total_s = time.perf_counter() - t
                from rgs.finance import movements
                t = time.perf_counter()
                lines = [m async for m in movements.every(pool, OPERATOR, T0,
                                                          T0 + timedelta(days=2))]
                report = ggr.report(lines)
                ggr_s = time.perf_counter() - t
            finally:
                await pool.close()
        figures = {"movements": ns.movements, "other_operators_movements": ns.other,
                   "fill_s": round(fill_s, 2), "export_parse_s": round(parse_s, 2),
                   "reconcile_total_s": round(total_s, 2), "matched": out.matched,
                   "mismatches": len(out.mismatches), "ggr_report_s": round(ggr_s, 2),
                   "ggr_groups": len(report)}
    finally:
        await devdb.drop_database(server, name)
    if ns.json:
        print(json.dumps(figures))
    else:
        for k, v in figures.items():
            print(f"{k:>28}: {v}")


if __name__ == "__main__":
    asyncio.run(main())
