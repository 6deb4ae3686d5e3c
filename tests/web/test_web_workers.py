"""`rgs serve --workers N` with the browser edge: every worker serves it on the one port
(SO_REUSEPORT), calls on new connections land on several workers, and SIGTERM stops them all
cleanly (the edge drains with the gRPC server)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from e2e.e2e_servers import ROOT, free_port

pytestmark = pytest.mark.asyncio(loop_scope="session")
METHOD = "rgs.blackjack.v1.BlackjackService/GetBalance"
CALLS = 24


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RGS_", "OTEL_"))}
    env["PYTHONPATH"] = str(ROOT / "services")
    env["RGS_HINTS_WARM"] = "false"  # nothing here shows hints (tests/conftest.py)
    env.update(extra)
    return env


async def _refused(base: str) -> int:
    """A call on a connection of its own; the HTTP status of its refusal."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        resp = await client.post(f"/{METHOD}", json={}, headers={
            "connect-protocol-version": "1", "authorization": "Bearer no-such-token"})
    return resp.status_code


async def test_every_worker_serves_the_browser_edge_on_one_port(
        rgs_database_url: str, tmp_path: Path) -> None:
    web_port = free_port()
    base = f"http://127.0.0.1:{web_port}"
    log = tmp_path / "rgs.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rgs", "serve", "--workers", "3",
             "--web-listen", f"127.0.0.1:{web_port}"], stdout=out, stderr=subprocess.STDOUT,
            cwd=ROOT, env=_env(RGS_DATABASE_URL=rgs_database_url,
                               RGS_LISTEN=f"127.0.0.1:{free_port()}", RGS_LOG_FORMAT="json",
                               RGS_SHUTDOWN_GRACE_S="1"))
    try:
        deadline = time.monotonic() + 60
        while log.read_text().count("browser edge on") < 3:
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            await asyncio.sleep(0.3)
        statuses = [await _refused(base) for _ in range(CALLS)]
        assert statuses == [401] * CALLS
        lines = [json.loads(line) for line in log.read_text().splitlines()
                 if line.startswith("{") and METHOD in line]
        until = time.monotonic() + 10
        while len(lines) < CALLS and time.monotonic() < until:
            await asyncio.sleep(0.1)
            lines = [json.loads(line) for line in log.read_text().splitlines()
                     if line.startswith("{") and METHOD in line]
        assert len(lines) == CALLS
        assert {r["rpc_edge"] for r in lines} == {"web"}
        assert {r["grpc_code"] for r in lines} == {"UNAUTHENTICATED"}
        assert len({r["pid"] for r in lines}) >= 2
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert code == 0, log.read_text()[-3000:]
