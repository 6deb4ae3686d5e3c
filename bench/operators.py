"""Operator isolation: how a slow or dead wallet of one operator moves another operator's round
latency. Two operators, each with its own sandbox wallet process, one RGS process; the healthy
operator's players play rounds (Deal + Settle) while the other operator's players keep trying:

1. both wallets healthy;
2. the other wallet stalled (every call waits past the deadline: fault injection);
3. the other wallet dead (its process killed).

Prints p50/p99 of the healthy operator's rounds in each phase and what the other operator's
players got. ``--unguarded`` gives the other operator a bulkhead and breaker too large to act,
which is how the RGS behaved before them.

Run: ``.venv/bin/python bench/operators.py [--rounds 150] [--players 4] [--victims 16]``.
Needs PostgreSQL (DATABASE_URL, local or embedded, as the tests find it); the databases it
makes are dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "e2e")]

import grpc  # noqa: E402
from e2e_servers import Stack, start_stack  # noqa: E402

from rgs import devdb  # noqa: E402
from rgs.bootstrap import add_dev_operator_keys  # noqa: E402
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj  # noqa: E402
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc  # noqa: E402
from rgs.generated.operator.v1 import operator_pb2 as op  # noqa: E402
from rgs.generated.operator.v1 import operator_pb2_grpc  # noqa: E402
from rgs.journal.migrate import migrate  # noqa: E402
from rgs.journal.postgres import PostgresJournal  # noqa: E402
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc  # noqa: E402
from sandbox_wallet.migrate import migrate as migrate_wallet  # noqa: E402

KEYS = {"dev-operator": "rgs-dev-operator-key", "other-operator": "rgs-other-operator-key"}
WALLET_KEYS = {"dev-operator": "sandbox-wallet-dev-key",
               "other-operator": "sandbox-wallet-other-key"}
BRANDS = {"dev-operator": "demo-casino", "other-operator": "other-casino"}
_ids = itertools.count()
Md = tuple[tuple[str, str], ...]


class Bench:
    """The running stack and stubs."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.channel = grpc.aio.insecure_channel(stack.replicas[0].target)
        self.game = blackjack_pb2_grpc.BlackjackServiceStub(self.channel)
        self.office = operator_pb2_grpc.OperatorServiceStub(self.channel)
        self.wallet_channels = {k: grpc.aio.insecure_channel(w.target)
                                for k, w in stack.wallets.items()}
        self.controls = {k: sandbox_pb2_grpc.SandboxControlServiceStub(c)
                         for k, c in self.wallet_channels.items()}

    def wallet_md(self, operator: str) -> Md:
        return (("authorization", f"Bearer {WALLET_KEYS[operator]}"),)

    async def session(self, operator: str) -> Md:
        pid = f"bench-{next(_ids)}"
        await self.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=10**9)),
            metadata=self.wallet_md(operator))
        s = await self.office.CreateSession(op.CreateSessionRequest(
            request_id=f"s-{pid}", brand_id=BRANDS[operator], player_id=pid),
            metadata=(("authorization", f"Bearer {KEYS[operator]}"),), timeout=30)
        return (("authorization", f"Bearer {s.session_token}"),)

    async def round(self, md: Md) -> None:
        i = next(_ids)
        dealt = (await self.game.Deal(bj.DealRequest(
            request_id=f"d{i}", variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=100)]), metadata=md, timeout=30)).round
        if dealt.status != bj.ROUND_STATUS_SETTLED:
            await self.game.Settle(bj.SettleRequest(request_id=f"s{i}",
                                                    round_id=dealt.round_id),
                                   metadata=md, timeout=30)

    async def close(self) -> None:
        for c in (self.channel, *self.wallet_channels.values()):
            await c.close()


async def _healthy(b: Bench, players: int, rounds: int) -> tuple[list[float], int]:
    """Latencies of the healthy operator's rounds (a failed round counts with its time)."""
    samples: list[float] = []
    failed = 0

    async def player() -> None:
        nonlocal failed
        md = await b.session("dev-operator")
        for _ in range(rounds // players):
            started = time.perf_counter()
            try:
                await b.round(md)
            except grpc.aio.AioRpcError:
                failed += 1
            samples.append(time.perf_counter() - started)

    await asyncio.gather(*(player() for _ in range(players)))
    return samples, failed


async def _victims(b: Bench, mds: list[Md], stop: asyncio.Event) -> tuple[int, int]:
    ok = failed = 0

    async def victim(md: Md) -> None:
        nonlocal ok, failed
        while not stop.is_set():
            try:
                await b.round(md)
                ok += 1
            except grpc.aio.AioRpcError:
                failed += 1
                await asyncio.sleep(0.01)

    await asyncio.gather(*(victim(md) for md in mds))
    return ok, failed


def _q(samples: list[float]) -> str:
    q = statistics.quantiles(samples, n=100)
    return f"p50 {q[49] * 1000:7.1f} ms  p99 {q[98] * 1000:7.1f} ms"


async def _phase(b: Bench, name: str, victims: list[Md], args: argparse.Namespace) -> None:
    stop = asyncio.Event()
    load = asyncio.create_task(_victims(b, victims, stop))
    started = time.perf_counter()
    samples, healthy_failed = await _healthy(b, args.players, args.rounds)
    wall = time.perf_counter() - started
    stop.set()
    ok, failed = await load
    print(f"{name:<22} dev-operator {len(samples)} rounds: {_q(samples)}, failed "
          f"{healthy_failed} ({len(samples) / wall:5.1f} rounds/s) | other-operator rounds "
          f"ok {ok}, failed {failed}", flush=True)


async def main_async(args: argparse.Namespace) -> None:
    """Set up, run the three phases, tear down."""
    server = await devdb.resolve_server_url()
    names = {k: devdb.unique_name(f"bench_ops_{k}") for k in ("rgs", "dev", "other")}
    urls = {k: await devdb.create_database(server, n) for k, n in names.items()}
    try:
        await migrate(urls["rgs"])
        await migrate_wallet(urls["dev"])
        await migrate_wallet(urls["other"])
        journal = await PostgresJournal.connect(urls["rgs"], min_size=1, max_size=1)
        await add_dev_operator_keys(journal)
        await journal.close()
        guard = ({"max_in_flight": 10_000, "breaker_failures": 1000} if args.unguarded
                 else {})
        fields = {"timeout_s": args.timeout}
        with tempfile.TemporaryDirectory() as tmp:
            stack = await start_stack(
                rgs_db=urls["rgs"], wallet_dbs={"dev-operator": urls["dev"],
                                                "other-operator": urls["other"]},
                replicas=1, logs=Path(tmp),
                wallet_fields={"dev-operator": fields,
                               "other-operator": {**fields, **guard}})
            b = Bench(stack)
            try:
                victims = [await b.session("other-operator") for _ in range(args.victims)]
                print(f"{'unguarded' if args.unguarded else 'guarded'}: wallet deadline "
                      f"{args.timeout} s, {args.players} healthy players, {args.victims} "
                      "players of the other operator", flush=True)
                await _healthy(b, args.players, 20)  # warm-up
                await _phase(b, "other wallet healthy", victims, args)
                await b.controls["other-operator"].SetFault(sandbox_pb2.SetFaultRequest(
                    fault=sandbox_pb2.Fault(kind=sandbox_pb2.FAULT_KIND_LATENCY,
                                            latency_ms=int(args.timeout * 3000))),
                    metadata=b.wallet_md("other-operator"))
                await _phase(b, "other wallet stalled", victims, args)
                stack.wallets["other-operator"].stop()
                await _phase(b, "other wallet dead", victims, args)
            finally:
                await b.close()
                stack.stop()
    finally:
        for n in names.values():
            await devdb.drop_database(server, n)


def main() -> None:
    """Parse the flags and run."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=150, help="healthy rounds per phase")
    ap.add_argument("--players", type=int, default=4, help="healthy players at once")
    ap.add_argument("--victims", type=int, default=16, help="other operator's players")
    ap.add_argument("--timeout", type=float, default=1.0, help="wallet deadline, seconds")
    ap.add_argument("--unguarded", action="store_true",
                    help="no bulkhead or breaker for the other operator (as before)")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
