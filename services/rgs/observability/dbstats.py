"""Gauges that only the journal database knows: the wallet outbox and the live sessions.

Each replica samples them on its own small connection every ``interval`` seconds, so the
gauges describe the whole installation, not the replica: dashboards and alerts take ``max()``
over replicas. A failed sample sets ``rgs_journal_database_up`` to 0 and keeps the last values
(an alert on stale samples watches ``rgs_ops_sample_timestamp_seconds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from rgs.journal.migrate import SCHEMA
from rgs.observability import metrics

log = logging.getLogger("rgs.observability.dbstats")

#: Outbox rows not final yet (as the journal's partial index wallet_transactions_open has them).
Q_OUTBOX: Final = f"""
SELECT count(*) AS pending,
       coalesce(extract(epoch FROM clock_timestamp() - min(created_at)), 0) AS oldest_age_s
FROM {SCHEMA}.wallet_transactions
WHERE status IN ('pending', 'unknown', 'applied')
"""
Q_SESSIONS: Final = f"SELECT count(*) FROM {SCHEMA}.sessions WHERE expires_at > now()"


@dataclass(frozen=True, slots=True, kw_only=True)
class OpsSnapshot:
    """One sample of the database-wide gauges."""

    outbox_pending: int
    outbox_oldest_age_s: float
    active_sessions: int


def publish(snapshot: OpsSnapshot) -> None:
    """Set the gauges from a sample."""
    metrics.OUTBOX_PENDING.set(snapshot.outbox_pending)
    metrics.OUTBOX_OLDEST_AGE.set(snapshot.outbox_oldest_age_s)
    metrics.ACTIVE_SESSIONS.set(snapshot.active_sessions)
    metrics.DATABASE_UP.set(1)
    metrics.OPS_SAMPLE_TIMESTAMP.set(time.time())


async def sample(conn: Any) -> OpsSnapshot:
    """Read one sample over an asyncpg connection (or pool)."""
    row = await conn.fetchrow(Q_OUTBOX)
    sessions = await conn.fetchval(Q_SESSIONS)
    return OpsSnapshot(outbox_pending=int(row["pending"]),
                       outbox_oldest_age_s=float(row["oldest_age_s"]),
                       active_sessions=int(sessions))


class OpsSampler:
    """Samples the database-wide gauges in the background until stopped."""

    def __init__(self, database_url: str, *, interval_s: float = 15.0) -> None:
        self._url = database_url
        self._interval = interval_s
        self._pool: asyncpg.Pool | None = None
        self._task: asyncio.Task[None] | None = None

    async def sample_once(self) -> OpsSnapshot | None:
        """Take and publish one sample; None (and database_up 0) when the database failed."""
        try:
            if self._pool is None:
                # One connection, created lazily: the sampler must not compete with calls.
                self._pool = await asyncpg.create_pool(self._url, min_size=0, max_size=1,
                                                       command_timeout=10)
            snapshot = await sample(self._pool)
        except (TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            metrics.DATABASE_UP.set(0)
            log.warning("operations sample failed: %s", type(exc).__name__)
            return None
        publish(snapshot)
        return snapshot

    def start(self) -> None:
        """Start sampling in the background."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            await self.sample_once()
            await asyncio.sleep(self._interval)

    async def close(self) -> None:
        """Stop sampling and close the connection."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
