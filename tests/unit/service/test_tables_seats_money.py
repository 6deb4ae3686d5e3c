"""A seat's life at a shared table through the real bootstrap with fakes: leaving with and
without a bet, the Bet Behinds that go back with a seat, a seat that sits out rounds in a row;
every player's money asserted from the wallet to the cent."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from table_fakes import DECISION_S, START, T, Tables, tables

from rgs.engine import Action
from rgs.service.tables.model import BetCommand, TableAct, TablePhase

pytestmark = pytest.mark.asyncio

#: One seat: T 9 (19) against the dealer's 7 T (17).
ONE_SEAT_WINS = ["TS", "7S", "9H", "TD"]
#: Two seats: T 9 each against the dealer's 7 T.
TWO_SEATS_WIN = ["TS", "TC", "7S", "9H", "9C", "TD"]


async def _seat_left(t: Tables, from_seq: int = 0) -> dict[int, str]:
    return {json.loads(e.payload)["seat"]: json.loads(e.payload)["reason"]
            for e in await t.events(from_seq) if e.kind == "seat_left"}


async def _play_out(t: Tables) -> None:
    """Let every undecided hand stand when its time runs out, until the round is over."""
    for _ in range(8):
        if (await t.service.view(T)).phase is TablePhase.IDLE:
            return
        await t.clock(DECISION_S + 1)
    raise AssertionError("the round did not finish")


async def test_leaving_a_seat_without_a_bet_returns_the_bets_behind_on_it() -> None:
    t = await tables()
    for name in ("ann", "ben", "cat"):
        await t.player(name)
    await t.sit("ann", 1)
    await t.sit("ben", 6)
    start = (await t.bet("ann", "b", BetCommand(seat=1, stake=1000))).seq
    await t.bet("cat", "bb", BetCommand(seat=6, stake=2500, behind=True))
    assert t.balance("cat") == START - 2500
    left = await t.service.leave_seat(t.players["ben"], T, "l", 6)
    assert [b.seat for b in left.view.behind] == []  # returned with the seat
    assert [s.seat for s in left.view.seats] == [1]
    await t.service.money.drain(5.0)
    assert t.balance("cat") == START
    refunds = [json.loads(e.payload) for e in await t.events(start) if e.kind ==
               "behind_refunded"]
    assert [(r["seat"], r["amount"], r["reason"]) for r in refunds] == [
        (6, 2500, "seat_released")]
    assert await _seat_left(t, start) == {6: "left"}
    # The round goes on for the others: ann's 19 beats 17.
    await t.deal_now("ann", "d", ONE_SEAT_WINS)
    await t.clock()
    await _play_out(t)
    assert (t.balance("ann"), t.balance("ben"), t.balance("cat")) == (
        START + 1000, START, START)
    assert "round_voided" not in await t.kinds(start)


async def test_a_player_who_leaves_with_a_bet_in_play_keeps_the_seat_until_the_round_ends(
        ) -> None:
    t = await tables()
    await t.player("ann")
    await t.player("cat", other=True)
    await t.sit("ann", 1)
    start = (await t.bet("ann", "b1", BetCommand(seat=1, stake=1000))).seq
    await t.bet("cat", "b1", BetCommand(seat=1, stake=1000, behind=True))
    left = await t.service.leave_seat(t.players["ann"], T, "leave", 1)
    mine = next(s for s in left.view.seats if s.seat == 1)
    assert mine.leaving and [b.seat for b in left.view.bets] == [1]
    await t.deal_now("ann", "dn", ONE_SEAT_WINS)
    await t.clock()
    await _play_out(t)  # ann decides nothing: 19 stands when its time runs out
    kinds = await t.kinds(start)
    assert "decision_timed_out" in kinds
    assert kinds.index("round_finished") < kinds.index("seat_left")
    assert await _seat_left(t, start) == {1: "left"}
    assert (await t.service.view(T)).seats == ()
    assert (t.balance("ann"), t.balance("cat")) == (START + 1000, START + 1000)


async def test_a_bet_behind_on_a_seat_its_player_leaves_never_voids_the_round() -> None:
    """X bets behind Y's seat 6; Y leaves; X leaves seat 5, takes seat 6 and bets on it."""
    t = await tables()
    for name in ("xan", "yve", "zed"):
        await t.player(name)
    await t.sit("zed", 1)
    await t.sit("xan", 5)
    await t.sit("yve", 6)
    start = (await t.bet("zed", "bz", BetCommand(seat=1, stake=1000))).seq
    await t.bet("xan", "bx", BetCommand(seat=6, stake=1000, behind=True))
    await t.service.leave_seat(t.players["yve"], T, "l", 6)
    await t.service.leave_seat(t.players["xan"], T, "l", 5)
    await t.service.take_seat(t.players["xan"], T, "s6", 6)
    await t.bet("xan", "bx2", BetCommand(seat=6, stake=1000))
    await t.deal_now("zed", "dz", TWO_SEATS_WIN)
    await t.deal_now("xan", "dx")
    await t.clock()
    await _play_out(t)
    events = await t.events(start)
    assert "round_voided" not in [e.kind for e in events]
    closed = next(json.loads(e.payload) for e in events if e.kind == "betting_closed")
    assert closed["seats"] == [1, 6]
    assert (t.balance("xan"), t.balance("zed"), t.balance("yve")) == (
        START + 1000, START + 1000, START)
    assert t.debits("xan") == [1000, 1000]


async def test_a_seat_that_sits_out_the_tables_rounds_in_a_row_is_given_back() -> None:
    """The table gives a seat back after two dealt rounds in a row without a bet on it, at the
    second round's betting close, before any card."""
    t = await tables()
    await t.player("idle")
    await t.player("bettor", other=True)
    await t.sit("idle", 2)
    await t.sit("bettor", 3)
    for n in (1, 2):
        seq = (await t.bet("bettor", f"b{n}", BetCommand(seat=3, stake=1000))).seq
        await t.deal_now("bettor", f"dn{n}", ONE_SEAT_WINS)
        await t.clock()
        await _play_out(t)
        if n == 1:
            assert await _seat_left(t, seq) == {}
            view = await t.service.view(T)
            assert {s.seat: s.sat_out for s in view.seats} == {2: 1, 3: 0}
    kinds = await t.kinds(seq)
    assert await _seat_left(t, seq) == {2: "sat_out"}
    assert kinds.index("betting_closed") < kinds.index("seat_left") < kinds.index(
        "card_dealt")
    assert [s.seat for s in (await t.service.view(T)).seats] == [3]
    assert (t.balance("bettor"), t.balance("idle")) == (START + 2000, START)


async def test_a_payment_the_wallet_missed_is_paid_by_the_reconciler_from_the_outbox() -> None:
    """A table's credits live in each player's own outbox: when the wallet is down as the
    round ends, the payments stay open there and the reconciler pays them once, to the cent."""
    t = await tables()
    await t.player("ann")
    await t.player("cat", other=True)
    await t.sit("ann", 1)
    await t.bet("ann", "b", BetCommand(seat=1, stake=1000))
    await t.bet("cat", "b", BetCommand(seat=1, stake=3000, behind=True))
    await t.deal_now("ann", "d", ONE_SEAT_WINS)
    await t.clock()
    round_id = (await t.service.view(T)).round_id
    t.h.wallet.down = True
    ended = await t.service.act(t.players["ann"], T, "x", TableAct(
        round_id=round_id, seat=1, hand=0, action=Action.STAND))
    await t.service.money.drain(5.0)
    assert ended.balance is None  # the wallet did not say
    assert (t.balance("ann"), t.balance("cat")) == (START - 1000, START - 3000)
    open_rows = {k: [m.amount for m in await t.h.journal.movements(k, round_id) if m.is_open]
                 for k in ("dev-operator/ann", "other-operator/cat")}
    assert open_rows == {"dev-operator/ann": [2000], "other-operator/cat": [6000]}
    t.h.wallet.down = False
    t.h.clock.now += timedelta(minutes=5)
    assert await t.h.app.reconciler.run_once() == 2
    assert (t.balance("ann"), t.balance("cat")) == (START + 1000, START + 3000)
    assert await t.h.app.reconciler.run_once() == 0
    assert [c.amount for c in t.h.wallet.applied.values() if c.kind.value == "credit"] == [
        2000, 6000]
