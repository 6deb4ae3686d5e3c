"""Numbered ``.sql`` migrations (``NNNN_name.sql``) applied to one PostgreSQL schema.

The journal (:mod:`rgs.journal.migrate`) and the sandbox wallet (:mod:`sandbox_wallet.migrate`)
each describe their set with a :class:`SqlMigrations`; this module does the applying.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from urllib.parse import parse_qs, urlsplit

import asyncpg

_FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class DatabaseConnectError(Exception):
    """The migrations could not open the database: the message says what failed and what to
    do about it, in one line, without the URL's password."""


def connect_error(database_url: str, exc: BaseException) -> DatabaseConnectError:
    """The error to show for a failed connection to ``database_url``.

    >>> url = "postgresql://rgs:s3cret@127.0.0.1:5432/rgs_x"
    >>> print(connect_error(url, asyncpg.InvalidCatalogNameError("no rgs_x")))
    ... # doctest: +NORMALIZE_WHITESPACE
    database rgs_x does not exist on 127.0.0.1:5432: create it (createdb -h 127.0.0.1 -p 5432
    rgs_x) or pass --database-url naming one that exists
    """
    parts = urlsplit(database_url)
    query = parse_qs(parts.query)
    host = parts.hostname or query.get("host", ["localhost"])[0]
    port = parts.port or int(query.get("port", ["5432"])[0])
    user = parts.username or query.get("user", [""])[0]
    name = parts.path.lstrip("/") or query.get("dbname", [user])[0]
    where = f"{host}:{port}"
    if isinstance(exc, asyncpg.InvalidCatalogNameError):
        message = (f"database {name} does not exist on {where}: create it (createdb -h {host} "
                   f"-p {port} {name}) or pass --database-url naming one that exists")
    elif isinstance(exc, asyncpg.InvalidAuthorizationSpecificationError):  # a password too
        message = (f"PostgreSQL at {where} refused user {user or '(default)'}: {exc}: check the "
                   "user and password of --database-url")
    elif isinstance(exc, OSError | TimeoutError):
        reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or "timed out"
        message = (f"cannot connect to PostgreSQL at {where} ({reason}): start it, or pass "
                   "--database-url naming a server that answers")
    else:
        message = f"cannot open database {name} on {where}: {exc}: check --database-url"
    return DatabaseConnectError(message)


@dataclass(frozen=True, slots=True, kw_only=True)
class Migration:
    """One migration file."""

    version: int
    name: str
    sql: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SqlMigrations:
    """The migrations shipped in ``package``, applied to ``schema``.

    ``lock_key`` is any constant, the same in every process migrating the same database: a
    transaction-scoped advisory lock on it serialises concurrent runs.

    Each migration runs with ``lock_timeout`` and ``statement_timeout`` (milliseconds, set
    locally to its transaction once the advisory lock is held): a DDL that would wait behind a
    long transaction for its table's lock fails after ``lock_timeout_ms`` instead of queueing
    every call behind it, and nothing runs unbounded. A migration that needs more (a backfill)
    says so itself with its own ``SET LOCAL statement_timeout``. New migrations must not rewrite
    a table (tests/unit/test_migration_rules.py names the forbidden forms).
    """

    package: str
    schema: str
    lock_key: int
    lock_timeout_ms: int = 5_000
    statement_timeout_ms: int = 300_000

    def migrations(self) -> list[Migration]:
        """The shipped migrations in version order."""
        found: list[Migration] = []
        for entry in resources.files(self.package).iterdir():
            match = _FILE.match(entry.name)
            if match:
                found.append(Migration(version=int(match[1]), name=entry.name,
                                       sql=entry.read_text("utf-8")))
        return sorted(found, key=lambda m: m.version)

    async def migrate(self, database_url: str) -> list[str]:
        """Bring the schema of ``database_url`` up to date; return the applied file names.

        Safe to run concurrently from several processes and repeatedly: each migration is one
        transaction that takes a transaction-scoped advisory lock on ``lock_key`` and checks
        ``<schema>.schema_migrations`` under it. No session state is used, so the URL may
        point at a transaction-mode pooler (PgBouncer) as well as at PostgreSQL. A database
        that cannot be opened raises :class:`DatabaseConnectError`.
        """
        # No prepared statement outlives its transaction (a pooler may switch connections).
        try:
            conn = await asyncpg.connect(database_url, statement_cache_size=0)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise connect_error(database_url, exc) from exc
        try:
            return await self._apply_pending(conn)
        finally:
            await conn.close()

    async def _apply_pending(self, conn: asyncpg.Connection) -> list[str]:
        schema = self.schema
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", self.lock_key)
            await conn.execute(
                f"CREATE SCHEMA IF NOT EXISTS {schema};"
                f"CREATE TABLE IF NOT EXISTS {schema}.schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())")
        done = {r["version"] for r in
                await conn.fetch(f"SELECT version FROM {schema}.schema_migrations")}
        applied: list[str] = []
        for m in self.migrations():
            if m.version in done:
                continue
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", self.lock_key)
                if await conn.fetchval(f"SELECT 1 FROM {schema}.schema_migrations "
                                       "WHERE version = $1", m.version):
                    continue  # another process applied it while this one waited
                await conn.execute(f"SET LOCAL search_path TO {schema}")
                await conn.execute(f"SET LOCAL lock_timeout = {int(self.lock_timeout_ms)}")
                await conn.execute(
                    f"SET LOCAL statement_timeout = {int(self.statement_timeout_ms)}")
                await conn.execute(m.sql)
                await conn.execute(
                    f"INSERT INTO {schema}.schema_migrations (version, name) VALUES ($1, $2)",
                    m.version, m.name)
            applied.append(m.name)
        return applied
