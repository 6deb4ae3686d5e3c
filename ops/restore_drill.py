"""The restore drill, scripted (ops/runbooks/procedures/restore.md): a primary archiving its
WAL, a base backup taken, players playing solo rounds and a shared table's rounds (a seated
player with side bets, another player's Bet Behind following doubles), a point in time chosen
mid-play, the archive replayed into a new cluster up to it, then ``rgs audit journal`` on the
restored journal (every solo and table round replayed from its events) and the runbook's
reconcile step (``rgs reconcile`` of the restored journal against the wallet's export: what the
restore lost is exactly the wallet's movements after the point, reported ``missing_in_rgs``, to
settle with the operator).

    .venv/bin/python ops/restore_drill.py [--seconds 20] [--players 4] [--keep] [--json]

Needs the PostgreSQL 15 server programs (initdb, pg_basebackup; RGS_PG_BIN) and the local
PostgreSQL (or DATABASE_URL's server) for the wallet's database. The stack and the players are
ops/drill_stack.py's. Used by tests/chaos/test_restore_drill.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pgcluster
from drill_stack import (
    ROOT,
    TRANSIENT,
    DrillStack,
    drill_stack,
    play_until,
    prepare_journal,
    run_cli,
)

from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc

#: The drill's shared table: short betting and decision times, so the clock plays rounds out.
TABLE = {"id": "vip-drill", "variant": "vip-platinum", "seats": 7, "currency": "EUR",
         "limits": {"main_min": 1000, "main_max": 500000, "side_min": 100, "side_max": 50000},
         "brands": ["demo-casino"], "betting_s": 0.5, "decision_s": 0.5, "away_s": 3600}
#: What a test may do with the restored cluster before it is stopped (its report).
AfterRestore = Callable[[pgcluster.Cluster], Awaitable[dict[str, Any]]]


def cli(*args: str) -> tuple[int, str]:
    """Run a project command (``python -m ...``); (exit code, standard output)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "services")}
    done = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(args[:3])} failed: {done.stderr[-2000:]}")
    return done.returncode, done.stdout


def audit(url: str) -> tuple[int, dict[str, Any]]:
    """``rgs audit journal --json`` of the journal at ``url``: (exit code, its report)."""
    code, out = cli("rgs", "audit", "journal", "--database-url", url, "--json")
    return code, json.loads(out)


def _archived(primary: pgcluster.Cluster, segment: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        last = primary.psql("SELECT coalesce(last_archived_wal, '') FROM pg_stat_archiver")
        if last and last >= segment:
            return
        time.sleep(0.2)
    raise RuntimeError(f"WAL segment {segment} was not archived")


@dataclass
class TablePlay:
    """Two players at the drill's table: the seated one bets with Perfect Pairs and 21+3 and
    lets the table's clock play each round out (insurance declined, hands stood at their
    decision time); the other bets behind the seat, following doubles, insured always."""

    table: table_pb2_grpc.TableServiceAsyncStub
    seated: tuple[tuple[str, str], ...]
    behind: tuple[tuple[str, str], ...]
    n: int = 0
    bets: int = 0

    async def _call(self, method: str, md: tuple[tuple[str, str], ...], **fields: Any) -> bool:
        """One command, sent again with its request id while the answer is transient; False
        when the table refuses it now (a round in play: betting opens when it ends)."""
        self.n += 1
        request = getattr(tb, f"{method}Request")(request_id=f"t{self.n}", table_id=TABLE["id"],
                                                  **fields)
        for _ in range(200):
            try:
                await getattr(self.table, method)(request, metadata=md, timeout=10)
                return True
            except grpc.aio.AioRpcError as err:
                if err.code() is grpc.StatusCode.FAILED_PRECONDITION:
                    return False
                if err.code() not in TRANSIENT:
                    raise
                await asyncio.sleep(0.1)
        raise RuntimeError(f"{method} at the table never answered")

    async def run(self, until: float) -> None:
        await self._call("TakeSeat", self.seated, seat=1)
        while time.monotonic() < until:
            if not await self._call("PlaceBets", self.seated, bets=[tb.Bet(
                    seat=1, stake=1000, perfect_pairs=100, twenty_one_plus_three=100)]):
                await asyncio.sleep(0.2)
                continue
            self.bets += 1
            await self._call("PlaceBets", self.behind, bets=[tb.Bet(
                seat=1, stake=1000, behind=True, follow_double=True,
                insurance=tb.BEHIND_INSURANCE_ALWAYS)])
            await self._call("DealNow", self.seated)


async def _table_play(stack: DrillStack) -> TablePlay:
    ch = stack.channel()
    return TablePlay(table=table_pb2_grpc.TableServiceStub(ch),
                     seated=await stack.session("rd-seat", ch),
                     behind=await stack.session("rd-behind", ch))


async def drill(*, root: Path, wallet_db: str, seconds: float = 20.0, players: int = 4,
                target_at: float = 0.5, after_restore: AfterRestore | None = None
                ) -> dict[str, Any]:
    """Run the drill under ``root``; its report (with ``after_restore``'s under "after")."""
    archive = root / "wal-archive"
    primary = pgcluster.init_primary(root, archive=archive)
    restored: pgcluster.Cluster | None = None
    began = datetime.now(UTC)
    try:
        primary.psql("CREATE DATABASE rgs")
        await prepare_journal(primary.db_url("rgs"))
        # 1. The base backup, before play (the nightly one of production).
        base = root / "base"
        pgcluster.base_backup(primary, base, standby=False)
        async with drill_stack(root, journal_url=primary.db_url("rgs"), wallet_db=wallet_db,
                               tables=[TABLE]) as stack:
            team = await stack.players("rd", players)
            table = await _table_play(stack)
            until = time.monotonic() + seconds
            # 2. Play; the point in time is chosen mid-play, with calls in flight.
            game = asyncio.gather(play_until(team, until), table.run(until))
            await asyncio.sleep(seconds * target_at)
            target = primary.psql("SELECT now()::text")
            await game
        segment = primary.psql("SELECT pg_walfile_name(pg_switch_wal())")
        _archived(primary, segment)
        rounds_before_restore = int(primary.psql("SELECT count(*) FROM rgs.rounds", "rgs"))
        table_rounds_at_end = int(primary.psql("SELECT count(*) FROM rgs.table_rounds", "rgs"))
        # 3. Restore the archive to the point into a new cluster.
        t0 = time.monotonic()
        restored = await asyncio.to_thread(pgcluster.restore_to, base, archive, root, target)
        restore_s = time.monotonic() - t0
        rounds_restored = int(restored.psql("SELECT count(*) FROM rgs.rounds", "rgs"))
        # 4. The journal's own check, then the reconcile step with the operator's wallet
        # (whose export is taken meanwhile).
        ended = datetime.now(UTC)
        window = (began - timedelta(minutes=1), ended + timedelta(minutes=1))
        export = root / "wallet.csv"
        (code, report), _ = await asyncio.gather(
            asyncio.to_thread(audit, restored.db_url("rgs")),
            asyncio.to_thread(cli, "sandbox_wallet", "export", "--operator-id", "dev-operator",
                              "--from", window[0].isoformat(), "--to", window[1].isoformat(),
                              "--format", "csv", "--output", str(export),
                              "--database-url", wallet_db))
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
        out_report = {
            "target_time": target, "restore_s": round(restore_s, 2),
            "rounds_played": sum(p.rounds for p in team),
            "rounds_at_end": rounds_before_restore, "rounds_restored": rounds_restored,
            "table_bets": table.bets, "table_rounds_at_end": table_rounds_at_end,
            "audit_exit": code, "audit": report,
            "reconcile_exit": rc, "reconcile_mismatches": dict(kinds),
            "lost_rounds_reported": len(lost_rounds),
            "lost_rounds_open_in_restored_journal": in_restored,
        }
        if after_restore is not None:
            out_report["after"] = await after_restore(restored)
        return out_report
    finally:
        primary.stop()
        if restored is not None:
            restored.stop()


def passed(report: dict[str, Any]) -> bool:
    """The drill's verdict: the audit found the restored journal consistent, and the only
    differences with the wallet are what the restore lost and calls it cut through."""
    return report["audit_exit"] == 0 and set(report["reconcile_mismatches"]) <= {
        "missing_in_rgs", "still_open"}


if __name__ == "__main__":
    run_cli(drill, doc=__doc__ or "", workspace="rgs-restore-", seconds=20.0, players=4,
            ok=passed)
