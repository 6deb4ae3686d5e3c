"""Real server processes for end-to-end tests: a sandbox wallet and RGS replicas, each a
subprocess on a loopback port, over real PostgreSQL databases."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from support.platforms import SANDBOX_WALLET_KEYS, write_platform_file

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    """A server subprocess and its address."""

    proc: subprocess.Popen[bytes]
    target: str
    log: Path

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


async def wait_serving(target: str, proc: subprocess.Popen[bytes], log: Path,
                       timeout: float = 60.0) -> None:
    """Poll grpc.health.v1 until SERVING (or fail with the server's log)."""
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(target) as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {log.read_text()[-3000:]}")
            try:
                resp = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if resp.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"{target} not serving after {timeout}s: {log.read_text()[-3000:]}")


async def start(args: Sequence[str], *, target: str, log: Path,
                env: dict[str, str] | None = None) -> ServerProcess:
    """Start ``python <args>`` and wait until it serves."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT / "services")
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, *args], stdout=out, stderr=subprocess.STDOUT,
                                env=full_env, cwd=ROOT)
    server = ServerProcess(proc=proc, target=target, log=log)
    try:
        await wait_serving(target, proc, log)
    except BaseException:
        server.stop()
        raise
    return server


@dataclass
class Stack:
    """A sandbox wallet per operator and RGS replicas over real databases."""

    wallets: dict[str, ServerProcess]
    replicas: list[ServerProcess] = field(default_factory=list)
    #: Each operator's wallet database (the back office tests read its export).
    wallet_dbs: dict[str, str] = field(default_factory=dict)

    @property
    def wallet(self) -> ServerProcess:
        """dev-operator's wallet."""
        return self.wallets["dev-operator"]

    def stop(self) -> None:
        """Stop every process."""
        for p in (*self.replicas, *self.wallets.values()):
            p.stop()


async def start_wallet(operator: str, db: str, logs: Path) -> ServerProcess:
    """A sandbox wallet process serving ``operator`` with its sandbox key."""
    port = free_port()
    return await start(["-m", "sandbox_wallet", "--listen", f"127.0.0.1:{port}",
                        "--database-url", db, "--api-key", SANDBOX_WALLET_KEYS[operator],
                        "--operator-id", operator],
                       target=f"127.0.0.1:{port}", log=logs / f"wallet-{operator}.log")


async def start_stack(*, rgs_db: str, wallet_dbs: dict[str, str], replicas: int,
                      logs: Path, env: dict[str, str] | None = None,
                      wallet_fields: dict[str, dict[str, object]] | None = None,
                      brand_fields: dict[str, dict[str, object]] | None = None,
                      tables: list[dict[str, object]] | None = None,
                      each_env: Sequence[dict[str, str]] = ()) -> Stack:
    """Start a wallet per operator of ``wallet_dbs`` and ``replicas`` RGS processes (test
    mode), each with a platform file pointing every operator at its own wallet (``each_env``:
    settings of replica i on top of ``env``, e.g. its own browser edge port)."""
    started_wallets = await asyncio.gather(*(start_wallet(op, db, logs)
                                             for op, db in wallet_dbs.items()))
    stack = Stack(wallets=dict(zip(wallet_dbs, started_wallets, strict=True)),
                  wallet_dbs=dict(wallet_dbs))
    try:
        platform_file = write_platform_file(
            logs / "platform.json", {op: w.target for op, w in stack.wallets.items()},
            brand_fields, tables, **(wallet_fields or {}))
        ports = [free_port() for _ in range(replicas)]
        full_env = {"RGS_PLATFORM_FILE": str(platform_file), "RGS_LOCK_WAIT_S": "10",
                    **(env or {})}
        started = await asyncio.gather(*(
            start(["-m", "rgs", "serve", "--listen", f"127.0.0.1:{p}",
                   "--database-url", rgs_db, "--test-mode"],
                  target=f"127.0.0.1:{p}", log=logs / f"rgs{i}.log",
                  env={**full_env, **(each_env[i] if i < len(each_env) else {})})
            for i, p in enumerate(ports)))
        stack.replicas.extend(started)
    except BaseException:
        stack.stop()
        raise
    return stack
