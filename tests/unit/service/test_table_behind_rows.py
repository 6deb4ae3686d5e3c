"""Bet Behinds on rows of their own while betting is open (issue 27,
rgs.service.tables.behind), through the real bootstrap with fakes: a player without a seat
places them without the table's state moving, the rules see them all the same (a second bet
behind the same seat, taking that seat, a seat given back), betting close deals them, and
every wallet is exact."""

from __future__ import annotations

import json

import pytest
from table_fakes import START, T, Tables, tables

from rgs.engine import Action
from rgs.service.errors import NotAllowedNow
from rgs.service.tables import behind
from rgs.service.tables.model import (
    Behind,
    BetCommand,
    TableAct,
    TablePhase,
    TableState,
    Who,
)

#: seat 1: T 9 (19); dealer 9, hole 7, then draws T and busts.
CARDS = ["TS", "9C", "9D", "7S", "TD"]


async def _version(t: Tables) -> int:
    assert t.h.table_journal is not None
    stored = await t.h.table_journal.load(T)
    assert stored is not None
    return stored.version


@pytest.mark.asyncio
@pytest.mark.parametrize("rows", [True, False])
async def test_bets_behind_of_players_without_a_seat_are_dealt_and_paid_to_the_cent(
        rows: bool) -> None:
    t = await tables(table_behind_rows=rows)
    await t.player("ann")
    await t.sit("ann", 1)
    await t.bet("ann", "open", BetCommand(seat=1, stake=1000))  # opens betting
    backers = [f"p{i}" for i in range(12)]
    for i, name in enumerate(backers):
        await t.player(name, other=i % 2 == 1)
    before = await _version(t)
    for name in backers:
        answer = await t.bet(name, "bb", BetCommand(seat=1, stake=1000, behind=True))
        assert answer.balance == t.balance(name) == START - 1000
        # The answer shows the player's own Bet Behind.
        assert [(b.seat, b.stake) for b in answer.view.behind
                if b.player.key == t.players[name].player_key] == [(1, 1000)]
    # On rows, no Bet Behind moved the table's state; in the state, each did.
    assert await _version(t) == before + (0 if rows else len(backers))
    with pytest.raises(NotAllowedNow) as again:
        await t.bet("p0", "bb2", BetCommand(seat=1, stake=1000, behind=True))
    assert again.value.reason == "ALREADY_BET"
    assert t.balance("p0") == START - 1000
    # The same request again: answered from its record, nothing taken twice, the player's
    # own Bet Behind shown (and no one else's).
    again = await t.bet("p0", "bb", BetCommand(seat=1, stake=1000, behind=True))
    assert t.balance("p0") == START - 1000
    assert [(b.player.key, b.seat, b.stake) for b in again.view.behind] == [
        (t.players["p0"].player_key, 1, 1000)] or not rows
    await t.deal_now("ann", "dn", CARDS)
    await t.clock()
    view = await t.service.view(T)
    assert view.phase is TablePhase.PLAYING and len(view.behind) == len(backers)
    await t.service.act(t.players["ann"], T, "s1", TableAct(
        round_id=view.round_id, seat=1, hand=0, action=Action.STAND))
    await t.clock()
    assert (await t.service.view(T)).phase is TablePhase.IDLE
    assert t.balance("ann") == START + 1000
    assert {n: t.balance(n) for n in backers} == dict.fromkeys(backers, START + 1000)


@pytest.mark.asyncio
async def test_a_bet_behind_on_a_row_is_returned_at_once_when_its_seat_is_given_back() -> None:
    t = await tables()
    for name in ("ann", "ben", "dan"):
        await t.player(name)
    await t.sit("ann", 1)
    await t.sit("ben", 2)
    await t.bet("ben", "open", BetCommand(seat=2, stake=1000))
    await t.bet("dan", "bb", BetCommand(seat=1, stake=1500, behind=True))
    assert t.balance("dan") == START - 1500
    seq = (await t.service.view(T)).seq
    await t.service.leave_seat(t.players["ann"], T, "leave", 1)
    await t.clock()
    refunded = [e for e in await t.events(seq) if e.kind == "behind_refunded"]
    assert len(refunded) == 1 and '"seat_released"' in refunded[0].payload
    assert t.balance("dan") == START
    # The seat is free and dan may take it now; nothing of his is dealt on it.
    await t.sit("dan", 1)
    await t.bet("dan", "b1", BetCommand(seat=1, stake=1000))
    await t.deal_now("dan", "dn")
    await t.deal_now("ben", "dn")
    await t.clock()
    view = await t.service.view(T)
    assert view.phase is TablePhase.PLAYING and view.behind == ()


def _b(key: str, seat: int, seat_player: str = "") -> Behind:
    return Behind(seat=seat, who=Who(player_key=key, operator_id="op", brand_id="b",
                                     player_id=key, session_id="s"), stake=100,
                  seat_player=seat_player)


def test_rows_stay_rows_while_betting_and_go_into_the_state_when_it_closes() -> None:
    doc = _b("op/doc", 1)
    rows = (_b("op/a", 1, "op/x"), _b("op/b", 2, "op/y"))
    betting = TableState(phase=TablePhase.BETTING, round_id="r1", behind=(doc,))
    seen = behind.merged(betting, rows)
    assert seen.behind == (doc, *rows)
    # Written back while betting: the document keeps its own, a row returned is deleted.
    kept = seen.behind[:2]
    assert behind.stored(TableState(phase=TablePhase.BETTING, round_id="r1", behind=kept),
                         "r1", rows) == (betting, [(2, "op/b")])
    # Betting closed: the state holds them all, every row is deleted.
    playing = TableState(phase=TablePhase.PLAYING, round_id="r1", behind=seen.behind)
    assert behind.stored(playing, "r1", rows) == (playing, [(1, "op/a"), (2, "op/b")])
    assert behind.stored(betting, "r1", ()) == (betting, [])


def test_a_bet_behind_follows_the_player_it_was_placed_behind_not_the_chair() -> None:
    assert behind.on_its_seat(_b("op/a", 1, "op/x"), "op/x")
    assert not behind.on_its_seat(_b("op/a", 1, "op/x"), "op/z")
    assert not behind.on_its_seat(_b("op/a", 1, "op/x"), None)
    assert behind.on_its_seat(_b("op/a", 1), "op/z")  # placed into the state: no record


@pytest.mark.asyncio
async def test_betting_closed_straight_after_the_last_bet_behind_announces_the_final_totals(
        ) -> None:
    # While betting is open the totals are announced at most once a second; a round whose
    # betting closes sooner than that after its last Bet Behind announces them with its close.
    t = await tables()
    await t.player("ann")
    await t.sit("ann", 1)
    await t.bet("ann", "open", BetCommand(seat=1, stake=1000))
    for i, name in enumerate(("p0", "p1", "p2")):
        await t.player(name, other=i == 1)
        await t.bet(name, "bb", BetCommand(seat=1, stake=1000 * (i + 1), behind=True))
    view = await t.service.view(T)
    await t.deal_now("ann", "dn", CARDS)
    await t.clock()
    events = await t.events(view.seq)
    kinds = [e.kind for e in events]
    assert kinds.count("behind_totals") == 1
    assert kinds.index("behind_totals") + 1 == kinds.index("betting_closed")
    totals = next(json.loads(e.payload) for e in events if e.kind == "behind_totals")
    assert totals == {"round_id": view.round_id,
                      "seats": [{"seat": 1, "bettors": 3, "staked": 6000}]}
