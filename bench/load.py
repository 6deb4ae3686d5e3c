"""Simulated players: the load of ``bench/service.py`` and ``bench/soak.py``, run in client
processes of their own so the load generator is not the bottleneck it measures.

A player creates itself in the sandbox wallet, opens a session and plays single-box rounds of
classic-resplit (hit below 17, decline insurance) for as long as it is told, optionally at a
fixed pace. Under wallet faults it behaves as a real client should: a call that failed for a
transient reason is retried with the same request id (the RGS answers a replay from its record),
and a round left in progress is found again with ``GetRound`` and finished.

As a client process (started by the benchmarks, not by people)::

    python bench/load.py --rgs H:P --wallet H:P --first 0 --players 8 [--rate R] ...

it sets its players up, prints ``{"ready": ...}``, waits for ``go <seconds> <interval>`` on
stdin, plays, prints one JSON line per interval (rounds, latency samples, errors), and then
answers ``upsert <url> <connections> <seconds>`` with the single-row upsert count of the same
PostgreSQL, and ``quit``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import grpc

from rgs import eventloop
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET = (("authorization", "Bearer sandbox-wallet-dev-key"),)
#: Codes after which the same request is sent again (idempotent by its request id).
TRANSIENT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                       grpc.StatusCode.ABORTED, grpc.StatusCode.RESOURCE_EXHAUSTED,
                       grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL})
CALL_TIMEOUT_S = 30.0


@dataclass(slots=True)
class Window:
    """What the players did since the last report."""

    rounds: int = 0
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)

    def take(self) -> dict[str, Any]:
        """The report of this window (latencies in ms), and a fresh window."""
        out = {"rounds": self.rounds, "errors": dict(self.errors),
               "latencies": {k: [round(x * 1000, 3) for x in v]
                             for k, v in self.latencies.items()}}
        self.rounds = 0
        self.latencies = defaultdict(list)
        self.errors = Counter()
        return out


class Player:
    """One simulated player on its own channel."""

    def __init__(self, pid: str, *, rgs: str, wallet: str, window: Window) -> None:
        self.pid = pid
        self._rgs, self._wallet = rgs, wallet
        self._window = window
        self._n = 0
        self._channel: grpc.aio.Channel | None = None
        self._md: tuple[tuple[str, str], ...] = ()

    async def setup(self) -> None:
        """Create the wallet player and the session."""
        async with grpc.aio.insecure_channel(self._wallet) as wch:
            await sandbox_pb2_grpc.SandboxControlServiceStub(wch).CreatePlayer(
                sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
                    player_id=self.pid, currency="EUR", balance=10**13)), metadata=WALLET)
        # A connection of its own, as a player's device has: channels of one process would
        # otherwise share one connection, and the kernel spreads connections (not calls) over
        # the workers of a replica.
        self._channel = grpc.aio.insecure_channel(
            self._rgs, options=[("grpc.use_local_subchannel_pool", 1)])
        s = await operator_pb2_grpc.OperatorServiceStub(self._channel).CreateSession(
            op.CreateSessionRequest(request_id=f"s-{self.pid}", brand_id="demo-casino",
                                    player_id=self.pid), metadata=OPERATOR)
        self._md = (("authorization", f"Bearer {s.session_token}"),)
        self._game = blackjack_pb2_grpc.BlackjackServiceStub(self._channel)

    async def close(self) -> None:
        """Close the channel."""
        if self._channel is not None:
            await self._channel.close()

    async def _call(self, name: str, method: Callable[..., Awaitable[Any]], request: Any) -> Any:
        for attempt in range(6):
            t0 = time.perf_counter()
            try:
                result = await method(request, metadata=self._md, timeout=CALL_TIMEOUT_S)
            except grpc.aio.AioRpcError as err:
                self._window.errors[f"{name} {err.code().name}"] += 1
                if err.code() not in TRANSIENT or attempt == 5:
                    raise
                await asyncio.sleep(0.02 * 2 ** attempt)
                continue
            self._window.latencies[name].append(time.perf_counter() - t0)
            return result
        raise AssertionError("unreachable")

    def _next(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    async def _finish(self, view: Any, until: float) -> bool:
        while view.status != bj.ROUND_STATUS_SETTLED:
            if time.monotonic() > until + CALL_TIMEOUT_S:
                return False
            if view.status == bj.ROUND_STATUS_INSURANCE:
                seat, hand, action = 1, 0, bj.ACTION_DECLINE_INSURANCE
            else:
                seat, hand = view.to_act.seat, view.to_act.hand
                total = view.boxes[0].hands[hand].total
                action = bj.ACTION_HIT if total < 17 else bj.ACTION_STAND
            view = (await self._call("Act", self._game.Act, bj.ActRequest(
                request_id=self._next("a"), round_id=view.round_id, expected_seq=view.seq,
                seat=seat, hand=hand, action=action))).round
        return True

    async def play(self, until: float, rate: float | None) -> None:
        """Play rounds until ``until`` (monotonic), ``rate`` rounds/s at most (None: flat out)."""
        pace = 1.0 / rate if rate else 0.0
        # Paced players start at a random phase of their period: started together, they would
        # stay in step and send their calls in bursts of one per player, which measures the
        # queue of a burst rather than the latency at that rate.
        next_start = time.monotonic() + random.uniform(0.0, pace)
        view: Any = None
        while time.monotonic() < until:
            if pace:
                delay = next_start - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                next_start = max(next_start + pace, time.monotonic() - pace)
            try:
                if view is None:
                    view = (await self._call("Deal", self._game.Deal, bj.DealRequest(
                        request_id=self._next("d"), variant_id="classic-resplit",
                        boxes=[bj.BoxBet(seat=1, stake=100)]))).round
                if await self._finish(view, until):
                    self._window.rounds += 1
                view = None
            except grpc.aio.AioRpcError:
                # Find the round again (a Deal refused because one is in progress: GetRound
                # without an id returns the unfinished one) and finish it next time round.
                view = await self._resync(view)

    async def _resync(self, view: Any) -> Any:
        try:
            found = (await self._call("GetRound", self._game.GetRound, bj.GetRoundRequest(
                round_id=view.round_id if view is not None else ""))).round
        except grpc.aio.AioRpcError:
            return None
        return found if found.round_id and found.status != bj.ROUND_STATUS_SETTLED else None


async def upserts(url: str, connections: int, seconds: float, key_base: int) -> tuple[int, float]:
    """Single-row upserts over ``connections`` connections for ``seconds``: (count, elapsed)."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("CREATE TABLE IF NOT EXISTS bench_upsert (k int PRIMARY KEY, "
                           "v bigint)")
    except asyncpg.UniqueViolationError:
        pass  # another client process created it at the same moment
    finally:
        await conn.close()
    until = time.monotonic() + seconds
    counts = [0] * connections

    async def worker(w: int) -> None:
        c = await asyncpg.connect(url)
        try:
            while time.monotonic() < until:
                await c.execute("INSERT INTO bench_upsert (k, v) VALUES ($1, 1) ON CONFLICT (k) "
                                "DO UPDATE SET v = bench_upsert.v + 1",
                                key_base + w * 1000 + counts[w] % 1000)
                counts[w] += 1
        finally:
            await c.close()

    t0 = time.monotonic()
    await asyncio.gather(*(worker(w) for w in range(connections)))
    return sum(counts), time.monotonic() - t0


class ClientPool:
    """The benchmark's side: ``procs`` client processes sharing ``players`` players."""

    def __init__(self, *, rgs: str, wallet: str, players: int, procs: int,
                 rate: float | None = None) -> None:
        self._args = (rgs, wallet, players, max(1, min(procs, players)), rate)
        self.procs: list[asyncio.subprocess.Process] = []

    async def start(self) -> None:
        """Start the client processes and wait until every player has its session."""
        rgs, wallet, players, procs, rate = self._args
        tag = f"bench-{os.getpid()}-{int(time.time())}"
        share, extra = divmod(players, procs)
        first = 0
        for i in range(procs):
            n = share + (1 if i < extra else 0)
            cmd = [sys.executable, __file__, "--rgs", rgs, "--wallet", wallet, "--first",
                   str(first), "--players", str(n), "--tag", tag]
            if rate:
                cmd += ["--rate", str(rate)]
            self.procs.append(await asyncio.create_subprocess_exec(
                *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE))
            first += n
        for p in self.procs:
            ready = await self._read(p)
            if "ready" not in ready:
                raise SystemExit(f"a client process failed to start: {ready}")

    async def _read(self, p: asyncio.subprocess.Process) -> dict[str, Any]:
        assert p.stdout is not None
        line = await p.stdout.readline()
        if not line:
            raise SystemExit(f"client process {p.pid} exited with {await p.wait()}")
        return dict(json.loads(line))

    async def _send(self, text: str) -> None:
        for p in self.procs:
            assert p.stdin is not None
            p.stdin.write(text.encode() + b"\n")
            await p.stdin.drain()

    async def play(self, seconds: float, interval: float,
                   on_window: Callable[[Window], Awaitable[None] | None] | None = None
                   ) -> Window:
        """Play for ``seconds``; ``on_window`` gets every interval's merged window; returns the
        whole run merged."""
        await self._send(f"go {seconds} {interval}")
        total = Window()
        done = [False] * len(self.procs)
        while not all(done):
            merged = Window()
            for i, p in enumerate(self.procs):
                if done[i]:
                    continue
                report = await self._read(p)
                done[i] = bool(report["done"])
                for w in (merged, total):
                    _merge(w, report["window"])
            if on_window is not None:
                result = on_window(merged)
                if result is not None:
                    await result
        return total

    async def upserts(self, url: str, connections: int, seconds: float) -> float:
        """Single-row upserts per second of the same PostgreSQL, from the client processes."""
        procs = len(self.procs)
        share, extra = divmod(connections, procs)
        for i, p in enumerate(self.procs):
            assert p.stdin is not None
            n = max(1, share + (1 if i < extra else 0))
            p.stdin.write(f"upsert {url} {n} {seconds}\n".encode())
            await p.stdin.drain()
        rate = 0.0
        for p in self.procs:
            report = await self._read(p)
            rate += report["upserts"] / report["seconds"]
        return rate

    async def stop(self) -> None:
        """Tell the clients to quit and wait for them."""
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await self._send("quit")
        for p in self.procs:
            try:
                await asyncio.wait_for(p.wait(), 30)
            except TimeoutError:
                p.kill()
                await p.wait()


def _merge(into: Window, report: dict[str, Any]) -> None:
    """Add a client's report (latencies in ms) to ``into`` (latencies in seconds)."""
    into.rounds += int(report["rounds"])
    into.errors.update(report["errors"])
    for name, xs in report["latencies"].items():
        into.latencies[name].extend(x / 1000 for x in xs)


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` in milliseconds (0 when empty)."""
    if not xs:
        return 0.0
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] * 1000


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def _client(args: argparse.Namespace) -> None:
    window = Window()
    players = [Player(f"{args.tag}-{i}", rgs=args.rgs, wallet=args.wallet, window=window)
               for i in range(args.first, args.first + args.players)]
    await asyncio.gather(*(p.setup() for p in players))
    _emit({"ready": len(players), "pid": os.getpid()})
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).decode().split():
        if line[0] == "go":
            seconds, interval = float(line[1]), float(line[2])
            started = time.monotonic()
            until = started + seconds
            tasks = [asyncio.create_task(p.play(until, args.rate)) for p in players]
            tick = started
            while any(not t.done() for t in tasks):
                tick += interval
                await asyncio.wait(tasks, timeout=max(0.0, tick - time.monotonic()))
                _emit({"window": window.take(), "t": round(time.monotonic() - started, 3),
                       "done": all(t.done() for t in tasks)})
            for t in tasks:
                t.result()  # a bug in the player shows here, not as missing rounds
        elif line[0] == "upsert":
            count, elapsed = await upserts(line[1], int(line[2]), float(line[3]),
                                           key_base=args.first * 1000)
            _emit({"upserts": count, "seconds": elapsed})
        elif line[0] == "quit":
            break
    await asyncio.gather(*(p.close() for p in players))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rgs", required=True)
    parser.add_argument("--wallet", required=True)
    parser.add_argument("--first", type=int, default=0, help="index of the first player")
    parser.add_argument("--players", type=int, default=1)
    parser.add_argument("--rate", type=float, default=None, help="rounds/s per player")
    parser.add_argument("--tag", default=f"bench-{os.getpid()}")
    eventloop.run(_client(parser.parse_args()))


if __name__ == "__main__":
    main()
