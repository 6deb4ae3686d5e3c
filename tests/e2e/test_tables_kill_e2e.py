"""The replica driving a shared table's clock is SIGKILLed (issue 13): during betting, and
during play. Another replica takes the table over within seconds; the round is dealt once,
settled once, and every wallet moves to the cent of its results. A stack of its own: the tests
kill its replicas."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import pytest_asyncio
from test_tables_e2e import (
    CARDS,
    START,
    WALLET_AUTH,
    Tables,
    _balances,
    _events_until,
    _player,
    _snapshot,
    _table,
    _until,
    tables_stack,
)

from rgs.generated.table.v1 import table_pb2 as tb
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.tables import shown_as

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def kill_stack(database_templates: DatabaseTemplates, tmp_path_factory: Any
                     ) -> AsyncIterator[Tables]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("tables-kill")), [
            _table("vip-kill-betting", betting_s=4.0), _table("vip-kill-play",
                                                               decision_s=4.0)]) as t:
        yield t


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def settle_stack(database_templates: DatabaseTemplates, tmp_path_factory: Any
                       ) -> AsyncIterator[Tables]:
    """Its own stack: the tests above leave one replica of theirs alive."""
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("tables-settle")),
                            [_table("vip-kill-settle", decision_s=2.0)]) as t:
        yield t


async def _clock_holder(t: Tables, table_id: str) -> int:
    """The index of the replica driving ``table_id``'s clock now."""
    conn = await asyncpg.connect(t.rgs_db)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            holder = await conn.fetchval(
                "SELECT holder FROM rgs.leases WHERE kind = 'table' AND key = $1 "
                "AND expires_at > clock_timestamp()", table_id)
            if holder:
                pid = int(holder.split("/")[1])
                for i, r in enumerate(t.stack.replicas):
                    if r.proc.pid == pid and r.proc.poll() is None:
                        return i
            await asyncio.sleep(0.1)
    finally:
        await conn.close()
    raise AssertionError(f"no live replica holds {table_id}'s clock")


def _alive(t: Tables, but: int) -> int:
    return next(i for i, r in enumerate(t.stack.replicas)
                if i != but and r.proc.poll() is None)


async def _kinds(t: Tables, table_id: str) -> list[str]:
    conn = await asyncpg.connect(t.rgs_db)
    try:
        return [r["kind"] for r in await conn.fetch(
            "SELECT kind FROM rgs.table_events WHERE table_id = $1 ORDER BY seq", table_id)]
    finally:
        await conn.close()


async def test_the_clock_holder_killed_during_betting_another_replica_deals_once(
        kill_stack: Tables) -> None:
    t = kill_stack
    tid = "vip-kill-betting"
    a, c = await _player(t, "dev-operator"), await _player(t, "other-operator")
    holder = await _clock_holder(t, tid)
    live = _alive(t, holder)
    stub = t.tables[live]
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=2), metadata=a.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=2, stake=3000)]), metadata=a.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=2, stake=2000, behind=True)]), metadata=c.md)
    t.stack.replicas[holder].proc.kill()  # SIGKILL while betting is open (4 s)
    seen = await _events_until(stub, a.md, tid, "round_finished", timeout=40)
    by_name = {r.player.display_name: (r.staked, r.paid) for r in seen[-1].round_finished.results}
    # C's Bet Behind is C's to see: its result comes on C's own stream.
    theirs = await _events_until(stub, c.md, tid, "round_finished", timeout=40)
    by_name.update({r.player.display_name: (r.staked, r.paid)
                    for r in theirs[-1].round_finished.results})
    results = {a.pid: by_name[shown_as(tid, "dev-operator", a.pid)],
               c.pid: by_name[shown_as(tid, "other-operator", c.pid)]}
    assert results[a.pid][0] == 3000 and results[c.pid][0] == 2000
    await _until(lambda: _balances(t, a, c),
                 (START - 3000 + results[a.pid][1], START - 2000 + results[c.pid][1]))
    kinds = await _kinds(t, tid)
    assert kinds.count("betting_closed") == 1 and kinds.count("round_finished") == 1
    assert await _clock_holder(t, tid) != holder


async def test_the_clock_holder_killed_during_play_the_round_completes_once(
        kill_stack: Tables) -> None:
    t = kill_stack
    tid = "vip-kill-play"
    a, b = await _player(t, "dev-operator"), await _player(t, "other-operator")
    holder = await _clock_holder(t, tid)
    live = _alive(t, holder)
    stub = t.tables[live]
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=1), metadata=a.md)
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=3), metadata=b.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000, perfect_pairs=100)]), metadata=a.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=3, stake=2000, twenty_one_plus_three=100)]), metadata=b.md)
    await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid, forced_cards=CARDS),
                       metadata=a.md)
    await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid), metadata=b.md)
    await _events_until(stub, a.md, tid, "decision_due", timeout=20)
    holder = await _clock_holder(t, tid)  # it dealt the round
    if holder == live:
        live = _alive(t, holder)
        stub = t.tables[live]
    t.stack.replicas[holder].proc.kill()  # SIGKILL while seat 1 decides
    round_id = (await _snapshot(stub, a.md, tid)).round_id
    await stub.Act(tb.ActRequest(request_id="x", table_id=tid, round_id=round_id, seat=1,
                                 hand=0, action="double"), metadata=a.md)
    # Seat 3's decision time runs out on the new holder's clock: it stands on 19.
    seen = await _events_until(stub, b.md, tid, "round_finished", timeout=40)
    results = {r.player.display_name: (r.staked, r.paid) for r in seen[-1].round_finished.results}
    assert results == {shown_as(tid, "dev-operator", a.pid): (2100, 4000),
                       shown_as(tid, "other-operator", b.pid): (2100, 4000)}
    await _until(lambda: _balances(t, a, b), (START + 1900, START + 1900))
    kinds = await _kinds(t, tid)
    assert kinds.count("round_finished") == 1 and kinds.count("decision_timed_out") == 1


#: Seat 1: T 9 (19); the dealer 9, hole 7, draws T and busts: everyone on seat 1 wins evens.
SEAT_WINS = ["TS", "9C", "9H", "7D", "TD"]
#: Bet Behinds on seat 1, from both operators.
BEHIND = 40


async def test_the_clock_holder_killed_while_it_pays_many_bets_behind_everyone_is_paid_once(
        settle_stack: Tables) -> None:
    """Forty Bet Behinds of two operators follow seat 1, which wins; the seat's decision time
    runs out, so the clock's holder settles the round and pays everyone in bulk, each wallet
    sitting 300 ms on every credit; the holder is SIGKILLed as soon as the round is finished,
    while its payments are in flight. The other replicas' reconcilers pay whatever it left:
    every wallet ends at its player's stake and win to the cent, paid once."""
    t = settle_stack
    tid = "vip-kill-settle"
    seat = await _player(t, "dev-operator")
    behind = [await _player(t, "dev-operator" if i % 2 else "other-operator")
              for i in range(BEHIND)]
    holder = await _clock_holder(t, tid)
    live = _alive(t, holder)
    stub = t.tables[live]
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=1),
                        metadata=seat.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000)]), metadata=seat.md)
    await asyncio.gather(*(stub.PlaceBets(tb.PlaceBetsRequest(
        request_id="b", table_id=tid, bets=[tb.Bet(seat=1, stake=1000 + 100 * (i % 3),
                                                   behind=True)]), metadata=p.md)
        for i, p in enumerate(behind)))
    for op_id, control in t.controls.items():
        await control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
            kind=sandbox_pb2.FAULT_KIND_LATENCY, method=sandbox_pb2.WALLET_METHOD_CREDIT,
            latency_ms=300)), metadata=WALLET_AUTH[op_id])
    try:
        await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid,
                                             forced_cards=SEAT_WINS), metadata=seat.md)
        await _events_until(stub, seat.md, tid, "decision_due", timeout=20)
        holder = await _clock_holder(t, tid)  # it dealt the round and will settle it
        if holder == live:
            live = _alive(t, holder)
            stub = t.tables[live]
        seen = await _events_until(stub, seat.md, tid, "round_finished", timeout=40)
        t.stack.replicas[holder].proc.kill()  # SIGKILL while the payments are in flight
        paid = {r.player.display_name: (r.staked, r.paid)
                for r in seen[-1].round_finished.results}
        want = [START - 1000 + 2000] + [START + 1000 + 100 * (i % 3) for i in range(BEHIND)]
        assert paid[shown_as(tid, "dev-operator", seat.pid)] == (1000, 2000)
        await _until(lambda: _balances(t, seat, *behind), tuple(want), timeout=60)
    finally:
        for op_id, control in t.controls.items():
            await control.ClearFaults(sandbox_pb2.ClearFaultsRequest(),
                                      metadata=WALLET_AUTH[op_id])
    for p in (seat, *behind):  # one credit each: the stake and the one win, nothing twice
        txns = await t.controls[p.operator].ListTransactions(
            sandbox_pb2.ListTransactionsRequest(player_id=p.pid),
            metadata=WALLET_AUTH[p.operator])
        assert sorted(x.kind for x in txns.transactions) == [
            sandbox_pb2.TRANSACTION_KIND_DEBIT, sandbox_pb2.TRANSACTION_KIND_CREDIT], p.pid
    kinds = await _kinds(t, tid)
    assert kinds.count("round_finished") == 1
