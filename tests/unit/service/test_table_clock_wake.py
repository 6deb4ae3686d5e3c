"""The table clock fires a deadline brought forward at once (with the in-memory tables'
journal): a Deal Now of every seated player closes betting without the clock's next pass."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from table_fakes import T, tables

from rgs.service.tables.clock import TableClock
from rgs.service.tables.model import BetCommand, TablePhase

pytestmark = pytest.mark.asyncio

CARDS = ["TS", "7S", "9H", "TD"]


async def test_a_deal_now_wakes_a_clock_that_would_not_look_again_for_an_hour() -> None:
    t = await tables()
    await t.player("ann")
    await t.sit("ann", 1)
    await t.bet("ann", "b1", BetCommand(seat=1, stake=1000))
    journal = t.h.table_journal
    assert journal is not None
    clock = TableClock(service=t.service, tables=journal, table_ids=[T], holder="unit",
                       ttl_s=600.0, interval_s=3600.0)
    running = asyncio.create_task(clock.run_forever())
    try:
        while T not in clock.held:  # its first pass: the lease, nothing due (30 s of betting)
            await asyncio.sleep(0.01)
        assert (await t.service.view(T)).phase is TablePhase.BETTING
        async with journal.subscribe(T) as wake:
            await t.deal_now("ann", "dn", CARDS)

            async def dealt() -> None:
                while (await t.service.view(T)).phase is TablePhase.BETTING:
                    await wake(60.0)

            # Bounded only so that a clock that was not woken fails the test instead of
            # hanging it for the hour of its interval.
            await asyncio.wait_for(dealt(), 30.0)
        assert "betting_closed" in await t.kinds()
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
