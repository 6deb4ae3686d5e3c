"""The outbox and session gauges sampled from a real, migrated journal database."""

from __future__ import annotations

import asyncpg
import pytest
from prometheus_client import REGISTRY

from rgs.journal.postgres import PostgresJournal
from rgs.observability.dbstats import OpsSampler

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_sampler_reads_open_outbox_rows_their_age_and_live_sessions(
        rgs_database_url: str) -> None:
    conn = await asyncpg.connect(rgs_database_url)
    try:
        for i, (kind, status, age) in enumerate([
                ("debit", "pending", "10 minutes"), ("credit", "unknown", "2 minutes"),
                ("debit", "applied", "1 minute"), ("debit", "booked", "1 hour"),
                ("debit", "rolled_back", "2 hours"), ("credit", "applied", "3 hours"),
                ("rollback", "applied", "4 hours")]):
            await conn.execute(
                "INSERT INTO rgs.wallet_transactions (player_key, transaction_id, round_id, "
                "kind, amount, status, created_at) VALUES ($1, $2, 'r1', $3, 100, $4, "
                f"clock_timestamp() - interval '{age}')", "op/alice", f"t{i}", kind, status)
        for token, expires in (("live", "1 hour"), ("expired", "-1 hour")):
            await conn.execute(
                "INSERT INTO rgs.sessions (player_key, token_hash, session_id, operator_id, "
                "brand_id, player_id, currency, expires_at) VALUES ('op/alice', $1, $1, 'op', "
                f"'b', 'alice', 'EUR', now() + interval '{expires}')", token)
    finally:
        await conn.close()
    sampler = OpsSampler(await PostgresJournal.connect(rgs_database_url, min_size=0, max_size=1))
    try:
        snapshot = await sampler.sample_once()
    finally:
        await sampler.close()
    assert snapshot is not None
    # Open: the pending debit, the unknown credit, the applied (not yet booked) debit. An applied
    # credit or rollback is final.
    assert snapshot.outbox_pending == 3
    assert 595 < snapshot.outbox_oldest_age_s < 900
    assert snapshot.active_sessions == 1
    assert REGISTRY.get_sample_value("rgs_outbox_pending") == 3
    assert REGISTRY.get_sample_value("rgs_active_sessions") == 1
    assert REGISTRY.get_sample_value("rgs_journal_database_up") == 1


async def test_an_unreachable_database_reads_as_down_not_as_an_error() -> None:
    sampler = OpsSampler(await PostgresJournal.connect("postgresql://nobody:x@127.0.0.1:1/none",
                                                       min_size=0, max_size=1))
    try:
        assert await sampler.sample_once() is None
    finally:
        await sampler.close()
    assert REGISTRY.get_sample_value("rgs_journal_database_up") == 0
