"""A failed RNG health test stops the replica dealing: the deal it breaks moves no money, the
gRPC readiness turns NOT_SERVING while liveness stays SERVING (unready, not restarted: the
process keeps its failure counter and logs), and later deals are refused before any wallet
call."""

from __future__ import annotations

import os
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from service_fakes import Clock, FakeWallet
from test_api_errors import OPERATOR, _info

from rgs.api.server import LIVENESS_SERVICE, READINESS_SERVICES
from rgs.bootstrap import CertifiedCards, add_dev_operator_keys, build, serve
from rgs.config import RgsSettings, load_settings
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.memory import InMemoryJournal
from rgs.observability.metrics import MULTIPROCESS_ENV
from rgs.observability.replica_health import RNG_FAILED
from rgs.rng import CertifiedRng, RngSettings


class SwitchableSource:
    """os.urandom until ``stuck``; then zeros (a stuck entropy source)."""

    def __init__(self) -> None:
        self.stuck = False

    def __call__(self, n: int) -> bytes:
        return bytes(n) if self.stuck else os.urandom(n)


async def test_stuck_entropy_source_stops_dealing_and_makes_the_replica_unready_not_dead(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # As a worker of a multi-process replica: the replica's folder gets the marker that turns
    # the other workers unready too (tests/ops/test_ops_workers.py shows them turn).
    monkeypatch.setenv(MULTIPROCESS_ENV, str(tmp_path))
    source = SwitchableSource()
    rng = CertifiedRng(RngSettings(prediction_resistance=True, block_bytes=64), read=source)
    clock = Clock()
    journal = InMemoryJournal(clock=clock, lock_wait_s=0.2)
    wallet = FakeWallet()
    app = await build(RgsSettings(), journal=journal, wallet=wallet,
                      cards=CertifiedCards(rng), clock=clock)
    await add_dev_operator_keys(journal)
    running = await serve(load_settings(listen="127.0.0.1:0"), app)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        health = health_pb2_grpc.HealthStub(channel)
        ops = operator_pb2_grpc.OperatorServiceStub(channel)
        game = blackjack_pb2_grpc.BlackjackServiceStub(channel)
        made = await ops.CreateSession(op.CreateSessionRequest(
            request_id="s1", brand_id="demo-casino", player_id="alice"), metadata=OPERATOR)
        md = (("authorization", f"Bearer {made.session_token}"),)
        assert (await health.Check(health_pb2.HealthCheckRequest(service=""))).status == \
            health_pb2.HealthCheckResponse.SERVING

        async def deal(i: int) -> bj.RoundView:
            got = await game.Deal(bj.DealRequest(request_id=f"d{i}", variant_id="classic-resplit",
                                                 boxes=[bj.BoxBet(seat=1, stake=100)]),
                                  metadata=md)
            return got.round

        async def finish(i: int, view: bj.RoundView) -> None:
            if view.status != bj.ROUND_STATUS_SETTLED:
                await game.Settle(bj.SettleRequest(request_id=f"t{i}", round_id=view.round_id),
                                  metadata=md)

        await finish(0, await deal(0))
        source.stuck = True
        refused = None
        # Buffered DRBG output may deal a little before the next reseed meets the stuck source,
        # in a Deal or in the dealer's draws of a Settle; either call must move no money.
        for i in range(1, 40):
            before = wallet.balances["alice"]
            try:
                view = await deal(i)
                before = wallet.balances["alice"]  # the open round's stake rightly stands
                await finish(i, view)
            except grpc.aio.AioRpcError as err:
                refused = err
                break
        assert refused is not None, "a stuck entropy source kept dealing"
        assert refused.code() is grpc.StatusCode.UNAVAILABLE
        assert _info(refused).reason == "RNG_UNAVAILABLE"
        assert wallet.balances["alice"] == before  # the failed call moved no money
        assert not rng.health.healthy
        for name in READINESS_SERVICES:
            status = (await health.Check(health_pb2.HealthCheckRequest(service=name))).status
            assert status == health_pb2.HealthCheckResponse.NOT_SERVING, name
        assert (tmp_path / RNG_FAILED).exists()
        live = await health.Check(health_pb2.HealthCheckRequest(service=LIVENESS_SERVICE))
        assert live.status == health_pb2.HealthCheckResponse.SERVING
        calls = len(wallet.calls)
        with pytest.raises(grpc.aio.AioRpcError) as again:
            await deal(99)  # refused at once, whether or not a round was left open
        assert _info(again.value).reason == "RNG_UNAVAILABLE"
        assert len(wallet.calls) == calls  # refused before any money moved
    finally:
        await channel.close()
        await running.stop(grace=None)
        await app.close()


async def test_rng_reseed_interval_and_prediction_resistance_come_from_the_settings(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RGS_RNG_RESEED_INTERVAL", "16")
    monkeypatch.setenv("RGS_RNG_PREDICTION_RESISTANCE", "true")
    clock = Clock()
    app = await build(load_settings(), journal=InMemoryJournal(clock=clock), wallet=FakeWallet(),
                      clock=clock)
    try:
        assert app.rng is not None
        assert app.rng.settings.reseed_interval == 16
        assert app.rng.settings.prediction_resistance is True
        assert app.rng_health is app.rng.health and app.rng.health.healthy
    finally:
        await app.close()
