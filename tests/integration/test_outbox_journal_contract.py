"""The player journal's outbox rules (rgs.service.ports.PlayerJournal): one set of cases run on
the in-memory adapter and on PostgreSQL (a fresh migrated database, directly and through
PgBouncer in transaction mode), so the unit tier's outbox behaves as production's does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
import pytest_asyncio

from rgs.journal.memory import InMemoryJournal
from rgs.journal.postgres import PostgresJournal
from rgs.service.model import Movement, MovementStatus, StoredRound
from rgs.service.ports import Journal
from rgs.service.writes import Booking, StepWrite
from rgs.wallet.port import MoneyKind, transaction_id
from support.databases import RGS_TEMPLATE
from support.pgbouncer import PgBouncer, set_journal_search_path

pytestmark = pytest.mark.asyncio(loop_scope="session")

FreshDatabase = Callable[[str], Awaitable[str]]
KEY, RID = "op/ann", "c" * 32


@pytest_asyncio.fixture(loop_scope="session",
                        params=["memory", "postgres", "postgres-pgbouncer-transaction"])
async def journal(request: pytest.FixtureRequest, fresh_database: FreshDatabase,
                  pgbouncer: PgBouncer) -> AsyncIterator[Journal]:
    if request.param == "memory":
        yield InMemoryJournal(lock_wait_s=0.5)
        return
    url = await fresh_database(RGS_TEMPLATE)
    mode: Any = "session"
    if request.param.endswith("transaction"):
        await set_journal_search_path(url)
        url, mode = pgbouncer.url_for(url), "transaction"
    pg = await PostgresJournal.connect(url, min_size=1, max_size=2, lock_wait_s=0.5,
                                       pool_mode=mode)
    try:
        yield pg
    finally:
        await pg.close()


def _round(seq: int, staked: int) -> StoredRound:
    return StoredRound(round_id=RID, player_key=KEY, session_id="s1", operator_id="op",
                       brand_id="b", player_id="ann", currency="EUR",
                       variant="classic-resplit", seq=seq, status="player_turn",
                       forced_cards=(), total_staked=staked, total_paid=0, events=())


def _debit(step: int, amount: int) -> Movement:
    return Movement(transaction_id=transaction_id(RID, step, MoneyKind.DEBIT), round_id=RID,
                    kind=MoneyKind.DEBIT, amount=amount, session_id="s1", currency="EUR",
                    brand_id="b")


def _rollback(d: Movement) -> Movement:
    step = d.transaction_id.removeprefix(f"{RID}:").split(":")[0]
    return replace(d, transaction_id=transaction_id(RID, step, MoneyKind.ROLLBACK),
                   kind=MoneyKind.ROLLBACK, debit_transaction_id=d.transaction_id)


async def _statuses(journal: Journal) -> dict[str, MovementStatus]:
    return {m.transaction_id: m.status for m in await journal.movements(KEY, RID)}


async def _booked(journal: Journal, *debits: Movement) -> None:
    """A round whose debits the wallet applied and a commit booked (as a Deal and a Double)."""
    async with journal.player(KEY) as pj:
        for d in debits:
            await pj.record_movement(d)
        await pj.commit_round(StepWrite(
            round=_round(1, sum(d.amount for d in debits)), new_events_from=0,
            bookings=tuple(Booking.applied(d, 9_000) for d in debits)))


async def test_a_rollback_the_wallet_applied_rolls_its_debit_back_in_the_same_write(
        journal: Journal) -> None:
    # A voided round's rollback is sent after the void's commit; its debit is booked, no open
    # row, so nothing would revisit it. The chaos test once killed a replica between the
    # rollback's outcome and a second write marking the debit: the debit stayed booked while the
    # wallet had given the stake back. The outcome alone must say both.
    deal, double = _debit(1, 1_000), _debit(2, 750)
    await _booked(journal, deal, double)
    rb = _rollback(double)
    async with journal.player(KEY) as pj:
        await pj.record_movement(rb)
        await pj.settle_movement(rb.transaction_id, MovementStatus.APPLIED, 9_750, error="")
    assert await _statuses(journal) == {
        deal.transaction_id: MovementStatus.BOOKED,
        double.transaction_id: MovementStatus.ROLLED_BACK,
        rb.transaction_id: MovementStatus.APPLIED}
    async with journal.player(KEY) as pj:
        assert await pj.open_movements() == []


async def test_a_rollback_not_confirmed_leaves_its_debit_as_it_was_and_open_for_the_reconciler(
        journal: Journal) -> None:
    deal = _debit(1, 1_000)
    await _booked(journal, deal)
    rb = _rollback(deal)
    async with journal.player(KEY) as pj:
        await pj.record_movement(rb)
        await pj.settle_movement(rb.transaction_id, MovementStatus.UNKNOWN, None,
                                 error="deadline exceeded")
    assert await _statuses(journal) == {deal.transaction_id: MovementStatus.BOOKED,
                                        rb.transaction_id: MovementStatus.UNKNOWN}
    async with journal.player(KEY) as pj:
        assert [m.transaction_id for m in await pj.open_movements()] == [rb.transaction_id]
        # The reconciler's later send goes through: both rows final at once.
        await pj.settle_movement(rb.transaction_id, MovementStatus.APPLIED, 10_000, error="")
    assert await _statuses(journal) == {deal.transaction_id: MovementStatus.ROLLED_BACK,
                                        rb.transaction_id: MovementStatus.APPLIED}
