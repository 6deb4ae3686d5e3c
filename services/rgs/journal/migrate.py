"""Apply the journal's numbered ``.sql`` migrations (``migrations/NNNN_name.sql``).

The journal lives in its own PostgreSQL schema (:data:`SCHEMA`), so it can share a database with
the sandbox wallet in development. ``rgs migrate`` and the sandbox run :func:`migrate`.
"""

from __future__ import annotations

from rgs.sqlmigrate import Migration, SqlMigrations

__all__ = ["JOURNAL_MIGRATIONS", "SCHEMA", "Migration", "migrate", "migrations"]

SCHEMA = "rgs"
"""The PostgreSQL schema holding every journal table."""

JOURNAL_MIGRATIONS = SqlMigrations(package="rgs.journal.migrations", schema=SCHEMA,
                                   lock_key=0x2B_5A_01)
"""The journal's migration set."""


def migrations() -> list[Migration]:
    """The shipped migrations in version order."""
    return JOURNAL_MIGRATIONS.migrations()


async def migrate(database_url: str) -> list[str]:
    """Bring the journal schema of ``database_url`` up to date; return the applied file names."""
    return await JOURNAL_MIGRATIONS.migrate(database_url)
