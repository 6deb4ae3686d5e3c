"""The restore drill, scripted (ops/runbooks/RestoreDrill.md): a primary archiving its WAL, a
base backup taken, players playing rounds, a point in time chosen mid-play, the archive
replayed into a new cluster up to it, then ``rgs audit journal`` on the restored journal and
the runbook's reconcile step (``rgs reconcile`` of the restored journal against the wallet's
export: what the restore lost is exactly the wallet's movements after the point, reported
``missing_in_rgs``, to settle with the operator).

    .venv/bin/python ops/restore_drill.py [--seconds 20] [--players 4] [--keep DIR] [--json]

Needs the PostgreSQL 15 server programs (initdb, pg_basebackup; RGS_PG_BIN) and the local
PostgreSQL (or DATABASE_URL's server) for the wallet's database. Used by
tests/chaos/test_restore_drill.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pgcluster
from failover_drill import (
    OPERATOR,
    ROOT,
    START,
    WALLET,
    WALLET_KEY,
    Player,
    _journal,
    _serving,
    platform_file,
    start_process,
    stop_process,
)

from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc


def cli(*args: str) -> tuple[int, str]:
    """Run a project command (``python -m ...``); (exit code, standard output)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "services")}
    done = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(args[:3])} failed: {done.stderr[-2000:]}")
    return done.returncode, done.stdout


def _archived(primary: pgcluster.Cluster, segment: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        last = primary.psql("SELECT coalesce(last_archived_wal, '') FROM pg_stat_archiver")
        if last and last >= segment:
            return
        time.sleep(0.2)
    raise RuntimeError(f"WAL segment {segment} was not archived")


async def drill(*, root: Path, wallet_db: str, seconds: float = 20.0, players: int = 4,
                target_at: float = 0.5) -> dict[str, Any]:
    """Run the drill under ``root``; its report."""
    archive = root / "wal-archive"
    primary = pgcluster.init_primary(root, archive=archive)
    restored: pgcluster.Cluster | None = None
    procs: list[subprocess.Popen[bytes]] = []
    channels: list[grpc.aio.Channel] = []
    began = datetime.now(UTC)
    try:
        primary.psql("CREATE DATABASE rgs")
        await _journal(primary.db_url("rgs"))
        # 1. The base backup, before play (the nightly one of production).
        base = root / "base"
        pgcluster.base_backup(primary, base, standby=False)
        wallet = f"127.0.0.1:{pgcluster.free_port()}"
        procs.append(start_process(["-m", "sandbox_wallet", "--listen", wallet,
                                    "--database-url", wallet_db, "--api-key", WALLET_KEY,
                                    "--operator-id", "dev-operator"], root / "wallet.log", {}))
        await _serving(wallet, procs[-1], root / "wallet.log")
        rgs = f"127.0.0.1:{pgcluster.free_port()}"
        procs.append(start_process(
            ["-m", "rgs", "serve", "--listen", rgs, "--database-url", primary.db_url("rgs")],
            root / "rgs.log",
            {"RGS_PLATFORM_FILE": str(platform_file(root / "platform.json", wallet))}))
        await _serving(rgs, procs[-1], root / "rgs.log")
        wch = grpc.aio.insecure_channel(wallet)
        channels.append(wch)
        control = sandbox_pb2_grpc.SandboxControlServiceStub(wch)
        team: list[Player] = []
        for i in range(players):
            pid = f"rd-{i}"
            await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
                player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
                metadata=WALLET)
            ch = grpc.aio.insecure_channel(rgs)
            channels.append(ch)
            s = await operator_pb2_grpc.OperatorServiceStub(ch).CreateSession(
                op.CreateSessionRequest(request_id=f"s-{pid}", brand_id="demo-casino",
                                        player_id=pid), metadata=OPERATOR)
            team.append(Player(pid=pid, md=(("authorization", f"Bearer {s.session_token}"),),
                               game=blackjack_pb2_grpc.BlackjackServiceStub(ch)))
        until = time.monotonic() + seconds

        async def play(p: Player) -> None:
            await asyncio.sleep(random.uniform(0, 0.05))
            while time.monotonic() < until:
                await p.play_round()

        # 2. Play; the point in time is chosen mid-play, with calls in flight.
        game = asyncio.gather(*(play(p) for p in team))
        await asyncio.sleep(seconds * target_at)
        target = primary.psql("SELECT now()::text")
        await game
        segment = primary.psql("SELECT pg_walfile_name(pg_switch_wal())")
        _archived(primary, segment)
        rounds_before_restore = int(primary.psql("SELECT count(*) FROM rgs.rounds", "rgs"))
        # 3. Restore the archive to the point into a new cluster.
        t0 = time.monotonic()
        restored = await asyncio.to_thread(pgcluster.restore_to, base, archive, root, target)
        restore_s = time.monotonic() - t0
        rounds_restored = int(restored.psql("SELECT count(*) FROM rgs.rounds", "rgs"))
        # 4. The journal's own check, then the reconcile step with the operator's wallet.
        code, out = cli("rgs", "audit", "journal", "--database-url", restored.db_url("rgs"),
                        "--json")
        audit = json.loads(out)
        ended = datetime.now(UTC)
        window = (began - timedelta(minutes=1), ended + timedelta(minutes=1))
        export = root / "wallet.csv"
        cli("sandbox_wallet", "export", "--operator-id", "dev-operator", "--from",
            window[0].isoformat(), "--to", window[1].isoformat(), "--format", "csv",
            "--output", str(export), "--database-url", wallet_db)
        rc, out = cli("rgs", "reconcile", "--operator", "dev-operator", "--from",
                      window[0].isoformat(), "--to", window[1].isoformat(), "--wallet-export",
                      str(export), "--database-url", restored.db_url("rgs"), "--json")
        rec = json.loads(out)
        kinds = Counter(m["kind"] for m in rec.get("mismatches", []))
        lost_rounds = {m.get("round_id", "") for m in rec.get("mismatches", [])
                       if m["kind"] == "missing_in_rgs"}
        ids = ",".join(f"'{r}'" for r in lost_rounds if r.isalnum())
        in_restored = int(restored.psql(
            f"SELECT count(*) FROM rgs.rounds WHERE round_id IN ({ids})", "rgs")) if ids else 0
        return {
            "target_time": target, "restore_s": round(restore_s, 2),
            "rounds_played": sum(p.rounds for p in team),
            "rounds_at_end": rounds_before_restore, "rounds_restored": rounds_restored,
            "audit_exit": code, "audit": audit,
            "reconcile_exit": rc, "reconcile_mismatches": dict(kinds),
            "lost_rounds_reported": len(lost_rounds),
            "lost_rounds_open_in_restored_journal": in_restored,
        }
    finally:
        for ch in channels:
            await ch.close()
        for proc in reversed(procs):
            stop_process(proc)
        primary.stop()
        if restored is not None:
            restored.stop()


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--keep", action="store_true", help="keep the clusters' directory")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    why = pgcluster.available()
    if why:
        raise SystemExit(why)
    from rgs import devdb
    from sandbox_wallet.migrate import migrate as migrate_wallet
    choice = await devdb.resolve_server()
    name = devdb.unique_name("restore_drill_wallet")
    wallet_db = await devdb.create_database(choice.url, name)
    await migrate_wallet(wallet_db)
    root = pgcluster.workspace("rgs-restore-")
    try:
        report = await drill(root=root, wallet_db=wallet_db, seconds=args.seconds,
                             players=args.players)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        await devdb.drop_database(choice.url, name)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    ok = report["audit_exit"] == 0 and set(report["reconcile_mismatches"]) <= {
        "missing_in_rgs", "still_open"}
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    asyncio.run(main())
