"""``rgs partitions`` on real PostgreSQL, on the journal partitioned by the DDL of
ops/scale-out.md: it creates the months ahead and is idempotent, detaches only months wholly
past the retention (events before rounds, rows kept in the detached tables for the archive),
refuses a retention shorter than the regulators', changes nothing in a dry run, gives up a lock
that game calls hold after its lock_timeout instead of queueing them, and on the default
(unpartitioned) journal says so and does nothing."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from rgs.journal.partitions import maintain, status

pytestmark = pytest.mark.asyncio(loop_scope="session")
ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2027, 1, 15, 12, 0, tzinfo=UTC)
"""The clock of these runs: the scale-out DDL lays out January 2027."""


def _partitioning_ddl() -> str:
    blocks = re.findall(r"```sql\n(.*?)```", (ROOT / "ops" / "scale-out.md").read_text("utf-8"),
                        re.S)
    (ddl,) = [b for b in blocks if "PARTITION BY RANGE" in b]
    return str(ddl)


async def _tables(conn: asyncpg.Connection) -> dict[str, str | None]:
    """Every table of the rgs schema named like a month's partition, with its parent (None:
    detached)."""
    rows = await conn.fetch(
        "SELECT c.relname, p.relname AS parent FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent "
        "WHERE n.nspname = 'rgs' AND c.relkind = 'r' "
        "AND c.relname ~ '^(rounds|round_events)_([0-9_]+|default)$'")
    return {r["relname"]: r["parent"] for r in rows}


async def _partitioned(url: str) -> asyncpg.Connection:
    """The journal at ``url`` partitioned as the doc says, with two old months (Dec 2020,
    Jan 2021) holding one round and its event each."""
    conn = await asyncpg.connect(url)
    await conn.execute(_partitioning_ddl())
    for month, start, end in (("2020_12", "2020-12-01", "2021-01-01"),
                              ("2021_01", "2021-01-01", "2021-02-01")):
        await conn.execute(
            f"CREATE TABLE rgs.rounds_{month} PARTITION OF rgs.rounds_p "
            f"FOR VALUES FROM ('{start}') TO ('{end}');"
            f"CREATE TABLE rgs.round_events_{month} PARTITION OF rgs.round_events_p "
            f"FOR VALUES FROM ('{start}') TO ('{end}')")
        at = f"{start}T12:00:00Z"
        await conn.execute(
            "INSERT INTO rgs.rounds_p (player_key, round_id, session_id, operator_id, brand_id, "
            "player_id, currency, variant, seq, status, total_staked, total_paid, created_at) "
            f"VALUES ('op/alice', 'r{month}', 's1', 'op', 'b', 'alice', 'EUR', 'power', 1, "
            f"'settled', 100, 0, '{at}')")
        await conn.execute(
            "INSERT INTO rgs.round_events_p (player_key, round_id, event_no, kind, payload, "
            f"round_created_at) VALUES ('op/alice', 'r{month}', 0, 'round_started', '{{}}', "
            f"'{at}')")
    return conn


async def test_creates_the_months_ahead_and_a_second_run_changes_nothing(
        rgs_database_url: str) -> None:
    conn = await _partitioned(rgs_database_url)
    try:
        before = await _tables(conn)
        report = await maintain(rgs_database_url, now=NOW, months_ahead=3, retention_months=72)
        assert report.partitioned and report.ok
        created = {a.partition for a in report.actions if a.kind == "create"}
        # January exists (the doc's DDL); February to April are made, for both tables.
        assert created == {f"{t}_2027_{m:02d}" for t in ("rounds", "round_events")
                           for m in (2, 3, 4)}
        after = await _tables(conn)
        assert {k: v for k, v in after.items() if k not in before} == {
            **{f"rounds_2027_{m:02d}": "rounds_p" for m in (2, 3, 4)},
            **{f"round_events_2027_{m:02d}": "round_events_p" for m in (2, 3, 4)}}
        # A round of March lands in March's partition, not the default one.
        await conn.execute(
            "INSERT INTO rgs.rounds_p (player_key, round_id, session_id, operator_id, brand_id, "
            "player_id, currency, variant, seq, status, total_staked, total_paid, created_at) "
            "VALUES ('op/bob', 'r-march', 's2', 'op', 'b', 'bob', 'EUR', 'power', 1, "
            "'settled', 100, 0, '2027-03-02T00:00:00Z')")
        assert await conn.fetchval(
            "SELECT c.relname FROM rgs.rounds_p r JOIN pg_class c ON c.oid = r.tableoid "
            "WHERE round_id = 'r-march'") == "rounds_2027_03"
        again = await maintain(rgs_database_url, now=NOW, months_ahead=3, retention_months=72)
        assert again.ok and again.actions == []
        assert await _tables(conn) == after
    finally:
        await conn.close()


async def test_only_months_wholly_past_retention_leave_and_their_rows_stay_for_the_archive(
        rgs_database_url: str) -> None:
    conn = await _partitioned(rgs_database_url)
    try:
        # 72 months before January 2027 is January 2021: December 2020 ended before it and
        # leaves; January 2021 still holds records younger than 6 years on the 15th and stays.
        report = await maintain(rgs_database_url, now=NOW, months_ahead=0, retention_months=72)
        assert report.ok
        assert [(a.kind, a.partition) for a in report.actions if a.kind != "create"] == [
            ("detach", "round_events_2020_12"), ("detach", "rounds_2020_12")]
        tables = await _tables(conn)
        assert tables["round_events_2020_12"] is None and tables["rounds_2020_12"] is None
        assert tables["round_events_2021_01"] == "round_events_p"
        assert tables["rounds_2021_01"] == "rounds_p"
        assert tables["rounds_default"] == "rounds_p"  # the default partition is never touched
        # The detached month keeps its rows for pg_dump; the journal no longer sees them.
        assert await conn.fetchval("SELECT count(*) FROM rgs.round_events_2020_12") == 1
        assert await conn.fetchval("SELECT count(*) FROM rgs.rounds_2020_12") == 1
        assert await conn.fetchval(
            "SELECT array_agg(round_id ORDER BY round_id) FROM rgs.rounds_p") == ["r2021_01"]
        seen = await status(rgs_database_url, now=NOW, months_ahead=0, retention_months=72)
        assert seen["detached_awaiting_archive"] == ["rgs.round_events_2020_12",
                                                     "rgs.rounds_2020_12"]
        # A month later January 2021 is wholly past the retention; with drop it goes for good.
        feb = datetime(2027, 2, 1, tzinfo=UTC)
        dropped = await maintain(rgs_database_url, now=feb, months_ahead=0, retention_months=72,
                                 past_retention="drop")
        assert dropped.ok
        assert [(a.kind, a.partition) for a in dropped.actions if a.kind != "create"] == [
            ("drop", "round_events_2021_01"), ("drop", "rounds_2021_01")]
        tables = await _tables(conn)
        assert "rounds_2021_01" not in tables and "round_events_2021_01" not in tables
        # A longer retention keeps what a shorter one would let go.
        long = await maintain(rgs_database_url, now=datetime(2040, 1, 1, tzinfo=UTC),
                              months_ahead=0, retention_months=12 * 14, dry_run=True)
        assert [a for a in long.actions if a.kind != "create"] == []
    finally:
        await conn.close()


async def test_a_dry_run_changes_nothing(rgs_database_url: str) -> None:
    conn = await _partitioned(rgs_database_url)
    try:
        before = await _tables(conn)
        report = await maintain(rgs_database_url, now=NOW, months_ahead=3, retention_months=72,
                                dry_run=True)
        assert report.dry_run and {a.kind for a in report.actions} == {"create", "detach"}
        assert not any(a.done for a in report.actions)
        assert await _tables(conn) == before
    finally:
        await conn.close()


async def test_a_lock_held_by_game_calls_is_given_up_not_queued_behind(
        rgs_database_url: str) -> None:
    conn = await _partitioned(rgs_database_url)
    play = await asyncpg.connect(rgs_database_url)
    later = await asyncpg.connect(rgs_database_url)
    try:
        before = await _tables(conn)
        # A game call's open transaction has read the rounds: creating a partition needs the
        # parent's ACCESS EXCLUSIVE lock, which it cannot have while that call runs.
        tx = play.transaction()
        await tx.start()
        await play.fetch("SELECT round_id FROM rgs.rounds_p WHERE player_key = 'op/alice'")
        report = await maintain(rgs_database_url, now=NOW, months_ahead=1, retention_months=72,
                                lock_timeout_ms=50, attempts=2, pause_s=0.01)
        assert not report.ok
        failed = [a for a in report.actions if a.error]
        assert failed and all("within 50 ms, 2 times" in a.error for a in failed
                              if a.parent == "rounds_p" and a.kind == "create")
        # Nothing of the rounds changed: no new month, and December 2020 did not leave (its
        # events were tried first and are held the same way; the rounds' month then waits).
        tables = await _tables(conn)
        assert "rounds_2027_02" not in tables
        assert {k: tables[k] for k in before} == before
        assert [(a.partition, a.error[:8]) for a in report.actions if a.kind == "detach"] == [
            ("round_events_2020_12", "could no"), ("rounds_2020_12", "skipped:")]
        # Nothing was left waiting in the lock queue: a new call reads at once.
        await later.execute("SET lock_timeout = 1")
        assert await later.fetchval("SELECT count(*) FROM rgs.rounds_p") == 2
        await tx.rollback()
        ok = await maintain(rgs_database_url, now=NOW, months_ahead=1, retention_months=72)
        assert ok.ok and "rounds_2027_02" in await _tables(conn)
    finally:
        await play.close()
        await later.close()
        await conn.close()


def _rgs(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rgs", *args], capture_output=True, text=True,
                          check=False, timeout=120, cwd=ROOT)


async def test_the_command_on_the_unpartitioned_journal_says_so_and_does_nothing(
        rgs_database_url: str) -> None:
    conn = await asyncpg.connect(rgs_database_url)
    try:
        tables = await conn.fetch("SELECT relname FROM pg_class c JOIN pg_namespace n "
                                  "ON n.oid = c.relnamespace WHERE n.nspname = 'rgs'")
        done = await asyncio.to_thread(_rgs, "partitions", "maintain", "--database-url",
                                       rgs_database_url, "--json")
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["partitioned"] is False and out["actions"] == []
        text = await asyncio.to_thread(_rgs, "partitions", "maintain", "--database-url",
                                       rgs_database_url)
        assert "not partitioned" in text.stdout
        seen = await asyncio.to_thread(_rgs, "partitions", "status", "--database-url",
                                       rgs_database_url, "--json")
        assert json.loads(seen.stdout)["partitioned"] is False
        assert await conn.fetch("SELECT relname FROM pg_class c JOIN pg_namespace n "
                                "ON n.oid = c.relnamespace WHERE n.nspname = 'rgs'") == tables
    finally:
        await conn.close()


async def test_the_command_refuses_a_retention_inside_the_regulators(
        rgs_database_url: str) -> None:
    conn = await _partitioned(rgs_database_url)
    try:
        before = await _tables(conn)
        done = await asyncio.to_thread(_rgs, "partitions", "maintain", "--database-url",
                                       rgs_database_url, "--retention-months", "24")
        assert done.returncode == 2
        assert "inside the regulators' retention" in done.stderr
        assert "at least 60 months" in done.stderr
        assert await _tables(conn) == before
        # The command's own clock: the months from now on are made, and the table says so.
        made = await asyncio.to_thread(_rgs, "partitions", "maintain", "--database-url",
                                       rgs_database_url, "--json")
        assert made.returncode == 0, made.stderr
        out = json.loads(made.stdout)
        assert out["ok"] and len([a for a in out["actions"] if a["action"] == "create"]) >= 6
        seen = await asyncio.to_thread(_rgs, "partitions", "status", "--database-url",
                                       rgs_database_url)
        assert "rgs.rounds_p by created_at" in seen.stdout, seen.stdout + seen.stderr
    finally:
        await conn.close()
