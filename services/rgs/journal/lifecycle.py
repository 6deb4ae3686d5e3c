"""Purging what the journal keeps only for a while: idempotency records and expired sessions.

Game records (rounds, their events, the wallet outbox, table rounds, the audit trail) are never
purged here: they are kept for the regulator's retention period and leave by whole partitions
(ops/scale-out.md, ops/dr.md). What goes:

* an **idempotency record** whose last write is older than the cutoff (a request id is
  answered as a replay for ``--idempotency-days``, 7 by default; clients retry within seconds);
* a **session** every row of which (one per token) expired before the cutoff: a session still
  alive keeps all its rows, so its start time (the earliest row) does not move.

Each batch is one short transaction (``LIMIT`` rows, ``SKIP LOCKED``, its own
``statement_timeout`` and ``lock_timeout``), so a purge never holds a lock a call waits for and
works through a transaction-mode pooler. Indexes for both scans: migration 0200.
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


@dataclass(frozen=True, slots=True)
class PurgeReport:
    """Rows deleted, by table, and the batches it took."""

    idempotency_records: int
    sessions: int
    batches: int


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


async def purge(database_url: str, *, idempotency_before: datetime, sessions_before: datetime,
                batch: int = 5000, pause_s: float = 0.05,
                statement_timeout_ms: int = 30_000) -> PurgeReport:
    """Delete idempotency records last written before ``idempotency_before`` and sessions all
    of whose rows expired before ``sessions_before``, ``batch`` rows per transaction."""
    conn = await asyncpg.connect(database_url, statement_cache_size=0)
    try:
        idem, b1 = await _purge_table(conn, Q_PURGE_IDEMPOTENCY, idempotency_before,
                                      batch=batch, pause_s=pause_s,
                                      statement_timeout_ms=statement_timeout_ms)
        sess, b2 = await _purge_table(conn, Q_PURGE_SESSIONS, sessions_before, batch=batch,
                                      pause_s=pause_s,
                                      statement_timeout_ms=statement_timeout_ms)
    finally:
        await conn.close()
    return PurgeReport(idempotency_records=idem, sessions=sess, batches=b1 + b2)
