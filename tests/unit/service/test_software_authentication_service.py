"""A replica whose installed software differs from its release manifest takes no new round:
caught at start (it never reports ready) and by the periodic check (it turns unready), its new
Deals refused UNAVAILABLE / SOFTWARE_NOT_AUTHENTIC before any wallet call, while the round in
play finishes and is paid. A real gRPC server over a copy of the package with its manifest."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY
from service_fakes import Clock, FakeWallet
from test_api_errors import OPERATOR, _info

from rgs.api.server import LIVENESS_SERVICE, READINESS_SERVICES
from rgs.authenticity.check import Authentication
from rgs.authenticity.selfcheck import SelfCheck
from rgs.bootstrap import App, add_dev_operator_keys, build, serve
from rgs.config import RgsSettings, load_settings
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.memory import InMemoryJournal
from rgs.observability.metrics import MULTIPROCESS_ENV
from rgs.observability.replica_health import SOFTWARE_NOT_AUTHENTIC
from support.installed import alter, copied_package

STAND_WINS = ["TS", "6H", "9D", "7C", "9S"]  # 19 v 6+7, the dealer draws 9 and busts


class Replica:
    """A replica (real gRPC server, in-memory journal, fake wallet) over ``check``'s copy."""

    def __init__(self, app: App, port: int, wallet: FakeWallet) -> None:
        self.app, self.wallet = app, wallet
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        self.health = health_pb2_grpc.HealthStub(self.channel)
        self.ops = operator_pb2_grpc.OperatorServiceStub(self.channel)
        self.game = blackjack_pb2_grpc.BlackjackServiceStub(self.channel)

    async def readiness(self) -> set[int]:
        return {(await self.health.Check(health_pb2.HealthCheckRequest(service=n))).status
                for n in READINESS_SERVICES}

    async def liveness(self) -> int:
        return (await self.health.Check(
            health_pb2.HealthCheckRequest(service=LIVENESS_SERVICE))).status

    async def session(self, player: str) -> tuple[tuple[str, str], ...]:
        made = await self.ops.CreateSession(op.CreateSessionRequest(
            request_id=f"s-{player}", brand_id="demo-casino", player_id=player),
            metadata=OPERATOR)
        return (("authorization", f"Bearer {made.session_token}"),)

    async def deal(self, md: tuple[tuple[str, str], ...], request_id: str,
                   forced: list[str] | None = None) -> bj.RoundView:
        got = await self.game.Deal(bj.DealRequest(
            request_id=request_id, variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=100)], forced_cards=forced or []), metadata=md)
        return got.round


async def _replica(check: SelfCheck, wallet: FakeWallet) -> tuple[Replica, object]:
    clock = Clock()
    journal = InMemoryJournal(clock=clock, lock_wait_s=0.2)
    app = await build(RgsSettings(test_mode=True), journal=journal, wallet=wallet, clock=clock,
                      authentication=check)
    await add_dev_operator_keys(journal)
    running = await serve(load_settings(listen="127.0.0.1:0"), app)
    return Replica(app, running.port, wallet), running


def _metric(name: str) -> float | None:
    return REGISTRY.get_sample_value(name)


async def test_an_altered_source_file_is_caught_at_start_and_no_round_is_dealt(
        tmp_path: Path) -> None:
    root = copied_package(tmp_path)
    alter(root / "engine" / "rules.py")
    check = SelfCheck(root=root, interval_s=3600)
    mismatches: list[Authentication] = []
    check.on_mismatch = mismatches.append
    wallet = FakeWallet()
    replica, running = await _replica(check, wallet)
    try:
        # Never ready: the check ran before the server reported anything.
        assert await replica.readiness() == {health_pb2.HealthCheckResponse.NOT_SERVING}
        assert await replica.liveness() == health_pb2.HealthCheckResponse.SERVING
        assert [(d.path, d.kind) for r in mismatches for d in r.differences] == [
            ("engine/rules.py", "altered")]
        assert _metric("rgs_software_authentic") == 0
        md = await replica.session("alice")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await replica.deal(md, "d1", STAND_WINS)
        assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
        assert _info(refused.value).reason == "SOFTWARE_NOT_AUTHENTIC"
        assert "rules.py" not in (refused.value.details() or "")  # the player learns no file
        assert wallet.calls == [] and wallet.balances["alice"] == 100_000
    finally:
        await replica.channel.close()
        await running.stop(grace=None)  # type: ignore[attr-defined]
        await replica.app.close()


async def test_the_periodic_check_catches_a_file_altered_after_start_and_the_round_in_play_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As a worker of a multi-process replica: the marker turns its sibling workers unready.
    replica_dir = tmp_path / "replica"
    replica_dir.mkdir()
    monkeypatch.setenv(MULTIPROCESS_ENV, str(replica_dir))
    root = copied_package(tmp_path)
    check = SelfCheck(root=root, interval_s=0.2)
    mismatches: list[Authentication] = []
    check.on_mismatch = mismatches.append
    wallet = FakeWallet(balances={"alice": 100_000, "bob": 50_000})
    replica, running = await _replica(check, wallet)
    try:
        assert await replica.readiness() == {health_pb2.HealthCheckResponse.SERVING}
        assert _metric("rgs_software_authentic") == 1
        started = _metric("rgs_software_authentication_timestamp_seconds")
        alice, bob = await replica.session("alice"), await replica.session("bob")
        in_play = await replica.deal(alice, "d1", STAND_WINS)
        assert in_play.status == bj.ROUND_STATUS_PLAYER_TURN
        assert wallet.balances["alice"] == 99_900

        original = (root / "service" / "money.py").read_bytes()
        alter(root / "service" / "money.py")
        for _ in range(100):
            if await replica.readiness() == {health_pb2.HealthCheckResponse.NOT_SERVING}:
                break
            await asyncio.sleep(0.1)
        assert await replica.readiness() == {health_pb2.HealthCheckResponse.NOT_SERVING}
        assert _metric("rgs_software_authentic") == 0
        assert (_metric("rgs_software_authentication_timestamp_seconds") or 0) > (started or 0)
        assert mismatches and mismatches[0].differences[0].path == "service/money.py"
        assert (replica_dir / SOFTWARE_NOT_AUTHENTIC).exists()

        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await replica.deal(bob, "d2")
        assert _info(refused.value).reason == "SOFTWARE_NOT_AUTHENTIC"
        assert wallet.balances["bob"] == 50_000  # nothing taken
        # The round in play finishes: alice stands on 19, the dealer busts, she is paid.
        done = await replica.game.Act(bj.ActRequest(
            request_id="a1", round_id=in_play.round_id, expected_seq=in_play.seq, seat=1,
            action=bj.ACTION_STAND), metadata=alice)
        assert done.round.status == bj.ROUND_STATUS_SETTLED
        assert done.round.total_paid == 200
        assert wallet.balances["alice"] == 100_100
        assert wallet.balances["bob"] == 50_000
        # Restoring the file does not make the replica trust itself again.
        (root / "service" / "money.py").write_bytes(original)
        await asyncio.sleep(0.5)
        with pytest.raises(grpc.aio.AioRpcError) as still:
            await replica.deal(alice, "d3")
        assert _info(still.value).reason == "SOFTWARE_NOT_AUTHENTIC"
    finally:
        await replica.channel.close()
        await running.stop(grace=None)  # type: ignore[attr-defined]
        await replica.app.close()


async def test_a_development_copy_without_a_manifest_serves_but_production_refuses(
        tmp_path: Path) -> None:
    root = copied_package(tmp_path)
    (root / "RELEASE-MANIFEST.json").unlink()
    for required, ready in ((False, True), (True, False)):
        check = SelfCheck(root=root, interval_s=3600, manifest_required=required)
        replica, running = await _replica(check, FakeWallet())
        try:
            assert (await replica.readiness() == {health_pb2.HealthCheckResponse.SERVING}) \
                is ready
            assert (replica.app.game.software.failure is None) is ready
            assert _metric("rgs_software_authentic") == 0
        finally:
            await replica.channel.close()
            await running.stop(grace=None)  # type: ignore[attr-defined]
            await replica.app.close()


def test_production_requires_the_manifest_and_the_interval_is_at_most_a_day() -> None:
    with pytest.raises(ValueError, match="at most 86400"):
        SelfCheck(interval_s=86401)
    with pytest.raises(Exception, match="authenticate_interval_s"):
        load_settings(authenticate_interval_s=90000)
    with pytest.raises(Exception, match="release_digest"):
        load_settings(release_digest="abc")
