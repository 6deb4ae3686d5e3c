"""rgs audit journal's table-round check (rgs.service.tables.audit) on rounds the real table use
cases wrote to the in-memory tables' journal: seats' hands with a double, Perfect Pairs and
21+3, Bet Behinds (one following the double, one returned from a seat that sat out), insurance
(the seat's, a Bet Behind's asked and one preset), Cash Out, a free bet, a provably fair round
the clock dealt, and a round closed without a card. Each replays clean; each kind of tampering
is named."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from service_fakes import DEV_KEY
from table_fakes import DECISION_S, START, T, Tables, tables

from rgs.codec import decode_event, encode_event, event_kind
from rgs.engine import Action, CardDealt
from rgs.service.freebets import FreeBetGrant, FreeBetUse
from rgs.service.model import Movement, MovementStatus
from rgs.service.tables.audit import audit_table_round
from rgs.service.tables.model import BehindInsurance, BetCommand, TableAct, TablePhase
from rgs.service.tables.ports import RoundRecord
from rgs.wallet.port import MoneyKind

pytestmark = pytest.mark.asyncio

#: seat 1: 6 5 (doubles onto T); seat 3: T 9; dealer 9, hole 7, then draws T and busts.
CARDS = ["6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC"]
#: seat 1: T 9 (19) against the dealer's A 7 (18, no blackjack).
DEALER_ACE = ["TS", "AS", "9C", "7D"]
#: seat 1 alone: T 6 (16) against the dealer's T: a hand to cash out.
CASH_OUT = ["TS", "TD", "6H", "9C", "5D"]

Played = tuple[RoundRecord, dict[str, list[Movement]], dict[str, FreeBetUse]]


async def _round(t: Tables, round_id: str) -> Played:
    assert t.h.table_journal is not None
    rec = await t.h.table_journal.get_round(round_id)
    assert rec is not None
    moves: dict[str, list[Movement]] = {}
    for operator in ("dev-operator", "other-operator"):
        moves.update(await t.h.table_journal.round_movements(round_id, operator))
    store = t.h.app.game.free_bets.store
    free = {key: use for (rid, key), use in store.table_uses.items()  # type: ignore[attr-defined]
            if rid == round_id}
    return rec, moves, free


async def _round_ids(t: Tables) -> list[str]:
    return [str(json.loads(e.payload)["round_id"]) for e in await t.events()
            if e.kind == "betting_closed"]


async def _play(t: Tables) -> list[Played]:
    for name, other in (("ann", False), ("ben", False), ("cat", True)):
        await t.player(name, other=other)
    await t.sit("ann", 1)
    await t.sit("ben", 3)
    await t.sit("cat", 5)  # and sits out
    # 1. Hands, a double, side bets, a Bet Behind that follows and one returned.
    await t.bet("ann", "r1", BetCommand(seat=1, stake=1000, perfect_pairs=100),
                BetCommand(seat=5, stake=1000, behind=True))
    await t.bet("ben", "r1", BetCommand(seat=3, stake=2000, twenty_one_plus_three=100))
    await t.bet("cat", "r1", BetCommand(seat=1, stake=1000, behind=True, follow_double=True))
    await t.deal_now("ann", "r1d", CARDS)
    await t.deal_now("ben", "r1d")
    await t.clock()
    rid = (await t.service.view(T)).round_id
    await t.service.act(t.players["ann"], T, "r1a", TableAct(round_id=rid, seat=1, hand=0,
                                                              action=Action.DOUBLE))
    await t.clock(DECISION_S + 1)  # ben's time runs out: he stands
    # 2. Insurance: the seat's, a Bet Behind asked, one preset.
    await t.bet("ann", "r2", BetCommand(seat=1, stake=1000))
    await t.bet("ben", "r2", BetCommand(seat=1, stake=1000, behind=True,
                                        insurance=BehindInsurance.ASK))
    await t.bet("cat", "r2", BetCommand(seat=1, stake=2000, behind=True,
                                        insurance=BehindInsurance.ALWAYS))
    await t.deal_now("ann", "r2d", DEALER_ACE)
    await t.clock()
    rid = (await t.service.view(T)).round_id
    await t.service.decide_insurance(t.players["ben"], T, "r2i", round_id=rid, seat=1,
                                     take=True, behind=True)
    await t.service.decide_insurance(t.players["ann"], T, "r2i", round_id=rid, seat=1,
                                     take=True, behind=False)
    await t.clock()
    await t.service.act(t.players["ann"], T, "r2a", TableAct(round_id=rid, seat=1, hand=0,
                                                              action=Action.STAND))
    await t.service.money.drain(5.0)
    # 3. Cash Out, on a free bet of ann's.
    operator = await t.h.app.office.authenticate(DEV_KEY)
    await t.h.app.game.free_bets.grant(FreeBetGrant(
        operator_id=operator, grant_id="promo", brand_id="demo-casino", player_id="ann",
        currency="EUR", value=1000, count=1, variants=(), tables=(T,),
        expires_at=t.h.clock.now.replace(year=t.h.clock.now.year + 1)))
    await t.bet("ann", "r3", BetCommand(seat=1, stake=1000, free_bet_id="promo"))
    await t.deal_now("ann", "r3d", CASH_OUT)
    await t.clock()
    rid = (await t.service.view(T)).round_id
    await t.service.act(t.players["ann"], T, "r3a", TableAct(round_id=rid, seat=1, hand=0,
                                                              action=Action.CASH_OUT))
    await t.clock(DECISION_S + 1)
    # 4. A provably fair round the clock deals and plays out (nobody decides).
    await t.bet("ann", "r4", BetCommand(seat=1, stake=1000))
    await t.clock(60)
    await t.clock(DECISION_S + 1)
    await t.clock(DECISION_S + 1)
    # 5. Only a Bet Behind: closed without a card, its stake returned.
    await t.bet("cat", "r5", BetCommand(seat=1, stake=1000, behind=True))
    await t.clock(60)
    assert (await t.service.view(T)).phase in (TablePhase.IDLE, TablePhase.BETTING)
    played = [await _round(t, rid) for rid in await _round_ids(t)]
    return played


async def test_every_table_round_replays_clean_and_tampering_is_named() -> None:
    t = await tables()
    played = await _play(t)
    statuses = [rec.status for rec, _, _ in played]
    assert statuses == ["settled", "settled", "settled", "settled", "not_dealt"], statuses
    for rec, moves, free in played:
        found = audit_table_round(rec, moves, free)
        assert found.problems == (), (rec.status, found.problems)
        assert found.open_movements == ()
    # The movements the audit checked are the wallets' money, to the cent, per player.
    for name in ("ann", "ben", "cat"):
        net = 0
        for _, moves, _ in played:
            for m in next((v for k, v in moves.items() if k.endswith(f"/{name}")), []):
                if m.kind is MoneyKind.DEBIT and m.status is MovementStatus.BOOKED:
                    net -= m.amount
                elif m.kind is MoneyKind.CREDIT:
                    net += m.amount
        assert t.balance(name) == START + net, name
    first, insured, cashed, fair, undealt = played
    rec, moves, free = first
    # What the engine says a player was paid, written differently in the players' shares.
    bumped = replace(rec, players=tuple((k, op, st, pd + 1) for k, op, st, pd in rec.players))
    assert any("players' shares" in p for p in audit_table_round(bumped, moves).problems)
    # A card changed in the events: the dealer's hole card 7 made an 8, the dealer stands on
    # 17 and the journal's next card (the T that busted the dealer) no longer belongs.
    events = [decode_event(k, p) for k, p in rec.events]
    i = [n for n, e in enumerate(events) if isinstance(e, CardDealt)][5]
    swapped = [*events[:i], replace(events[i], card="8S"), *events[i + 1:]]  # type: ignore[type-var]
    tampered = replace(rec, events=tuple((event_kind(e), encode_event(e)) for e in swapped))
    assert any("does not replay" in p for p in audit_table_round(tampered, moves).problems)
    # The last event dropped: the round's own decisions produce it again.
    cut = replace(rec, events=rec.events[:-1])
    assert any("replay produced" in p for p in audit_table_round(cut, moves).problems)
    # A row that says the round is still in play when its events settle it.
    assert any("events replay to settled" in p
               for p in audit_table_round(replace(rec, status="player_turn"), moves).problems)
    # A player's credit missing; a stake's debit refused; a Bet Behind's rollback missing.
    cat = next(k for k in moves if k.startswith("other-operator/"))
    no_credit = {**moves, cat: [m for m in moves[cat] if m.kind is not MoneyKind.CREDIT]}
    assert any(cat in p and "credits are 0" in p
               for p in audit_table_round(rec, no_credit).problems)
    ann = next(k for k in moves if k.endswith("/ann"))
    refused = {**moves, ann: [replace(m, status=MovementStatus.REFUSED)
                              if m.kind is MoneyKind.DEBIT and m.amount == 1100 else m
                              for m in moves[ann]]}
    assert any(ann in p and "booked debits" in p
               for p in audit_table_round(rec, refused).problems)
    no_refund = {**moves, ann: [m for m in moves[ann] if m.kind is not MoneyKind.ROLLBACK]}
    assert any("rollbacks give back 0" in p
               for p in audit_table_round(rec, no_refund).problems)
    # A credit still pending is the reconciler's work, not a fault.
    pending = {**moves, cat: [replace(m, status=MovementStatus.PENDING)
                              if m.kind is MoneyKind.CREDIT else m for m in moves[cat]]}
    found = audit_table_round(rec, pending)
    assert found.problems == () and len(found.open_movements) == 1
    # Insurance: a Bet Behind's insurance stake left out of the shares.
    rec, moves, _ = insured
    ben = next(k for k in moves if k.endswith("/ben"))
    short = replace(rec, players=tuple((k, op, st - 500 if k == ben else st, pd)
                                       for k, op, st, pd in rec.players))
    assert any("players' shares" in p for p in audit_table_round(short, moves).problems)
    # Cash Out on a free bet: without the free bet the stake looks undebited.
    rec, moves, free = cashed
    assert free and audit_table_round(rec, moves, free).problems == ()
    assert any("booked debits" in p for p in audit_table_round(rec, moves).problems)
    # The fair round: a card that is not its seeds' card order is named as such.
    rec, moves, _ = fair
    assert rec.fair is not None and rec.fair.verifiable
    events = [decode_event(k, p) for k, p in rec.events]
    i = next(n for n, e in enumerate(events) if isinstance(e, CardDealt))
    other = "2C" if events[i].card != "2C" else "3C"  # type: ignore[attr-defined]
    swapped = [*events[:i], replace(events[i], card=other), *events[i + 1:]]  # type: ignore[type-var]
    tampered = replace(rec, events=tuple((event_kind(e), encode_event(e)) for e in swapped))
    assert any("seeds' card order" in p for p in audit_table_round(tampered, moves).problems)
    # A round closed without a card keeps no stake: a booked stake in it is named.
    rec, moves, _ = undealt
    key = next(iter(moves))
    kept = {key: [replace(m, status=MovementStatus.BOOKED) if m.kind is MoneyKind.DEBIT else m
                  for m in moves[key] if m.kind is not MoneyKind.ROLLBACK]}
    assert any("booked debits are 1000" in p for p in audit_table_round(rec, kept).problems)
    # A round left half-written: a dealt status without events.
    empty = replace(rec, status="player_turn")
    assert any("half-written" in p for p in audit_table_round(empty, moves).problems)
