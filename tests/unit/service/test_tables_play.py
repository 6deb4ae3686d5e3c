"""Shared tables' rounds through the real bootstrap with fakes (the in-memory tables' journal,
the fake wallet, forced cards, the table clock run by hand): the scenarios the e2e tier plays
over gRPC, here at service level, every player's money asserted from the wallet to the cent."""

from __future__ import annotations

import asyncio
import json

import pytest
from table_fakes import BETTING_S, DECISION_S, START, T, Tables, table_config, tables

from rgs.engine import Action, TableLimits
from rgs.service.errors import InvalidRequest, NotAllowedNow, PermissionDenied
from rgs.service.tables.model import (
    BehindInsurance,
    BetCommand,
    TableAct,
    TableEvent,
    TablePhase,
)
from rgs.service.tables.recall import PlayerTableRound
from rgs.service.tables.views import TableView

pytestmark = pytest.mark.asyncio

#: seat 1: 6 5 (doubles onto T); seat 3: T 9; dealer 9, hole 7, then draws T and busts.
CARDS = ["6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC"]
#: seat 1: T 9 (19) against the dealer's A 7 (18, no blackjack).
DEALER_ACE = ["TS", "AS", "9C", "7D"]


async def _seats(t: Tables) -> dict[int, int]:
    """Hot Players count of every seat, as the table shows it."""
    return {s.seat: s.hot for s in (await t.service.view(T)).seats}


async def test_three_players_from_two_operators_play_one_round_to_the_cent() -> None:
    """Seat 1 (ann) bets 1000 + Perfect Pairs 100 and doubles 11 onto 21; seat 3 (ben) bets
    2000 + 21+3 100 and lets the decision time run out on 19; seat 5 (cat, the other operator)
    sits out, so ann's Bet Behind on it is returned at betting close; cat's Bet Behind on seat
    1 follows the double. Deal Now closes betting long before its time."""
    t = await tables()
    await t.player("ann")
    await t.player("ben")
    await t.player("cat", other=True)
    for name, seat in (("ann", 1), ("ben", 3), ("cat", 5)):
        await t.sit(name, seat)
    with pytest.raises(NotAllowedNow) as taken:
        await t.service.take_seat(await t.player("dan"), T, "seat", 3)
    assert taken.value.reason == "SEAT_TAKEN"
    first = await t.bet("ann", "b1", BetCommand(seat=1, stake=1000, perfect_pairs=100),
                        BetCommand(seat=5, stake=1000, behind=True))
    assert first.balance == t.balance("ann") == START - 2100
    await t.bet("ben", "b1", BetCommand(seat=3, stake=2000, twenty_one_plus_three=100))
    await t.bet("cat", "b1", BetCommand(seat=1, stake=1000, behind=True, follow_double=True))
    with pytest.raises(NotAllowedNow):  # behind their own seat
        await t.bet("cat", "b2", BetCommand(seat=5, stake=1000, behind=True))
    assert t.balance("cat") == START - 1000
    await t.deal_now("ann", "dn", CARDS)
    await t.deal_now("ben", "dn")
    await t.clock()  # betting closes at once (its time is 30 s), the cards are dealt
    view = await t.service.view(T)
    assert view.phase is TablePhase.PLAYING
    kinds = await t.kinds(first.seq)
    assert "behind_refunded" in kinds and "betting_closed" in kinds
    assert t.balance("ann") == START - 2100 + 1000  # the Bet Behind on seat 5 came back
    doubled = await t.service.act(t.players["ann"], T, "act1", TableAct(
        round_id=view.round_id, seat=1, hand=0, action=Action.DOUBLE))
    assert doubled.balance == t.balance("ann") == START - 2100 + 1000 - 1000
    assert t.balance("cat") == START - 2000  # followed the double
    # Ben lets his time run out: seat 3 stands, the dealer busts, everyone is paid.
    await t.clock(DECISION_S + 1)
    events = await t.events()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert "decision_timed_out" in [e.kind for e in events]
    assert events[-1].kind in ("round_finished", "seat_left") and (
        await t.service.view(T)).phase is TablePhase.IDLE
    assert (t.balance("ann"), t.balance("ben"), t.balance("cat")) == (
        START - 2100 + 4000, START - 2100 + 4000, START - 2000 + 4000)
    assert (t.debits("ann"), t.debits("ben"), t.debits("cat")) == (
        [1100, 1000, 1000], [2100], [1000, 1000])
    # Recall: each operator sees its own players' money only, refunds included.
    dev = await t.service.recall("dev-operator", view.round_id, table_id=T)
    assert {(m.player_id, m.staked, m.paid, m.refunded) for m in dev.money} == {
        ("ann", 2100, 4000, 1000), ("ben", 2100, 4000, 0)}
    other = await t.service.recall("other-operator", view.round_id)
    assert {(m.player_id, m.staked, m.paid) for m in other.money} == {("cat", 2000, 4000)}
    assert all("ann" not in m.player_key for m in other.money)
    # The operator's player recall lists the table round with the player's own money.
    page = await t.h.app.office.recall("dev-operator", "demo-casino", "ann")
    at_table = [r for r in page.rounds if isinstance(r, PlayerTableRound)]
    assert [(r.round.round_id, r.money.staked, r.money.paid) for r in at_table] == [
        (view.round_id, 2100, 4000)]
    # Hot Players: seats 1 and 3 won their first round; seat 5 sat out.
    assert await _seats(t) == {1: 1, 3: 1, 5: 0}


async def test_insurance_at_a_table_seat_behind_live_and_behind_preset() -> None:
    """Dealer ace: the seat player insures; one Bet Behind (preset ask) insures live, another
    (preset always) is insured at close; the dealer has no blackjack, 19 beats 18."""
    t = await tables()
    await t.player("ann")
    await t.player("ben")
    await t.player("cat", other=True)
    await t.sit("ann", 1)
    await t.bet("ann", "b", BetCommand(seat=1, stake=1000))
    await t.bet("ben", "b", BetCommand(seat=1, stake=1000, behind=True,
                                        insurance=BehindInsurance.ASK))
    await t.bet("cat", "b", BetCommand(seat=1, stake=2000, behind=True,
                                        insurance=BehindInsurance.ALWAYS))
    await t.deal_now("ann", "d", DEALER_ACE)
    await t.clock()
    view = await t.service.view(T)
    assert view.phase is TablePhase.INSURANCE
    insured = await t.service.decide_insurance(t.players["ben"], T, "i", round_id=view.round_id,
                                               seat=1, take=True, behind=True)
    assert insured.balance == t.balance("ben") == START - 1000 - 500
    seat = await t.service.decide_insurance(t.players["ann"], T, "i", round_id=view.round_id,
                                            seat=1, take=True, behind=False)
    assert seat.balance == t.balance("ann") == START - 1000 - 500
    await t.clock()  # every decision in: insurance closes (cat's preset insures)
    assert (await t.service.view(T)).phase is TablePhase.PLAYING
    assert t.balance("cat") == START - 2000 - 1000
    ended = await t.service.act(t.players["ann"], T, "x", TableAct(
        round_id=view.round_id, seat=1, hand=0, action=Action.STAND))
    assert ended.balance == START + 500  # the Act that ended the round paid ann first
    await t.service.money.drain(5.0)
    assert (t.balance("ann"), t.balance("ben"), t.balance("cat")) == (
        START + 500, START + 500, START + 1000)
    assert (await t.events())[-1].kind == "round_finished"


async def test_the_clock_deals_when_betting_time_runs_out_and_plays_out_a_silent_table() -> None:
    """Nobody presses Deal Now: the clock closes betting when its time is up, and every hand
    stands when its decision time runs out (19 beats the dealer's 17)."""
    t = await tables()
    await t.player("ann")
    await t.player("ben")
    await t.sit("ann", 2)
    await t.sit("ben", 4)
    await t.bet("ann", "b", BetCommand(seat=2, stake=1000))
    await t.bet("ben", "b", BetCommand(seat=4, stake=5000))
    # Ann is ready (with the round's cards), Ben is not: betting stays open.
    await t.deal_now("ann", "d", ["TS", "TC", "7S", "9H", "9C", "TD"])
    assert await t.clock(BETTING_S / 2) == 0
    assert (await t.service.view(T)).phase is TablePhase.BETTING
    assert await t.clock(BETTING_S / 2 + 1) >= 1
    assert (await t.service.view(T)).phase is TablePhase.PLAYING
    for _ in range(2):  # seat 2, then seat 4, time out
        await t.clock(DECISION_S + 1)
    assert (await t.service.view(T)).phase is TablePhase.IDLE
    assert (t.balance("ann"), t.balance("ben")) == (START + 1000, START + 5000)
    kinds = await t.kinds()
    assert kinds.count("decision_timed_out") == 2 and kinds[-1] == "round_finished"


async def test_concurrent_duplicates_of_a_request_get_its_one_answer_and_one_debit() -> None:
    t = await tables()
    await t.player("ann")
    await t.player("ben")
    s = t.players["ann"]
    seats = await asyncio.gather(*[t.service.take_seat(s, T, "seat", 2) for _ in range(20)])
    assert len({a.seq for a in seats}) == 1
    bets = await asyncio.gather(*[t.service.place_bets(
        s, T, "bet", [BetCommand(seat=2, stake=1000)]) for _ in range(20)])
    assert len({a.seq for a in bets}) == 1
    assert t.debits("ann") == [1000]
    assert t.balance("ann") == START - 1000
    view = await t.service.view(T)
    assert [(b.seat, b.stake) for b in view.bets] == [(2, 1000)]
    # A distinct player is never held up by the other's requests.
    behind = await t.bet("ben", "bet", BetCommand(seat=2, stake=1000, behind=True))
    assert behind.balance == START - 1000


async def test_a_bet_that_reaches_a_closed_table_is_refused_and_returned_at_once() -> None:
    """Ben's bet is planned while betting is open; Ann's Deal Now closes betting before Ben's
    transition reaches the table: refused, its stake back at once, and the answer says so."""
    t = await tables()
    await t.player("ann")
    await t.player("ben")
    await t.sit("ann", 4)
    await t.sit("ben", 5)
    await t.bet("ann", "bet", BetCommand(seat=4, stake=1000))
    wallet, move = t.h.wallet, t.h.wallet.move
    debiting = asyncio.Event()
    go_on = asyncio.Event()

    async def slow_move(call):  # type: ignore[no-untyped-def]
        if call.party.player_id == "ben" and call.kind.value == "debit":
            debiting.set()
            await go_on.wait()
        return await move(call)

    wallet.move = slow_move  # type: ignore[method-assign]
    late = asyncio.create_task(t.bet("ben", "bet", BetCommand(seat=5, stake=1000)))
    await debiting.wait()
    await t.deal_now("ann", "deal", ["TS", "7S", "9H", "TD"])
    await t.clock()
    assert (await t.service.view(T)).phase is not TablePhase.BETTING
    go_on.set()
    with pytest.raises(NotAllowedNow) as refused:
        await late
    assert refused.value.reason == "BETTING_CLOSED"
    assert refused.value.metadata.get("refund") == "done"
    assert t.balance("ben") == START
    assert [c.kind.value for c in wallet.calls if c.party.player_id == "ben"] == [
        "debit", "rollback"]


async def test_the_electronic_table_plays_its_stations_and_has_no_bet_behind() -> None:
    """Two stations, betting closed by its time (only one pressed Deal Now), both decisions
    time out (stand); the other operator's brand does not offer this table."""
    el = table_config("el-u", variant="electronic-h17", seats=5, brands=("demo-casino",),
                      limits=TableLimits(main_min=100, main_max=100000, side_min=100,
                                         side_max=10000))
    t = await tables(el)
    await t.player("ann")
    await t.player("ben")
    await t.player("cat", other=True)
    with pytest.raises(PermissionDenied):
        await t.sit("cat", 2, table_id="el-u")
    await t.sit("ann", 1, table_id="el-u")
    await t.sit("ben", 2, table_id="el-u")
    await t.bet("ann", "b", BetCommand(seat=1, stake=500), table_id="el-u")
    with pytest.raises(InvalidRequest) as behind:
        await t.bet("ben", "bb", BetCommand(seat=1, stake=500, behind=True), table_id="el-u")
    assert behind.value.reason == "INVALID_BET"
    await t.bet("ben", "b", BetCommand(seat=2, stake=700), table_id="el-u")
    # Seats 17 and 17; the dealer's 6 T draws 5: 21 beats both.
    await t.deal_now("ann", "d", ["TS", "9H", "6S", "7C", "8D", "TD", "5C"], table_id="el-u")
    await t.clock(BETTING_S + 1)
    for _ in range(2):
        await t.clock(DECISION_S + 1)
    events = await t.events(table_id="el-u")
    assert [json.loads(e.payload)["seat"] for e in events
            if e.kind == "decision_timed_out"] == [1, 2]
    assert events[-1].kind == "round_finished"
    assert (t.balance("ann"), t.balance("ben")) == (START - 500, START - 700)


async def test_a_watcher_gets_the_table_then_every_event_once_and_in_order() -> None:
    t = await tables()
    await t.player("ann")
    await t.sit("ann", 1)
    seen: list[TableView | TableEvent] = []

    async def watch() -> None:
        async for item in t.service.watch(t.players["ann"], T, None):
            seen.append(item)
            if isinstance(item, TableEvent) and item.kind == "round_finished":
                return

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.05)
    await t.bet("ann", "b", BetCommand(seat=1, stake=1000))
    await t.deal_now("ann", "d", ["TS", "7S", "9H", "TD"])
    await t.clock()
    await t.service.act(t.players["ann"], T, "x", TableAct(
        round_id=(await t.service.view(T)).round_id, seat=1, hand=0, action=Action.STAND))
    await asyncio.wait_for(watcher, 30.0)
    first, rest = seen[0], seen[1:]
    assert isinstance(first, TableView) and first.seq == 1  # the seat taken
    assert [e.seq for e in rest if isinstance(e, TableEvent)] == [
        e.seq for e in await t.events(first.seq)]
    assert t.balance("ann") == START + 1000
