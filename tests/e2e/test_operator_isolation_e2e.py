"""A slow or dead wallet harms only its own operator (issue 12), against real processes: two
operators, each with its own sandbox wallet process; one wallet stalled (fault injection:
latency past the deadline) and then killed, while the other operator's rounds keep flowing,
settled to the cent. Correctness only: the latency figures are printed by bench/operators.py.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from e2e_servers import Stack, start_stack

from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates

pytestmark = pytest.mark.asyncio(loop_scope="session")

KEYS = {"dev-operator": "rgs-dev-operator-key", "other-operator": "rgs-other-operator-key"}
WALLET_KEYS = {"dev-operator": "sandbox-wallet-dev-key",
               "other-operator": "sandbox-wallet-other-key"}
BRANDS = {"dev-operator": "demo-casino", "other-operator": "other-casino"}
STAND_WINS = ("TS", "6H", "9D", "7C", "9S")
FAST = {"timeout_s": 0.5, "breaker_failures": 3, "breaker_open_s": 1.0, "max_in_flight": 4}
_ids = itertools.count()


@dataclass
class Isolated:
    stack: Stack
    channel: grpc.aio.Channel
    game: blackjack_pb2_grpc.BlackjackServiceAsyncStub
    office: operator_pb2_grpc.OperatorServiceAsyncStub
    controls: dict[str, sandbox_pb2_grpc.SandboxControlServiceAsyncStub]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def isolated(database_templates: DatabaseTemplates, tmp_path_factory: object
                   ) -> AsyncIterator[Isolated]:
    names, dbs = [], {}
    for label, tpl in (("rgs", RGS_TEMPLATE), ("dev-operator", SANDBOX_WALLET_TEMPLATE),
                       ("other-operator", SANDBOX_WALLET_TEMPLATE)):
        name, dbs[label] = await database_templates.fresh(tpl)
        names.append(name)
    journal = await PostgresJournal.connect(dbs["rgs"], min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    logs = Path(tmp_path_factory.mktemp("isolation"))  # type: ignore[attr-defined]
    stack = await start_stack(
        rgs_db=dbs["rgs"], replicas=1, logs=logs,
        wallet_dbs={op_id: dbs[op_id] for op_id in ("dev-operator", "other-operator")},
        wallet_fields={"dev-operator": FAST, "other-operator": FAST})
    channel = grpc.aio.insecure_channel(stack.replicas[0].target)
    wallet_channels = {op_id: grpc.aio.insecure_channel(w.target)
                       for op_id, w in stack.wallets.items()}
    try:
        yield Isolated(stack=stack, channel=channel,
                       game=blackjack_pb2_grpc.BlackjackServiceStub(channel),
                       office=operator_pb2_grpc.OperatorServiceStub(channel),
                       controls={k: sandbox_pb2_grpc.SandboxControlServiceStub(c)
                                 for k, c in wallet_channels.items()})
    finally:
        for c in (channel, *wallet_channels.values()):
            await c.close()
        stack.stop()
        for name in names:
            database_templates.discard(name)


async def _session(c: Isolated, operator: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    pid = f"iso-{next(_ids)}"
    await c.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=100_000)),
        metadata=(("authorization", f"Bearer {WALLET_KEYS[operator]}"),))
    s = await c.office.CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id=BRANDS[operator], player_id=pid),
        metadata=(("authorization", f"Bearer {KEYS[operator]}"),), timeout=10)
    return pid, (("authorization", f"Bearer {s.session_token}"),)


async def _round(c: Isolated, md: tuple[tuple[str, str], ...], i: int) -> bj.RoundView:
    dealt = (await c.game.Deal(bj.DealRequest(
        request_id=f"d{i}", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=100)],
        forced_cards=STAND_WINS), metadata=md, timeout=10)).round
    return (await c.game.Settle(bj.SettleRequest(request_id=f"s{i}", round_id=dealt.round_id),
                                metadata=md, timeout=10)).round


async def _victim_load(c: Isolated, stop: asyncio.Event, ready: asyncio.Barrier) -> int:
    """The stalled operator's players keep trying; every attempt fails, none hangs. Each
    passes ``ready`` once it has its session (opened while the wallet stalls), so the healthy
    operator's rounds run while every victim is playing, however fast they are."""
    _, md = await _session(c, "other-operator")
    await ready.wait()
    failures = 0
    while not stop.is_set():
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await _round(c, md, next(_ids))
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        failures += 1
    return failures


async def _healthy_rounds(c: Isolated, rounds: int) -> None:
    pid, md = await _session(c, "dev-operator")
    for i in range(rounds):
        done = await _round(c, md, i)
        assert done.status == bj.ROUND_STATUS_SETTLED and not done.payment_pending
    player = await c.controls["dev-operator"].GetPlayer(
        sandbox_pb2.GetPlayerRequest(player_id=pid),
        metadata=(("authorization", f"Bearer {WALLET_KEYS['dev-operator']}"),))
    assert player.player.balance == 100_000 + rounds * 100


async def test_a_stalled_wallet_fails_its_own_operator_and_the_other_keeps_playing(
        isolated: Isolated) -> None:
    other_auth = (("authorization", f"Bearer {WALLET_KEYS['other-operator']}"),)
    await isolated.controls["other-operator"].SetFault(sandbox_pb2.SetFaultRequest(
        fault=sandbox_pb2.Fault(kind=sandbox_pb2.FAULT_KIND_LATENCY, latency_ms=3_000)),
        metadata=other_auth)
    stop = asyncio.Event()
    ready = asyncio.Barrier(7)
    victims = [asyncio.create_task(_victim_load(isolated, stop, ready)) for _ in range(6)]
    try:
        await asyncio.wait_for(ready.wait(), 30)
        await _healthy_rounds(isolated, rounds=15)
    finally:
        stop.set()
        failures = await asyncio.gather(*victims)
        await isolated.controls["other-operator"].ClearFaults(
            sandbox_pb2.ClearFaultsRequest(), metadata=other_auth)
    assert sum(failures) >= 6


async def test_a_dead_wallet_fails_its_own_operator_and_the_other_keeps_playing(
        isolated: Isolated) -> None:
    _, other_md = await _session(isolated, "other-operator")
    isolated.stack.wallets["other-operator"].stop()
    stop = asyncio.Event()
    victims = [asyncio.create_task(_victim_load_with(isolated, other_md, stop))
               for _ in range(6)]
    try:
        await _healthy_rounds(isolated, rounds=15)
    finally:
        stop.set()
        await asyncio.gather(*victims)


async def _victim_load_with(c: Isolated, md: tuple[tuple[str, str], ...],
                            stop: asyncio.Event) -> None:
    while not stop.is_set():
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await _round(c, md, next(_ids))
        assert err.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED)
