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

import grpc
import pytest
import pytest_asyncio
from test_tables_e2e import DEV, OTHER, START, WALLET_AUTH, Tables, _table, tables_stack

from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.errors import error_reason
from support.tables import plain, snapshot

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
    # Nine Bet Behinds a seat, each deciding live: their decisions are rows of their own
    # (rgs.service.tables.live_insurance), the seats' are transitions, all at one instant.
    behind = await _players(t, 63, operators=("other-operator", "dev-operator"))
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
    assert _ok(bets) == 70
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
    assert _ok(decisions) == 70
    # Every decision made, insurance closes at once; the dealer's blackjack ends the round.
    await _until_phase(t, seated[0], tid, {"idle", "betting"}, timeout=15)
    # A seat: stake lost, insurance 500 paid 2:1 (1500 back): even. A Bet Behind insured the
    # same; one that declined loses its stake.
    want = {p.pid: START for p in seated}
    want |= {p.pid: START if i % 2 == 0 else START - STAKE for i, p in enumerate(behind)}
    await _wallets(t, want, [*seated, *behind])
