"""Data lifecycle on real PostgreSQL: ``rgs purge`` deletes expired idempotency records,
sessions and launch codes, and the demo balances and moves of demo players none of whose
sessions is alive, in batches, and nothing else (a live session keeps every row, a live demo
player its money, game records stay), and
a migration waiting for a lock fails after its lock_timeout instead of queueing the calls."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from rgs.journal.lifecycle import purge
from rgs.sqlmigrate import SqlMigrations

pytestmark = pytest.mark.asyncio(loop_scope="session")
ROOT = Path(__file__).resolve().parents[2]
NOW = datetime.now(UTC)


async def _seed(conn: asyncpg.Connection) -> None:
    await conn.executemany(
        "INSERT INTO rgs.idempotency_records (player_key, request_id, method, request_hash, "
        "response, scope, created_at, updated_at) VALUES ($1, $2, 'deal', 'h', 'r', 'player', "
        "$3, $3)",
        [(f"op/p{i % 7}", f"old-{i}", NOW - timedelta(days=9)) for i in range(23)]
        + [(f"op/p{i % 7}", f"new-{i}", NOW - timedelta(hours=2)) for i in range(5)])
    rows = [
        # a session long expired: both its tokens go
        ("op/alice", "t1", "s-old", NOW - timedelta(days=40)),
        ("op/alice", "t2", "s-old", NOW - timedelta(days=39)),
        # a session whose first token expired long ago but whose last one is alive: kept whole
        ("op/bob", "t3", "s-live", NOW - timedelta(days=60)),
        ("op/bob", "t4", "s-live", NOW + timedelta(hours=1)),
        # expired recently (within --session-days): kept
        ("op/carol", "t5", "s-recent", NOW - timedelta(days=2)),
    ]
    await conn.executemany(
        "INSERT INTO rgs.sessions (player_key, token_hash, session_id, operator_id, brand_id, "
        "player_id, currency, expires_at, created_at) VALUES ($1, $2, $3, 'op', 'b', "
        "split_part($1, '/', 2), 'EUR', $4::timestamptz, $4::timestamptz - interval '1 hour')",
        rows + DEMO_SESSIONS)
    await conn.executemany(
        "INSERT INTO rgs.launch_codes (code_hash, operator_id, brand_id, launch, expires_at, "
        "redeemed_at) VALUES ($1, 'op', 'b', '{}'::jsonb, $2, $3)",
        [("c-old-used", NOW - timedelta(days=3), NOW - timedelta(days=3, minutes=2)),
         ("c-old", NOW - timedelta(days=2), None),
         ("c-recent", NOW - timedelta(hours=2), None),  # within --launch-days: kept
         ("c-live", NOW + timedelta(minutes=4), None)])
    # Demo money: ended (session long expired), no session left at all, still playing,
    # ended recently (within --session-days).
    balances = {"op/demo~ended": 3, "op/demo~gone": 1, "op/demo~live": 2, "op/demo~recent": 1}
    await conn.executemany(
        "INSERT INTO rgs.demo_balances (player_key, currency, balance) VALUES ($1, 'EUR', $2)",
        [(key, 50_000 - 1000 * n) for key, n in balances.items()])
    await conn.executemany(
        "INSERT INTO rgs.demo_moves (player_key, transaction_id, kind, amount, balance_after) "
        "VALUES ($1, $2, 'debit', 1000, $3)",
        [(key, f"tx-{i}", 50_000 - 1000 * (i + 1))
         for key, n in balances.items() for i in range(n)])


DEMO_SESSIONS = [("op/demo~ended", "t6", "s-demo-ended", NOW - timedelta(days=35)),
                 ("op/demo~live", "t7", "s-demo-live", NOW + timedelta(hours=1)),
                 ("op/demo~recent", "t8", "s-demo-recent", NOW - timedelta(days=1))]


async def test_purge_deletes_only_expired_rows_in_batches(rgs_database_url: str) -> None:
    conn = await asyncpg.connect(rgs_database_url)
    try:
        await _seed(conn)
        report = await purge(rgs_database_url, idempotency_before=NOW - timedelta(days=7),
                             sessions_before=NOW - timedelta(days=30),
                             launches_before=NOW - timedelta(days=1), batch=5, pause_s=0)
        assert (report.idempotency_records, report.sessions) == (23, 3)
        assert (report.launch_codes, report.demo_balances, report.demo_moves) == (2, 2, 4)
        # 23 rows in batches of 5, then one batch each of launch codes, demo money, sessions
        assert report.batches == 5 + 1 + 1 + 1
        left = {r["request_id"] for r in await conn.fetch(
            "SELECT request_id FROM rgs.idempotency_records")}
        assert left == {f"new-{i}" for i in range(5)}
        sessions = {(r["session_id"], r["token_hash"]) for r in await conn.fetch(
            "SELECT session_id, token_hash FROM rgs.sessions")}
        assert sessions == {("s-live", "t3"), ("s-live", "t4"), ("s-recent", "t5"),
                            ("s-demo-live", "t7"), ("s-demo-recent", "t8")}
        codes = {r["code_hash"] for r in await conn.fetch("SELECT code_hash FROM rgs.launch_codes")}
        assert codes == {"c-recent", "c-live"}
        demo = {r["player_key"]: r["balance"] for r in await conn.fetch(
            "SELECT player_key, balance FROM rgs.demo_balances")}
        assert demo == {"op/demo~live": 48_000, "op/demo~recent": 49_000}
        moves = {(r["player_key"], r["transaction_id"]) for r in await conn.fetch(
            "SELECT player_key, transaction_id FROM rgs.demo_moves")}
        assert moves == {("op/demo~live", "tx-0"), ("op/demo~live", "tx-1"),
                         ("op/demo~recent", "tx-0")}
        again = await purge(rgs_database_url, idempotency_before=NOW - timedelta(days=7),
                            sessions_before=NOW - timedelta(days=30),
                            launches_before=NOW - timedelta(days=1), batch=5, pause_s=0)
        assert (again.idempotency_records, again.sessions, again.launch_codes,
                again.demo_balances, again.demo_moves) == (0, 0, 0, 0, 0)
    finally:
        await conn.close()


async def test_rgs_purge_command_prints_what_it_deleted(rgs_database_url: str) -> None:
    conn = await asyncpg.connect(rgs_database_url)
    try:
        await _seed(conn)
    finally:
        await conn.close()
    cmd = [sys.executable, "-m", "rgs", "purge", "--database-url", rgs_database_url, "--json",
           "--batch", "10"]
    proc = await asyncio.to_thread(subprocess.run, cmd, capture_output=True, text=True,
                                   timeout=60, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"idempotency_records": 23, "sessions": 3, "batches": 6,
                                       "launch_codes": 2, "demo_balances": 2, "demo_moves": 4}
    refused = await asyncio.to_thread(
        subprocess.run, [*cmd, "--idempotency-days", "0.5"], capture_output=True, text=True,
        timeout=60, check=False, cwd=ROOT)
    assert refused.returncode == 2 and "at least 1" in refused.stderr


async def test_a_migration_waiting_for_a_lock_fails_after_lock_timeout(
        rgs_database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "lockmig"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "0001_create.sql").write_text("CREATE TABLE t (id integer PRIMARY KEY);")
    monkeypatch.syspath_prepend(str(tmp_path))
    migrations = SqlMigrations(package="lockmig", schema="lockmig", lock_key=4242,
                               lock_timeout_ms=300)
    assert await migrations.migrate(rgs_database_url) == ["0001_create.sql"]
    (package / "0002_alter.sql").write_text("ALTER TABLE t ADD COLUMN note text;")
    holder = await asyncpg.connect(rgs_database_url)
    try:
        tx = holder.transaction()
        await tx.start()
        await holder.execute("SELECT * FROM lockmig.t")  # a long reader holds ACCESS SHARE
        started = time.monotonic()
        with pytest.raises(asyncpg.LockNotAvailableError):
            await migrations.migrate(rgs_database_url)
        assert time.monotonic() - started < 5
        await tx.rollback()
        assert await migrations.migrate(rgs_database_url) == ["0002_alter.sql"]
    finally:
        await holder.close()
