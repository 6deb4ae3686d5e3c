"""The table clock: one replica at a time drives each table's deadlines.

Every replica runs :class:`TableClock`. For each table it takes (or renews) the table's lease
(``leases`` kind ``table``); the holder fires the table's due deadline through
:meth:`TableService.tick`, whose commit checks the lease's epoch in the same transaction, so a
holder that paused past its lease changes nothing. When the holder dies, its lease expires
after ``ttl_s`` and another replica takes the table over on its next pass.

Between passes the clock waits ``interval_s`` at most: a transition that brings a table's
deadline forward (every seated player pressed Deal Now, the last insurance decision) wakes the
clocks of every replica at once (:meth:`TableJournal.deadlines`, ``NOTIFY rgs_table_deadlines``),
so the holder fires it without waiting for its next pass.
"""

from __future__ import annotations

import logging
import time

from rgs.service.errors import ServiceError
from rgs.service.ports import JournalError, JournalLeaseLost
from rgs.service.tables.ports import TableJournal
from rgs.service.tables.service import TableService

log = logging.getLogger(__name__)


class TableClock:
    """Drives the deadlines of the tables whose lease this replica holds."""

    def __init__(self, *, service: TableService, tables: TableJournal, table_ids: list[str],
                 holder: str, ttl_s: float = 3.0, interval_s: float = 0.2) -> None:
        self._service = service
        self._tables = tables
        self._ids = table_ids
        self._holder = holder
        self._ttl_s = ttl_s
        self._interval_s = interval_s
        #: table id -> epoch of the leases held now.
        self.held: dict[str, int] = {}
        self._renewed: dict[str, float] = {}
        self._tried: dict[str, float] = {}

    async def run_once(self) -> int:
        """One pass over every table: take or renew its lease, fire what is due. Returns how
        many transitions were committed."""
        fired = 0
        now = time.monotonic()
        for table_id in self._ids:
            epoch: int | None = self.held.get(table_id)
            # The lease is taken or renewed three times per its length, not on every pass
            # (every replica tries every table: that is the database's steady load).
            if epoch is None or now - self._renewed.get(table_id, 0.0) >= self._ttl_s / 3:
                if epoch is None and now - self._tried.get(table_id, 0.0) < self._ttl_s / 3:
                    continue
                self._tried[table_id] = now
                try:
                    epoch = await self._tables.take_clock(table_id, self._holder,
                                                          self._ttl_s)
                except JournalError as exc:
                    log.warning("table %s clock lease not taken: %s", table_id, exc)
                    self.held.pop(table_id, None)
                    continue
                if epoch is None:
                    self.held.pop(table_id, None)
                    continue
                self._renewed[table_id] = now
            if self.held.get(table_id) != epoch:
                log.info("table %s clock taken (epoch %d)", table_id, epoch)
            self.held[table_id] = epoch
            for _ in range(8):  # a few transitions in a row (e.g. a deadline already past)
                try:
                    if not await self._service.tick(table_id, epoch):
                        break
                    fired += 1
                except JournalLeaseLost as exc:
                    log.warning("table %s clock lost: %s", table_id, exc)
                    self.held.pop(table_id, None)
                    break
                except (ServiceError, JournalError) as exc:
                    log.warning("table %s transition postponed: %s", table_id, exc)
                    break
        return fired

    async def run_forever(self) -> None:
        """Run passes until cancelled; give the leases up on the way out."""
        try:
            async with self._tables.deadlines() as woken:
                while True:
                    try:
                        await self.run_once()
                    except Exception:
                        log.exception("table clock pass failed")
                    await woken(self._interval_s)
        finally:
            for table_id, epoch in list(self.held.items()):
                await self._tables.release_clock(table_id, epoch)
