"""Template databases migrated once per test run, copied into a fresh database per test.

``CREATE DATABASE … TEMPLATE`` copies a migrated schema in milliseconds, so every test gets its
own isolated database without re-running migrations. Template and test database names are
random, so test runs of different engineers can share one PostgreSQL server.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping

import asyncpg

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
    """The template databases of one test run, each created and migrated on first use.

    Copying and dropping databases costs fsyncs and checkpoint waits, which dominate a short
    test on a busy server. So the next copy of a template is made in the background while the
    current test runs, and discarded copies are dropped in the background too; :meth:`drop_all`
    waits for what is left at the end of the run.
    """

    def __init__(self, server_url: str, migrations: Mapping[str, Migrate]) -> None:
        self.server_url = server_url
        self._migrations = dict(migrations)
        self._names: dict[str, str] = {}
        self._spares: dict[str, asyncio.Task[tuple[str, str]]] = {}
        self._drops: set[asyncio.Task[None]] = set()
        self._template_lock = asyncio.Lock()
        self._copy_lock = asyncio.Lock()
        # Each DROP DATABASE waits for a checkpoint; concurrent drops share checkpoints.
        self._drop_limit = asyncio.Semaphore(16)

    async def template(self, label: str) -> str:
        """Return the name of the migrated template database for ``label``."""
        async with self._template_lock:
            if label not in self._names:
                name = devdb.unique_name(f"tpl_{label}")
                await devdb.create_template(self.server_url, name, self._migrations[label])
                self._names[label] = name
            return self._names[label]

    async def fresh(self, label: str) -> tuple[str, str]:
        """Return (name, url) of a new database copied from ``label``'s template."""
        spare = self._spares.pop(label, None)
        made = await spare if spare is not None else await self._copy(label)
        self._spares[label] = asyncio.create_task(self._copy(label))
        return made

    def discard(self, name: str) -> None:
        """Drop database ``name`` in the background."""
        task = asyncio.create_task(self._drop(name))
        self._drops.add(task)
        task.add_done_callback(self._drops.discard)

    async def drop_all(self) -> None:
        """Drop every database and template this run made, waiting for background drops."""
        for spare in self._spares.values():
            name, _ = await spare
            self.discard(name)
        self._spares.clear()
        await asyncio.gather(*self._drops)
        for name in self._names.values():
            await devdb.drop_template(self.server_url, name)
        self._names.clear()

    async def _copy(self, label: str) -> tuple[str, str]:
        template = await self.template(label)
        name = devdb.unique_name(f"test_{label}")
        # One copy at a time: copies contend for the same disk, and a failure stays readable.
        async with self._copy_lock:
            url = await devdb.create_database(self.server_url, name, template=template)
        return name, url

    async def _drop(self, name: str) -> None:
        async with self._drop_limit:
            try:
                await devdb.drop_database(self.server_url, name)
            except (TimeoutError, OSError, asyncpg.PostgresError) as exc:
                # A throwaway copy that could not be dropped (a busy server) fails no test;
                # say so once instead of an unretrieved task exception at exit.
                print(f"note: test database {name} was not dropped: {exc!r}", file=sys.stderr)
