"""The PostgreSQL journal holding players: a busy player, leases left by dead replicas or
outlived by a paused holder, and what a transaction pooler (PgBouncer) changes.

Each test gets its own migrated database; "two processes" are two independent connection pools
and two app instances, which is what two replicas are to PostgreSQL. Every test that uses the
journal runs twice: connected to PostgreSQL directly (session pool mode) and through a real
PgBouncer in transaction mode, where consecutive statements of one connection may run on
different server sessions.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime

import asyncpg
import pytest

from rgs.api.errors import classify
from rgs.journal.migrate import SCHEMA
from rgs.journal.postgres import PostgresJournal
from rgs.service.model import (
    CallRead,
    Movement,
    MovementStatus,
    RequestScope,
    Session,
    StoredRequest,
)
from rgs.service.ports import JournalBusy, JournalLeaseLost, JournalUnavailable
from rgs.service.writes import StepWrite
from support.journal_db import (
    JournalDb,
    lease_of,
    stored_round,
)
from support.pgbouncer import PgBouncer

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_player_held_past_the_wait_limit_is_busy(journal_db: JournalDb) -> None:
    first = await journal_db.connect(lock_wait_s=5)
    second = await journal_db.connect(lock_wait_s=0.2)
    try:
        async with first.player("op/p1"):
            with pytest.raises(JournalBusy):
                async with second.player("op/p1"):
                    pass
            async with second.player("op/p2"):  # other players are not blocked
                pass
    finally:
        await first.close()
        await second.close()


async def test_a_busy_player_tells_its_own_duplicate_from_another_request(
        journal_db: JournalDb) -> None:
    """REQUEST_IN_PROGRESS is for a request that is still running; another request of the same
    player finds the player busy (PLAYER_BUSY at the edge)."""
    first = await journal_db.connect(lock_wait_s=5)
    second = await journal_db.connect(lock_wait_s=0.2)
    running = CallRead(request_id="deal-1", scope=RequestScope.PLAYER)
    try:
        async with first.player("op/p1", running):
            with pytest.raises(JournalBusy) as same:
                async with second.player("op/p1", running):
                    pass
            with pytest.raises(JournalBusy) as other:
                async with second.player("op/p1", CallRead(request_id="deal-2",
                                                           scope=RequestScope.PLAYER)):
                    pass
    finally:
        await first.close()
        await second.close()
    assert (same.value.same_request, other.value.same_request) == (True, False)
    assert classify(same.value)[1] == "REQUEST_IN_PROGRESS"
    assert classify(other.value)[1] == "PLAYER_BUSY"


async def test_through_a_transaction_pooler_a_session_advisory_lock_excludes_nobody(
        rgs_pooled_database_url: str) -> None:
    # Why the journal holds players with leases: through PgBouncer in transaction mode, a second
    # client gets the server session the first one locked in, and the lock "excludes" nobody.
    first = await asyncpg.connect(rgs_pooled_database_url, statement_cache_size=0)
    second = await asyncpg.connect(rgs_pooled_database_url, statement_cache_size=0)
    try:
        assert await first.fetchval("SELECT pg_try_advisory_lock(4242)")
        assert await second.fetchval("SELECT pg_try_advisory_lock(4242)")  # "also" holds it
        assert (await first.fetchval("SELECT pg_backend_pid()")
                == await second.fetchval("SELECT pg_backend_pid()"))
    finally:
        await first.close()
        await second.close()


async def _leave_lease(database_url: str, player_key: str, *, expires_in_s: float) -> None:
    """Leave a lease behind as a replica that died while it held the player would."""
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(
            f"INSERT INTO {SCHEMA}.leases (kind, key, holder, epoch, expires_at) "
            "VALUES ('player', $1, 'dead-replica/1/000000', 5, "
            "clock_timestamp() + make_interval(secs => $2))", player_key, expires_in_s)
    finally:
        await conn.close()


async def test_a_dead_replicas_lease_is_taken_at_once_in_session_mode_else_once_expired(
        journal_db: JournalDb, rgs_database_url: str) -> None:
    await _leave_lease(rgs_database_url, "op/dead", expires_in_s=1.5)
    journal = await journal_db.connect(lock_wait_s=0.3)
    try:
        if journal_db.pool_mode == "session":
            # The advisory lock proves no live call holds the player: the lease is taken now.
            async with journal.player("op/dead"):
                holder, epoch = await lease_of(rgs_database_url, "op/dead")
                assert epoch == 6 and holder is not None and "dead-replica" not in holder
        else:
            with pytest.raises(JournalBusy):
                async with journal.player("op/dead"):
                    pass
            await asyncio.sleep(1.5)
            async with journal.player("op/dead"):
                assert (await lease_of(rgs_database_url, "op/dead"))[1] == 6
        assert (await lease_of(rgs_database_url, "op/dead"))[0] is None  # released
    finally:
        await journal.close()


async def test_a_pool_acquire_timeout_is_journal_unavailable(rgs_database_url: str) -> None:
    """A pool-acquire timeout escaped as a plain TimeoutError (a SERVER_ERROR); it is
    JournalUnavailable, retryable, like every other time the database does not answer."""
    journal = await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
    journal._acquire_timeout_s = 0.2  # type: ignore[attr-defined]
    try:
        async with journal.player("dev-operator/holder"):
            with pytest.raises(JournalUnavailable):
                async with journal.player("dev-operator/waiter"):
                    pass
    finally:
        await journal.close()


async def test_a_holder_that_paused_past_its_lease_writes_nothing_once_another_call_took_over(
        rgs_pooled_database_url: str, rgs_database_url: str) -> None:
    from rgs.wallet.port import MoneyKind

    key, rid = "op/stale", "a" * 32
    stale = await PostgresJournal.connect(rgs_pooled_database_url, pool_mode="transaction",
                                          lease_s=0.4)
    fresh = await PostgresJournal.connect(rgs_pooled_database_url, pool_mode="transaction",
                                          lease_s=5, lock_wait_s=0.2)
    debit = Movement(transaction_id=f"{rid}:1:debit", round_id=rid, kind=MoneyKind.DEBIT,
                     amount=100, session_id="s", currency="EUR")
    try:
        async with stale.player(key) as pj:
            # Every write renews the lease: written to for longer than its 0.4 s, still held.
            await pj.commit_round(StepWrite(round=stored_round(key, rid, 1), new_events_from=0))
            for _ in range(4):
                await asyncio.sleep(0.2)
                await pj.record_movement(debit)
            with pytest.raises(JournalBusy):
                async with fresh.player(key):
                    pass
            await asyncio.sleep(0.6)  # the holder pauses past its lease; another call takes over
            async with fresh.player(key) as taker:
                with pytest.raises(JournalLeaseLost):
                    await pj.commit_round(StepWrite(
                        round=stored_round(key, rid, 2), new_events_from=0,
                        request=StoredRequest(request_id="r", method="act", request_hash="h",
                                              response="{}")))
                with pytest.raises(JournalLeaseLost):
                    await pj.record_movement(replace(debit, transaction_id=f"{rid}:2:debit"))
                with pytest.raises(JournalLeaseLost):
                    await pj.settle_movement(debit.transaction_id, MovementStatus.APPLIED, 900,
                                             error="")
                with pytest.raises(JournalLeaseLost):
                    await pj.update_response("r", "{}", RequestScope.PLAYER)
                with pytest.raises(JournalLeaseLost):
                    await pj.save_session(Session(
                        session_id="s2", player_key=key, operator_id="op", brand_id="b",
                        player_id="p", currency="EUR", expires_at=datetime.now(UTC)), "t", None)
                # Nothing of the stale holder's reached the journal; the taker writes on.
                stored = await taker.get_round(rid)
                assert stored is not None and stored.seq == 1
                assert [(m.transaction_id, m.status) for m in await taker.movements(rid)] == [
                    (debit.transaction_id, MovementStatus.PENDING)]
                assert await taker.find_request("r", RequestScope.PLAYER) is None
                await taker.commit_round(StepWrite(round=stored_round(key, rid, 3),
                                                   new_events_from=0))
        # The stale holder's exit released nothing of the taker's: the taker released its own.
        holder, epoch = await lease_of(rgs_database_url, key)
        assert holder is None and epoch == 2
        stored = await fresh.get_round(key, rid)
        assert stored is not None and stored.seq == 3
    finally:
        await stale.close()
        await fresh.close()


async def test_through_a_pooler_a_role_without_the_journals_search_path_is_refused_at_start(
        rgs_database_url: str, pgbouncer: PgBouncer) -> None:
    # The journal sends no search_path through a pooler; without the role's (or database's)
    # default it would fail on its first query. It refuses to start instead, saying what to run.
    with pytest.raises(JournalUnavailable, match="ALTER ROLE"):
        await PostgresJournal.connect(pgbouncer.url_for(rgs_database_url),
                                      pool_mode="transaction")
