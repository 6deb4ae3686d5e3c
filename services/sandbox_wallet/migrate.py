"""Apply the sandbox wallet's numbered ``.sql`` migrations (``migrations/NNNN_name.sql``)."""

from __future__ import annotations

from rgs.sqlmigrate import Migration, SqlMigrations

__all__ = ["SCHEMA", "WALLET_MIGRATIONS", "Migration", "migrate", "migrations"]

SCHEMA = "sandbox_wallet"
"""The PostgreSQL schema holding every sandbox wallet table."""

WALLET_MIGRATIONS = SqlMigrations(package="sandbox_wallet.migrations", schema=SCHEMA,
                                  lock_key=0x5A_17_E7)
"""The sandbox wallet's migration set."""


def migrations() -> list[Migration]:
    """Return the shipped migrations in version order."""
    return WALLET_MIGRATIONS.migrations()


async def migrate(database_url: str) -> list[str]:
    """Bring the ``sandbox_wallet`` schema of ``database_url`` up to date; return applied names.

    Safe to run concurrently from several processes: an advisory lock serialises them.
    """
    return await WALLET_MIGRATIONS.migrate(database_url)
