"""The browser edge's cost: the same rounds over native gRPC and over the Connect protocol (JSON
and binary protobuf, HTTP/1.1 keep-alive, as a browser sends them), against one real RGS
process with its browser edge on and a real sandbox wallet. One player at a time, so the
figures are latencies, not throughput. Prints p50/p99 of Deal and of Act per protocol.

Run: ``.venv/bin/python bench/web.py [--rounds 300]``. Needs PostgreSQL (DATABASE_URL, local or
embedded, as the tests find it); the databases it makes are dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "e2e")]

import grpc  # noqa: E402
import httpx  # noqa: E402
from e2e_servers import free_port, start_stack  # noqa: E402

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

SERVICE = "rgs.blackjack.v1.BlackjackService"
CARDS = ["TS", "7H", "9D", "TC"]  # stand on 19 against 17: every round is one Deal + one Act
_ids = itertools.count()

#: (deal, act) for one round: each returns the seconds its call took.
Round = Callable[[str], Awaitable[tuple[float, float]]]


def _q(xs: list[float]) -> str:
    ms = sorted(x * 1000 for x in xs)
    return (f"p50 {statistics.median(ms):6.2f} ms  p99 "
            f"{ms[min(len(ms) - 1, int(len(ms) * 0.99))]:6.2f} ms")


def native(channel: grpc.aio.Channel) -> Round:
    game = blackjack_pb2_grpc.BlackjackServiceStub(channel)

    async def play(token: str) -> tuple[float, float]:
        md = (("authorization", f"Bearer {token}"),)
        t0 = time.perf_counter()
        view = (await game.Deal(bj.DealRequest(
            request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=100)],
            forced_cards=CARDS), metadata=md)).round
        t1 = time.perf_counter()
        await game.Act(bj.ActRequest(request_id="a", round_id=view.round_id,
                                     expected_seq=view.seq, seat=1, action=bj.ACTION_STAND),
                       metadata=md)
        return t1 - t0, time.perf_counter() - t1
    return play


def connect(client: httpx.AsyncClient, binary: bool) -> Round:
    kind = "application/proto" if binary else "application/json"

    async def call(method: str, request: bj.DealRequest | bj.ActRequest, token: str,
                   reply: type[bj.DealResponse] | type[bj.ActResponse]) -> bj.RoundView:
        from google.protobuf import json_format
        body = (request.SerializeToString() if binary
                else json_format.MessageToJson(request, indent=None).encode())
        resp = await client.post(f"/{SERVICE}/{method}", content=body, headers={
            "content-type": kind, "connect-protocol-version": "1",
            "authorization": f"Bearer {token}"})
        resp.raise_for_status()
        msg = (reply.FromString(resp.content) if binary
               else json_format.Parse(resp.content, reply()))
        return msg.round

    async def play(token: str) -> tuple[float, float]:
        t0 = time.perf_counter()
        view = await call("Deal", bj.DealRequest(
            request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=100)],
            forced_cards=CARDS), token, bj.DealResponse)
        t1 = time.perf_counter()
        await call("Act", bj.ActRequest(request_id="a", round_id=view.round_id,
                                        expected_seq=view.seq, seat=1,
                                        action=bj.ACTION_STAND), token, bj.ActResponse)
        return t1 - t0, time.perf_counter() - t1
    return play


async def measure(name: str, play: Round, new_token: Callable[[], Awaitable[str]],
                  rounds: int) -> None:
    for _ in range(20):  # warm-up
        await play(await new_token())
    deals, acts = [], []
    for _ in range(rounds):
        deal, act = await play(await new_token())
        deals.append(deal)
        acts.append(act)
    print(f"{name:<24} Deal {_q(deals)} | Act {_q(acts)}", flush=True)


async def main_async(args: argparse.Namespace) -> None:
    """Set up, measure each protocol, tear down."""
    server = await devdb.resolve_server_url()
    names = {k: devdb.unique_name(f"bench_web_{k}") for k in ("rgs", "dev")}
    urls = {k: await devdb.create_database(server, n) for k, n in names.items()}
    try:
        await migrate(urls["rgs"])
        await migrate_wallet(urls["dev"])
        journal = await PostgresJournal.connect(urls["rgs"], min_size=1, max_size=1)
        await add_dev_operator_keys(journal)
        await journal.close()
        web_port = free_port()
        with tempfile.TemporaryDirectory() as tmp:
            stack = await start_stack(rgs_db=urls["rgs"], wallet_dbs={"dev-operator": urls["dev"]},
                                      replicas=1, logs=Path(tmp),
                                      env={"RGS_WEB_LISTEN": f"127.0.0.1:{web_port}"})
            channel = grpc.aio.insecure_channel(stack.replicas[0].target)
            wallet_channel = grpc.aio.insecure_channel(stack.wallet.target)
            operator = operator_pb2_grpc.OperatorServiceStub(channel)
            control = sandbox_pb2_grpc.SandboxControlServiceStub(wallet_channel)

            async def new_token() -> str:
                pid = f"bench-web-{next(_ids)}"
                await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
                    player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=10**9)),
                    metadata=(("authorization", "Bearer sandbox-wallet-dev-key"),))
                made = await operator.CreateSession(op.CreateSessionRequest(
                    request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid),
                    metadata=(("authorization", "Bearer rgs-dev-operator-key"),))
                return str(made.session_token)

            try:
                print(f"{args.rounds} rounds per protocol, one player at a time "
                      "(a fresh player per round)", flush=True)
                await measure("native gRPC", native(channel), new_token, args.rounds)
                async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}",
                                             timeout=10) as client:
                    await measure("Connect, JSON", connect(client, False), new_token,
                                  args.rounds)
                    await measure("Connect, binary", connect(client, True), new_token,
                                  args.rounds)
            finally:
                await channel.close()
                await wallet_channel.close()
                stack.stop()
    finally:
        for n in names.values():
            await devdb.drop_database(server, n)


def main() -> None:
    """Parse the flags and run."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=300, help="measured rounds per protocol")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
