"""Bet Behinds' live insurance decisions on rows of their own (issue 27,
rgs.service.tables.live_insurance), through the real bootstrap with fakes: a crowd of Bet
Behinds whose preset is ``ask`` decides at once without the table's state moving, each answer
shows its own decision, the close announces them (each to its own player) and applies them,
the last decision closes insurance at once, and every wallet is exact."""

from __future__ import annotations

import asyncio
import json

import pytest
from table_fakes import START, T, Tables, tables

from rgs.engine import Action
from rgs.service.errors import NotAllowedNow
from rgs.service.tables.answers import TableAnswer
from rgs.service.tables.model import BehindInsurance, BetCommand, TableAct, TablePhase

pytestmark = pytest.mark.asyncio

#: seat 1: T 9 (19) against the dealer's A 7 (18, no blackjack): insurance loses, 19 wins.
DEALER_ACE = ["TS", "AS", "9C", "7D"]


async def _version(t: Tables) -> int:
    assert t.h.table_journal is not None
    stored = await t.h.table_journal.load(T)
    assert stored is not None
    return stored.version


async def _insurance_round(t: Tables, backers: list[str]) -> str:
    """ann on seat 1 and ``backers`` behind her (preset ask), dealt the dealer's ace: the
    round's id, in its insurance phase."""
    await t.player("ann")
    await t.sit("ann", 1)
    await t.bet("ann", "b", BetCommand(seat=1, stake=1000))
    for i, name in enumerate(backers):
        await t.player(name, other=i % 2 == 1)
        await t.bet(name, "b", BetCommand(seat=1, stake=1000, behind=True,
                                          insurance=BehindInsurance.ASK))
    await t.deal_now("ann", "d", DEALER_ACE)
    await t.clock()
    view = await t.service.view(T)
    assert view.phase is TablePhase.INSURANCE
    return view.round_id


async def _decide(t: Tables, name: str, round_id: str, take: bool, request_id: str = "i", *,
                  behind: bool = True) -> TableAnswer:
    return await t.service.decide_insurance(t.players[name], T, request_id, round_id=round_id,
                                            seat=1, take=take, behind=behind)


@pytest.mark.parametrize("rows", [True, False])
async def test_a_crowd_of_bet_behinds_decides_at_once_and_every_wallet_is_exact(
        rows: bool) -> None:
    t = await tables(table_behind_rows=rows)
    backers = [f"p{i}" for i in range(24)]
    round_id = await _insurance_round(t, backers)
    before = await _version(t)
    takes = {name: i % 2 == 0 for i, name in enumerate(backers)}
    answers = await asyncio.gather(*(_decide(t, n, round_id, takes[n]) for n in backers))
    for name, answer in zip(backers, answers, strict=True):
        # Each answer shows the player's own decision, and the stake it took.
        key = t.players[name].player_key
        assert [(c.seat, c.take) for c in answer.view.insurance
                if c.behind is not None and c.behind.key == key] == [(1, takes[name])]
        assert t.balance(name) == START - 1000 - (500 if takes[name] else 0)
    # On rows, no decision moved the table's state, and none is announced yet; in the state,
    # each was a transition with its event (committed a batch at a time).
    moved = await _version(t) - before
    assert moved == 0 if rows else 1 <= moved <= len(backers)
    decided = [e for e in await t.events() if e.kind == "insurance_decided"]
    assert len(decided) == (0 if rows else len(backers))
    # The seat's own decision is the last: insurance closes at once.
    await _decide(t, "ann", round_id, False, behind=False)
    await t.clock()
    assert (await t.service.view(T)).phase is TablePhase.PLAYING
    announced = [json.loads(e.payload) for e in await t.events()
                 if e.kind == "insurance_decided" and json.loads(e.payload)["behind"]]
    assert sorted((d["player"]["key"], d["take"]) for d in announced) == sorted(
        (t.players[n].player_key, takes[n]) for n in backers)
    await t.service.act(t.players["ann"], T, "s", TableAct(round_id=round_id, seat=1, hand=0,
                                                            action=Action.STAND))
    await t.service.money.drain(5.0)
    assert (await t.service.view(T)).phase is TablePhase.IDLE
    # 19 beats 18; the insurance (500) is lost.
    assert t.balance("ann") == START + 1000
    assert {n: t.balance(n) for n in backers} == {
        n: START + 1000 - (500 if takes[n] else 0) for n in backers}
    assert {n: t.debits(n) for n in backers} == {
        n: [1000, 500] if takes[n] else [1000] for n in backers}


async def test_the_last_bet_behind_to_decide_closes_insurance_at_once() -> None:
    t = await tables()
    backers = ["p0", "p1", "p2"]
    round_id = await _insurance_round(t, backers)
    await _decide(t, "ann", round_id, True, behind=False)
    await _decide(t, "p0", round_id, True)
    await _decide(t, "p1", round_id, False)
    await t.clock()  # one Bet Behind has not decided: insurance stays open
    assert (await t.service.view(T)).phase is TablePhase.INSURANCE
    await _decide(t, "p2", round_id, True)
    await t.clock()  # no time passed: the last decision brought the deadline to now
    assert (await t.service.view(T)).phase is TablePhase.PLAYING
    assert (t.balance("ann"), t.balance("p0"), t.balance("p1"), t.balance("p2")) == (
        START - 1500, START - 1500, START - 1000, START - 1500)


async def test_a_decision_is_taken_once_and_none_after_insurance_closed() -> None:
    t = await tables()
    round_id = await _insurance_round(t, ["p0", "p1"])
    first = await _decide(t, "p0", round_id, True)
    assert first.balance == t.balance("p0") == START - 1500
    # The same request again: answered from its record, nothing taken twice, the decision
    # on its row shown as the first answer showed it.
    again = await _decide(t, "p0", round_id, True)
    assert again.seq == first.seq and t.balance("p0") == START - 1500
    key = t.players["p0"].player_key
    assert [(c.seat, c.take) for c in again.view.insurance
            if c.behind is not None and c.behind.key == key] == [(1, True)]
    assert [c.behind.key for c in again.view.insurance if c.behind is not None] == [key]
    # Another request for the same Bet Behind: refused, nothing taken.
    with pytest.raises(NotAllowedNow) as twice:
        await _decide(t, "p0", round_id, False, "i2")
    assert twice.value.reason == "ACTION_NOT_ALLOWED"
    # A snapshot shows the decision on its row.
    assert [(c.seat, c.take) for c in (await t.service.view(T)).insurance
            if c.behind is not None and c.behind.key == key] == [(1, True)]
    await t.clock(30)  # the insurance time runs out; p1 never decided
    assert (await t.service.view(T)).phase is TablePhase.PLAYING
    with pytest.raises(NotAllowedNow) as late:
        await _decide(t, "p1", round_id, True)
    assert late.value.reason == "WRONG_PHASE"
    assert t.balance("p1") == START - 1000
