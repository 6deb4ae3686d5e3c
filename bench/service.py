"""Service throughput: N concurrent simulated players play complete rounds over gRPC against a
running RGS, sandbox wallet and PostgreSQL; prints rounds/s and p50/p99 latency per RPC, and in
the same run the single-row upsert rate of that PostgreSQL, so the two compare.

Run: ``.venv/bin/python bench/service.py [--players 16] [--seconds 20]``. Without ``--rgs`` it
starts ``rgs sandbox`` itself on free loopback ports (DATABASE_URL, local or embedded
PostgreSQL) and stops it afterwards. Every loop is bounded in time; traffic stays on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import asyncpg
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs import devdb
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET = (("authorization", "Bearer sandbox-wallet-dev-key"),)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _wait(target: str, proc: subprocess.Popen[bytes] | None, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(target) as ch:
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise SystemExit(f"the sandbox exited with {proc.returncode}")
            try:
                r = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(),
                                                               timeout=1)
                if r.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.3)
    raise SystemExit(f"{target} did not start")


class Latencies:
    """Per-RPC latency samples in seconds."""

    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = defaultdict(list)

    async def timed(self, name: str, call: object) -> object:
        t0 = time.perf_counter()
        result = await call  # type: ignore[misc]
        self.samples[name].append(time.perf_counter() - t0)
        return result


async def _player(i: int, *, rgs: str, wallet: str, until: float, lat: Latencies,
                  errors: dict[str, int]) -> int:
    pid = f"bench-{os.getpid()}-{i}"
    async with grpc.aio.insecure_channel(wallet) as wch:
        await sandbox_pb2_grpc.SandboxControlServiceStub(wch).CreatePlayer(
            sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
                player_id=pid, currency="EUR", balance=10**12)), metadata=WALLET)
    rounds = 0
    async with grpc.aio.insecure_channel(rgs) as ch:
        office = operator_pb2_grpc.OperatorServiceStub(ch)
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        s = await office.CreateSession(op.CreateSessionRequest(
            request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid), metadata=OPERATOR)
        md = (("authorization", f"Bearer {s.session_token}"),)
        n = 0
        while time.monotonic() < until:
            try:
                view = (await lat.timed("Deal", game.Deal(bj.DealRequest(
                    request_id=f"d{n}", variant_id="classic-resplit",
                    boxes=[bj.BoxBet(seat=1, stake=100)]), metadata=md))).round  # type: ignore[attr-defined]
                while view.status != bj.ROUND_STATUS_SETTLED:
                    n += 1
                    if view.status == bj.ROUND_STATUS_INSURANCE:
                        seat, hand, action = 1, 0, bj.ACTION_DECLINE_INSURANCE
                    else:
                        seat, hand = view.to_act.seat, view.to_act.hand
                        total = view.boxes[0].hands[hand].total
                        action = bj.ACTION_HIT if total < 17 else bj.ACTION_STAND
                    view = (await lat.timed("Act", game.Act(bj.ActRequest(
                        request_id=f"a{n}", round_id=view.round_id, expected_seq=view.seq,
                        seat=seat, hand=hand, action=action), metadata=md))).round  # type: ignore[attr-defined]
                rounds += 1
            except grpc.aio.AioRpcError as err:
                errors[err.code().name] += 1
            n += 1
    return rounds


async def _upserts(url: str, seconds: float, workers: int) -> float:
    """Single-row upserts per second with ``workers`` connections (asyncpg loop)."""
    conn = await asyncpg.connect(url)
    await conn.execute("CREATE TABLE IF NOT EXISTS bench_upsert (k int PRIMARY KEY, v bigint)")
    await conn.close()
    until = time.monotonic() + seconds
    counts = [0] * workers

    async def worker(w: int) -> None:
        c = await asyncpg.connect(url)
        try:
            while time.monotonic() < until:
                await c.execute("INSERT INTO bench_upsert (k, v) VALUES ($1, 1) ON CONFLICT (k) "
                                "DO UPDATE SET v = bench_upsert.v + 1", w * 1000 + counts[w] % 1000)
                counts[w] += 1
        finally:
            await c.close()

    t0 = time.monotonic()
    await asyncio.gather(*(worker(w) for w in range(workers)))
    return sum(counts) / (time.monotonic() - t0)


def _pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rgs", help="host:port of a running RGS (default: start a sandbox)")
    parser.add_argument("--wallet", help="host:port of its sandbox wallet")
    parser.add_argument("--database-url", help="PostgreSQL for the upsert baseline")
    args = parser.parse_args()
    proc = None
    rgs, wallet = args.rgs, args.wallet
    if rgs is None:
        rgs, wallet = f"127.0.0.1:{_free_port()}", f"127.0.0.1:{_free_port()}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "rgs", "sandbox", "--listen", rgs,
             "--wallet-listen", wallet], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "services")})
    try:
        await _wait(rgs, proc)
        lat, errors = Latencies(), defaultdict(int)
        t0 = time.monotonic()
        until = t0 + args.seconds
        rounds = await asyncio.gather(*(_player(i, rgs=rgs, wallet=wallet, until=until, lat=lat,
                                                errors=errors)
                                        for i in range(args.players)))
        elapsed = time.monotonic() - t0
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
    total = sum(rounds)
    print(f"players={args.players} seconds={elapsed:.1f} rounds={total} "
          f"rounds/s={total / elapsed:.1f} errors={dict(errors)}")
    for name, xs in sorted(lat.samples.items()):
        print(f"  {name:<6} calls={len(xs):>6} p50={_pct(xs, 0.5):7.2f} ms "
              f"p99={_pct(xs, 0.99):7.2f} ms mean={statistics.fmean(xs) * 1000:7.2f} ms")
    url = args.database_url
    if url is None:
        choice = await devdb.resolve_server()
        url = choice.url if choice.source == "env" else devdb.database_url(choice.url,
                                                                           "rgs_sandbox")
    rate = await _upserts(url, min(10.0, args.seconds), workers=args.players)
    print(f"postgres single-row upserts/s ({args.players} connections, asyncpg) = {rate:.0f}"
          f"{'  (pgbench also on PATH)' if shutil.which('pgbench') else ''}")
    print(f"ratio: {total / elapsed / rate * 100:.2f} rounds per 100 upserts")


if __name__ == "__main__":
    asyncio.run(main())
