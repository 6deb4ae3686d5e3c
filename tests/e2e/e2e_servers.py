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
    """A sandbox wallet and RGS replicas over real databases."""

    wallet: ServerProcess
    replicas: list[ServerProcess] = field(default_factory=list)

    def stop(self) -> None:
        """Stop every process."""
        for p in (*self.replicas, self.wallet):
            p.stop()


async def start_stack(*, rgs_db: str, wallet_db: str, replicas: int, logs: Path,
                      wallet_key: str = "sandbox-wallet-dev-key",
                      rgs_env: dict[str, str] | None = None) -> Stack:
    """Start the wallet and ``replicas`` RGS processes (test mode, ``rgs_env`` added to their
    environment) in parallel."""
    wport = free_port()
    wallet = await start(["-m", "sandbox_wallet", "--listen", f"127.0.0.1:{wport}",
                          "--database-url", wallet_db, "--api-key", wallet_key],
                         target=f"127.0.0.1:{wport}", log=logs / "wallet.log")
    stack = Stack(wallet=wallet)
    try:
        ports = [free_port() for _ in range(replicas)]
        env = {"RGS_WALLET_ADDRESS": wallet.target, "RGS_WALLET_API_KEY": wallet_key,
               "RGS_LOCK_WAIT_S": "10", **(rgs_env or {})}
        started = await asyncio.gather(*(
            start(["-m", "rgs", "serve", "--listen", f"127.0.0.1:{p}",
                   "--database-url", rgs_db, "--test-mode"],
                  target=f"127.0.0.1:{p}", log=logs / f"rgs{i}.log", env=env)
            for i, p in enumerate(ports)))
        stack.replicas.extend(started)
    except BaseException:
        stack.stop()
        raise
    return stack
