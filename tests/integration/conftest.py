"""Integration fixtures shared by several modules of this folder (logic lives in tests/support).

``adapter``: the shared tables' journal under test (tests/support/table_journal.py's Adapter) on
the in-memory adapter, on PostgreSQL and on PostgreSQL behind PgBouncer in transaction mode, for
the table journal's contract modules (test_table_journal*_contract.py). A module with an
``adapter`` of its own uses its own.

``journal_db`` (the test's fresh journal database, directly or through PgBouncer in transaction
mode) and ``two_replicas`` (two test-mode replicas on it, with the sandbox wallet): for the
PostgreSQL journal's modules (test_journal*.py; helpers in tests/support/journal_db.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from rgs.bootstrap import App, add_dev_operator_keys
from rgs.journal.leases import PlayerHolds
from rgs.journal.memory import InMemoryJournal
from rgs.journal.memory_tables import InMemoryTables
from rgs.journal.postgres import PostgresJournal, PostgresPlayerJournal
from rgs.journal.tables import PostgresTables
from support.databases import RGS_TEMPLATE
from support.journal_db import JournalDb
from support.pgbouncer import PgBouncer, set_journal_search_path
from support.sandbox import SandboxWalletClient
from support.table_journal import Adapter, FreshDatabase


@pytest_asyncio.fixture(loop_scope="session",
                        params=["memory", "postgres", "postgres-pgbouncer-transaction"])
async def adapter(request: pytest.FixtureRequest, fresh_database: FreshDatabase,
                  pgbouncer: PgBouncer) -> AsyncIterator[Adapter]:
    if request.param == "memory":
        mem = InMemoryJournal(lock_wait_s=0.5)
        yield Adapter(name="memory", tables=InMemoryTables(mem), journal=mem)
        return
    url = await fresh_database(RGS_TEMPLATE)
    mode: Any = "session"
    if request.param.endswith("transaction"):
        await set_journal_search_path(url)
        url, mode = pgbouncer.url_for(url), "transaction"
    tables = await PostgresTables.connect(
        url, PlayerHolds(wait_s=0.5, lease_s=5.0, advisory_lock=mode == "session"),
        PostgresPlayerJournal, max_size=4, pool_mode=mode)
    journal = await PostgresJournal.connect(url, min_size=1, max_size=4, lock_wait_s=0.5,
                                            pool_mode=mode)
    try:
        yield Adapter(name=request.param, tables=tables, journal=journal, url=url)
    finally:
        await tables.close()
        await journal.close()


@pytest_asyncio.fixture(loop_scope="session", params=["direct", "pgbouncer-transaction"])
async def journal_db(request: pytest.FixtureRequest, rgs_database_url: str,
                     pgbouncer: PgBouncer) -> JournalDb:
    """The fresh journal database, directly or through PgBouncer in transaction mode."""
    if request.param == "direct":
        return JournalDb(url=rgs_database_url, pool_mode="session")
    await set_journal_search_path(rgs_database_url)
    return JournalDb(url=pgbouncer.url_for(rgs_database_url), pool_mode="transaction")


@pytest_asyncio.fixture(loop_scope="session")
async def two_replicas(journal_db: JournalDb, sandbox_wallet: SandboxWalletClient
                       ) -> AsyncIterator[tuple[App, App]]:
    a = await journal_db.app(sandbox_wallet)
    b = await journal_db.app(sandbox_wallet)
    await add_dev_operator_keys(a.journal)
    yield a, b
    await a.close()
    await b.close()

