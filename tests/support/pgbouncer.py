"""A real PgBouncer in transaction mode in front of the test PostgreSQL.

The journal's integration tests and an end-to-end money test run through it: with few server
connections shared by many client connections, any statement outside a transaction may land
on another server session, which is what breaks session advisory locks, session settings and
named prepared statements. ``bash .ci/ops-tools`` installs Debian's ``pgbouncer``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest

from rgs.journal.migrate import SCHEMA

TOOLS_CACHE = Path(os.environ.get("RGS_OPS_TOOLS_CACHE",
                                  Path.home() / ".cache" / "rgs-ops-tools"))


def pgbouncer_binary() -> str:
    """The pgbouncer executable; fails the test with what to run when it is missing."""
    for candidate in (TOOLS_CACHE / "bin" / "pgbouncer", Path("/usr/sbin/pgbouncer")):
        if candidate.exists() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("pgbouncer")
    if found:
        return found
    pytest.fail("pgbouncer is not installed: run `bash .ci/ops-tools` (it installs Debian's "
                "pgbouncer), then re-run the tests", pytrace=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True, slots=True, kw_only=True)
class PgBouncer:
    """A running PgBouncer: where it listens and its log."""

    port: int
    log: Path
    pool_size: int

    def url_for(self, database_url: str) -> str:
        """``database_url`` with PgBouncer's address in place of PostgreSQL's (same database
        and user; PgBouncer logs in to PostgreSQL as that user)."""
        parts = urllib.parse.urlsplit(database_url)
        user = parts.username or "postgres"
        query = urllib.parse.urlencode([(k, v) for k, v in urllib.parse.parse_qsl(parts.query)
                                        if k not in ("host", "port")])
        return urllib.parse.urlunsplit(
            (parts.scheme, f"{urllib.parse.quote(user)}@127.0.0.1:{self.port}", parts.path,
             query, ""))


@contextmanager
def running_pgbouncer(server_url: str, *, pool_size: int = 3) -> Iterator[PgBouncer]:
    """Start PgBouncer (transaction mode, ``pool_size`` server connections per database) in
    front of the server of ``server_url``; every database of that server is reachable."""
    parts = urllib.parse.urlsplit(server_url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    user = urllib.parse.unquote(parts.username or "postgres")
    # A socket directory in ?host= (the embedded server) or a TCP host.
    host = query.get("host") or parts.hostname or "127.0.0.1"
    server = f"host={host} port={query.get('port') or parts.port or 5432} user={user}"
    if parts.password:
        server += f" password={urllib.parse.unquote(parts.password)}"
    work = Path(tempfile.mkdtemp(prefix="rgs-pgbouncer-"))
    port = _free_port()
    (work / "users.txt").write_text(f'"{user}" ""\n')
    (work / "pgbouncer.ini").write_text(f"""\
[databases]
* = {server}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {work / "users.txt"}
pool_mode = transaction
default_pool_size = {pool_size}
max_client_conn = 1000
; asyncpg sends no parameter PgBouncer 1.18 does not know, except the ones the journal drops
; in transaction mode; nothing is ignored here, so a stray search_path fails loudly.
server_reset_query =
; after PostgreSQL restarts, log in again within a second (the default waits 15 s)
server_login_retry = 1
""")
    args = [pgbouncer_binary()]
    if os.geteuid() == 0:
        # PgBouncer refuses to run as root: it drops to nobody, or to the owner of the
        # server's socket directory (the embedded server's own user), and reads its files then.
        work.chmod(0o755)
        owner = Path(host).owner() if host.startswith("/") else "nobody"
        args += ["-u", owner]
    log = work / "pgbouncer.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([*args, str(work / "pgbouncer.ini")], stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:
            if proc.poll() is not None:
                pytest.fail(f"pgbouncer exited: {log.read_text()[-2000:]}", pytrace=False)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"pgbouncer is not listening: {log.read_text()[-2000:]}",
                                pytrace=False)
                time.sleep(0.05)
        yield PgBouncer(port=port, log=log, pool_size=pool_size)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)


async def set_journal_search_path(database_url: str) -> None:
    """Give the database of ``database_url`` the journal's schema as its default search path,
    as ops/database.md asks of a transaction-pooled installation (the journal sends none)."""
    name = urllib.parse.urlsplit(database_url).path.lstrip("/")
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(f'ALTER DATABASE "{name}" SET search_path = {SCHEMA}, public')
    finally:
        await conn.close()

