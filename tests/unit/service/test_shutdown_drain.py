"""Stopping a replica: readiness goes NOT_SERVING at once, new calls are refused UNAVAILABLE,
calls in flight get the drain time to finish, and the ones that outlast it are answered
UNAVAILABLE / SERVER_SHUTTING_DOWN (retryable) rather than cancelled; their retry with the same
request id on another server settles the money exactly once. (Real grpc.aio servers over the
real bootstrap with an in-memory journal and a wallet that answers slowly.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
import pytest_asyncio
from service_fakes import Clock, FakeWallet, SeededCards
from test_api_errors import OPERATOR, _info

from rgs.api.server import RunningServer
from rgs.bootstrap import App, add_dev_operator_keys, build, serve
from rgs.config import RgsSettings, load_settings
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.memory import InMemoryJournal
from rgs.wallet.port import MoneyCall, MoneyKind, MoneyResult

STAND_WINS = ("TS", "6H", "9D", "7C", "9S")


@dataclass
class SlowWallet(FakeWallet):
    """Takes ``delay`` seconds before it applies a debit."""

    delay: float = 0.0

    async def move(self, call: MoneyCall) -> MoneyResult:
        if call.kind is MoneyKind.DEBIT:
            await asyncio.sleep(self.delay)
        return await super().move(call)


@dataclass
class Replica:
    app: App
    wallet: SlowWallet
    running: RunningServer
    channel: grpc.aio.Channel

    @property
    def game(self) -> blackjack_pb2_grpc.BlackjackServiceAsyncStub:
        return blackjack_pb2_grpc.BlackjackServiceStub(self.channel)

    async def token(self, player: str) -> tuple[tuple[str, str], ...]:
        made = await operator_pb2_grpc.OperatorServiceStub(self.channel).CreateSession(
            op.CreateSessionRequest(request_id=f"s-{player}", brand_id="demo-casino",
                                    player_id=player), metadata=OPERATOR)
        return (("authorization", f"Bearer {made.session_token}"),)


@pytest_asyncio.fixture
async def replica() -> AsyncIterator[Replica]:
    clock = Clock()
    wallet = SlowWallet()
    app = await build(RgsSettings(test_mode=True), journal=InMemoryJournal(clock=clock),
                      wallet=wallet, cards=SeededCards(7), clock=clock)
    await add_dev_operator_keys(app.journal)
    running = await serve(load_settings(listen="127.0.0.1:0"), app)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    yield Replica(app=app, wallet=wallet, running=running, channel=channel)
    await channel.close()
    await running.server.stop(None)
    await app.close()


def _deal(request_id: str) -> bj.DealRequest:
    return bj.DealRequest(request_id=request_id, variant_id="classic-resplit",
                          boxes=[bj.BoxBet(seat=1, stake=100)], forced_cards=STAND_WINS)


async def _in_flight(r: Replica, n: int) -> None:
    while len(r.running.calls) < n:
        await asyncio.sleep(0.01)


async def test_calls_in_flight_finish_within_the_drain_time_and_new_calls_are_refused(
        replica: Replica) -> None:
    tokens = [await replica.token(p) for p in ("alice", "bob")]
    replica.wallet.delay = 0.6
    replica.wallet.balances["bob"] = 1_000
    deals = [asyncio.ensure_future(replica.game.Deal(_deal("d1"), metadata=md)) for md in tokens]
    await _in_flight(replica, 2)
    stopping = asyncio.create_task(replica.running.stop(grace=5))
    await asyncio.sleep(0.1)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await replica.game.Deal(_deal("d2"), metadata=tokens[0], timeout=3)
    assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
    done = await asyncio.gather(*deals)
    assert all(d.round.status == bj.ROUND_STATUS_PLAYER_TURN for d in done)
    report = await stopping
    assert (report.in_flight, report.cut_short) == (2, 0)
    assert replica.wallet.balances == {"alice": 100_000 - 100, "bob": 1_000 - 100}


async def test_calls_outlasting_the_drain_time_fail_retryably_and_their_retry_pays_once(
        replica: Replica) -> None:
    md = await replica.token("alice")
    replica.wallet.delay = 30  # a wallet that will not answer before the drain time is up
    deal = asyncio.ensure_future(replica.game.Deal(_deal("d1"), metadata=md))
    await _in_flight(replica, 1)
    started = time.monotonic()
    report = await replica.running.stop(grace=0.3)
    assert time.monotonic() - started < 2.5
    assert (report.in_flight, report.cut_short) == (1, 1)
    with pytest.raises(grpc.aio.AioRpcError) as cut:
        await deal
    assert cut.value.code() is grpc.StatusCode.UNAVAILABLE
    assert _info(cut.value).reason == "SERVER_SHUTTING_DOWN"
    assert replica.wallet.balances["alice"] == 100_000  # the debit never reached the wallet
    # The client retries with the same request id on another server of the same installation.
    replica.wallet.delay = 0
    other = await serve(load_settings(listen="127.0.0.1:0"), replica.app)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{other.port}") as channel:
            retried = await blackjack_pb2_grpc.BlackjackServiceStub(channel).Deal(
                _deal("d1"), metadata=md)
    finally:
        await other.stop(grace=1)
    assert retried.round.total_staked == 100
    assert replica.wallet.balances["alice"] == 100_000 - 100
    kinds = sorted(c.kind.value for c in replica.wallet.applied.values())
    assert kinds == ["debit", "rollback"]  # the cut call's debit blocked by its rollback
