"""A free bet at a shared table against real processes (docs/freebets.md): the operator grants
it for the table through one replica, the player stakes it on their seat's main bet through the
other with a side bet and a double of their own, and wins; the sandbox wallet's ledger shows
exactly the documented amounts, to the cent, the credit marked promotional."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf.timestamp_pb2 import Timestamp
from test_tables_e2e import DEV, START, WALLET_AUTH, Tables, _player, _table, tables_stack

from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.errors import error_reason
from support.tables import events_until, snapshot

pytestmark = pytest.mark.asyncio(loop_scope="session")

TID = "vip-free"
#: seat 1 alone: 6 5 (doubles onto T: 21); the dealer's 9 7 draws T and busts.
CARDS = ["6S", "9D", "5H", "7S", "TD", "TC"]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def fe2e(database_templates: DatabaseTemplates, tmp_path_factory: Any
               ) -> AsyncIterator[Tables]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("free")),
                            [_table(TID, decision_s=30.0)], replicas=2) as t:
        yield t


def _tomorrow() -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(datetime.now(UTC) + timedelta(days=1))
    return ts


async def test_a_free_bet_at_a_table_doubled_and_won_credits_thirty_of_forty(
        fe2e: Tables) -> None:
    t = fe2e
    a = await _player(t, "dev-operator")
    grant = op.GrantFreeBetsRequest(grant_id=f"table-{a.pid}", brand_id="demo-casino",
                                    player_id=a.pid, value=1000, count=1, table_ids=[TID],
                                    expires_at=_tomorrow())
    granted = (await t.operators[0].GrantFreeBets(grant, metadata=DEV)).grant
    assert (list(granted.table_ids), granted.left) == ([TID], 1)
    r1 = t.tables[1]
    seated = await r1.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=TID, seat=1),
                               metadata=a.md)
    # The player's own snapshot shows the free bets this table takes.
    assert [(f.grant_id, f.value, f.left) for f in seated.result.snapshot.free_bets] == [
        (grant.grant_id, 1000, 1)]
    with pytest.raises(grpc.aio.AioRpcError) as mismatch:
        await r1.PlaceBets(tb.PlaceBetsRequest(request_id="b0", table_id=TID, bets=[
            tb.Bet(seat=1, stake=2000, free_bet_id=grant.grant_id)]), metadata=a.md)
    assert error_reason(mismatch.value) == "FREE_BET_VALUE_MISMATCH"
    placed = await r1.PlaceBets(tb.PlaceBetsRequest(request_id="b1", table_id=TID, bets=[
        tb.Bet(seat=1, stake=1000, perfect_pairs=100, free_bet_id=grant.grant_id)]),
        metadata=a.md)
    assert placed.result.balance == START - 100  # the side bet only
    assert list(placed.result.snapshot.free_bets) == []  # the one free bet is staked
    start = placed.result.seq
    await r1.DealNow(tb.DealNowRequest(request_id="dn", table_id=TID, forced_cards=CARDS),
                     metadata=a.md)
    await events_until(r1, a.md, TID, "decision_due", from_seq=start)
    round_id = (await snapshot(r1, a.md, TID)).round_id
    doubled = await t.tables[0].Act(tb.ActRequest(
        request_id="act1", table_id=TID, round_id=round_id, seat=1, hand=0, action="double"),
        metadata=a.md)
    # 21 ends the seat's play: the dealer busts and the round settles in the same command.
    assert doubled.result.balance == START - 100 - 1000 + 3000
    await events_until(r1, a.md, TID, "round_finished", from_seq=start)
    ledger = (await t.controls["dev-operator"].ListTransactions(
        sandbox_pb2.ListTransactionsRequest(player_id=a.pid),
        metadata=WALLET_AUTH["dev-operator"])).transactions
    moves = sorted((t.kind, t.amount, t.promotional) for t in ledger if t.round_id == round_id)
    # Perfect Pairs 1.00 and the double's 10.00 debited; 40.00 won less the free 10.00.
    assert moves == sorted([(sandbox_pb2.TRANSACTION_KIND_DEBIT, 100, False),
                            (sandbox_pb2.TRANSACTION_KIND_DEBIT, 1000, False),
                            (sandbox_pb2.TRANSACTION_KIND_CREDIT, 3000, True)])
    assert await a.balance(t) == START - 100 - 1000 + 3000
    report = (await t.operators[1].ListFreeBetGrants(op.ListFreeBetGrantsRequest(
        player_id=a.pid), metadata=DEV)).grants
    assert [(g.grant_id, g.used, g.left, g.paid, g.status) for g in report] == [
        (grant.grant_id, 1, 0, 3000, "used")]
    # The recall of the round names its free bet.
    recalled = (await t.operators[1].GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=a.pid, round_id=round_id), metadata=DEV)).round
    assert (recalled.table_id, recalled.free_bet.grant_id, recalled.free_bet.value,
            recalled.free_bet.seat) == (TID, grant.grant_id, 1000, 1)
