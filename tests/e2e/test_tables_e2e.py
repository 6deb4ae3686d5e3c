"""Shared tables against real processes (issue 13): two RGS replicas, two operators' sandbox
wallets, three players at one vip-platinum table; every wallet asserted to the cent.

The round: seat 1 (dev-operator's player A) bets 1000 + Perfect Pairs 100 and doubles 11 onto
21; seat 3 (dev-operator's B) bets 2000 + 21+3 100 and lets the decision time run out on 19
(stands); seat 5 (other-operator's C) sits out, so A's Bet Behind on it is refunded at once; C's
Bet Behind on seat 1 follows the double. Deal Now closes betting long before its time. The
dealer's 16 draws a ten and busts.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from e2e_servers import Stack, start_stack

from rgs.api.table_messages import PRIVATE
from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates
from support.errors import error_reason
from support.tables import as_dict, as_json, body, events_until, kind, shown_as, snapshot

pytestmark = pytest.mark.asyncio(loop_scope="session")

DEV = (("authorization", "Bearer rgs-dev-operator-key"),)
OTHER = (("authorization", "Bearer rgs-other-operator-key"),)
WALLET_AUTH = {"dev-operator": (("authorization", "Bearer sandbox-wallet-dev-key"),),
               "other-operator": (("authorization", "Bearer sandbox-wallet-other-key"),)}
BRAND = {"dev-operator": "demo-casino", "other-operator": "other-casino"}
#: The sandbox's brand with hints on (dev-operator's).
HINTS = "demo-casino-hints"
START = 1_000_000
#: seat 1: 6 5 (doubles onto T); seat 3: T 9; dealer 9, hole 7, then draws T.
CARDS = ["6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC"]
_ids = itertools.count()


def _table(table_id: str, *, betting_s: float = 30.0, decision_s: float = 2.5) -> dict[str, Any]:
    return {"id": table_id, "variant": "vip-platinum", "seats": 7, "currency": "EUR",
            "limits": {"main_min": 1000, "main_max": 500000, "side_min": 100,
                       "side_max": 50000},
            "brands": ["demo-casino", "other-casino"], "betting_s": betting_s,
            "decision_s": decision_s}


@dataclass
class Tables:
    stack: Stack
    tables: list[table_pb2_grpc.TableServiceAsyncStub]
    operators: list[operator_pb2_grpc.OperatorServiceAsyncStub]
    controls: dict[str, sandbox_pb2_grpc.SandboxControlServiceAsyncStub]
    rgs_db: str
    channels: list[grpc.aio.Channel]


@contextlib.asynccontextmanager
async def tables_stack(database_templates: DatabaseTemplates, logs: Path,
                       tables: list[dict[str, Any]], *, replicas: int = 3,
                       env: dict[str, str] | None = None) -> AsyncIterator[Tables]:
    """Two operators' sandbox wallets and ``replicas`` RGS replicas (test mode) with
    ``tables`` (``env``: more settings of the replicas)."""
    rgs_name, rgs_db = await database_templates.fresh(RGS_TEMPLATE)
    dev_name, dev_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    other_name, other_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    stack = await start_stack(
        rgs_db=rgs_db, wallet_dbs={"dev-operator": dev_db, "other-operator": other_db},
        replicas=replicas, logs=logs,
        env={"RGS_RECONCILE_MIN_AGE_S": "1", "RGS_RECONCILE_INTERVAL_S": "1", **(env or {})},
        tables=tables)
    channels = [grpc.aio.insecure_channel(p.target) for p in stack.replicas]
    wallet_channels = {op_id: grpc.aio.insecure_channel(w.target)
                       for op_id, w in stack.wallets.items()}
    try:
        yield Tables(stack=stack,
                     tables=[table_pb2_grpc.TableServiceStub(c) for c in channels],
                     operators=[operator_pb2_grpc.OperatorServiceStub(c) for c in channels],
                     controls={k: sandbox_pb2_grpc.SandboxControlServiceStub(c)
                               for k, c in wallet_channels.items()},
                     rgs_db=rgs_db, channels=channels)
    finally:
        for c in (*channels, *wallet_channels.values()):
            await c.close()
        stack.stop()
        for name in (rgs_name, dev_name, other_name):
            database_templates.discard(name)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def te2e(database_templates: DatabaseTemplates, tmp_path_factory: Any
               ) -> AsyncIterator[Tables]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("tables")), [
            _table("vip-e2e"), _table("vip-insurance"), _table("vip-resume"),
            _table("vip-batch"),
            {**_table("vip-hints", decision_s=30.0), "brands": [HINTS, "other-casino"]},
            {"id": "electronic-e2e", "variant": "electronic-h17", "seats": 5, "currency": "EUR",
             "brands": ["demo-casino"], "betting_s": 1.5, "decision_s": 1.5}]) as t:
        yield t


@dataclass
class Player:
    operator: str
    pid: str
    md: tuple[tuple[str, str], ...]

    async def balance(self, t: Tables) -> int:
        got = await t.controls[self.operator].GetPlayer(
            sandbox_pb2.GetPlayerRequest(player_id=self.pid),
            metadata=WALLET_AUTH[self.operator])
        return int(got.player.balance)


async def _player(t: Tables, operator: str, brand: str = "") -> Player:
    pid = f"tp-{next(_ids)}"
    await t.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
        metadata=WALLET_AUTH[operator])
    key = DEV if operator == "dev-operator" else OTHER
    live = next(i for i, r in enumerate(t.stack.replicas) if r.proc.poll() is None)
    s = await t.operators[live].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id=brand or BRAND[operator], player_id=pid,
        currency="EUR"),
        metadata=key)
    return Player(operator=operator, pid=pid,
                  md=(("authorization", f"Bearer {s.session_token}"),))


_events_until = events_until


async def test_three_players_from_two_operators_play_one_round_to_the_cent(
        te2e: Tables) -> None:
    t = te2e
    a, b = await _player(t, "dev-operator"), await _player(t, "dev-operator")
    c = await _player(t, "other-operator")
    r0, r1 = t.tables[0], t.tables[1]
    tid = "vip-e2e"
    listed = await r1.ListTables(tb.ListTablesRequest(), metadata=c.md)
    assert tid in [x.table_id for x in listed.tables]
    await r0.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=tid, seat=1), metadata=a.md)
    await r1.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=tid, seat=3), metadata=b.md)
    await r1.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=tid, seat=5), metadata=c.md)
    with pytest.raises(grpc.aio.AioRpcError) as taken:
        await r0.TakeSeat(tb.TakeSeatRequest(request_id="seat2", table_id=tid, seat=3),
                          metadata=c.md)
    assert taken.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    start_seq = (await r0.PlaceBets(tb.PlaceBetsRequest(request_id="b1", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000, perfect_pairs=100),
        tb.Bet(seat=5, stake=1000, behind=True)]), metadata=a.md)).result.seq
    assert await a.balance(t) == START - 2100
    await r1.PlaceBets(tb.PlaceBetsRequest(request_id="b1", table_id=tid, bets=[
        tb.Bet(seat=3, stake=2000, twenty_one_plus_three=100)]), metadata=b.md)
    await r0.PlaceBets(tb.PlaceBetsRequest(request_id="b1", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000, behind=True, follow_double=True)]), metadata=c.md)
    with pytest.raises(grpc.aio.AioRpcError) as own:
        await r0.PlaceBets(tb.PlaceBetsRequest(request_id="b2", table_id=tid, bets=[
            tb.Bet(seat=5, stake=1000, behind=True)]), metadata=c.md)
    assert own.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    # A watcher on the third replica sees everything from the first bet on.
    watcher = asyncio.create_task(_events_until(t.tables[2], c.md, tid, "round_finished",
                                                from_seq=start_seq - 2))
    t0 = time.monotonic()
    await r0.DealNow(tb.DealNowRequest(request_id="dn", table_id=tid, forced_cards=CARDS),
                     metadata=a.md)
    await r1.DealNow(tb.DealNowRequest(request_id="dn", table_id=tid), metadata=b.md)
    # Betting closes at once (its time is 30 s), A's behind on the empty seat 5 is refunded.
    dealt = await _events_until(r1, b.md, tid, "decision_due", from_seq=start_seq)
    assert time.monotonic() - t0 < 10
    kinds = [kind(e) for e in dealt]
    # A's refund is A's to see: B is not sent it (a gap in B's event numbers).
    assert "behind_refunded" not in kinds and "" not in kinds and "betting_closed" in kinds
    mine = await _events_until(r1, a.md, tid, "decision_due", from_seq=start_seq)
    assert "behind_refunded" in [kind(e) for e in mine]
    refund = [e.seq for e in mine if kind(e) == "behind_refunded"]
    assert [e.seq for e in mine if e.seq not in refund] == [e.seq for e in dealt]
    snap = await _snapshot(r0, a.md, tid)
    round_id = snap.round_id
    doubled = await r0.Act(tb.ActRequest(request_id="act1", table_id=tid, round_id=round_id,
                                         seat=1, hand=0, action="double"), metadata=a.md)
    # The double's stake taken (A's Bet Behind on the empty seat 5 came back at betting close).
    assert doubled.result.balance == START - 2100 + 1000 - 1000
    # B lets the decision time run out: seat 3 stands, the dealer busts, everyone is paid.
    seen = await watcher
    # Every event once, in order; missing only A's Bet Behind's (placed, refunded): A's own.
    assert [e.seq for e in seen] == sorted({e.seq for e in seen})
    a_saw = await _events_until(r1, a.md, tid, "round_finished", from_seq=seen[0].seq - 1)
    a_behind = {e.seq for e in a_saw if kind(e) in PRIVATE}  # (the seats' totals are public)
    assert set(refund) <= a_behind
    assert set(range(seen[0].seq, seen[-1].seq + 1)) - {e.seq for e in seen} == a_behind
    assert any(kind(e) == "decision_timed_out" for e in seen)
    # The watcher (C, other-operator) sees itself as "you" and A and B by their pseudonyms.
    results = {(r.player.display_name, r.player.you): (r.staked, r.paid)
               for r in seen[-1].round_finished.results}
    assert results == {(shown_as(tid, "dev-operator", a.pid), False): (2100, 4000),
                       (shown_as(tid, "dev-operator", b.pid), False): (2100, 4000),
                       (shown_as(tid, "other-operator", c.pid), True): (2000, 4000)}
    for e in seen:  # nothing C received names another operator's player by id or key
        assert a.pid not in as_json(e) and b.pid not in as_json(e)
        assert "dev-operator" not in as_json(e)
    await _until(lambda: _balances(t, a, b, c),
                 (START - 2100 + 4000, START - 2100 + 4000, START - 2000 + 4000))
    # Recall: each operator sees its own players' money only.
    dev_view = await t.tables[1].GetTableRound(tb.GetTableRoundRequest(
        table_id=tid, round_id=round_id), metadata=DEV)
    assert {(p.player_id, p.staked, p.paid) for p in dev_view.players} == {
        (a.pid, 2100, 4000), (b.pid, 2100, 4000)}
    other_view = await t.tables[0].GetTableRound(tb.GetTableRoundRequest(
        table_id=tid, round_id=round_id), metadata=OTHER)
    assert {(p.player_id, p.staked, p.paid) for p in other_view.players} == {
        (c.pid, 2000, 4000)}
    # The same events for both, each operator's own players with their ids, the others by name.
    assert len(dev_view.events) == len(other_view.events) > 10
    own = {p.player_id for e in dev_view.events for p in _players(e) if p.player_id}
    assert own == {a.pid, b.pid}
    assert {p.player_id for e in other_view.events for p in _players(e) if p.player_id} == {
        c.pid}
    assert a.pid not in as_json(other_view) and c.pid not in str(
        [as_json(e) for e in dev_view.events])
    # Hot Players: seats 1 and 3 won their first round; seat 5 sat out.
    seats = {x.seat: x.hot for x in (await _snapshot(r1, c.md, tid)).seats}
    assert seats == {1: 1, 3: 1, 5: 0}


def _players(e: tb.TableEvent) -> list[tb.TablePlayer]:
    """Every player an event names (its own, and a round's results)."""
    b = body(e)
    out = [b.player] if "player" in b.DESCRIPTOR.fields_by_name and b.HasField("player") else []
    if kind(e) == "round_finished":
        out += [r.player for r in b.results]
    if kind(e) == "round_started":
        out += list(b.players)
    return out


_snapshot = snapshot


async def _balances(t: Tables, *players: Player) -> tuple[int, ...]:
    return tuple([await p.balance(t) for p in players])


async def _until(probe: Any, want: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    got = None
    while time.monotonic() < deadline:
        got = await probe()
        if got == want:
            return
        await asyncio.sleep(0.2)
    assert got == want


async def test_a_watcher_that_resumes_misses_nothing_and_sees_nothing_twice(
        te2e: Tables) -> None:
    """Live: one watcher stays for the whole round; another drops its stream after the deal,
    events go on while it is away (a decision, a time-out, the settlement), and it resumes on
    another replica from the last number it saw."""
    t = te2e
    tid = "vip-resume"
    a, b = await _player(t, "dev-operator"), await _player(t, "other-operator")
    stub = t.tables[0]
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=1), metadata=a.md)
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=3), metadata=b.md)
    whole = asyncio.create_task(_events_until(t.tables[1], a.md, tid, "round_finished"))
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000)]), metadata=a.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=3, stake=1000)]), metadata=b.md)
    await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid, forced_cards=CARDS),
                       metadata=a.md)
    await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid), metadata=b.md)
    first = await _events_until(t.tables[2], b.md, tid, "decision_due")  # then disconnects
    round_id = (await _snapshot(stub, a.md, tid)).round_id
    await stub.Act(tb.ActRequest(request_id="x", table_id=tid, round_id=round_id, seat=1,
                                 hand=0, action="double"), metadata=a.md)
    rest = await _events_until(t.tables[0], b.md, tid, "round_finished",
                               from_seq=first[-1].seq)
    everything = await whole
    assert any(kind(e) == "decision_timed_out" for e in rest)
    # (The same viewer, b, on both streams; a's whole watch sees the same events its own way.)
    assert [(e.seq, kind(e)) for e in (*first, *rest)] == [
        (e.seq, kind(e)) for e in everything]
    assert [e.seq for e in everything] == list(range(1, len(everything) + 1))


async def test_insurance_at_a_table_seat_behind_live_and_behind_preset(te2e: Tables) -> None:
    """Dealer ace: the seat player insures; one Bet Behind (preset ask) insures live, another
    (preset always) is insured at close; the dealer has no blackjack, 19 beats 18."""
    t = te2e
    tid = "vip-insurance"
    a, b = await _player(t, "dev-operator"), await _player(t, "dev-operator")
    c = await _player(t, "other-operator")
    stub = t.tables[1]
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=1), metadata=a.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000)]), metadata=a.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000, behind=True, insurance=tb.BEHIND_INSURANCE_ASK)]),
        metadata=b.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=2000, behind=True, insurance=tb.BEHIND_INSURANCE_ALWAYS)]),
        metadata=c.md)
    await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid,
                                         forced_cards=["TS", "AS", "9C", "7D"]), metadata=a.md)
    snap = tb.TableSnapshot()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        snap = await _snapshot(stub, a.md, tid)
        if snap.phase == tb.TABLE_PHASE_INSURANCE:
            break
        await asyncio.sleep(0.1)
    assert snap.phase == tb.TABLE_PHASE_INSURANCE
    rid = snap.round_id
    # Every command that moves money answers with the caller's balance after it.
    insured = await stub.DecideInsurance(tb.DecideInsuranceRequest(
        request_id="i", table_id=tid, round_id=rid, seat=1, take=True, behind=True),
        metadata=b.md)
    assert insured.result.balance == await b.balance(t) == START - 1000 - 500
    seat_insured = await t.tables[0].DecideInsurance(tb.DecideInsuranceRequest(
        request_id="i", table_id=tid, round_id=rid, seat=1, take=True), metadata=a.md)
    assert seat_insured.result.balance == START - 1000 - 500
    await _events_until(stub, a.md, tid, "decision_due")
    ended = await stub.Act(tb.ActRequest(request_id="x", table_id=tid, round_id=rid, seat=1,
                                         hand=0, action="stand"), metadata=a.md)
    assert ended.result.balance == START + 500  # the Act that ended the round paid A first
    # The Act that ended the round paid the actor before it answered (under the journal the
    # Act holds); the others' credits go at once after it, each under its player's journal.
    await _until(lambda: _balances(t, a, b, c), (START + 500, START + 500, START + 1000))
    seen = await _events_until(stub, a.md, tid, "round_finished")
    results = {(r.player.display_name, r.player.you): (r.staked, r.paid)
               for r in seen[-1].round_finished.results}
    # The seats' results and the viewer's own: B and C bet behind, each sees only their own.
    assert results == {(shown_as(tid, "dev-operator", a.pid), True): (1500, 2000)}
    for p, want in ((b, (1500, 2000)), (c, (3000, 4000))):
        seen = await _events_until(stub, p.md, tid, "round_finished")
        results = {(r.player.display_name, r.player.you): (r.staked, r.paid)
                   for r in seen[-1].round_finished.results}
        assert results == {(shown_as(tid, "dev-operator", a.pid), False): (1500, 2000),
                           (shown_as(tid, p.operator, p.pid), True): want}


async def test_the_electronic_table_plays_its_stations_and_has_no_bet_behind(
        te2e: Tables) -> None:
    """Two stations, betting closed by its time (nobody presses Deal Now), both decisions time
    out (stand); the other operator's brand does not offer this table."""
    t = te2e
    tid = "electronic-e2e"
    a, b = await _player(t, "dev-operator"), await _player(t, "dev-operator")
    c = await _player(t, "other-operator")
    stub = t.tables[2]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=2),
                            metadata=c.md)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=1), metadata=a.md)
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=2), metadata=b.md)
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=500)]), metadata=a.md)
    with pytest.raises(grpc.aio.AioRpcError) as behind:
        await stub.PlaceBets(tb.PlaceBetsRequest(request_id="bb", table_id=tid, bets=[
            tb.Bet(seat=1, stake=500, behind=True)]), metadata=b.md)
    assert behind.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # never at this table
    assert error_reason(behind.value) == "INVALID_BET"
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=2, stake=700)]), metadata=b.md)
    # Only seat 1 presses Deal Now (with the round's cards): betting still closes by its time.
    # Seats 17 and 17; the dealer's 6 T draws 5: 21 beats both.
    await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid, forced_cards=[
        "TS", "9H", "6S", "7C", "8D", "TD", "5C"]), metadata=a.md)
    seen = await _events_until(t.tables[0], a.md, tid, "round_finished")
    timed_out = [e.decision_timed_out.seat for e in seen if kind(e) == "decision_timed_out"]
    assert timed_out == [1, 2]  # seat 1 (the players' right) plays first
    results = {(r.player.display_name, r.player.you): (r.staked, r.paid)
               for r in seen[-1].round_finished.results}
    assert results == {(shown_as(tid, "dev-operator", a.pid), True): (500, 0),
                       (shown_as(tid, "dev-operator", b.pid), False): (700, 0)}
    await _until(lambda: _balances(t, a, b), (START - 500, START - 700))



async def test_an_operator_lists_the_tables_its_brands_offer_and_no_others(
        te2e: Tables) -> None:
    stub = te2e.tables[1]
    dev = await stub.ListOperatorTables(tb.ListOperatorTablesRequest(), metadata=DEV)
    assert {x.table_id: (x.variant_id, x.seats, list(x.brand_ids)) for x in dev.tables} == {
        "vip-e2e": ("vip-platinum", 7, ["demo-casino"]),
        "vip-batch": ("vip-platinum", 7, ["demo-casino"]),
        "vip-insurance": ("vip-platinum", 7, ["demo-casino"]),
        "vip-resume": ("vip-platinum", 7, ["demo-casino"]),
        "vip-hints": ("vip-platinum", 7, [HINTS]),
        "electronic-e2e": ("electronic-h17", 5, ["demo-casino"])}
    assert (dev.tables[0].main_min, dev.tables[0].main_max) == (1000, 500000)
    other = await stub.ListOperatorTables(tb.ListOperatorTablesRequest(), metadata=OTHER)
    # The electronic table is demo-casino's alone; the other operator never sees it.
    assert {x.table_id: list(x.brand_ids) for x in other.tables} == {
        "vip-e2e": ["other-casino"], "vip-batch": ["other-casino"],
        "vip-insurance": ["other-casino"],
        "vip-resume": ["other-casino"], "vip-hints": ["other-casino"]}
    one = await stub.ListOperatorTables(tb.ListOperatorTablesRequest(brand_id="other-casino"),
                                        metadata=OTHER)
    assert one == other
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.ListOperatorTables(tb.ListOperatorTablesRequest(brand_id="demo-casino"),
                                      metadata=OTHER)  # another operator's brand
    assert err.value.code() is grpc.StatusCode.NOT_FOUND
    assert error_reason(err.value) == "BRAND_NOT_FOUND"
    player = await _player(te2e, "dev-operator")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.ListOperatorTables(tb.ListOperatorTablesRequest(), metadata=player.md)
    assert err.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert error_reason(err.value) == "INVALID_API_KEY"


def _valued(snap: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(seat, allowed action) of every open decision of a snapshot's round (as JSON): each
    box's insurance, the hand to act."""
    out: list[tuple[int, dict[str, Any]]] = []
    rnd = snap["round"]
    for box in rnd["boxes"]:
        out += [(box["seat"], a) for a in box.get("insurance_allowed", [])]
        to_act = rnd.get("to_act")
        if to_act and to_act["seat"] == box["seat"]:
            out += [(box["seat"], a) for a in box["hands"][to_act.get("hand", 0)]["allowed"]]
    return out


async def _both(t: Tables, h: Player, n: Player, tid: str, phase: int
                ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The table's snapshot as the hints player and the other player see it at one moment
    (the same event number), once it is in ``phase``."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        mine = await _snapshot(t.tables[0], h.md, tid)
        theirs = await _snapshot(t.tables[2], n.md, tid)
        if mine.phase == theirs.phase == phase and mine.seq == theirs.seq:
            return as_dict(mine), as_dict(theirs)
        await asyncio.sleep(0.1)
    raise AssertionError(f"the table never showed both players {phase}")


def _one_best_each(snap: dict[str, Any], seats: set[int]) -> None:
    valued = _valued(snap)
    assert valued and {s for s, _ in valued} == seats
    assert all(isinstance(a.get("expected_value"), float) for _, a in valued)
    for seat in seats:
        decisions: dict[bool, list[bool]] = {}
        for s, a in valued:
            if s == seat:
                decisions.setdefault(a["action"] in ("ACTION_INSURE",
                                                     "ACTION_DECLINE_INSURANCE"),
                                     []).append(a.get("best", False))
        assert all(sum(bests) == 1 for bests in decisions.values()), decisions


def _no_values(snap: dict[str, Any]) -> None:
    text = json.dumps(snap)
    assert all(k not in text for k in ("expected_value", '"best"', "fair_value"))


def _as_anyone(value: Any) -> Any:
    """A snapshot (as JSON) without what is the viewer's own: who is "you", and their money in
    the round."""
    if isinstance(value, dict):
        return {k: _as_anyone(v) for k, v in value.items()
                if k not in ("you", "total_staked", "total_paid")}
    if isinstance(value, list):
        return [_as_anyone(v) for v in value]
    return value


async def test_a_hints_brands_player_sees_every_decisions_value_and_the_other_brands_none(
        te2e: Tables) -> None:
    """One table, two brands: H (demo-casino-hints, dev-operator) on seat 1, N (other-casino,
    other-operator) on seat 3. The dealer shows an ace: H's snapshot values both boxes'
    insurance, N's (same moment) none; both decline. H's 9 2 against the ace: H's snapshot and
    command answers value every legal action with one best (Cash Out with its fair value), N's
    never. Both stand; the dealer's A 5 T 8 busts: each wins their 1000."""
    t = te2e
    tid = "vip-hints"
    h, n = await _player(t, "dev-operator", HINTS), await _player(t, "other-operator")
    for p, seat in ((h, 1), (n, 3)):
        await t.tables[seat % 3].TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid,
                                                             seat=seat), metadata=p.md)
        await t.tables[0].PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
            tb.Bet(seat=seat, stake=1000)]), metadata=p.md)
    # seat 1: 9 2; seat 3: T 7; dealer A, hole 5, draws T 8.
    await t.tables[0].DealNow(tb.DealNowRequest(
        request_id="d", table_id=tid, forced_cards=["9S", "TH", "AD", "2C", "7S", "5D", "TC",
                                                    "8H"]), metadata=h.md)
    await t.tables[1].DealNow(tb.DealNowRequest(request_id="d", table_id=tid), metadata=n.md)
    mine, theirs = await _both(t, h, n, tid, tb.TABLE_PHASE_INSURANCE)
    _one_best_each(mine, {1, 3})
    _no_values(theirs)
    rid = mine["round_id"]
    declined = await t.tables[1].DecideInsurance(tb.DecideInsuranceRequest(
        request_id="i", table_id=tid, round_id=rid, seat=3, take=False), metadata=n.md)
    _no_values(as_dict(declined.result.snapshot))
    declined = await t.tables[2].DecideInsurance(tb.DecideInsuranceRequest(
        request_id="i", table_id=tid, round_id=rid, seat=1, take=False), metadata=h.md)
    # The answer shows the round as the command left it (insurance closes on the clock).
    _one_best_each(as_dict(declined.result.snapshot), {1, 3})
    mine, theirs = await _both(t, h, n, tid, tb.TABLE_PHASE_PLAYING)
    assert mine["round"]["to_act"] == {"seat": 1}
    _one_best_each(mine, {1})
    _no_values(theirs)
    actions = {a["action"]: a for _, a in _valued(mine)}
    assert {"ACTION_HIT", "ACTION_STAND", "ACTION_DOUBLE", "ACTION_CASH_OUT"} <= actions.keys()
    assert int(actions["ACTION_CASH_OUT"]["fair_value"]) > 0
    # Apart from the values and what is each viewer's own, both players see the same table.
    for _, a in _valued(mine):
        for k in ("expected_value", "best", "fair_value"):
            a.pop(k, None)
    assert _as_anyone(mine) == _as_anyone(theirs)
    acted = await t.tables[0].Act(tb.ActRequest(request_id="x", table_id=tid, round_id=rid,
                                                seat=1, hand=0, action="stand"), metadata=h.md)
    # Seat 3's decision is open now: H's answer values it (the values are the same for every
    # viewer; only the brand decides whether they are shown).
    _one_best_each(as_dict(acted.result.snapshot), {3})
    acted = await t.tables[1].Act(tb.ActRequest(request_id="x", table_id=tid, round_id=rid,
                                                seat=3, hand=0, action="stand"), metadata=n.md)
    _no_values(as_dict(acted.result.snapshot))
    # The caller's win is paid before its answer; the other player's goes right after it.
    await _until(lambda: _balances(t, h, n), (START + 1000, START + 1000))


async def _batches_until(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any, table_id: str,
                         until: str, from_seq: int) -> list[list[tb.TableEvent]]:
    """Watch with ``batch_events`` until an event of kind ``until``: every message's events."""
    out: list[list[tb.TableEvent]] = []
    call = stub.WatchTable(tb.WatchTableRequest(table_id=table_id, from_seq=from_seq,
                                                batch_events=True), metadata=md)
    try:
        async with asyncio.timeout(30):
            async for item in call:
                assert item.HasField("events") and item.events.events
                out.append(list(item.events.events))
                if kind(out[-1][-1]) == until:
                    return out
    finally:
        call.cancel()
    raise AssertionError(f"no {until} event")


async def test_a_watcher_that_asks_for_batches_gets_the_same_events_in_fewer_messages(
        te2e: Tables) -> None:
    """A round played, then two watchers of another replica from before its first bet: one
    event per message, and with ``batch_events`` everything there was in one message; the same
    events, numbered without gaps, "you" marked alike (each rendered once per replica for the
    watchers it does not name)."""
    t = te2e
    tid = "vip-batch"
    a, c = await _player(t, "dev-operator"), await _player(t, "other-operator")
    r0, r1 = t.tables[0], t.tables[1]
    await r0.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=1), metadata=a.md)
    start = (await r0.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000)]), metadata=a.md)).result.seq
    await r0.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000, behind=True)]), metadata=c.md)
    await r0.DealNow(tb.DealNowRequest(request_id="d", table_id=tid, forced_cards=CARDS),
                     metadata=a.md)
    await _events_until(r0, a.md, tid, "decision_due", from_seq=start)
    round_id = (await _snapshot(r0, a.md, tid)).round_id
    await r0.Act(tb.ActRequest(request_id="x", table_id=tid, round_id=round_id, seat=1,
                               hand=0, action="stand"), metadata=a.md)
    c_saw, behind = [], set()  # C's events; the numbers of C's Bet Behind's (C's alone)
    for who in (c, a):
        single = await _events_until(r1, who.md, tid, "round_finished", from_seq=start - 1)
        batches = await _batches_until(r1, who.md, tid, "round_finished", from_seq=start - 1)
        flat = [e for b in batches for e in b]
        assert [e.SerializeToString() for e in flat] == [
            e.SerializeToString() for e in single]
        if who is c:
            c_saw, behind = single, {e.seq for e in flat if kind(e) in PRIVATE}
        # A is not sent C's Bet Behind's: gaps there (and only there).
        gaps = set() if who is c else behind
        assert behind and [e.seq for e in flat] == [
            n for n in range(start, start + len(flat) + len(gaps)) if n not in gaps]
        assert len(batches) == 1 < len(flat)
    mine = [p for e in c_saw for p in _players(e) if p.you]
    assert mine and all(p.display_name == shown_as(tid, "other-operator", c.pid) for p in mine)
