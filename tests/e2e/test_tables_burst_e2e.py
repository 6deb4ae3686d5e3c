"""Players at a shared table act as players do: at the same instant (issue 29).

Every call of a scene is held at one barrier and released together. Two RGS replicas with the
default pools take 7 seated players and 100 Bet Behind players of two operators betting at
once, then the seven seats' insurance decisions at once; one replica whose journal pools hold
two connections each takes every table and solo command from 50 callers at once. Nothing may be
refused for anything but a real rule of the game, and every wallet is exact to the cent (read
from the wallets).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import grpc
import pytest
import pytest_asyncio
from test_tables_e2e import DEV, OTHER, START, WALLET_AUTH, Tables, _table, tables_stack

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.errors import error_reason
from support.tables import plain, shown_as, snapshot

pytestmark = pytest.mark.asyncio(loop_scope="session")

BRAND = {"dev-operator": "demo-casino", "other-operator": "other-casino"}
STAKE = 1000
_ids = itertools.count()

#: Refusals a player can meet because of the game's own rules (never a server's trouble).
RULES = {"SEAT_TAKEN", "ALREADY_SEATED", "NOT_YOUR_SEAT", "BETTING_CLOSED", "WRONG_PHASE",
         "ACTION_NOT_ALLOWED", "NO_SEAT_BET", "ROUND_FINISHED", "NOT_THIS_HAND"}


@dataclass
class P:
    """A player: their operator, id, session metadata and the replica they call."""

    operator: str
    pid: str
    md: tuple[tuple[str, str], ...]
    replica: int

    async def balance(self, t: Tables) -> int:
        got = await t.controls[self.operator].GetPlayer(
            sandbox_pb2.GetPlayerRequest(player_id=self.pid), metadata=WALLET_AUTH[self.operator])
        return int(got.player.balance)


async def _players(t: Tables, n: int, *, operators: Sequence[str] = ("dev-operator",)
                   ) -> list[P]:
    """``n`` players with START in their wallets and a session each, spread over the operators
    and the replicas (their sessions opened at once)."""
    async def one(i: int) -> P:
        operator = operators[i % len(operators)]
        pid = f"bp-{next(_ids)}"
        await t.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
            metadata=WALLET_AUTH[operator])
        replica = i % len(t.tables)
        s = await t.operators[replica].CreateSession(op.CreateSessionRequest(
            request_id=f"s-{pid}", brand_id=BRAND[operator], player_id=pid, currency="EUR"),
            metadata=DEV if operator == "dev-operator" else OTHER)
        return P(operator, pid, (("authorization", f"Bearer {s.session_token}"),), replica)
    return list(await asyncio.gather(*(one(i) for i in range(n))))


@dataclass
class Outcome:
    """One call of a scene: its answer, or its status code and ErrorInfo reason."""

    answer: Any = None
    code: grpc.StatusCode = grpc.StatusCode.OK
    reason: str = ""


async def at_once(calls: Sequence[Callable[[], Awaitable[Any]]]) -> list[Outcome]:
    """Every call held at one barrier, then released together."""
    go = asyncio.Event()

    async def one(call: Callable[[], Awaitable[Any]]) -> Outcome:
        await go.wait()
        try:
            return Outcome(answer=await call())
        except grpc.aio.AioRpcError as exc:
            return Outcome(code=exc.code(), reason=error_reason(exc))

    tasks = [asyncio.create_task(one(c)) for c in calls]
    await asyncio.sleep(0)  # every task waits at the barrier
    go.set()
    return list(await asyncio.gather(*tasks))


def _only_rules(outcomes: Sequence[Outcome]) -> None:
    """No call failed for the server's sake: every refusal is a rule of the game."""
    odd = [(o.code.name, o.reason) for o in outcomes
           if o.code is not grpc.StatusCode.OK
           and not (o.code is grpc.StatusCode.FAILED_PRECONDITION and o.reason in RULES)]
    assert odd == [], odd


def _ok(outcomes: Sequence[Outcome]) -> int:
    return sum(o.code is grpc.StatusCode.OK for o in outcomes)


async def _snapshot(t: Tables, p: P, tid: str) -> dict[str, Any]:
    """The table as ``p`` sees it (:func:`support.tables.plain`)."""
    return plain(await snapshot(t.tables[p.replica], p.md, tid))


async def _until_phase(t: Tables, p: P, tid: str, phases: set[str], *,
                       to_act: int | None = None, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snap = await _snapshot(t, p, tid)
        act = (snap.get("round") or {}).get("to_act")
        if snap["phase"] in phases and (to_act is None or (act and act[0] == to_act)):
            return snap
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {tid} did not reach {phases} (seat {to_act} to act)")


async def _stand_out(t: Tables, by_seat: dict[int, P], tid: str) -> None:
    """Each seat stands when its hand is due, seat after seat, until the round in play (or
    about to be dealt) is over."""
    watcher = next(iter(by_seat.values()))
    deadline = time.monotonic() + 60
    dealt = await _snapshot(t, watcher, tid)
    while dealt["phase"] == "betting" and time.monotonic() < deadline:  # the deal is coming
        await asyncio.sleep(0.05)
        dealt = await _snapshot(t, watcher, tid)
    while time.monotonic() < deadline:
        snap = await _snapshot(t, watcher, tid)
        if snap["phase"] == "idle" or snap["round_id"] != dealt["round_id"]:
            return
        act = (snap.get("round") or {}).get("to_act")
        if snap["phase"] == "playing" and act:
            p = by_seat[act[0]]
            await t.tables[p.replica].Act(tb.ActRequest(
                request_id=f"stand-{snap['seq']}", table_id=tid, round_id=snap["round_id"],
                seat=act[0], hand=act[1], action="stand"), metadata=p.md)
        else:
            await asyncio.sleep(0.05)
    raise AssertionError("the round did not end")


async def _wallets(t: Tables, want: dict[str, int], players: Sequence[P],
                   timeout: float = 30.0) -> None:
    """Every player's wallet balance is ``want[pid]`` (payments after a round go at once but
    after the answer that ended it)."""
    deadline = time.monotonic() + timeout
    got: dict[str, int] = {}
    while time.monotonic() < deadline:
        got = dict(zip([p.pid for p in players],
                       await asyncio.gather(*(p.balance(t) for p in players)), strict=True))
        if got == want:
            return
        await asyncio.sleep(0.3)
    assert {k: v for k, v in got.items() if want[k] != v} == {}


def _deal(seats: int, up: str, first: str, second: str, hole: str, *more: str) -> list[str]:
    """Forced cards: every box ``first`` then ``second``, the dealer ``up`` and ``hole``."""
    return [*[first] * seats, up, *[second] * seats, hole, *more]


# --------------------------------------------------------------------------- two replicas


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def burst(database_templates: DatabaseTemplates, tmp_path_factory: Any
                ) -> AsyncIterator[Tables]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("burst")), [
            _table("vip-burst", betting_s=30.0, decision_s=10.0),
            _table("vip-burst-ins", betting_s=30.0, decision_s=10.0)], replicas=2) as t:
        yield t


async def test_seven_seats_and_a_hundred_bets_behind_placed_at_once_all_stand_to_the_cent(
        burst: Tables) -> None:
    t, tid = burst, "vip-burst"
    seated = await _players(t, 7, operators=("dev-operator", "other-operator"))
    behind = await _players(t, 100, operators=("dev-operator", "other-operator"))
    seats = await at_once([lambda p=p, n=n: t.tables[p.replica].TakeSeat(tb.TakeSeatRequest(
        request_id="seat", table_id=tid, seat=n), metadata=p.md)
        for n, p in enumerate(seated, start=1)])
    assert _ok(seats) == 7

    bets = await at_once(
        [lambda p=p, n=n: t.tables[p.replica].PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=tid, bets=[tb.Bet(seat=n, stake=STAKE)]),
            metadata=p.md, timeout=30) for n, p in enumerate(seated, start=1)]
        + [lambda p=p, i=i: t.tables[p.replica].PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=tid, bets=[tb.Bet(seat=1 + i % 7, stake=STAKE,
                                                         behind=True)]),
            metadata=p.md, timeout=30) for i, p in enumerate(behind)])
    _only_rules(bets)
    assert _ok(bets) == 107  # every bet placed within the betting window
    # Each answer carries the caller's balance after its stake.
    assert {o.answer.result.balance for o in bets} == {START - STAKE}
    snap = await _snapshot(t, seated[0], tid)
    # A seated player sees every seat's Bet Behinds together, none of them one by one.
    assert snap["phase"] == "betting" and len(snap["bets"]) == 7 and "behind" not in snap
    assert sum(int(x["bettors"]) for x in snap["behind_totals"]) == 100
    assert sum(int(x["staked"]) for x in snap["behind_totals"]) == 100 * STAKE
    assert sorted(b["seat"] for b in snap["bets"]) == list(range(1, 8))

    # Everyone presses Deal Now at once (seat 1 brings the cards: every seat 20, the dealer's 6
    # and 10 draw a 10 and bust).
    ready = await at_once([lambda p=p, n=n: t.tables[p.replica].DealNow(tb.DealNowRequest(
        request_id="deal", table_id=tid,
        forced_cards=_deal(7, "6H", "TS", "TH", "TD", "TC") if n == 1 else []),
        metadata=p.md) for n, p in enumerate(seated, start=1)])
    _only_rules(ready)
    assert _ok(ready) == 7
    await _stand_out(t, dict(enumerate(seated, start=1)), tid)
    # Every bet won even money: each wallet up by one stake, to the cent, on both operators.
    await _wallets(t, {p.pid: START + STAKE for p in (*seated, *behind)}, [*seated, *behind])


async def test_seven_seats_decide_insurance_at_once_and_every_decision_counts(
        burst: Tables) -> None:
    t, tid = burst, "vip-burst-ins"
    seated = await _players(t, 7, operators=("dev-operator", "other-operator"))
    behind = await _players(t, 14, operators=("other-operator", "dev-operator"))
    assert _ok(await at_once([lambda p=p, n=n: t.tables[p.replica].TakeSeat(tb.TakeSeatRequest(
        request_id="seat", table_id=tid, seat=n), metadata=p.md)
        for n, p in enumerate(seated, start=1)])) == 7
    bets = await at_once(
        [lambda p=p, n=n: t.tables[p.replica].PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=tid, bets=[tb.Bet(seat=n, stake=STAKE)]),
            metadata=p.md) for n, p in enumerate(seated, start=1)]
        + [lambda p=p, i=i: t.tables[p.replica].PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=tid, bets=[tb.Bet(
                seat=1 + i % 7, stake=STAKE, behind=True,
                insurance=tb.BEHIND_INSURANCE_ASK)]), metadata=p.md)
           for i, p in enumerate(behind)])
    assert _ok(bets) == 21
    # The dealer shows an ace; every box holds 20; the hole card makes a blackjack.
    assert _ok(await at_once([lambda p=p, n=n: t.tables[p.replica].DealNow(tb.DealNowRequest(
        request_id="deal", table_id=tid,
        forced_cards=_deal(7, "AS", "TS", "TH", "KD") if n == 1 else []), metadata=p.md)
        for n, p in enumerate(seated, start=1)])) == 7
    snap = await _until_phase(t, seated[0], tid, {"insurance"})
    rid = snap["round_id"]
    # Every seat and every Bet Behind that asks decides at the same instant: the seats and the
    # even-numbered Bet Behinds take insurance, the others decline.
    decisions = await at_once(
        [lambda p=p, n=n: t.tables[p.replica].DecideInsurance(tb.DecideInsuranceRequest(
            request_id="ins", table_id=tid, round_id=rid, seat=n, take=True), metadata=p.md)
         for n, p in enumerate(seated, start=1)]
        + [lambda p=p, i=i: t.tables[p.replica].DecideInsurance(tb.DecideInsuranceRequest(
            request_id="ins", table_id=tid, round_id=rid, seat=1 + i % 7, take=i % 2 == 0,
            behind=True), metadata=p.md) for i, p in enumerate(behind)])
    _only_rules(decisions)
    assert _ok(decisions) == 21
    # Every decision made, insurance closes at once; the dealer's blackjack ends the round.
    await _until_phase(t, seated[0], tid, {"idle", "betting"}, timeout=15)
    # A seat: stake lost, insurance 500 paid 2:1 (1500 back): even. A Bet Behind insured the
    # same; one that declined loses its stake.
    want = {p.pid: START for p in seated}
    want |= {p.pid: START if i % 2 == 0 else START - STAKE for i, p in enumerate(behind)}
    await _wallets(t, want, [*seated, *behind])


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
    assert _ok(acts) == 1
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
