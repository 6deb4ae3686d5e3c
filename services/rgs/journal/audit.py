"""The :class:`~rgs.service.audit.AuditTrail` port on PostgreSQL (table ``audit_log``).

Appends are serialised by a transaction-scoped advisory lock (it works behind a
transaction-mode pooler too): inside it the last row is read, the next ``seq`` and hash are
computed from it and the row is inserted, so two replicas appending at once never fork the
chain. :func:`append` is what another adapter calls to record a change in its own transaction
(:mod:`rgs.journal.controls`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import asyncpg

from rgs.journal.migrate import SCHEMA
from rgs.journal.translate import DRIVER_ERRORS, translated
from rgs.service.audit import (
    AuditEntry,
    AuditPage,
    AuditRecord,
    change_to_record,
    details_text,
    next_record,
)
from rgs.service.ports import Clock, JournalUnavailable

AUDIT_LOCK = 0x2B_5A_0A_D1
"""The advisory lock key that serialises appends to the audit log."""

_COLUMNS = "seq, at, actor, operator_id, action, subject, reason, details, prev_hash, hash"
Q_LAST = f"SELECT {_COLUMNS} FROM audit_log ORDER BY seq DESC LIMIT 1"
Q_LATEST_OF = (f"SELECT {_COLUMNS} FROM audit_log WHERE subject = $1 "
               "ORDER BY seq DESC LIMIT 1")
Q_INSERT = f"INSERT INTO audit_log ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
Q_PAGE = (f"SELECT {_COLUMNS} FROM audit_log WHERE ($1::text IS NULL OR operator_id = $1) "
          "AND ($2 = 0 OR seq < $2) ORDER BY seq DESC LIMIT $3")
Q_CHUNK = f"SELECT {_COLUMNS} FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2"

CHUNK = 1000
"""Rows read at once while walking the chain."""


def audit_record(r: asyncpg.Record) -> AuditRecord:
    """A stored row."""
    details = json.loads(r["details"])
    return AuditRecord(seq=r["seq"], at=r["at"], prev_hash=r["prev_hash"], hash=r["hash"],
                       entry=AuditEntry(actor=r["actor"], operator_id=r["operator_id"],
                                        action=r["action"], subject=r["subject"],
                                        reason=r["reason"],
                                        details={str(k): str(v) for k, v in details.items()}))


async def append(conn: Any, entry: AuditEntry, clock: Clock) -> AuditRecord:
    """Append ``entry`` in the connection's open transaction (the lock is held to its end)."""
    await conn.execute("SELECT pg_advisory_xact_lock($1)", AUDIT_LOCK)
    last = await conn.fetchrow(Q_LAST)
    rec = next_record(None if last is None else audit_record(last), clock(), entry)
    e = rec.entry
    await conn.execute(Q_INSERT, rec.seq, rec.at, e.actor, e.operator_id, e.action, e.subject,
                       e.reason, details_text(e.details), rec.prev_hash, rec.hash)
    return rec


async def open_pool(database_url: str, *, pool_mode: str = "session", max_size: int = 2
                    ) -> asyncpg.Pool:
    """A small pool for the controls and the audit trail (apart from the calls' pool: a busy
    journal never holds up a control's refresh)."""
    options: dict[str, Any] = ({"server_settings": {"search_path": SCHEMA}}
                               if pool_mode == "session" else {"statement_cache_size": 0})
    try:
        return await asyncpg.create_pool(database_url, min_size=1, max_size=max_size,
                                         **options)
    except DRIVER_ERRORS as exc:
        raise JournalUnavailable(f"cannot connect to the journal database: {exc}") from exc


class PostgresAuditTrail:
    """The audit log in the journal's database."""

    def __init__(self, pool: asyncpg.Pool, clock: Clock) -> None:
        self._pool = pool
        self._clock = clock

    @translated
    async def record(self, entry: AuditEntry) -> AuditRecord:
        """Append one row."""
        async with self._pool.acquire() as conn, conn.transaction():
            return await append(conn, entry, self._clock)

    @translated
    async def record_change(self, entry: AuditEntry, *, first_action: str
                            ) -> AuditRecord | None:
        """Append unless the subject's latest row has the same details."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", AUDIT_LOCK)
            last = await conn.fetchrow(Q_LATEST_OF, entry.subject)
            todo = change_to_record(None if last is None else audit_record(last), entry,
                                    first_action)
            return None if todo is None else await append(conn, todo, self._clock)

    @translated
    async def page(self, *, operator_id: str | None, before: int, limit: int) -> AuditPage:
        """Rows newest first."""
        rows = await self._pool.fetch(Q_PAGE, operator_id, before, limit + 1)
        records = tuple(audit_record(r) for r in rows[:limit])
        return AuditPage(records=records,
                         next_before=records[-1].seq if len(rows) > limit else 0)

    async def rows(self) -> AsyncIterator[AuditRecord]:
        """Every row in chain order, a chunk at a time."""
        after = 0
        while True:
            chunk = await self._chunk(after)
            for r in chunk:
                yield r
            if len(chunk) < CHUNK:
                return
            after = chunk[-1].seq

    @translated
    async def _chunk(self, after: int) -> list[AuditRecord]:
        return [audit_record(r) for r in await self._pool.fetch(Q_CHUNK, after, CHUNK)]
