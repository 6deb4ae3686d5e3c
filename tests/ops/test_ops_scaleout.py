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


def _doc_keys() -> dict[str, tuple[str, ...]]:
    """The primary keys the doc's table names, by table."""
    text = (OPS / "scale-out.md").read_text("utf-8")
    keys = {}
    for m in re.finditer(r"^\| `(\w+)`\s*\| `\(([^)]*)\)`", text, re.M):
        keys[m[1]] = tuple(c.strip() for c in m[2].split(","))
    return keys


async def _schema_keys(conn: asyncpg.Connection, where: str, *, by: str
                       ) -> dict[str, tuple[str, ...]]:
    """Index columns in order, by table (``by="tbl"``) or by index name (``"idx"``)."""
    rows = await conn.fetch(
        "SELECT t.relname AS tbl, i.relname AS idx, array_agg(a.attname ORDER BY k.ord) AS cols "
        "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
        "JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace "
        "CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord) "
        "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
        f"WHERE n.nspname = 'rgs' AND {where} GROUP BY t.relname, i.relname")
    return {r[by]: tuple(r["cols"]) for r in rows}


async def test_the_keys_the_doc_names_are_the_schemas(rgs_database_url: str) -> None:
    # The doc once gave idempotency_records' key without its scope and the unfinished-round
    # key without brand and currency, long after migration 0010 changed both.
    conn = await asyncpg.connect(rgs_database_url)
    try:
        primary = await _schema_keys(conn, "x.indisprimary", by="tbl")
        unique = await _schema_keys(conn, "x.indisunique AND NOT x.indisprimary", by="idx")
    finally:
        await conn.close()
    doc = _doc_keys()
    assert len(doc) >= 8
    for table, key in doc.items():
        assert primary.get(table) == key, (table, key, primary.get(table))
    text = (OPS / "scale-out.md").read_text("utf-8")
    m = re.search(r"`rounds_one_unfinished` on `\(([^)]*)\)`", text)
    assert m, "the doc names the unfinished-round key"
    assert tuple(c.strip() for c in m[1].split(",")) == unique["rounds_one_unfinished"]
    ddl = _partitioning_ddl()
    assert "PRIMARY KEY (player_key, brand_id, currency)" in ddl  # its side table keys the same
