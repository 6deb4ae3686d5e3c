"""Apply the journal's numbered ``.sql`` migrations (``migrations/NNNN_name.sql``).

The journal lives in its own PostgreSQL schema (:data:`SCHEMA`), so it can share a database with
the sandbox wallet in development. ``rgs migrate`` and the sandbox run :func:`migrate`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import asyncpg

SCHEMA = "rgs"
"""The PostgreSQL schema holding every journal table."""

_FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# Any constant works; it only has to be the same in every process migrating the same database.
_LOCK_KEY = 0x2B_5A_01


@dataclass(frozen=True, slots=True, kw_only=True)
class Migration:
    """One migration file."""

    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """The shipped migrations in version order."""
    found: list[Migration] = []
    for entry in resources.files("rgs.journal.migrations").iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(Migration(version=int(match[1]), name=entry.name,
                                   sql=entry.read_text("utf-8")))
    return sorted(found, key=lambda m: m.version)


async def migrate(database_url: str) -> list[str]:
    """Bring the journal schema of ``database_url`` up to date; return the applied file names.

    Safe to run concurrently from several processes (an advisory lock serialises them) and
    repeatedly (applied versions are recorded).
    """
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", _LOCK_KEY)
        try:
            await conn.execute(
                f"CREATE SCHEMA IF NOT EXISTS {SCHEMA};"
                f"CREATE TABLE IF NOT EXISTS {SCHEMA}.schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())")
            done = {r["version"] for r in
                    await conn.fetch(f"SELECT version FROM {SCHEMA}.schema_migrations")}
            applied: list[str] = []
            for m in migrations():
                if m.version in done:
                    continue
                async with conn.transaction():
                    await conn.execute(f"SET LOCAL search_path TO {SCHEMA}")
                    await conn.execute(m.sql)
                    await conn.execute(
                        f"INSERT INTO {SCHEMA}.schema_migrations (version, name) VALUES ($1, $2)",
                        m.version, m.name)
                applied.append(m.name)
            return applied
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", _LOCK_KEY)
    finally:
        await conn.close()
