"""A table's transaction on its turn lock: how it begins and what its failure means.

One home for the two table transactions (a transition, holding the turn exclusive; a Bet
Behind's placement, holding it shared): the lock and statement bounds set with ``BEGIN`` in one
round trip, a rollback when it fails before its COMMIT was sent, and the failure translated for
the runner (the lock's bound -> TableLocked; a driver error before COMMIT -> NotCommitted, after
it -> JournalUnavailable: its outcome is unknown).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

import asyncpg

from rgs.journal.table_statements import turn_lock
from rgs.journal.translate import DRIVER_ERRORS
from rgs.service.ports import JournalUnavailable
from rgs.service.tables.ports import NotCommitted, TableLocked


@dataclass(slots=True)
class Commit:
    """Whether the transaction's COMMIT was sent (its outcome is then the server's)."""

    sent: bool = False


@asynccontextmanager
async def table_turn(conn: Any, table_id: str, *, lock_s: float, statement_s: float,
                     shared: bool) -> AsyncIterator[Commit]:
    """Begin ``table_id``'s transaction on ``conn`` holding its turn (``shared`` for a
    placement); the body sets ``Commit.sent`` before it sends COMMIT."""
    commit = Commit()
    lock_ms = max(1, int(lock_s * 1000))
    try:
        try:
            await conn.execute(f"BEGIN; SET LOCAL lock_timeout = '{lock_ms}ms'; "
                               f"SET LOCAL statement_timeout = '{int(statement_s * 1000)}ms'; "
                               + turn_lock(table_id, shared=shared))
            yield commit
        except BaseException:
            if not commit.sent and conn.is_in_transaction():
                with suppress(*DRIVER_ERRORS):
                    await conn.execute("ROLLBACK")
            raise
    except asyncpg.LockNotAvailableError as exc:
        raise TableLocked(f"table {table_id} stayed locked by another transition for "
                          f"{lock_ms} ms") from exc
    except DRIVER_ERRORS as exc:
        if commit.sent:
            raise JournalUnavailable(f"table {table_id}: the commit's outcome is unknown: "
                                     f"{type(exc).__name__}: {exc}") from exc
        raise NotCommitted(f"table {table_id}: {type(exc).__name__}: {exc}") from exc
