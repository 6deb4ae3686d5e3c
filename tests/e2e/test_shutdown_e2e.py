"""SIGTERM to a real `rgs serve` process with calls in flight (the sandbox wallet holding each
debit back): calls that fit in RGS_SHUTDOWN_GRACE_S finish OK, a call arriving after the signal
is refused UNAVAILABLE, calls that outlast the grace are answered UNAVAILABLE /
SERVER_SHUTTING_DOWN, and their retry with the same request id on another replica pays exactly
once. The measured figures are printed (run with -s)."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Awaitable
from pathlib import Path

import grpc
import pytest
from e2e_servers import ServerProcess, free_port
from replica_site import STAND_WINS, START, WALLET_AUTH, ReplicaSite, deal

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _timed(call: Awaitable[bj.DealResponse]) -> tuple[float, object]:
    began = time.monotonic()
    try:
        result: object = await call
    except grpc.aio.AioRpcError as err:
        result = err
    return time.monotonic() - began, result


def _stopped_line(log: Path) -> dict[str, object]:
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    return next(r for r in lines if "calls_cut_short" in r)


async def _wait_exit(proc: ServerProcess, signalled: float, timeout: float
                     ) -> tuple[int, float]:
    """The exit code, and the seconds from the signal to the exit."""
    while proc.proc.poll() is None:
        assert time.monotonic() - signalled < timeout, "the replica did not exit in time"
        await asyncio.sleep(0.02)
    return proc.proc.returncode, time.monotonic() - signalled


async def test_sigterm_lets_calls_in_flight_finish_refuses_new_ones_and_cuts_stragglers_short(
        replica_site: ReplicaSite) -> None:
    site = replica_site
    from test_play_e2e import error_info

    survivor = await site.replica("survivor", {})
    # 1. Three deals held 1.5 s each by the wallet; SIGTERM 0.5 s in; the grace is 4 s.
    patient = await site.replica("patient", {"RGS_SHUTDOWN_GRACE_S": "4"})
    async with grpc.aio.insecure_channel(patient.target) as ch:
        tokens = await site.players(ch, ["sd-1", "sd-2", "sd-3"])
        await site.hold_debits(1500, 3)
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        deals = [asyncio.ensure_future(_timed(game.Deal(deal("d"), metadata=md)))
                 for md in tokens]
        await asyncio.sleep(0.5)
        patient.proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        await asyncio.sleep(0.2)
        late = await _timed(game.Deal(deal("late"), metadata=tokens[0], timeout=5))
        finished = await asyncio.gather(*deals)
    code, exit_s = await _wait_exit(patient, signalled, 10)
    assert isinstance(late[1], grpc.aio.AioRpcError)
    assert late[1].code() is grpc.StatusCode.UNAVAILABLE
    assert all(isinstance(r, bj.DealResponse) for _, r in finished)
    assert code == 0
    stopped = _stopped_line(patient.log)
    assert (stopped["calls_in_flight"], stopped["calls_cut_short"]) == (3, 0)
    print(f"\nSIGTERM with 3 calls in flight (wallet 1.5 s, grace 4 s): calls took "
          f"{[round(t, 2) for t, _ in finished]} s, all OK; a call 0.2 s after the signal: "
          f"{late[1].code().name} in {late[0]:.2f} s; exit code {code} {exit_s:.2f} s after "
          f"the signal")

    # 2. Two deals held 6 s; the grace is 0.5 s: both answered SERVER_SHUTTING_DOWN.
    hasty = await site.replica("hasty", {"RGS_SHUTDOWN_GRACE_S": "0.5"})
    async with grpc.aio.insecure_channel(hasty.target) as ch:
        tokens = await site.players(ch, ["sd-4", "sd-5"])
        await site.hold_debits(6000, 2)
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        deals = [asyncio.ensure_future(_timed(game.Deal(deal("d"), metadata=md)))
                 for md in tokens]
        await asyncio.sleep(0.5)
        hasty.proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        cut = await asyncio.gather(*deals)
    code, exit_s = await _wait_exit(hasty, signalled, 10)
    assert code == 0
    for _, err in cut:
        assert isinstance(err, grpc.aio.AioRpcError)
        assert err.code() is grpc.StatusCode.UNAVAILABLE
        assert error_info(err).reason == "SERVER_SHUTTING_DOWN"
    stopped = _stopped_line(hasty.log)
    assert (stopped["calls_in_flight"], stopped["calls_cut_short"]) == (2, 2)
    # The clients retry with the same request id on the surviving replica.
    async with grpc.aio.insecure_channel(survivor.target) as ch:
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        retried = [await game.Deal(deal("d"), metadata=md) for md in tokens]
    for pid, r in zip(["sd-4", "sd-5"], retried, strict=True):
        assert r.round.total_staked == 500
        resp = await site.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                            metadata=WALLET_AUTH)
        assert resp.player.balance == START - 500  # one stake taken, the cut one given back
        txns = await site.control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
            player_id=pid), metadata=WALLET_AUTH)
        kinds = sorted(sandbox_pb2.TransactionKind.Name(t.kind) for t in txns.transactions)
        assert kinds.count("TRANSACTION_KIND_DEBIT") == 1
    print(f"SIGTERM with 2 calls in flight (wallet 6 s, grace 0.5 s): answered "
          f"{[e.code().name for _, e in cut if isinstance(e, grpc.aio.AioRpcError)]} "
          f"SERVER_SHUTTING_DOWN after {[round(t, 2) for t, _ in cut]} s; exit code {code} "
          f"{exit_s:.2f} s after the signal; retries on another replica paid once each")


async def test_sigterm_drains_the_browser_edge_like_the_grpc_port(
        replica_site: ReplicaSite) -> None:
    """Calls in flight on the browser edge are counted in the same drain: one that fits in
    the grace finishes OK; one that outlasts it is answered UNAVAILABLE with the same
    ErrorInfo reason as over gRPC."""
    import base64

    import httpx
    from google.rpc import error_details_pb2

    site = replica_site

    async def deal_during_sigterm(name: str, grace: str, hold_ms: int) -> tuple[
            httpx.Response, dict[str, object]]:
        web_port = free_port()
        replica = await site.replica(name, {"RGS_SHUTDOWN_GRACE_S": grace,
                                            "RGS_WEB_LISTEN": f"127.0.0.1:{web_port}"})
        async with grpc.aio.insecure_channel(replica.target) as ch:
            (md,) = await site.players(ch, [f"sd-{name}"])
        await site.hold_debits(hold_ms, 1)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}",
                                     timeout=20) as client:
            call = asyncio.ensure_future(client.post(
                "/rgs.blackjack.v1.BlackjackService/Deal", json={
                    "requestId": "d", "variantId": "classic-resplit",
                    "boxes": [{"seat": 1, "stake": "500"}], "forcedCards": STAND_WINS},
                headers={"connect-protocol-version": "1", "authorization": md[0][1]}))
            await asyncio.sleep(0.4)
            replica.proc.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            resp = await call
        code, _ = await _wait_exit(replica, signalled, 15)
        assert code == 0
        return resp, _stopped_line(replica.log)

    ok, stopped = await deal_during_sigterm("web-patient", "3", 1200)
    assert ok.status_code == 200, ok.text
    assert int(ok.json()["round"]["totalStaked"]) == 500
    assert (stopped["calls_in_flight"], stopped["calls_cut_short"]) == (1, 0)

    cut, stopped = await deal_during_sigterm("web-hasty", "0.5", 6000)
    assert cut.status_code == 503, cut.text
    body = cut.json()
    assert body["code"] == "unavailable"
    raw = body["details"][0]["value"]
    info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))
    assert info.reason == "SERVER_SHUTTING_DOWN"
    assert (stopped["calls_in_flight"], stopped["calls_cut_short"]) == (1, 1)
