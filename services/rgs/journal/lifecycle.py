"""Purging what the journal keeps only for a while: idempotency records, expired sessions,
expired launch codes and the virtual money of finished demo play.

Game records (rounds, their events, the wallet outbox, table rounds, the audit trail) are never
purged here: they are kept for the regulator's retention period and leave by whole partitions
(:mod:`rgs.journal.partitions`, ops/scale-out.md, ops/dr.md). What goes:

* an **idempotency record** whose last write is older than the cutoff (a request id is
  answered as a replay for ``--idempotency-days``, 7 by default; clients retry within seconds);
* a **session** every row of which (one per token) expired before the cutoff: a session still
  alive keeps all its rows, so its start time (the earliest row) does not move;
* a **launch code** that expired before its cutoff (``--launch-days`` past expiry, 1 by
  default: until then a reused link is still told "already used" or "expired" rather than
  "not valid"), redeemed or not;
* a **demo player's balance and moves** (``demo_balances``, ``demo_moves``, migration 0170)
  once none of the player's sessions is alive at the sessions' cutoff: a demo player is one
  demo session, so nothing can play that money again. Demo rounds and their journal
  movements are game records (marked ``demo``) and stay.

Each batch is one short transaction (``LIMIT`` rows, ``SKIP LOCKED``, its own
``statement_timeout`` and ``lock_timeout``), so a purge never holds a lock a call waits for and
works through a transaction-mode pooler. Indexes for the scans: migration 0200 (idempotency
records, sessions), 0170 (launch codes by expiry; demo rows by player key).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from rgs.journal.migrate import SCHEMA

Q_PURGE_IDEMPOTENCY = f"""
WITH doomed AS (
    SELECT player_key, scope, request_id FROM {SCHEMA}.idempotency_records
    WHERE updated_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
DELETE FROM {SCHEMA}.idempotency_records i USING doomed d
WHERE i.player_key = d.player_key AND i.scope = d.scope AND i.request_id = d.request_id"""

Q_PURGE_SESSIONS = f"""
WITH doomed AS (
    SELECT s.player_key, s.token_hash FROM {SCHEMA}.sessions s
    WHERE s.expires_at < $1
      AND NOT EXISTS (SELECT 1 FROM {SCHEMA}.sessions l
                      WHERE l.player_key = s.player_key AND l.session_id = s.session_id
                        AND l.expires_at >= $1)
    LIMIT $2 FOR UPDATE SKIP LOCKED)
DELETE FROM {SCHEMA}.sessions s USING doomed d
WHERE s.player_key = d.player_key AND s.token_hash = d.token_hash"""


Q_PURGE_LAUNCH_CODES = f"""
WITH doomed AS (
    SELECT code_hash FROM {SCHEMA}.launch_codes WHERE expires_at < $1
    LIMIT $2 FOR UPDATE SKIP LOCKED)
DELETE FROM {SCHEMA}.launch_codes l USING doomed d WHERE l.code_hash = d.code_hash"""

# A batch of demo balances whose player has no session alive at $1, with their moves; the
# moves' count rides along (each balance row is one player and currency).
Q_PURGE_DEMO = f"""
WITH doomed AS (
    SELECT b.player_key, b.currency FROM {SCHEMA}.demo_balances b
    WHERE split_part(b.player_key, '/', 2) LIKE 'demo~%'
      AND NOT EXISTS (SELECT 1 FROM {SCHEMA}.sessions s
                      WHERE s.player_key = b.player_key AND s.expires_at >= $1)
    LIMIT $2 FOR UPDATE SKIP LOCKED),
moves AS (
    DELETE FROM {SCHEMA}.demo_moves m USING doomed d WHERE m.player_key = d.player_key
    RETURNING 1),
balances AS (
    DELETE FROM {SCHEMA}.demo_balances b USING doomed d
    WHERE b.player_key = d.player_key AND b.currency = d.currency RETURNING 1)
SELECT (SELECT count(*) FROM balances) AS balances, (SELECT count(*) FROM moves) AS moves"""


@dataclass(frozen=True, slots=True)
class PurgeReport:
    """Rows deleted, by table, and the batches it took."""

    idempotency_records: int
    sessions: int
    batches: int
    launch_codes: int = 0
    demo_balances: int = 0
    demo_moves: int = 0


async def _purge_table(conn: asyncpg.Connection, sql: str, cutoff: datetime, *, batch: int,
                       pause_s: float, statement_timeout_ms: int) -> tuple[int, int]:
    deleted = batches = 0
    while True:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL statement_timeout = {int(statement_timeout_ms)}")
            await conn.execute("SET LOCAL lock_timeout = 2000")
            status = await conn.execute(sql, cutoff, batch)
        n = int(status.split()[-1])
        deleted += n
        batches += 1
        if n < batch:
            return deleted, batches
        await asyncio.sleep(pause_s)  # let the calls' transactions and autovacuum breathe


async def _purge_demo(conn: asyncpg.Connection, cutoff: datetime, *, batch: int,
                      pause_s: float, statement_timeout_ms: int) -> tuple[int, int, int]:
    balances = moves = batches = 0
    while True:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL statement_timeout = {int(statement_timeout_ms)}")
            await conn.execute("SET LOCAL lock_timeout = 2000")
            row = await conn.fetchrow(Q_PURGE_DEMO, cutoff, batch)
        assert row is not None
        balances += int(row["balances"])
        moves += int(row["moves"])
        batches += 1
        if int(row["balances"]) < batch:
            return balances, moves, batches
        await asyncio.sleep(pause_s)


async def purge(database_url: str, *, idempotency_before: datetime, sessions_before: datetime,
                launches_before: datetime | None = None, batch: int = 5000,
                pause_s: float = 0.05, statement_timeout_ms: int = 30_000) -> PurgeReport:
    """Delete idempotency records last written before ``idempotency_before``, sessions all
    of whose rows expired before ``sessions_before``, launch codes expired before
    ``launches_before`` (default ``sessions_before``) and the demo balances and moves of
    demo players with no session alive at ``sessions_before``, ``batch`` rows per
    transaction."""
    conn = await asyncpg.connect(database_url, statement_cache_size=0)

    async def table(sql: str, cutoff: datetime) -> tuple[int, int]:
        return await _purge_table(conn, sql, cutoff, batch=batch, pause_s=pause_s,
                                  statement_timeout_ms=statement_timeout_ms)

    try:
        idem, b1 = await table(Q_PURGE_IDEMPOTENCY, idempotency_before)
        codes, b2 = await table(Q_PURGE_LAUNCH_CODES, launches_before or sessions_before)
        # Before the sessions' purge or after it, the same players qualify (no session alive).
        balances, moves, b3 = await _purge_demo(conn, sessions_before, batch=batch,
                                                pause_s=pause_s,
                                                statement_timeout_ms=statement_timeout_ms)
        sess, b4 = await table(Q_PURGE_SESSIONS, sessions_before)
    finally:
        await conn.close()
    return PurgeReport(idempotency_records=idem, sessions=sess, batches=b1 + b2 + b3 + b4,
                       launch_codes=codes, demo_balances=balances, demo_moves=moves)
