"""Apply the sandbox wallet's numbered ``.sql`` migrations (``migrations/NNNN_name.sql``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import asyncpg

SCHEMA = "sandbox_wallet"
"""The PostgreSQL schema holding every sandbox wallet table."""

_FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# Any constant works; it only has to be the same in every process migrating the same database.
_LOCK_KEY = 0x5A_17_E7


@dataclass(frozen=True, slots=True, kw_only=True)
class Migration:
    """One migration file."""

    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Return the shipped migrations in version order."""
    found: list[Migration] = []
    for entry in resources.files("sandbox_wallet.migrations").iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(
                Migration(version=int(match[1]), name=entry.name, sql=entry.read_text("utf-8"))
            )
    return sorted(found, key=lambda m: m.version)


async def migrate(database_url: str) -> list[str]:
    """Bring the ``sandbox_wallet`` schema of ``database_url`` up to date; return applied names.

    Safe to run concurrently from several processes: an advisory lock serialises them.
    """
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", _LOCK_KEY)
        try:
            return await _apply_pending(conn)
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", _LOCK_KEY)
    finally:
        await conn.close()


async def _apply_pending(conn: asyncpg.Connection) -> list[str]:
    await conn.execute(
        f"CREATE SCHEMA IF NOT EXISTS {SCHEMA};"
        f"CREATE TABLE IF NOT EXISTS {SCHEMA}.schema_migrations ("
        " version integer PRIMARY KEY, name text NOT NULL,"
        " applied_at timestamptz NOT NULL DEFAULT now())"
    )
    rows = await conn.fetch(f"SELECT version FROM {SCHEMA}.schema_migrations")
    done = {r["version"] for r in rows}
    applied: list[str] = []
    for migration in migrations():
        if migration.version in done:
            continue
        async with conn.transaction():
            await conn.execute(migration.sql)
            await conn.execute(
                f"INSERT INTO {SCHEMA}.schema_migrations (version, name) VALUES ($1, $2)",
                migration.version,
                migration.name,
            )
        applied.append(migration.name)
    return applied
