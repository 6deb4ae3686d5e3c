"""Failover: the seconds players cannot play while the journal's PostgreSQL primary dies and its
streaming standby is promoted (ops/failover_drill.py: two private clusters made here, the RGS
on a multi-host connection string with target_session_attrs=read-write, manual promotion).
Prints the unavailability, the promotion time, rounds, the errors the players retried, and
the money checks (every wallet to the cent, nothing dealt or paid twice, the outbox drained).

    .venv/bin/python bench/failover.py [--seconds 30] [--players 8] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "ops"))

import failover_drill  # noqa: E402
import pgcluster  # noqa: E402

from rgs import devdb  # noqa: E402


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    why = pgcluster.available()
    if why:
        raise SystemExit(why)
    choice = await devdb.resolve_server()
    name = devdb.unique_name("bench_failover_wallet")
    wallet_db = await devdb.create_database(choice.url, name)
    from sandbox_wallet.migrate import migrate as migrate_wallet
    await migrate_wallet(wallet_db)
    root = pgcluster.workspace("rgs-failover-")
    try:
        report = await failover_drill.drill(root=root, wallet_db=wallet_db,
                                            seconds=args.seconds, players=args.players)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        await devdb.drop_database(choice.url, name)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    asyncio.run(main())
