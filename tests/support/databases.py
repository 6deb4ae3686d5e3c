"""Template databases migrated once per test run, copied into a fresh database per test.

``CREATE DATABASE … TEMPLATE`` copies a migrated schema in milliseconds, so every test gets its
own isolated database without re-running migrations. Template and test database names are
random, so test runs of different engineers can share one PostgreSQL server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from rgs import devdb
from rgs.devdb import Migrate
from rgs.journal.migrate import migrate as migrate_journal
from sandbox_wallet.migrate import migrate as migrate_sandbox_wallet

RGS_TEMPLATE = "rgs"
"""Template label of the RGS's own schema (journal, outbox)."""

SANDBOX_WALLET_TEMPLATE = "sandbox_wallet"
"""Template label of the sandbox wallet's schema."""

TEMPLATE_MIGRATIONS: dict[str, Migrate] = {
    # Any async callable taking a database URL fits (rgs.devdb.Migrate); add templates here.
    RGS_TEMPLATE: migrate_journal,
    SANDBOX_WALLET_TEMPLATE: migrate_sandbox_wallet,
}
"""How each template is migrated, by label."""


class DatabaseTemplates:
    """The template databases of one test run, each created and migrated on first use."""

    def __init__(self, server_url: str, migrations: Mapping[str, Migrate]) -> None:
        self.server_url = server_url
        self._migrations = dict(migrations)
        self._names: dict[str, str] = {}
        self._copies: list[str] = []
        self._lock = asyncio.Lock()

    async def template(self, label: str) -> str:
        """Return the name of the migrated template database for ``label``."""
        async with self._lock:
            if label not in self._names:
                name = devdb.unique_name(f"tpl_{label}")
                await devdb.create_template(self.server_url, name, self._migrations[label])
                self._names[label] = name
            return self._names[label]

    async def fresh(self, label: str) -> str:
        """Create a new database copied from ``label``'s template and return its URL.

        It is dropped by :meth:`drop_all` at the end of the run, not after its test: dropping
        costs a checkpoint-sized pause, and doing them together keeps each test fast.
        """
        template = await self.template(label)
        name = devdb.unique_name(f"test_{label}")
        # Copies from one template must not overlap: PostgreSQL refuses a template in use.
        async with self._lock:
            url = await devdb.create_database(self.server_url, name, template=template)
        self._copies.append(name)
        return url

    async def drop_all(self) -> None:
        """Drop every database and template this run made."""
        # Each DROP DATABASE waits for a checkpoint; concurrent drops share checkpoints.
        limit = asyncio.Semaphore(16)

        async def drop(name: str) -> None:
            async with limit:
                await devdb.drop_database(self.server_url, name)

        await asyncio.gather(*(drop(n) for n in self._copies))
        self._copies.clear()
        for name in self._names.values():
            await devdb.drop_template(self.server_url, name)
        self._names.clear()
