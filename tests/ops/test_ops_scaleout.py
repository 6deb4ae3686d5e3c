"""The time-partitioning DDL of ops/scale-out.md runs on the real migrated journal and keeps
one row per event."""

from __future__ import annotations

import re

import asyncpg
import pytest
from ops_toolbox import OPS

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _partitioning_ddl() -> str:
    blocks = re.findall(r"```sql\n(.*?)```", (OPS / "scale-out.md").read_text("utf-8"), re.S)
    (ddl,) = [b for b in blocks if "PARTITION BY RANGE" in b]
    return ddl


async def test_partitioned_journal_ddl_applies_and_routes_rows_by_month(
        rgs_database_url: str) -> None:
    conn = await asyncpg.connect(rgs_database_url)
    try:
        await conn.execute(_partitioning_ddl())
        await conn.execute(
            "INSERT INTO rgs.rounds_p (player_key, round_id, session_id, operator_id, brand_id, "
            "player_id, currency, variant, seq, status, total_staked, total_paid, created_at) "
            "VALUES ('op/alice', 'r1', 's1', 'op', 'b', 'alice', 'EUR', 'power', 1, "
            "'settled', 100, 0, '2027-01-15T12:00:00Z')")
        insert_event = (
            "INSERT INTO rgs.round_events_p (player_key, round_id, event_no, kind, payload, "
            "round_created_at) VALUES ('op/alice', 'r1', 0, 'round_started', '{}', "
            "'2027-01-15T12:00:00Z')")
        await conn.execute(insert_event)
        where = await conn.fetchval(
            "SELECT tableoid::regclass::text FROM rgs.round_events_p WHERE round_id = 'r1'")
        assert where in ("rgs.round_events_2027_01", "round_events_2027_01")
        with pytest.raises(asyncpg.UniqueViolationError):
            await conn.execute(insert_event)
        with pytest.raises(asyncpg.ForeignKeyViolationError):
            await conn.execute(insert_event.replace("'r1'", "'no-such-round'"))
    finally:
        await conn.close()
