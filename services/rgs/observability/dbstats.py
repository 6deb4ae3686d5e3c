"""Gauges that only the journal database knows: the wallet outbox and the live sessions.

Each replica samples them from the journal every ``interval`` seconds, on a journal of its own
with a single connection (the sampler must not compete with calls), so the gauges describe the
whole installation, not the replica: dashboards and alerts take ``max()`` over replicas. The
journal answers with its own outbox rule (:func:`rgs.service.model.is_open`); this module writes
no SQL. A failed sample sets ``rgs_journal_database_up`` to 0 and keeps the last values (an
alert on stale samples watches ``rgs_ops_sample_timestamp_seconds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Protocol

from rgs.observability import metrics
from rgs.service.model import OutboxBacklog
from rgs.service.ports import JournalError

log = logging.getLogger("rgs.observability.dbstats")


class OpsSource(Protocol):
    """What the sampler asks the journal (both journals answer it)."""

    async def outbox_backlog(self) -> OutboxBacklog:
        """The open outbox rows of every player, and the age of the oldest."""
        ...

    async def active_sessions(self) -> int:
        """Sessions not yet expired."""
        ...

    async def close(self) -> None:
        """Release the source's connections."""
        ...


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


async def sample(source: OpsSource) -> OpsSnapshot:
    """Read one sample from the journal."""
    backlog = await source.outbox_backlog()
    return OpsSnapshot(outbox_pending=backlog.open_rows,
                       outbox_oldest_age_s=backlog.oldest_age_s,
                       active_sessions=await source.active_sessions())


class OpsSampler:
    """Samples the database-wide gauges in the background until stopped; owns its source."""

    def __init__(self, source: OpsSource, *, interval_s: float = 15.0) -> None:
        self._source = source
        self._interval = interval_s
        self._task: asyncio.Task[None] | None = None

    async def sample_once(self) -> OpsSnapshot | None:
        """Take and publish one sample; None (and database_up 0) when the database failed."""
        try:
            snapshot = await sample(self._source)
        except (TimeoutError, JournalError) as exc:
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
        """Stop sampling and close the source."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._source.close()
