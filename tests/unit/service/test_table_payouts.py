"""A round's payments in bulk (rgs.service.tables.payouts) with the in-memory tables' journal
and the fake wallet: forty Bet Behinds of two operators paid to the cent at settlement, one
whose journal another call holds then paid the single way once it is free, nothing paid
twice; and which rows a bulk payment sends."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from table_fakes import DECISION_S, START, tables

from rgs.service.model import Movement, MovementStatus
from rgs.service.tables.model import BetCommand
from rgs.service.tables.payouts import sendable
from rgs.wallet.port import MoneyKind

pytestmark = pytest.mark.asyncio

#: Seat 1: T 9 (19); the dealer 9, hole 7, draws T and busts.
SEAT_WINS = ["TS", "9C", "9H", "7D", "TD"]


async def test_forty_bets_behind_are_paid_in_bulk_to_the_cent_and_a_busy_one_after() -> None:
    t = await tables()
    await t.player("ann")
    await t.sit("ann", 1)
    await t.bet("ann", "b", BetCommand(seat=1, stake=1000))
    names = [f"p{i}" for i in range(40)]
    for i, name in enumerate(names):
        await t.player(name, other=i % 2 == 1)
        await t.bet(name, "b", BetCommand(seat=1, stake=1000 + 100 * (i % 3), behind=True))
    await t.deal_now("ann", "d", SEAT_WINS)
    await t.clock()
    # p7's journal is held by another call while the round is settled: paid once it is free.
    busy, free = asyncio.Event(), asyncio.Event()

    async def hold_p7() -> None:
        async with t.h.journal.hold(t.players["p7"].player_key):
            busy.set()
            await free.wait()

    holder = asyncio.create_task(hold_p7())
    await busy.wait()
    t.h.clock.now += timedelta(seconds=DECISION_S + 1)
    clock = t.h.app.table_clock
    assert clock is not None
    while await clock.run_once():
        pass
    await asyncio.sleep(0)
    free.set()
    await holder
    await t.service.money.drain(5.0)
    assert t.balance("ann") == START + 1000
    for i, name in enumerate(names):
        assert t.balance(name) == START + 1000 + 100 * (i % 3), name
    credits = [c.party.player_id for c in t.h.wallet.applied.values()
               if c.kind is MoneyKind.CREDIT]
    assert sorted(credits) == sorted(["ann", *names])  # one each, nobody twice


def _row(txn: str, kind: MoneyKind, round_id: str = "r1") -> Movement:
    return Movement(transaction_id=txn, round_id=round_id, kind=kind, amount=100,
                    status=MovementStatus.PENDING, session_id="s", currency="EUR", brand_id="b")


async def test_a_bulk_sends_the_open_rows_of_players_held_and_leaves_the_rest_to_the_single_way(
        ) -> None:
    win, refund = _row("c1", MoneyKind.CREDIT), _row("rb1", MoneyKind.ROLLBACK)
    stake_open = _row("d1", MoneyKind.DEBIT)
    movements = [("op/a", win), ("op/b", win), ("op/c", win), ("op/d", win),
                 ("op/e", refund)]
    held = {"op/a": 1, "op/c": 1, "op/d": 1, "op/e": 1}
    open_rows = {"op/a": [win], "op/c": [],  # op/c's was settled by another call meanwhile
                 "op/d": [stake_open, win], "op/e": [refund]}
    now, single = sendable(movements, held, open_rows)
    assert now == [("op/a", win), ("op/e", refund)]
    # op/b is held by another call; op/d's stake of the round is still open (its credit waits).
    assert single == [("op/b", win), ("op/d", win)]
