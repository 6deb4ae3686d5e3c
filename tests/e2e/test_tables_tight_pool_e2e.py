"""Every table and solo command from fifty callers at once on one replica whose journal pools
hold two connections each (issue 29): nothing is refused but by a rule of the game, a command
past its bound answers TABLE_BUSY with nothing of it standing, and every wallet is exact.

Its own module: the two-replica burst stack of ``test_tables_burst_e2e`` is torn down before
this one starts (module fixtures live to their module's end, and together the two stacks came
within a few connections of PostgreSQL's default ``max_connections`` of 100).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import grpc
import pytest
import pytest_asyncio
from test_tables_burst_e2e import (
    STAKE,
    _deal,
    _ok,
    _only_rules,
    _players,
    _snapshot,
    _stand_out,
    _until_phase,
    _wallets,
    at_once,
)
from test_tables_e2e import START, WALLET_AUTH, Tables, _table, tables_stack

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.errors import error_reason
from support.tables import shown_as

pytestmark = pytest.mark.asyncio(loop_scope="session")


# --------------------------------------------------------------------------- a pool of two


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def tight(database_templates: DatabaseTemplates, tmp_path_factory: Any
                ) -> AsyncIterator[Tables]:
    """One replica whose journal pools hold two connections each (the tables' one too)."""
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("tight")), [
            _table("vip-tight", betting_s=60.0, decision_s=30.0),
            _table("vip-locked", betting_s=60.0, decision_s=30.0),
            _table("vip-late", betting_s=60.0, decision_s=30.0),
            _table("vip-dup", betting_s=60.0, decision_s=30.0)],
            replicas=1, env={"RGS_DATABASE_POOL_SIZE": "2", "RGS_TABLE_COMMAND_S": "4"}) as t:
        yield t


async def test_every_table_command_from_fifty_callers_at_once_on_two_connections(
        tight: Tables) -> None:
    t, tid, table = tight, "vip-tight", tight.tables[0]
    players = await _players(t, 50, operators=("dev-operator", "other-operator"))
    seat_of = {p.pid: 1 + i % 7 for i, p in enumerate(players)}

    seats = await at_once([lambda p=p: table.TakeSeat(tb.TakeSeatRequest(
        request_id="seat", table_id=tid, seat=seat_of[p.pid]), metadata=p.md, timeout=60)
        for p in players])
    _only_rules(seats)
    assert _ok(seats) == 7
    by_name = {shown_as(tid, p.operator, p.pid): p for p in players}
    seated = {x["seat"]: by_name[x["player"]["display_name"]]
              for x in (await _snapshot(t, players[0], tid))["seats"]}
    assert sorted(seated) == list(range(1, 8))
    others = [p for p in players if p not in seated.values()]

    bets = await at_once(
        [lambda p=p, n=n: table.PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=tid, bets=[tb.Bet(seat=n, stake=STAKE)]), metadata=p.md,
            timeout=60) for n, p in seated.items()]
        + [lambda p=p: table.PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=tid, bets=[tb.Bet(
                seat=seat_of[p.pid], stake=STAKE, behind=True,
                insurance=tb.BEHIND_INSURANCE_ASK)]), metadata=p.md, timeout=60)
           for p in others])
    _only_rules(bets)
    assert _ok(bets) == 50

    ready = await at_once([lambda p=p: table.DealNow(tb.DealNowRequest(
        request_id="deal", table_id=tid,
        forced_cards=_deal(7, "AS", "TS", "KH", "9D") if p is seated[1] else []),
        metadata=p.md, timeout=60) for p in players])
    _only_rules(ready)
    assert _ok(ready) == 7
    rid = (await _until_phase(t, players[0], tid, {"insurance"}))["round_id"]
    insured = await at_once(
        [lambda p=p, n=n: table.DecideInsurance(tb.DecideInsuranceRequest(
            request_id="ins", table_id=tid, round_id=rid, seat=n, take=True), metadata=p.md,
            timeout=60) for n, p in seated.items()]
        + [lambda p=p: table.DecideInsurance(tb.DecideInsuranceRequest(
            request_id="ins", table_id=tid, round_id=rid, seat=seat_of[p.pid], take=True,
            behind=True), metadata=p.md, timeout=60) for p in others])
    _only_rules(insured)
    assert _ok(insured) == 50

    # Seat 1 is to act: fifty decisions at once, one of them the turn's.
    snap = await _until_phase(t, players[0], tid, {"playing"}, to_act=1)
    acts = await at_once([lambda p=p: table.Act(tb.ActRequest(
        request_id="act", table_id=tid, round_id=snap["round_id"], seat=seat_of[p.pid],
        hand=0, action="stand"), metadata=p.md, timeout=60) for p in players])
    _only_rules(acts)
    # Seat 1's stand, and then any seat whose turn came while the fifty queued on two
    # connections (seat 2's own stand, if it was served after seat 1's): seats in turn order.
    acted = sorted(seat_of[p.pid] for p, o in zip(players, acts, strict=True)
                   if o.code is grpc.StatusCode.OK)
    assert acted == list(range(1, len(acted) + 1)) and acted, acted
    await _stand_out(t, seated, tid)
    leave = await at_once([lambda p=p: table.LeaveSeat(tb.LeaveSeatRequest(
        request_id="leave", table_id=tid, seat=seat_of[p.pid]), metadata=p.md, timeout=60)
        for p in players])
    _only_rules(leave)
    assert _ok(leave) == 7
    # The dealer's soft 20 pushes every 20; every insurance (500) is lost.
    await _wallets(t, {p.pid: START - STAKE // 2 for p in players}, players)


async def test_every_solo_command_from_fifty_callers_at_once_on_two_connections(
        tight: Tables) -> None:
    t = tight
    players = await _players(t, 50, operators=("dev-operator", "other-operator"))
    game = blackjack_pb2_grpc.BlackjackServiceStub(t.channels[0])
    dealt = await at_once([lambda p=p: game.Deal(bj.DealRequest(
        request_id="deal", variant_id="classic-resplit",
        boxes=[bj.BoxBet(seat=1, stake=100)], forced_cards=["TS", "TH", "8D", "7C"]),
        metadata=p.md, timeout=60) for p in players])
    _only_rules(dealt)
    assert _ok(dealt) == 50
    rounds = {p.pid: o.answer.round for p, o in zip(players, dealt, strict=True)}
    acted = await at_once([lambda p=p: game.Act(bj.ActRequest(
        request_id="stand", round_id=rounds[p.pid].round_id, expected_seq=rounds[p.pid].seq,
        seat=1, hand=0, action=bj.ACTION_STAND), metadata=p.md, timeout=60) for p in players])
    _only_rules(acted)
    assert _ok(acted) == 50
    settled = await at_once([lambda p=p: game.Settle(bj.SettleRequest(
        request_id="settle", round_id=rounds[p.pid].round_id), metadata=p.md, timeout=60)
        for p in players])
    _only_rules(settled)
    assert _ok(settled) == 50
    # 18 against the dealer's 17: every round won even money.
    assert {o.answer.round.total_paid for o in acted} == {200}
    await _wallets(t, {p.pid: START + 100 for p in players}, players)


async def test_concurrent_duplicates_of_a_request_get_its_one_answer(tight: Tables) -> None:
    t, tid, table = tight, "vip-dup", tight.tables[0]
    a, b = await _players(t, 2)
    seats = await at_once([lambda: table.TakeSeat(tb.TakeSeatRequest(
        request_id="seat", table_id=tid, seat=2), metadata=a.md)] * 20)
    assert [(o.code, o.reason) for o in seats if o.answer is None] == []
    assert len({o.answer.result.seq for o in seats}) == 1
    bets = await at_once([lambda: table.PlaceBets(tb.PlaceBetsRequest(
        request_id="bet", table_id=tid, bets=[tb.Bet(seat=2, stake=STAKE)]), metadata=a.md)]
        * 20)
    assert [(o.code, o.reason) for o in bets if o.answer is None] == []
    assert len({o.answer.result.seq for o in bets}) == 1
    moves = await t.controls["dev-operator"].ListTransactions(
        sandbox_pb2.ListTransactionsRequest(player_id=a.pid), metadata=WALLET_AUTH["dev-operator"])
    assert [(m.kind, m.amount) for m in moves.transactions] == [
        (sandbox_pb2.TRANSACTION_KIND_DEBIT, STAKE)]
    assert await a.balance(t) == START - STAKE
    # A distinct player is never held up by the other's requests.
    behind = await table.PlaceBets(tb.PlaceBetsRequest(request_id="bet", table_id=tid, bets=[
        tb.Bet(seat=2, stake=STAKE, behind=True)]), metadata=b.md)
    assert behind.result.balance == START - STAKE


async def test_a_bet_that_reaches_a_closed_table_is_returned_at_once(tight: Tables) -> None:
    """B's wallet answers its debit slowly; meanwhile A's Deal Now closes betting. B's bet is
    refused with the reason, its stake is back in B's wallet when B reads the answer, and the
    answer says so."""
    t, tid, table = tight, "vip-late", tight.tables[0]
    a, b = await _players(t, 2)
    control = t.controls["dev-operator"]
    await table.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=tid, seat=4),
                         metadata=a.md)
    await table.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=tid, seat=5),
                         metadata=b.md)
    await table.PlaceBets(tb.PlaceBetsRequest(request_id="bet", table_id=tid, bets=[
        tb.Bet(seat=4, stake=STAKE)]), metadata=a.md)
    await control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
        kind=sandbox_pb2.FAULT_KIND_LATENCY, method=sandbox_pb2.WALLET_METHOD_DEBIT,
        player_id=b.pid, latency_ms=1500)), metadata=WALLET_AUTH["dev-operator"])
    try:
        late = asyncio.ensure_future(table.PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=tid, bets=[tb.Bet(seat=5, stake=STAKE)]),
            metadata=b.md))
        await asyncio.sleep(0.5)  # B's debit is at the wallet
        # A, the only seat with a bet, is ready: betting closes before B's debit is back.
        await table.DealNow(tb.DealNowRequest(request_id="deal", table_id=tid), metadata=a.md)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await late
    finally:
        await control.ClearFaults(sandbox_pb2.ClearFaultsRequest(),
                                  metadata=WALLET_AUTH["dev-operator"])
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert error_reason(refused.value) == "BETTING_CLOSED"
    assert _metadata(refused.value).get("refund") == "done"
    assert await b.balance(t) == START  # at once: not left for the reconciler
    moves = await control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
        player_id=b.pid), metadata=WALLET_AUTH["dev-operator"])
    assert [m.kind for m in moves.transactions] == [sandbox_pb2.TRANSACTION_KIND_DEBIT,
                                                   sandbox_pb2.TRANSACTION_KIND_ROLLBACK]
    await _stand_out(t, {4: a}, tid)


async def test_a_table_command_answers_table_busy_past_its_bound_and_nothing_stands(
        tight: Tables) -> None:
    """Another replica's transaction keeps the table's row locked past the command's bound
    (RGS_TABLE_COMMAND_S, 4 s here): the bet answers UNAVAILABLE / TABLE_BUSY, its stake is
    returned, and once the row is free the same request places it."""
    t, tid, table = tight, "vip-locked", tight.tables[0]
    (a,) = await _players(t, 1)
    await table.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=tid, seat=1),
                         metadata=a.md)
    await table.PlaceBets(tb.PlaceBetsRequest(request_id="open", table_id=tid, bets=[
        tb.Bet(seat=1, stake=STAKE)]), metadata=a.md)  # betting open, A's bet in
    (b,) = await _players(t, 1)
    conn = await asyncpg.connect(t.rgs_db, server_settings={"search_path": "rgs"})
    try:
        tx = conn.transaction()
        await tx.start()
        await conn.execute("SELECT 1 FROM game_tables WHERE table_id = $1 FOR UPDATE", tid)
        started = time.monotonic()
        with pytest.raises(grpc.aio.AioRpcError) as busy:
            await table.PlaceBets(tb.PlaceBetsRequest(request_id="bet", table_id=tid, bets=[
                tb.Bet(seat=1, stake=STAKE, behind=True)]), metadata=b.md, timeout=30)
        waited = time.monotonic() - started
        await tx.rollback()
    finally:
        await conn.close()
    assert busy.value.code() is grpc.StatusCode.UNAVAILABLE
    assert error_reason(busy.value) == "TABLE_BUSY"
    assert _metadata(busy.value).get("refund") == "done"
    assert 3.5 < waited < 15
    assert await b.balance(t) == START
    again = await table.PlaceBets(tb.PlaceBetsRequest(request_id="bet", table_id=tid, bets=[
        tb.Bet(seat=1, stake=STAKE, behind=True)]), metadata=b.md)
    assert again.result.balance == START - STAKE
    await table.DealNow(tb.DealNowRequest(request_id="deal", table_id=tid), metadata=a.md)
    await _stand_out(t, {1: a}, tid)


def _metadata(err: grpc.aio.AioRpcError) -> dict[str, str]:
    from google.rpc import error_details_pb2, status_pb2

    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    return dict(info.metadata)
    return {}
