"""Jurisdiction profiles at a shared table against real processes (issue 23): a vip-platinum
table of demo-casino-uk (ukgc). A bet while the player's solo round is open is refused
ANOTHER_GAME_IN_PROGRESS (one game at a time across solo and tables), and one within 5 s of a
solo round's start ROUND_TOO_SOON (as is a solo Deal within 5 s of a table round's deal); Deal
Now closes betting no sooner than 5 s after it opened (the rounds' starts are 5 s apart, RTS
14G); the snapshots for the player carry the session's position across solo and table rounds,
exact to the wallet; a reality check due refuses the next bet until acknowledged; each
player's result in round_finished is classified."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from test_tables_e2e import DEV, WALLET_AUTH, Tables, tables_stack

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.errors import error_reason
from support.tables import events_until, kind

pytestmark = pytest.mark.asyncio(loop_scope="session")

UK = "demo-casino-uk"
TABLE = "uk-e2e"
START = 1_000_000
STAND_WINS = ["TS", "6H", "9D", "7C", "9S"]  # solo: 19 v 6+7, the dealer busts: pays 2x
#: seat 1: T 9 (19); dealer 9, hole 7, then draws T: busts, seat 1 is paid 2x.
CARDS = ["TS", "9H", "9D", "7S", "TD"]
_ids = itertools.count()
Md = tuple[tuple[str, str], ...]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def uk(database_templates: DatabaseTemplates, tmp_path_factory: Any
             ) -> AsyncIterator[Tables]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("uk")), [
            {"id": TABLE, "variant": "vip-platinum", "seats": 7, "currency": "GBP",
             "brands": [UK], "betting_s": 6, "decision_s": 1.5}], replicas=2) as t:
        yield t


async def _player(t: Tables, reality_check_s: int = 0) -> tuple[str, Md]:
    pid = f"uk-{next(_ids)}"
    await t.controls["dev-operator"].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id=pid, currency="GBP", balance=START)),
        metadata=WALLET_AUTH["dev-operator"])
    s = await t.operators[0].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id=UK, player_id=pid,
        reality_check_interval_s=reality_check_s), metadata=DEV)
    return pid, (("authorization", f"Bearer {s.session_token}"),)


async def _balance(t: Tables, pid: str) -> int:
    got = await t.controls["dev-operator"].GetPlayer(sandbox_pb2.GetPlayerRequest(
        player_id=pid), metadata=WALLET_AUTH["dev-operator"])
    return int(got.player.balance)


def _game(t: Tables, replica: int = 0) -> blackjack_pb2_grpc.BlackjackServiceAsyncStub:
    return blackjack_pb2_grpc.BlackjackServiceStub(t.channels[replica])


async def test_one_game_at_a_time_the_5_s_pace_and_the_position_at_a_table(uk: Tables) -> None:
    t = uk
    pid, md = await _player(t)
    await t.tables[0].TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=TABLE, seat=1),
                               metadata=md)
    solo_started = time.monotonic()
    solo = (await _game(t).Deal(bj.DealRequest(
        request_id="solo", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=1000)],
        forced_cards=STAND_WINS), metadata=md)).round
    with pytest.raises(grpc.aio.AioRpcError) as busy:
        await t.tables[1].PlaceBets(tb.PlaceBetsRequest(request_id="b0", table_id=TABLE, bets=[
            tb.Bet(seat=1, stake=2000)]), metadata=md)
    assert (busy.value.code(), error_reason(busy.value)) == (
        grpc.StatusCode.FAILED_PRECONDITION, "ANOTHER_GAME_IN_PROGRESS")
    assert await _balance(t, pid) == START - 1000  # only the solo stake
    await _game(t).Act(bj.ActRequest(request_id="stand", round_id=solo.round_id,
                                     expected_seq=solo.seq, seat=1, hand=0,
                                     action=bj.ACTION_STAND), metadata=md)
    # The solo round started less than 5 s ago: a bet now is refused (its round could start
    # sooner than 5 s after it); once 5 s have passed it is taken.
    with pytest.raises(grpc.aio.AioRpcError) as soon:
        await t.tables[1].PlaceBets(tb.PlaceBetsRequest(request_id="b0", table_id=TABLE, bets=[
            tb.Bet(seat=1, stake=2000)]), metadata=md)
    assert error_reason(soon.value) == "ROUND_TOO_SOON"
    await asyncio.sleep(max(0.0, 5.3 - (time.monotonic() - solo_started)))
    placed = await t.tables[1].PlaceBets(tb.PlaceBetsRequest(
        request_id="b1", table_id=TABLE, bets=[tb.Bet(seat=1, stake=2000)]), metadata=md)
    position = placed.result.snapshot.session
    assert (position.total_staked, position.total_paid, position.net_position) == (
        3000, 2000, -1000)
    start_seq = placed.result.seq
    # The solo round is open in no other game now: a Deal meanwhile is the other game.
    with pytest.raises(grpc.aio.AioRpcError) as other:
        await _game(t, 1).Deal(bj.DealRequest(
            request_id="solo2", variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=1000)], forced_cards=STAND_WINS), metadata=md)
    assert error_reason(other.value) == "ANOTHER_GAME_IN_PROGRESS"
    await t.tables[0].DealNow(tb.DealNowRequest(request_id="dn", table_id=TABLE,
                                                forced_cards=CARDS), metadata=md)
    await events_until(t.tables[0], md, TABLE, "betting_closed", from_seq=start_seq)
    seen = await events_until(t.tables[0], md, TABLE, "round_finished", from_seq=start_seq)
    (mine,) = seen[-1].round_finished.results
    assert (mine.staked, mine.paid, mine.result) == (2000, 4000, bj.RESULT_CLASS_WIN)
    # The table round was dealt a moment ago: a solo Deal now is too soon after its start.
    with pytest.raises(grpc.aio.AioRpcError) as after_table:
        await _game(t).Deal(bj.DealRequest(
            request_id="solo3", variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=1000)], forced_cards=STAND_WINS), metadata=md)
    assert error_reason(after_table.value) == "ROUND_TOO_SOON"
    for _ in range(100):  # the win is paid after the transition's commit
        if await _balance(t, pid) == START + 1000 + 2000:
            break
        await asyncio.sleep(0.1)
    assert await _balance(t, pid) == START + 3000
    watched = None
    call = t.tables[1].WatchTable(tb.WatchTableRequest(table_id=TABLE), metadata=md)
    async for item in call:
        watched = item.snapshot
        break
    call.cancel()
    assert watched is not None
    assert (watched.session.total_staked, watched.session.total_paid,
            watched.session.net_position) == (3000, 6000, 3000)


async def test_a_reality_check_due_refuses_the_next_bet_until_acknowledged(uk: Tables) -> None:
    t = uk
    pid, md = await _player(t, reality_check_s=1)
    await t.tables[0].TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=TABLE, seat=2),
                               metadata=md)
    await asyncio.sleep(1.1)
    with pytest.raises(grpc.aio.AioRpcError) as due:
        await t.tables[0].PlaceBets(tb.PlaceBetsRequest(request_id="b1", table_id=TABLE, bets=[
            tb.Bet(seat=2, stake=1000)]), metadata=md)
    assert error_reason(due.value) == "REALITY_CHECK_DUE"
    assert await _balance(t, pid) == START
    await _game(t, 1).AcknowledgeRealityCheck(bj.AcknowledgeRealityCheckRequest(), metadata=md)
    placed = await t.tables[0].PlaceBets(tb.PlaceBetsRequest(
        request_id="b1", table_id=TABLE, bets=[tb.Bet(seat=2, stake=1000)]), metadata=md)
    assert placed.result.snapshot.session.total_staked == 1000
    assert await _balance(t, pid) == START - 1000


async def test_deal_now_closes_betting_no_sooner_than_5_s_after_it_opened(uk: Tables) -> None:
    t = uk
    _, md = await _player(t)
    await t.tables[0].TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=TABLE, seat=4),
                               metadata=md)
    for _ in range(100):  # the table idle again: this bet opens betting
        snap = await _snapshot(t, md)
        if snap.phase == tb.TABLE_PHASE_IDLE:
            break
        await asyncio.sleep(0.2)
    t0 = time.monotonic()
    placed = await t.tables[0].PlaceBets(tb.PlaceBetsRequest(
        request_id="b1", table_id=TABLE, bets=[tb.Bet(seat=4, stake=1000)]), metadata=md)
    await t.tables[1].DealNow(tb.DealNowRequest(request_id="dn", table_id=TABLE,
                                                forced_cards=CARDS), metadata=md)
    closed = await events_until(t.tables[0], md, TABLE, "betting_closed",
                                from_seq=placed.result.seq)
    assert "betting_closing" in [kind(e) for e in closed]  # by Deal Now (its time is 6 s)
    assert time.monotonic() - t0 >= 4.9  # 5 s after betting opened, not at once


async def _snapshot(t: Tables, md: Md) -> tb.TableSnapshot:
    call = t.tables[0].WatchTable(tb.WatchTableRequest(table_id=TABLE), metadata=md)
    async for item in call:
        call.cancel()
        return item.snapshot
    raise AssertionError("no snapshot")
