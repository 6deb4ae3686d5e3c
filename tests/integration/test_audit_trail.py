"""The audit trail's contract, run on both adapters (in memory and PostgreSQL, directly and
through PgBouncer in transaction mode): rows chain, an altered or removed row is named, a change
is recorded once, an operator's page holds only its rows, and appends from two replicas (two
pools) at once never fork the chain. The controls' store commits a change with its row."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import asyncpg
import pytest
import pytest_asyncio

from rgs.bootstrap import utc_now
from rgs.journal.audit import PostgresAuditTrail, open_pool
from rgs.journal.controls import PostgresControls
from rgs.journal.memory_audit import MemoryAuditTrail, MemoryControls
from rgs.journal.migrate import SCHEMA
from rgs.service.audit import Action, AuditEntry, AuditTrail, verify_chain
from rgs.service.controls import (
    Authority,
    ControlMode,
    ControlScope,
    ControlStore,
    GameControl,
)
from support.pgbouncer import PgBouncer, set_journal_search_path

pytestmark = pytest.mark.asyncio(loop_scope="session")


@dataclass
class Trail:
    """One adapter under test, a second "replica" of it, and how a test tampers with it."""

    audit: AuditTrail
    other: AuditTrail
    controls: ControlStore
    alter: Callable[[int, str], Awaitable[None]]
    remove: Callable[[int], Awaitable[None]]
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)


def _entry(i: int, operator: str = "dev-operator") -> AuditEntry:
    return AuditEntry(actor=f"operator:{operator}", action=Action.CONTROL_SET,
                      subject=f"brand=b{i}", reason=f"reason {i}", operator_id=operator,
                      details={"mode": "disabled", "n": str(i), "note": "é ✓"})


async def _memory() -> Trail:
    audit = MemoryAuditTrail(utc_now)

    async def alter(seq: int, reason: str) -> None:
        i = seq - 1
        r = audit.stored[i]
        audit.stored[i] = replace(r, entry=replace(r.entry, reason=reason))

    async def remove(seq: int) -> None:
        del audit.stored[seq - 1]

    return Trail(audit=audit, other=audit, controls=MemoryControls(audit), alter=alter,
                 remove=remove)


async def _postgres(url: str, admin_url: str, pool_mode: str) -> Trail:
    pools = [await open_pool(url, pool_mode=pool_mode, max_size=4) for _ in range(2)]

    async def as_owner(sql: str, *args: object) -> None:
        # The append-only trigger refuses UPDATE and DELETE: a tamperer lifts it first.
        conn = await asyncpg.connect(admin_url)
        try:
            async with conn.transaction():
                await conn.execute(f"ALTER TABLE {SCHEMA}.audit_log DISABLE TRIGGER "
                                   "audit_log_append_only")
                await conn.execute(sql, *args)
                await conn.execute(f"ALTER TABLE {SCHEMA}.audit_log ENABLE TRIGGER "
                                   "audit_log_append_only")
        finally:
            await conn.close()

    async def alter(seq: int, reason: str) -> None:
        await as_owner(f"UPDATE {SCHEMA}.audit_log SET reason = $1 WHERE seq = $2", reason, seq)

    async def remove(seq: int) -> None:
        await as_owner(f"DELETE FROM {SCHEMA}.audit_log WHERE seq = $1", seq)

    return Trail(audit=PostgresAuditTrail(pools[0], utc_now),
                 other=PostgresAuditTrail(pools[1], utc_now),
                 controls=PostgresControls(pools[0], utc_now), alter=alter, remove=remove,
                 closers=[p.close for p in pools])


@pytest_asyncio.fixture(loop_scope="session",
                        params=["memory", "postgres", "postgres-pgbouncer-transaction"])
async def trail(request: pytest.FixtureRequest, rgs_database_url: str,
                pgbouncer: PgBouncer) -> AsyncIterator[Trail]:
    if request.param == "memory":
        t = await _memory()
    elif request.param == "postgres":
        t = await _postgres(rgs_database_url, rgs_database_url, "session")
    else:
        await set_journal_search_path(rgs_database_url)
        t = await _postgres(pgbouncer.url_for(rgs_database_url), rgs_database_url,
                            "transaction")
    yield t
    for close in t.closers:
        await close()


async def _rows(t: Trail) -> list[int]:
    return [r.seq async for r in t.audit.rows()]


async def test_rows_chain_and_the_chain_verifies(trail: Trail) -> None:
    recs = [await trail.audit.record(_entry(i)) for i in range(5)]
    assert [r.seq for r in recs] == [1, 2, 3, 4, 5]
    assert recs[0].prev_hash == "0" * 64
    assert all(b.prev_hash == a.hash for a, b in pairwise(recs))
    stored = [r async for r in trail.audit.rows()]
    assert stored == recs  # read back exactly as hashed (time, details, unicode)
    report = await verify_chain(trail.audit.rows())
    assert (report.intact, report.rows, report.head) == (True, 5, recs[-1].hash)


async def test_an_altered_row_is_named(trail: Trail) -> None:
    for i in range(5):
        await trail.audit.record(_entry(i))
    await trail.alter(3, "nothing to see here")
    report = await verify_chain(trail.audit.rows())
    assert (report.intact, report.broken_at, report.rows) == (False, 3, 2)
    assert "row 3 was altered" in report.problem


async def test_a_removed_row_is_named(trail: Trail) -> None:
    for i in range(5):
        await trail.audit.record(_entry(i))
    await trail.remove(2)
    report = await verify_chain(trail.audit.rows())
    assert (report.intact, report.broken_at) == (False, 2)
    assert "row 2 was removed" in report.problem


async def test_a_change_is_recorded_once_and_the_first_under_its_first_action(
        trail: Trail) -> None:
    e = AuditEntry(actor="system", action=Action.CONFIGURATION_CHANGED,
                   subject="configuration:platform_file", details={"sha256": "a" * 64})
    first = await trail.audit.record_change(e, first_action=Action.CONFIGURATION_LOADED)
    assert first is not None and first.entry.action == Action.CONFIGURATION_LOADED
    assert await trail.other.record_change(e, first_action=Action.CONFIGURATION_LOADED) is None
    changed = await trail.audit.record_change(replace(e, details={"sha256": "b" * 64}),
                                              first_action=Action.CONFIGURATION_LOADED)
    assert changed is not None and changed.entry.action == Action.CONFIGURATION_CHANGED
    assert await _rows(trail) == [1, 2]


async def test_an_operator_page_holds_its_own_rows_newest_first(trail: Trail) -> None:
    for i in range(5):
        await trail.audit.record(_entry(i, "dev-operator" if i % 2 == 0 else "other-operator"))
    page = await trail.audit.page(operator_id="dev-operator", before=0, limit=2)
    assert [r.seq for r in page.records] == [5, 3] and page.next_before == 3
    rest = await trail.audit.page(operator_id="dev-operator", before=page.next_before, limit=2)
    assert [r.seq for r in rest.records] == [1] and rest.next_before == 0
    everything = await trail.audit.page(operator_id=None, before=0, limit=10)
    assert [r.seq for r in everything.records] == [5, 4, 3, 2, 1]


async def test_appends_from_two_replicas_at_once_never_fork_the_chain(trail: Trail) -> None:
    await asyncio.gather(*(
        (trail.audit if i % 2 else trail.other).record(_entry(i)) for i in range(60)))
    report = await verify_chain(trail.audit.rows())
    assert (report.intact, report.rows) == (True, 60)
    assert await _rows(trail) == list(range(1, 61))


async def test_a_control_and_its_audit_row_are_stored_together(trail: Trail) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    control = GameControl(authority=Authority.ADMIN, scope=ControlScope(jurisdiction_id="nj"),
                          mode=ControlMode.MAINTENANCE, message="upgrade",
                          ends_at=now + timedelta(hours=1), set_by="admin:ops", set_at=now,
                          reason="release")
    await trail.controls.put(control, _entry(1))
    assert await trail.controls.controls() == [control]
    again = replace(control, message="longer upgrade")
    await trail.controls.put(again, _entry(2))
    assert await trail.controls.controls() == [again]
    assert await trail.controls.remove(control.key, _entry(3))
    assert not await trail.controls.remove(control.key, _entry(4))
    assert await trail.controls.controls() == []
    assert await _rows(trail) == [1, 2, 3]


async def test_the_database_refuses_to_change_or_delete_a_row(rgs_database_url: str) -> None:
    pool = await open_pool(rgs_database_url)
    try:
        await PostgresAuditTrail(pool, utc_now).record(_entry(1))
        for sql in ("UPDATE audit_log SET reason = 'x'", "DELETE FROM audit_log"):
            with pytest.raises(asyncpg.RaiseError, match="append only"):
                await pool.execute(sql)
    finally:
        await pool.close()
