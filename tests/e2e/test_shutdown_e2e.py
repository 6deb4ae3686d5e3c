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
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from e2e_servers import ServerProcess, free_port, start, start_wallet

from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import SANDBOX_WALLET_TEMPLATE
from support.platforms import SANDBOX_WALLET_KEYS, write_platform_file

pytestmark = pytest.mark.asyncio(loop_scope="session")

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET_AUTH = (("authorization", f"Bearer {SANDBOX_WALLET_KEYS['dev-operator']}"),)
START = 50_000
STAND_WINS = ["TS", "6H", "9D", "7C", "9S"]


@dataclass
class Site:
    """The wallet, the database and a way to start replicas with their own settings."""

    wallet: ServerProcess
    control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    replica: Callable[[str, dict[str, str]], Awaitable[ServerProcess]]


@pytest_asyncio.fixture(loop_scope="session")
async def site(rgs_database_url: str, fresh_database: Callable[[str], Awaitable[str]],
               tmp_path: Path) -> AsyncIterator[Site]:
    journal = await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    wallet = await start_wallet("dev-operator", await fresh_database(SANDBOX_WALLET_TEMPLATE),
                                tmp_path)
    started: list[ServerProcess] = [wallet]
    platform_file = write_platform_file(tmp_path / "platform.json",
                                        {"dev-operator": wallet.target})

    async def replica(name: str, env: dict[str, str]) -> ServerProcess:
        port = free_port()
        proc = await start(["-m", "rgs", "serve", "--listen", f"127.0.0.1:{port}",
                            "--database-url", rgs_database_url, "--test-mode"],
                           target=f"127.0.0.1:{port}", log=tmp_path / f"{name}.log",
                           env={"RGS_PLATFORM_FILE": str(platform_file),
                                "RGS_LOG_FORMAT": "json", **env})
        started.append(proc)
        return proc

    async with grpc.aio.insecure_channel(wallet.target) as ch:
        try:
            yield Site(wallet=wallet, control=sandbox_pb2_grpc.SandboxControlServiceStub(ch),
                       replica=replica)
        finally:
            for p in reversed(started):
                p.stop()


async def _players(site: Site, channel: grpc.aio.Channel, names: list[str]
                   ) -> list[tuple[tuple[str, str], ...]]:
    tokens = []
    for pid in names:
        await site.control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
            metadata=WALLET_AUTH)
        made = await operator_pb2_grpc.OperatorServiceStub(channel).CreateSession(
            op.CreateSessionRequest(request_id=f"s-{pid}", brand_id="demo-casino",
                                    player_id=pid), metadata=OPERATOR)
        tokens.append((("authorization", f"Bearer {made.session_token}"),))
    return tokens


async def _hold_debits(site: Site, ms: int, count: int) -> None:
    await site.control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
        kind=sandbox_pb2.FAULT_KIND_LATENCY, method=sandbox_pb2.WALLET_METHOD_DEBIT,
        latency_ms=ms, remaining=count)), metadata=WALLET_AUTH)


def _deal(request_id: str) -> bj.DealRequest:
    return bj.DealRequest(request_id=request_id, variant_id="classic-resplit",
                          boxes=[bj.BoxBet(seat=1, stake=500)], forced_cards=STAND_WINS)


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
        site: Site) -> None:
    from test_play_e2e import error_info

    survivor = await site.replica("survivor", {})
    # 1. Three deals held 1.5 s each by the wallet; SIGTERM 0.5 s in; the grace is 4 s.
    patient = await site.replica("patient", {"RGS_SHUTDOWN_GRACE_S": "4"})
    async with grpc.aio.insecure_channel(patient.target) as ch:
        tokens = await _players(site, ch, ["sd-1", "sd-2", "sd-3"])
        await _hold_debits(site, 1500, 3)
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        deals = [asyncio.ensure_future(_timed(game.Deal(_deal("d"), metadata=md)))
                 for md in tokens]
        await asyncio.sleep(0.5)
        patient.proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        await asyncio.sleep(0.2)
        late = await _timed(game.Deal(_deal("late"), metadata=tokens[0], timeout=5))
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
        tokens = await _players(site, ch, ["sd-4", "sd-5"])
        await _hold_debits(site, 6000, 2)
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        deals = [asyncio.ensure_future(_timed(game.Deal(_deal("d"), metadata=md)))
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
        retried = [await game.Deal(_deal("d"), metadata=md) for md in tokens]
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


async def test_sigterm_drains_the_browser_edge_like_the_grpc_port(site: Site) -> None:
    """Calls in flight on the browser edge are counted in the same drain: one that fits in
    the grace finishes OK; one that outlasts it is answered UNAVAILABLE with the same
    ErrorInfo reason as over gRPC."""
    import base64

    import httpx
    from google.rpc import error_details_pb2

    async def deal_during_sigterm(name: str, grace: str, hold_ms: int) -> tuple[
            httpx.Response, dict[str, object]]:
        web_port = free_port()
        replica = await site.replica(name, {"RGS_SHUTDOWN_GRACE_S": grace,
                                            "RGS_WEB_LISTEN": f"127.0.0.1:{web_port}"})
        async with grpc.aio.insecure_channel(replica.target) as ch:
            (md,) = await _players(site, ch, [f"sd-{name}"])
        await _hold_debits(site, hold_ms, 1)
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
