"""Root fixtures: a PostgreSQL server, fresh per-test databases, a real sandbox wallet.

Logic lives in ``tests/support``; this file only wires it into pytest.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest_asyncio

from rgs import devdb
from support.databases import (
    RGS_TEMPLATE,
    SANDBOX_WALLET_TEMPLATE,
    TEMPLATE_MIGRATIONS,
    DatabaseTemplates,
)
from support.pgbouncer import PgBouncer, running_pgbouncer, set_journal_search_path
from support.sandbox import SandboxWalletClient, sandbox_wallet_server

FreshDatabase = Callable[[str], Awaitable[str]]

# The suite starts dozens of short-lived replicas (and builds hundreds of apps), each of which
# would spend a few CPU seconds building the hints brands' analysis tables at start for the few
# tests that show hints: they build them on first use instead (RGS_HINTS_WARM=true for the
# production behaviour). Servers the tests start inherit it.
os.environ.setdefault("RGS_HINTS_WARM", "false")


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def pg_server_url() -> str:
    """URL of the PostgreSQL server for this run (DATABASE_URL, local 5432, or embedded)."""
    return await devdb.resolve_server_url()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def database_templates(pg_server_url: str) -> AsyncIterator[DatabaseTemplates]:
    """Template databases, migrated once per run and dropped at its end."""
    templates = DatabaseTemplates(pg_server_url, TEMPLATE_MIGRATIONS)
    yield templates
    await templates.drop_all()


@pytest_asyncio.fixture(loop_scope="session")
async def fresh_database(database_templates: DatabaseTemplates) -> AsyncIterator[FreshDatabase]:
    """Factory: ``await fresh_database("rgs")`` returns the URL of a new copy of that template.

    The copies are dropped (in the background) after the test.
    """
    made: list[str] = []

    async def make(label: str) -> str:
        name, url = await database_templates.fresh(label)
        made.append(name)
        return url

    yield make
    for name in made:
        database_templates.discard(name)


@pytest_asyncio.fixture(loop_scope="session")
async def rgs_database_url(fresh_database: FreshDatabase) -> str:
    """A fresh database with the RGS schema, for this test only."""
    return await fresh_database(RGS_TEMPLATE)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def pgbouncer(pg_server_url: str) -> AsyncIterator[PgBouncer]:
    """A PgBouncer in transaction mode in front of the test server, for the whole run."""
    with running_pgbouncer(pg_server_url) as bouncer:
        yield bouncer


@pytest_asyncio.fixture(loop_scope="session")
async def rgs_pooled_database_url(rgs_database_url: str, pgbouncer: PgBouncer) -> str:
    """The fresh RGS database of ``rgs_database_url`` reached through PgBouncer in transaction
    mode (connect with ``database_pool_mode="transaction"``); its default search path is set
    to the journal's schema, as ops/database.md asks."""
    await set_journal_search_path(rgs_database_url)
    return pgbouncer.url_for(rgs_database_url)


@pytest_asyncio.fixture(loop_scope="session")
async def sandbox_wallet_database_url(fresh_database: FreshDatabase) -> str:
    """A fresh database with the sandbox wallet's schema, for this test only."""
    return await fresh_database(SANDBOX_WALLET_TEMPLATE)


@pytest_asyncio.fixture(loop_scope="session")
async def sandbox_wallet(sandbox_wallet_database_url: str) -> AsyncIterator[SandboxWalletClient]:
    """A real sandbox wallet (demo players seeded) on a loopback port, with client stubs."""
    async with sandbox_wallet_server(sandbox_wallet_database_url) as client:
        yield client
