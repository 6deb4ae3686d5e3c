"""A table's events as this replica's watchers get them: one reader per table, shared.

Every watcher of a table used to read the journal on every wake-up, so a table with a hundred
watchers cost a hundred statements per transition, on the pool the commands need. A feed reads
each new batch of events once and keeps the newest ones; its watchers pull from it at their own
pace (no queue per watcher: a slow one holds nothing but its position), and one that falls
behind what the feed keeps reads the journal itself until it catches up. The feed starts with
its first watcher and stops with its last.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import replace

import orjson

from rgs.service.ports import JournalError
from rgs.service.tables.model import TableEvent
from rgs.service.tables.ports import TableJournal

log = logging.getLogger(__name__)

#: Events a feed keeps for watchers that are behind.
_KEEP = 2048
#: Events read per statement.
_PAGE = 500


class _Feed:
    def __init__(self, tables: TableJournal, table_id: str, poll_s: float) -> None:
        self._tables = tables
        self.table_id = table_id
        self._poll_s = poll_s
        self.events: deque[TableEvent] = deque(maxlen=_KEEP)
        #: The newest event number read (None until the feed knows where the table is).
        self.last: int | None = None
        self.changed = asyncio.Condition()
        self.watchers = 0
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        async with self._tables.subscribe(self.table_id) as wake:
            while True:
                try:
                    if self.last is None:
                        t = await self._tables.load(self.table_id)
                        self.last = t.last_seq if t is not None else 0
                        batch: list[TableEvent] = []
                    else:
                        batch = await self._tables.events_after(self.table_id, self.last,
                                                                _PAGE)
                except JournalError as exc:
                    log.warning("table %s feed: %s (reading again)", self.table_id, exc)
                    await asyncio.sleep(self._poll_s)
                    continue
                if batch:
                    # Decoded once here for every watcher of the replica.
                    batch = [replace(e, data=orjson.loads(e.payload)) for e in batch]
                    self.events.extend(batch)
                    self.last = batch[-1].seq
                async with self.changed:
                    self.changed.notify_all()
                if len(batch) < _PAGE:
                    await wake(self._poll_s)

    def after(self, seq: int) -> list[TableEvent] | None:
        """The kept events numbered above ``seq`` ([] when there is none yet), or None when
        the feed no longer keeps the next one (the watcher reads the journal)."""
        if self.last is None or seq >= self.last:
            return []
        if not self.events or self.events[0].seq > seq + 1:
            return None
        start = seq + 1 - self.events[0].seq
        return [self.events[i] for i in range(start, len(self.events))]


def _moved(feed: _Feed, seq: int) -> bool:
    """Whether ``feed`` has something for a watcher at ``seq`` (or sends it to the journal)."""
    return feed.after(seq) != []


class Feeds:
    """The feeds of this replica's watched tables."""

    def __init__(self, tables: TableJournal, *, poll_s: float = 1.0) -> None:
        self._tables = tables
        self._poll_s = poll_s
        self._feeds: dict[str, _Feed] = {}

    def watchers(self) -> int:
        """Watchers of every table now (for tests and metrics; the metrics read it from their
        own thread, so it sums a copy of the feeds, taken at once)."""
        return sum(f.watchers for f in tuple(self._feeds.values()))

    def readers(self) -> int:
        """Feeds reading now (one per watched table)."""
        return sum(1 for f in self._feeds.values() if f.task is not None)

    async def events(self, table_id: str, from_seq: int) -> AsyncIterator[TableEvent]:
        """The table's events numbered above ``from_seq``, each once, in order, for as long as
        the caller pulls."""
        async with contextlib.aclosing(self.batches(table_id, from_seq)) as batches:
            async for batch in batches:
                for e in batch:
                    yield e

    async def batches(self, table_id: str, from_seq: int
                      ) -> AsyncGenerator[list[TableEvent], None]:
        """The same events in batches: each time the caller pulls, every event the feed has
        for it by then (at most :data:`_PAGE`, never none), so a watcher that fell behind
        catches up in a few messages."""
        feed = self._feeds.get(table_id)
        if feed is None:
            feed = self._feeds[table_id] = _Feed(self._tables, table_id, self._poll_s)
        feed.watchers += 1
        if feed.task is None:
            feed.task = asyncio.get_running_loop().create_task(feed.run())
        seq = from_seq
        try:
            while True:
                kept = feed.after(seq)
                if kept is None:  # behind what the feed keeps: from the journal
                    kept = await self._tables.events_after(table_id, seq, _PAGE)
                if kept:
                    kept = kept[:_PAGE]
                    seq = kept[-1].seq
                    yield kept
                    continue
                async with feed.changed:
                    await feed.changed.wait_for(functools.partial(_moved, feed, seq))
        finally:
            feed.watchers -= 1
            if feed.watchers == 0 and feed.task is not None:
                task, feed.task = feed.task, None
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                self._feeds.pop(table_id, None)
