"""The system under test of the service benchmarks, in the shape production runs it: PostgreSQL
(the local server, DATABASE_URL or the embedded one), the sandbox wallet as a process of its own
with its own database, and the RGS (``rgs serve``, one or more workers) with the journal in its
own database. Also the old single-process shape (``rgs sandbox``: RGS and wallet in one process,
one database) for comparison with earlier figures.

Used by ``bench/service.py`` and ``bench/soak.py``; not a command of its own. Everything listens
on loopback only and is stopped (and its databases dropped) on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs import devdb
from rgs.bootstrap import DEV_OPERATOR_KEYS
from rgs.journal.migrate import migrate

ROOT = Path(__file__).resolve().parents[1]
OPERATOR_KEY = DEV_OPERATOR_KEYS["dev-operator"]
WALLET_KEY = "sandbox-wallet-dev-key"


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children(pid: int) -> list[int]:
    """Direct child processes of ``pid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            out.append(int(entry.name))
    return sorted(out)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of ``pid`` so far; None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int | None:
    """Resident memory of ``pid``; None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/statm").read_text().split()
    except OSError:
        return None
    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE")


async def wait_serving(target: str, proc: subprocess.Popen[bytes] | None,
                       timeout: float = 90) -> None:
    """Wait until ``target`` answers its health check with SERVING."""
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(target) as ch:
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise SystemExit(f"{' '.join(map(str, proc.args))} exited with {proc.returncode}")
            try:
                r = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(),
                                                               timeout=1)
                if r.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.3)
    raise SystemExit(f"{target} did not start within {timeout:.0f} s")


@dataclass(slots=True, kw_only=True)
class Stack:
    """A running system under test: addresses, the processes of each side, the databases."""

    rgs: str
    wallet: str
    shape: str
    """``production`` (separate processes and databases) or ``sandbox`` (one process)."""
    server_url: str
    """The PostgreSQL server's maintenance database."""
    journal_url: str
    wallet_url: str
    rgs_proc: subprocess.Popen[bytes] | None = None
    wallet_proc: subprocess.Popen[bytes] | None = None
    databases: list[str] = field(default_factory=list)

    def processes(self) -> dict[str, list[int]]:
        """The process ids of each side now (the RGS supervisor and its workers)."""
        out: dict[str, list[int]] = {}
        if self.rgs_proc is not None:
            out["rgs"] = [self.rgs_proc.pid, *children(self.rgs_proc.pid)]
        if self.wallet_proc is not None:
            out["wallet"] = [self.wallet_proc.pid]
        return out

    async def postgres_backends(self) -> list[int]:
        """Server processes serving this stack's databases (from pg_stat_activity)."""
        names = sorted({devdb_name(self.journal_url), devdb_name(self.wallet_url)})
        conn = await asyncpg.connect(self.server_url)
        try:
            rows = await conn.fetch("SELECT pid FROM pg_stat_activity WHERE datname = ANY($1) "
                                    "AND pid <> pg_backend_pid()", names)
        finally:
            await conn.close()
        return sorted(int(r["pid"]) for r in rows)

    async def transactions(self) -> dict[str, int]:
        """Committed and rolled-back transactions so far, per database of this stack (each
        statement outside an explicit transaction is one: roughly the round trips)."""
        names = {"journal": devdb_name(self.journal_url), "wallet": devdb_name(self.wallet_url)}
        conn = await asyncpg.connect(self.server_url)
        try:
            # The statistics are read as of the start of this transaction; clear the snapshot.
            await conn.execute("SELECT pg_stat_clear_snapshot()")
            rows = await conn.fetch("SELECT datname, xact_commit + xact_rollback AS n "
                                    "FROM pg_stat_database WHERE datname = ANY($1)",
                                    list(names.values()))
        finally:
            await conn.close()
        by_name = {r["datname"]: int(r["n"]) for r in rows}
        return {side: by_name.get(name, 0) for side, name in names.items()}

    async def wallet_moves(self) -> int:
        """Money movements the sandbox wallet has applied so far (debits, credits, rollbacks:
        one per wallet call of a run without faults, replays of a call add none)."""
        conn = await asyncpg.connect(self.wallet_url)
        try:
            return int(await conn.fetchval("SELECT count(*) FROM sandbox_wallet.transactions"))
        finally:
            await conn.close()

    async def outbox_open(self) -> int:
        """Open wallet outbox rows in the journal (the journal's own rule)."""
        from rgs.journal.postgres import PostgresJournal

        journal = await PostgresJournal.connect(self.journal_url, min_size=1, max_size=1)
        try:
            return (await journal.outbox_backlog()).open_rows
        finally:
            await journal.close()


def devdb_name(url: str) -> str:
    """The database name of a PostgreSQL URL."""
    from urllib.parse import urlsplit

    return urlsplit(url).path.lstrip("/")


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RGS_", "OTEL_", "PROMETHEUS_", "SANDBOX_WALLET_"))}
    env["PYTHONPATH"] = str(ROOT / "services")
    env.update(extra)
    return env


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


WALLET_KEY_ENV = "BENCH_WALLET_API_KEY"


def platform_file(directory: Path, wallet: str, *, wallet_timeout_s: float) -> Path:
    """A platform file of one operator (dev-operator, brand demo-casino in EUR) whose wallet is
    the sandbox wallet at ``wallet``; its key is read from :data:`WALLET_KEY_ENV`."""
    path = directory / "platform.json"
    path.write_text(json.dumps({"operators": [{
        "id": "dev-operator",
        "wallet": {"kind": "grpc", "address": wallet, "api_key": {"env": WALLET_KEY_ENV},
                   "timeout_s": wallet_timeout_s},
        "brands": [{"id": "demo-casino", "currencies": {"EUR": {}},
                    "variants": {"classic-resplit": {}}}],
    }]}))
    return path


@contextlib.asynccontextmanager
async def production_stack(*, rgs_workers: int = 1, log: Path | None = None,
                           rgs_env: dict[str, str] | None = None, wallet_timeout_s: float = 5.0,
                           keep_databases: bool = False) -> AsyncIterator[Stack]:
    """Start wallet and RGS as separate processes on fresh databases; stop and drop them."""
    choice = await devdb.resolve_server()
    if choice.source == "env":
        raise SystemExit("the production shape creates its own databases: give DATABASE_URL "
                         "a server's maintenance database or unset it (local/embedded server)")
    server = choice.url
    journal_db, wallet_db = devdb.unique_name("bench_journal"), devdb.unique_name("bench_wallet")
    journal_url = await devdb.create_database(server, journal_db)
    wallet_url = await devdb.create_database(server, wallet_db)
    await migrate(journal_url)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as keys:
        json.dump({"dev-operator": OPERATOR_KEY}, keys)
    from rgs.bootstrap import add_operator_keys_file

    await add_operator_keys_file(journal_url, Path(keys.name))
    os.unlink(keys.name)
    rgs, wallet = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    out = log.open("ab") if log is not None else subprocess.DEVNULL
    config = Path(tempfile.mkdtemp(prefix="bench-platform-"))
    platform = platform_file(config, wallet, wallet_timeout_s=wallet_timeout_s)
    stack = Stack(rgs=rgs, wallet=wallet, shape="production", server_url=server,
                  journal_url=journal_url, wallet_url=wallet_url,
                  databases=[journal_db, wallet_db])
    try:
        stack.wallet_proc = subprocess.Popen(
            [sys.executable, "-m", "sandbox_wallet", "--listen", wallet, "--database-url",
             wallet_url], stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=_env({}))
        await wait_serving(wallet, stack.wallet_proc)
        stack.rgs_proc = subprocess.Popen(
            [sys.executable, "-m", "rgs", "serve", "--workers", str(rgs_workers)],
            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
            env=_env({"RGS_LISTEN": rgs, "RGS_DATABASE_URL": journal_url,
                      "RGS_PLATFORM_FILE": str(platform), WALLET_KEY_ENV: WALLET_KEY,
                      "RGS_LOG_FORMAT": "json", **(rgs_env or {})}))
        await wait_serving(rgs, stack.rgs_proc)
        if rgs_workers > 1:  # every worker up, not just the first to answer
            deadline = time.monotonic() + 60
            while len(children(stack.rgs_proc.pid)) < rgs_workers:
                if time.monotonic() > deadline:
                    raise SystemExit("the RGS workers did not all start")
                await asyncio.sleep(0.2)
            await asyncio.sleep(3)
        yield stack
    finally:
        _stop(stack.rgs_proc)
        _stop(stack.wallet_proc)
        if out is not subprocess.DEVNULL:
            out.close()  # type: ignore[union-attr]
        shutil.rmtree(config, ignore_errors=True)
        if not keep_databases:
            for name in stack.databases:
                await devdb.drop_database(server, name)


@contextlib.asynccontextmanager
async def sandbox_stack(*, log: Path | None = None) -> AsyncIterator[Stack]:
    """``rgs sandbox``: RGS and wallet in one process, one database (the shape of the figures
    before issue 14)."""
    choice = await devdb.resolve_server()
    url = choice.url if choice.source == "env" else await devdb.ensure_database(
        choice.url, "rgs_sandbox")
    rgs, wallet = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    out = log.open("ab") if log is not None else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", "rgs", "sandbox", "--listen", rgs, "--wallet-listen", wallet,
         "--other-wallet-listen", f"127.0.0.1:{free_port()}", "--database-url", url],
        stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=_env({}))
    stack = Stack(rgs=rgs, wallet=wallet, shape="sandbox", server_url=choice.url,
                  journal_url=url, wallet_url=url, rgs_proc=proc)
    try:
        await wait_serving(rgs, proc)
        yield stack
    finally:
        _stop(proc)
        if out is not subprocess.DEVNULL:
            out.close()  # type: ignore[union-attr]
