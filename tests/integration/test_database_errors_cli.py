"""The commands that open a database say plainly what went wrong with it (issue 22), run as
real subprocesses against the real PostgreSQL server: ``rgs migrate`` on a missing database
and ``sandbox-wallet`` on a missing or unreachable one end with one line saying what failed and
what to do, a non-zero status and no traceback; ``sandbox-wallet`` logs its database URL with the
password masked."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs import devdb

pytestmark = pytest.mark.asyncio(loop_scope="session")

SERVICES = Path(__file__).resolve().parents[2] / "services"
PASSWORD = "pw-0f5e-never-logged"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    user = parts.username or "postgres"
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:{password}@{host}"))


def _missing(url: str) -> tuple[str, str]:
    name = devdb.unique_name("rgs_missing")
    return name, devdb.database_url(url, name)


async def _run(*args: str, timeout: float = 60) -> tuple[int, str]:
    """Run ``python -m <args>`` to its end; (exit status, stdout and stderr)."""
    env = {**os.environ, "PYTHONPATH": str(SERVICES)}
    env.pop("DATABASE_URL", None)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", *args, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(process.communicate(), timeout=timeout)
    assert process.returncode is not None
    return process.returncode, out.decode()


def _one_clear_line(status: int, out: str) -> str:
    assert status != 0, out
    assert "Traceback" not in out, out
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, out
    return errors[0]


async def test_sandbox_wallet_logs_its_database_url_without_the_password(
    sandbox_wallet_database_url: str,
) -> None:
    url = _with_password(sandbox_wallet_database_url, PASSWORD)  # trust auth ignores it
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(SERVICES)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "sandbox_wallet", "--listen", f"127.0.0.1:{port}",
        "--database-url", url, env=env, stderr=asyncio.subprocess.PIPE)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), wait_for_ready=True, timeout=30)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=20)
    log = stderr.decode()
    assert process.returncode == 0, log
    assert "sandbox wallet listening on" in log
    assert PASSWORD not in log
    assert "[REDACTED]@" in log  # the URL is still shown, for the engineer starting it


async def test_rgs_migrate_on_a_missing_database_says_how_to_create_it(
    pg_server_url: str,
) -> None:
    name, url = _missing(_with_password(pg_server_url, PASSWORD))
    host = urlsplit(url)
    line = _one_clear_line(*await _run("rgs", "migrate", "--database-url", url))
    assert f"database {name} does not exist on {host.hostname}:{host.port}" in line
    assert f"createdb -h {host.hostname} -p {host.port}" in line and "--database-url" in line
    assert PASSWORD not in line


async def test_sandbox_wallet_on_a_missing_database_says_how_to_create_it(
    pg_server_url: str,
) -> None:
    name, url = _missing(pg_server_url)
    line = _one_clear_line(*await _run("sandbox_wallet", "--listen", "127.0.0.1:0",
                                       "--database-url", url))
    assert f"database {name} does not exist" in line and "createdb" in line


@pytest.mark.parametrize("command", [("rgs", "migrate"),
                                     ("sandbox_wallet", "--listen", "127.0.0.1:0")])
async def test_a_database_server_that_does_not_answer_is_named_with_what_to_do(
    command: tuple[str, ...],
) -> None:
    port = _free_port()  # nobody listens there
    url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:{port}/rgs"
    line = _one_clear_line(*await _run(*command, "--database-url", url))
    assert f"cannot connect to PostgreSQL at 127.0.0.1:{port}" in line
    assert "--database-url" in line and PASSWORD not in line
