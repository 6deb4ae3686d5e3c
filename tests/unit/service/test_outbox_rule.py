"""The outbox rule has one home (rgs.service.model.is_open): a debit stays open until its step is
booked, a credit or rollback is final once applied; the in-memory journal's open rows and
backlog follow it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from rgs.journal.memory import InMemoryJournal
from rgs.service.model import OPEN_STATUSES, Movement, MovementStatus, is_open
from rgs.wallet.port import MoneyKind

OPEN = {(MoneyKind.DEBIT, MovementStatus.PENDING), (MoneyKind.DEBIT, MovementStatus.UNKNOWN),
        (MoneyKind.DEBIT, MovementStatus.APPLIED), (MoneyKind.CREDIT, MovementStatus.PENDING),
        (MoneyKind.CREDIT, MovementStatus.UNKNOWN), (MoneyKind.ROLLBACK, MovementStatus.PENDING),
        (MoneyKind.ROLLBACK, MovementStatus.UNKNOWN)}


@pytest.mark.parametrize("kind", list(MoneyKind))
@pytest.mark.parametrize("status", list(MovementStatus))
def test_a_movement_is_open_exactly_while_it_needs_work(kind: MoneyKind,
                                                        status: MovementStatus) -> None:
    assert is_open(kind, status) is ((kind, status) in OPEN)


def test_every_kind_has_a_rule() -> None:
    assert set(OPEN_STATUSES) == set(MoneyKind)


async def test_the_in_memory_backlog_counts_open_rows_and_ages_the_oldest() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    clock = [now]
    journal = InMemoryJournal(clock=lambda: clock[0])
    rows = [(MoneyKind.CREDIT, MovementStatus.APPLIED),
            (MoneyKind.DEBIT, MovementStatus.APPLIED),
            (MoneyKind.ROLLBACK, MovementStatus.APPLIED),
            (MoneyKind.CREDIT, MovementStatus.UNKNOWN),
            (MoneyKind.DEBIT, MovementStatus.BOOKED)]
    async with journal.player("op/alice") as pj:
        for i, (kind, status) in enumerate(rows):
            await pj.record_movement(Movement(transaction_id=f"t{i}", round_id="r", kind=kind,
                                              amount=100, status=status))
            clock[0] += timedelta(minutes=1)
        assert [m.transaction_id for m in await pj.open_movements()] == ["t1", "t3"]
    backlog = await journal.outbox_backlog()
    assert backlog.open_rows == 2
    assert backlog.oldest_age_s == 4 * 60  # t1 was written at minute 1; it is minute 5
