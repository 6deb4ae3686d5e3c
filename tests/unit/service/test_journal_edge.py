"""The PostgreSQL journal translates every driver failure once, at its edge, into the journal's
own errors (a call then fails JOURNAL_UNAVAILABLE, retryable, never SERVER_ERROR)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import asyncpg
import pytest

from rgs.journal.leases import Lease
from rgs.journal.postgres import PostgresPlayerJournal
from rgs.service.model import RequestScope
from rgs.service.ports import JournalUnavailable


class _DyingConnection:
    """A connection whose server is shutting down under the call."""

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def fetchrow(self, *args: Any) -> None:
        raise self.exc


@pytest.mark.parametrize("exc", [
    asyncpg.InternalClientError("cannot switch to state 12; another operation (2) is in progress"),
    asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
    ConnectionResetError("reset by peer"),
])
async def test_a_connection_failing_under_a_call_is_journal_unavailable(exc: Exception) -> None:
    pj = PostgresPlayerJournal(_DyingConnection(exc), "dev-operator/alice",  # type: ignore[arg-type]
                               Lease(epoch=1, ttl=timedelta(seconds=30)))
    with pytest.raises(JournalUnavailable):
        await pj.find_request("r1", RequestScope.PLAYER)


class _ReleasedConnection:
    """A pooled connection the pool took back when its server died under the call."""

    def is_in_transaction(self) -> bool:
        raise asyncpg.InterfaceError("connection has been released back to the pool")


async def test_a_lease_that_cannot_be_released_is_left_to_expire_without_masking_the_call(
) -> None:
    from rgs.journal.leases import PlayerHolds

    holds = PlayerHolds(wait_s=1, lease_s=30, advisory_lock=False)
    await holds._release(_ReleasedConnection(), "op/p", 3)  # type: ignore[arg-type]
