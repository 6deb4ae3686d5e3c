"""Overload sheds on a real `rgs serve` process: past RGS_MAX_IN_FLIGHT, or past its operator's
rate from the platform file, a call is answered RESOURCE_EXHAUSTED with its ErrorInfo reason and
its retry delay (ErrorInfo metadata, google.rpc.RetryInfo, the ``retry-after-ms`` trailer),
before any money moves (the wallet's balance and transactions say so); health answers and the
drain lets the admitted calls finish; the shed Deal retried with the same request id plays once."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from e2e_servers import ServerProcess, free_port, start, start_wallet
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

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
    wallet: ServerProcess
    control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    replica: Callable[[str, dict[str, str], dict[str, object] | None],
                      Awaitable[ServerProcess]]


@pytest_asyncio.fixture(loop_scope="session")
async def site(rgs_database_url: str, fresh_database: Callable[[str], Awaitable[str]],
               tmp_path: Path) -> AsyncIterator[Site]:
    journal = await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    wallet = await start_wallet("dev-operator", await fresh_database(SANDBOX_WALLET_TEMPLATE),
                                tmp_path)
    started: list[ServerProcess] = [wallet]

    async def replica(name: str, env: dict[str, str],
                      rate: dict[str, object] | None) -> ServerProcess:
        path = write_platform_file(tmp_path / f"platform-{name}.json",
                                   {"dev-operator": wallet.target})
        if rate is not None:
            raw = json.loads(path.read_text("utf-8"))
            next(o for o in raw["operators"] if o["id"] == "dev-operator")["rate_limit"] = rate
            path.write_text(json.dumps(raw), "utf-8")
        port = free_port()
        proc = await start(["-m", "rgs", "serve", "--listen", f"127.0.0.1:{port}",
                            "--database-url", rgs_database_url, "--test-mode"],
                           target=f"127.0.0.1:{port}", log=tmp_path / f"{name}.log",
                           env={"RGS_PLATFORM_FILE": str(path), **env})
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


def _deal(request_id: str) -> bj.DealRequest:
    return bj.DealRequest(request_id=request_id, variant_id="classic-resplit",
                          boxes=[bj.BoxBet(seat=1, stake=500)], forced_cards=STAND_WINS)


async def _stand(game: blackjack_pb2_grpc.BlackjackServiceAsyncStub,
                 md: tuple[tuple[str, str], ...], view: bj.RoundView) -> None:
    """Stand on 19 against the dealer's 13: the dealer draws 9S and busts, the player wins."""
    done = await game.Act(bj.ActRequest(
        request_id=f"st-{view.round_id}", round_id=view.round_id, expected_seq=view.seq,
        seat=view.to_act.seat, hand=view.to_act.hand, action=bj.ACTION_STAND),
        metadata=md, timeout=10)
    assert done.round.status == bj.ROUND_STATUS_SETTLED


async def _wallet_of(site: Site, pid: str) -> tuple[int, int]:
    """(balance, transactions) of ``pid`` as the wallet has them."""
    got = await site.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                       metadata=WALLET_AUTH)
    txns = await site.control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
        player_id=pid), metadata=WALLET_AUTH)
    return got.player.balance, len(txns.transactions)


def _shed_details(err: grpc.aio.AioRpcError) -> tuple[str, int, int, int]:
    """(reason, ErrorInfo retry_after_ms, RetryInfo ms, retry-after-ms trailer) of a shed."""
    trailer = dict(err.trailing_metadata() or ())
    status = status_pb2.Status.FromString(trailer["grpc-status-details-bin"])
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    assert status.details[0].Unpack(info) and status.details[1].Unpack(retry)
    assert info.domain == "rgs"
    return (info.reason, int(info.metadata["retry_after_ms"]),
            retry.retry_delay.ToMilliseconds(), int(trailer["retry-after-ms"]))


async def test_past_the_in_flight_cap_a_deal_is_shed_before_money_moves(site: Site) -> None:
    replica = await site.replica("capped", {"RGS_MAX_IN_FLIGHT": "2",
                                            "RGS_OVERLOAD_RETRY_AFTER_MS": "150",
                                            "RGS_SHUTDOWN_GRACE_S": "5"}, None)
    async with grpc.aio.insecure_channel(replica.target) as ch:
        tokens = await _players(site, ch, ["ov-1", "ov-2", "ov-3"])
        await site.control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
            kind=sandbox_pb2.FAULT_KIND_LATENCY, method=sandbox_pb2.WALLET_METHOD_DEBIT,
            latency_ms=2000, remaining=2)), metadata=WALLET_AUTH)
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        held = [asyncio.ensure_future(game.Deal(_deal("d1"), metadata=md))
                for md in tokens[:2]]
        await asyncio.sleep(0.6)
        with pytest.raises(grpc.aio.AioRpcError) as shed:
            await game.Deal(_deal("d1"), metadata=tokens[2], timeout=5)
        assert shed.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert _shed_details(shed.value) == ("OVERLOADED", 150, 150, 150)
        # Nothing moved for the shed player (and, below, no round of it exists).
        assert await _wallet_of(site, "ov-3") == (START, 0)
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
    other = await site.replica("roomy", {}, None)
    async with grpc.aio.insecure_channel(other.target) as ch:
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as none:  # no round of the shed player
            await game.GetRound(bj.GetRoundRequest(), metadata=tokens[2], timeout=5)
        assert none.value.code() is grpc.StatusCode.NOT_FOUND
        retried = await game.Deal(_deal("d1"), metadata=tokens[2], timeout=10)
        again = await game.Deal(_deal("d1"), metadata=tokens[2], timeout=10)
        assert retried.round.round_id == again.round.round_id
        for md, view in zip(tokens, [*(r.round for r in finished), retried.round],
                            strict=True):
            await _stand(game, md, view)
    for pid in ("ov-1", "ov-2", "ov-3"):
        assert await _wallet_of(site, pid) == (START + 500, 2)  # one debit, one win credit


async def test_an_operator_past_its_rate_is_shed_and_its_player_keeps_every_cent(
        site: Site) -> None:
    setup = await site.replica("setup", {}, None)
    async with grpc.aio.insecure_channel(setup.target) as ch:
        tokens = await _players(site, ch, ["rl-1", "rl-2", "rl-3"])
    limited = await site.replica("limited", {}, {"calls_per_s": 0.5, "burst": 2})
    async with grpc.aio.insecure_channel(limited.target) as ch:
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        views = [(await game.Deal(_deal("r1"), metadata=md, timeout=10)).round
                 for md in tokens[:2]]
        with pytest.raises(grpc.aio.AioRpcError) as shed:
            await game.Deal(_deal("r1"), metadata=tokens[2], timeout=10)
        assert shed.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        reason, info_ms, retry_ms, trailer_ms = _shed_details(shed.value)
        assert reason == "OPERATOR_RATE_LIMITED"
        assert 0 < info_ms == retry_ms == trailer_ms <= 2000
        assert await _wallet_of(site, "rl-3") == (START, 0)
        health = health_pb2_grpc.HealthStub(ch)
        checked = await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
        assert checked.status == health_pb2.HealthCheckResponse.SERVING
        await asyncio.sleep(info_ms / 1000 + 0.05)  # the delay it was told, then it is admitted
        views.append((await game.Deal(_deal("r1"), metadata=tokens[2], timeout=10)).round)
    async with grpc.aio.insecure_channel(setup.target) as ch:
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        for md, view in zip(tokens, views, strict=True):
            await _stand(game, md, view)
    for pid in ("rl-1", "rl-2", "rl-3"):
        assert await _wallet_of(site, pid) == (START + 500, 2)
