"""The free bets' store on PostgreSQL (migrations 0140, 0150) and in memory: grants idempotent on
their id, revocation once, and a use counted only once its round is in the journal."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
import pytest_asyncio

from rgs.journal.audit import open_pool
from rgs.journal.freebets import MemoryFreeBets, PostgresFreeBets
from rgs.journal.statements import Q_OPEN_MOVEMENTS
from rgs.service.freebets import FreeBetGrant, FreeBetUse

pytestmark = pytest.mark.asyncio(loop_scope="session")

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
GRANT = FreeBetGrant(operator_id="op-a", grant_id="g-1", brand_id="brand-a",
                     player_id="p-1", currency="EUR", value=1000, count=2,
                     variants=("classic-resplit",), expires_at=NOW + timedelta(days=1),
                     granted_at=NOW)


@pytest_asyncio.fixture(loop_scope="session")
async def pool(rgs_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    p = await open_pool(rgs_database_url, max_size=2)
    yield p
    await p.close()


def _use(round_id: str) -> FreeBetUse:
    return FreeBetUse(operator_id="op-a", grant_id="g-1", round_id=round_id, player_key="pk-1",
                      seat=1, value=1000, used_at=NOW)


async def _round(pool: asyncpg.Pool, round_id: str) -> None:
    await pool.execute(
        "INSERT INTO rounds (player_key, round_id, session_id, operator_id, brand_id, player_id,"
        " currency, variant, seq, status, total_staked, total_paid)"
        " VALUES ('pk-1', $1, 's-1', 'op-a', 'brand-a', 'p-1', 'EUR', 'classic-resplit', 1,"
        " 'settled', 1000, 2000)", round_id)


async def test_grants_are_idempotent_and_revoked_once_in_both_stores(pool: asyncpg.Pool
                                                                     ) -> None:
    for store in (MemoryFreeBets(), PostgresFreeBets(pool)):
        stored, new = await store.put_grant(GRANT)
        again, new_again = await store.put_grant(GRANT)
        assert (stored, new, again, new_again) == (GRANT, True, GRANT, False)
        assert await store.revoke("op-a", "g-1", NOW) is True
        assert await store.revoke("op-a", "g-1", NOW) is False
        revoked = await store.get_grant("op-a", "g-1")
        assert revoked is not None and revoked.revoked_at == NOW
        assert await store.get_grant("op-b", "g-1") is None  # another operator's id space
        if isinstance(store, PostgresFreeBets):
            await pool.execute("DELETE FROM free_bet_grants")


async def test_a_use_counts_once_its_round_is_committed_and_carries_what_it_paid(
        pool: asyncpg.Pool) -> None:
    store = PostgresFreeBets(pool)
    await store.put_grant(GRANT)
    await store.record_use(_use("r-committed"))
    await store.record_use(_use("r-never-dealt"))  # its Deal died before the commit
    await _round(pool, "r-committed")
    await store.record_paid("r-committed", 1000)
    assert [u.round_id for u in await store.uses("op-a", "g-1")] == ["r-committed"]
    assert [(g.grant_id, used, paid) for g, used, paid in await store.usages("op-a")] == [
        ("g-1", 1, 1000)]
    use = await store.use_of_round("r-committed")
    assert use is not None and use.paid == 1000
    await store.release("r-never-dealt")
    assert await store.use_of_round("r-never-dealt") is None
    # the credit of the committed round reads as promotional, the mark a retry repeats
    await pool.execute(
        "INSERT INTO wallet_transactions (player_key, transaction_id, round_id, kind, amount,"
        " status, session_id, currency, brand_id) VALUES ('pk-1', 'r-committed:settle:credit',"
        " 'r-committed', 'credit', 1000, 'unknown', 's-1', 'EUR', 'brand-a')")
    rows = await pool.fetch(Q_OPEN_MOVEMENTS, "pk-1")
    assert [(r["transaction_id"], r["promotional"]) for r in rows] == [
        ("r-committed:settle:credit", True)]


async def test_table_uses_count_from_their_record_one_per_player_and_mark_the_credit(
        pool: asyncpg.Pool) -> None:
    """At a shared table (migration 0150) several players of one round each stake a free bet;
    a use counts from its record, is released for its player alone, and marks that player's
    credit promotional (the table's open rows read the mark too)."""
    store = PostgresFreeBets(pool)
    await pool.execute("DELETE FROM free_bet_uses WHERE operator_id = 'op-a'")
    await pool.execute("DELETE FROM free_bet_grants WHERE operator_id = 'op-a'")
    await store.put_grant(GRANT)
    await store.put_grant(replace(GRANT, grant_id="g-2", player_id="p-2"))
    for key, grant in (("pk-t1", "g-1"), ("pk-t2", "g-2")):
        await store.record_use(FreeBetUse(operator_id="op-a", grant_id=grant, round_id="t-r1",
                                          player_key=key, seat=1, value=1000, used_at=NOW,
                                          table_id="vip-1"))
    await store.record_paid("t-r1", 3000, "pk-t1")
    assert [(g.grant_id, used, paid) for g, used, paid in await store.usages("op-a")] == [
        ("g-1", 1, 3000), ("g-2", 1, 0)]
    assert [(u.round_id, u.table_id, u.paid) for u in await store.uses("op-a", "g-1")] == [
        ("t-r1", "vip-1", 3000)]
    await store.release("t-r1", "pk-t2")  # the table did not take pk-2's bet
    assert [(g.grant_id, used) for g, used, _ in await store.usages("op-a")] == [
        ("g-1", 1), ("g-2", 0)]
    await pool.execute(
        "INSERT INTO wallet_transactions (player_key, transaction_id, round_id, kind, amount,"
        " status, session_id, currency, brand_id) VALUES ('pk-t1', 't-r1:pay:credit',"
        " 't-r1', 'credit', 3000, 'unknown', 's-1', 'EUR', 'brand-a')")
    rows = await pool.fetch(Q_OPEN_MOVEMENTS, "pk-t1")
    assert [(r["transaction_id"], r["promotional"]) for r in rows] == [
        ("t-r1:pay:credit", True)]
    await pool.execute("DELETE FROM wallet_transactions WHERE round_id = 't-r1'")
    await pool.execute("DELETE FROM free_bet_table_uses WHERE round_id = 't-r1'")
    await pool.execute("DELETE FROM free_bet_grants WHERE operator_id = 'op-a'")
