"""Overload sheds on a real `rgs serve` process: past RGS_MAX_IN_FLIGHT, or past its operator's
rate from the platform file, a call is answered RESOURCE_EXHAUSTED with its ErrorInfo reason and
its retry delay (ErrorInfo metadata, google.rpc.RetryInfo, the ``retry-after-ms`` trailer),
before any money moves (the wallet's balance and transactions say so); health answers and the
drain lets the admitted calls finish; the shed Deal retried with the same request id plays once."""

from __future__ import annotations

import asyncio
import signal

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from replica_site import START, ReplicaSite, deal

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _stand(game: blackjack_pb2_grpc.BlackjackServiceAsyncStub,
                 md: tuple[tuple[str, str], ...], view: bj.RoundView) -> None:
    """Stand on 19 against the dealer's 13: the dealer draws 9S and busts, the player wins."""
    done = await game.Act(bj.ActRequest(
        request_id=f"st-{view.round_id}", round_id=view.round_id, expected_seq=view.seq,
        seat=view.to_act.seat, hand=view.to_act.hand, action=bj.ACTION_STAND),
        metadata=md, timeout=10)
    assert done.round.status == bj.ROUND_STATUS_SETTLED


def _shed_details(err: grpc.aio.AioRpcError) -> tuple[str, int, int, int]:
    """(reason, ErrorInfo retry_after_ms, RetryInfo ms, retry-after-ms trailer) of a shed."""
    trailer = dict(err.trailing_metadata() or ())
    status = status_pb2.Status.FromString(trailer["grpc-status-details-bin"])
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    assert status.details[0].Unpack(info) and status.details[1].Unpack(retry)
    assert info.domain == "rgs"
    return (info.reason, int(info.metadata["retry_after_ms"]),
            retry.retry_delay.ToMilliseconds(), int(trailer["retry-after-ms"]))


async def test_past_the_in_flight_cap_a_deal_is_shed_before_money_moves(
        replica_site: ReplicaSite) -> None:
    site = replica_site
    replica = await site.replica("capped", {"RGS_MAX_IN_FLIGHT": "2",
                                            "RGS_OVERLOAD_RETRY_AFTER_MS": "150",
                                            "RGS_SHUTDOWN_GRACE_S": "5"})
    async with grpc.aio.insecure_channel(replica.target) as ch:
        tokens = await site.players(ch, ["ov-1", "ov-2", "ov-3"])
        await site.hold_debits(2000, 2)
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        held = [asyncio.ensure_future(game.Deal(deal("d1"), metadata=md))
                for md in tokens[:2]]
        await asyncio.sleep(0.6)
        with pytest.raises(grpc.aio.AioRpcError) as shed:
            await game.Deal(deal("d1"), metadata=tokens[2], timeout=5)
        assert shed.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert _shed_details(shed.value) == ("OVERLOADED", 150, 150, 150)
        # Nothing moved for the shed player (and, below, no round of it exists).
        assert await site.wallet_of("ov-3") == (START, 0)
        # Health answers under overload (not counted, never shed).
        health = health_pb2_grpc.HealthStub(ch)
        checked = await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
        assert checked.status == health_pb2.HealthCheckResponse.SERVING
        # The drain lets the admitted calls finish: SIGTERM while both are held.
        replica.proc.send_signal(signal.SIGTERM)
        finished = await asyncio.gather(*held)
    assert [r.round.total_staked for r in finished] == [500, 500]
    assert replica.proc.wait(timeout=15) == 0
    # The shed Deal retried (same request id) on a replica with room plays once.
    other = await site.replica("roomy")
    async with grpc.aio.insecure_channel(other.target) as ch:
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as none:  # no round of the shed player
            await game.GetRound(bj.GetRoundRequest(), metadata=tokens[2], timeout=5)
        assert none.value.code() is grpc.StatusCode.NOT_FOUND
        retried = await game.Deal(deal("d1"), metadata=tokens[2], timeout=10)
        again = await game.Deal(deal("d1"), metadata=tokens[2], timeout=10)
        assert retried.round.round_id == again.round.round_id
        for md, view in zip(tokens, [*(r.round for r in finished), retried.round],
                            strict=True):
            await _stand(game, md, view)
    for pid in ("ov-1", "ov-2", "ov-3"):
        assert await site.wallet_of(pid) == (START + 500, 2)  # one debit, one win credit


async def test_an_operator_past_its_rate_is_shed_and_its_player_keeps_every_cent(
        replica_site: ReplicaSite) -> None:
    site = replica_site
    setup = await site.replica("setup")
    async with grpc.aio.insecure_channel(setup.target) as ch:
        tokens = await site.players(ch, ["rl-1", "rl-2", "rl-3"])
    limited = await site.replica("limited",
                                 operator={"rate_limit": {"calls_per_s": 0.5, "burst": 2}})
    async with grpc.aio.insecure_channel(limited.target) as ch:
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        views = [(await game.Deal(deal("r1"), metadata=md, timeout=10)).round
                 for md in tokens[:2]]
        with pytest.raises(grpc.aio.AioRpcError) as shed:
            await game.Deal(deal("r1"), metadata=tokens[2], timeout=10)
        assert shed.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        reason, info_ms, retry_ms, trailer_ms = _shed_details(shed.value)
        assert reason == "OPERATOR_RATE_LIMITED"
        assert 0 < info_ms == retry_ms == trailer_ms <= 2000
        assert await site.wallet_of("rl-3") == (START, 0)
        health = health_pb2_grpc.HealthStub(ch)
        checked = await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
        assert checked.status == health_pb2.HealthCheckResponse.SERVING
        await asyncio.sleep(info_ms / 1000 + 0.05)  # the delay it was told, then it is admitted
        views.append((await game.Deal(deal("r1"), metadata=tokens[2], timeout=10)).round)
    async with grpc.aio.insecure_channel(setup.target) as ch:
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        for md, view in zip(tokens, views, strict=True):
            await _stand(game, md, view)
    for pid in ("rl-1", "rl-2", "rl-3"):
        assert await site.wallet_of(pid) == (START + 500, 2)
