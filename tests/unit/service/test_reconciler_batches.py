"""The reconciler goes again at once while it finds a full batch (a settlement of many players
whose replica died), instead of leaving the rest for its next interval; each player paid once."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta

import pytest
from service_fakes import FakeWallet

from rgs.journal.memory import InMemoryJournal
from rgs.service.model import Movement
from rgs.service.reconciler import Reconciler
from rgs.wallet.port import MoneyKind

pytestmark = pytest.mark.asyncio

T0 = datetime(2026, 12, 5, 1, 0, tzinfo=UTC)
PLAYERS = 250  # two and a half batches


async def test_a_full_batch_is_followed_by_the_next_at_once_and_everyone_is_paid_once() -> None:
    journal = InMemoryJournal(clock=lambda: T0)
    names = [f"p{i:03}" for i in range(PLAYERS)]
    wallet = FakeWallet(balances=dict.fromkeys(names, 0))
    for i, name in enumerate(names):
        async with journal.player(f"dev-operator/{name}") as pj:
            await pj.record_movement(Movement(
                transaction_id=f"win-{name}", round_id="r1", kind=MoneyKind.CREDIT,
                amount=1000 + i, session_id="s", currency="EUR", brand_id="demo-casino"))
    reconciler = Reconciler(journal=journal, wallet=wallet,  # type: ignore[arg-type]
                            clock=lambda: T0 + timedelta(minutes=5))
    # An interval of an hour: only the passes that follow a full batch at once pay everyone.
    running = asyncio.create_task(reconciler.run_forever(3600.0))
    try:
        async def paid() -> None:
            while len(wallet.applied) < PLAYERS:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(paid(), 30.0)  # a bound against hanging, not a timing
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
    assert wallet.balances == {name: 1000 + i for i, name in enumerate(names)}
    assert sorted(c.transaction_id for c in wallet.calls) == sorted(f"win-{n}" for n in names)
