"""Who watches which table on this replica, said to the journal every few seconds.

A seat whose player neither watches the table nor acts at it for the table's ``away_s`` is
given back (:mod:`~rgs.service.tables.seats`). Watching happens on any replica, the release on
the one holding the table's clock, so each replica writes, every ``interval_s`` and at once when
a player starts watching, the players with a WatchTable stream open on it (one statement per
table); the clock's holder reads them. A replica that stops writing (it died) stops vouching
for its watchers: their seats are kept ``away_s`` from their last sighting, then given back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator
from datetime import datetime

from rgs.service.model import Session
from rgs.service.ports import Clock, JournalError
from rgs.service.tables.model import Watching
from rgs.service.tables.ports import TableJournal

log = logging.getLogger(__name__)


class Presence:
    """This replica's watchers, by table and player, and the task that vouches for them."""

    def __init__(self, tables: TableJournal, clock: Clock, *, interval_s: float = 5.0) -> None:
        self._tables = tables
        self._clock = clock
        self.interval_s = interval_s
        self._streams: Counter[tuple[str, str]] = Counter()
        self._expires: dict[tuple[str, str], datetime] = {}
        #: The pairs the last beat said (a stream reopened meanwhile needs no beat of its own).
        self._said: set[tuple[str, str]] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def watched(self) -> int:
        """(Table, player) pairs watched on this replica now (for tests and metrics)."""
        return len(self._streams)

    @contextlib.asynccontextmanager
    async def watching(self, table_id: str, session: Session) -> AsyncIterator[None]:
        """While the block runs, the session's player counts as watching the table."""
        key = (table_id, session.player_key)
        self._streams[key] += 1
        self._expires[key] = max(self._expires.get(key, session.expires_at),
                                 session.expires_at)
        if key not in self._said:
            self._wake.set()  # said at once: a player back on a new page keeps their seat
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        try:
            yield
        finally:
            self._streams[key] -= 1
            if self._streams[key] <= 0:
                del self._streams[key]
                self._expires.pop(key, None)

    async def beat(self) -> None:
        """Say once who watches which table here."""
        now = self._clock()
        by_table: dict[str, list[Watching]] = {}
        self._said = set(self._streams)
        for (table_id, key) in self._said:
            by_table.setdefault(table_id, []).append(Watching(
                player_key=key, seen_at=now, expires_at=self._expires.get((table_id, key))))
        for table_id, rows in by_table.items():
            try:
                await self._tables.mark_watching(table_id, rows)
            except JournalError as exc:
                log.warning("table %s: watchers not recorded (%s); trying again", table_id,
                            exc)

    async def _run(self) -> None:
        while self._streams:
            self._wake.clear()
            await self.beat()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval_s)

    async def aclose(self) -> None:
        """Stop vouching (at shutdown)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
