"""The player journal's outbox rules and write plans (rgs.service.ports.PlayerJournal): one set
of cases run on the in-memory adapter and on PostgreSQL (a fresh migrated database, directly and
through PgBouncer in transaction mode), so the unit tier's journal behaves as production's does.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import pytest_asyncio

from rgs.engine import Action, BoxBet, Round
from rgs.service.model import (
    CallRead,
    FairRecord,
    Movement,
    MovementStatus,
    RequestScope,
    SessionSeed,
    StoredRequest,
    StoredRound,
)
from rgs.service.ports import Journal, JournalLeaseLost
from rgs.service.restore import deal_source
from rgs.service.writes import Booking, PaidAnswer, StepWrite
from rgs.variants import find_variant
from rgs.wallet.port import MoneyKind, transaction_id
from support.table_journal import Adapter

pytestmark = pytest.mark.asyncio(loop_scope="session")

KEY, RID = "op/ann", "c" * 32


@pytest_asyncio.fixture(loop_scope="session")
async def journal(adapter: Adapter) -> Journal:
    """The player journal of each adapter (tests/integration/conftest.py): in memory, on
    PostgreSQL, and through PgBouncer in transaction mode."""
    return adapter.journal


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


# --------------------------------------------------------------------------- the write plan
# A step's write plan (rgs.service.writes.StepWrite) flushed by each adapter: the rows read
# back are the same on all three.

STAND_WINS = ("TS", "6H", "9D", "7C", "9S")  # 19 against the dealer's 13, who busts on a 9
FAIR = FairRecord(server_seed="1" * 64, commitment="a" * 64, client_seed="mine",
                  round_number=1, decks=8, next_commitment="b" * 64)
FOLLOWING = SessionSeed(session_id="s1", server_seed="2" * 64, commitment="b" * 64,
                        round_number=2)


def _dealt() -> Round:
    rules = find_variant("classic-resplit")
    return Round.deal(rules, deal_source(rules, lambda n: 0, STAND_WINS),
                      (BoxBet(seat=1, stake=1_000),))


def _header(rnd: Round) -> StoredRound:
    return replace(_round(rnd.seq, rnd.total_staked), status=rnd.phase.value,
                   total_paid=rnd.total_paid, events=rnd.events, fair=FAIR)


def _request(request_id: str, method: str) -> StoredRequest:
    return StoredRequest(request_id=request_id, method=method, request_hash="h",
                         response='{"pending": true}')


async def _rows(journal: Journal) -> list[tuple[str, MovementStatus, int | None, str, int, str]]:
    return [(m.transaction_id, m.status, m.balance_after, m.wallet_reference, m.attempts,
             m.last_error) for m in await journal.movements(KEY, RID)]


async def _deal(journal: Journal, rnd: Round, *, last: bool) -> Movement:
    """A Deal: its debit's row written, the wallet applied it (answer not recorded yet), and
    the step committed with the debit booked at the wallet's balance and the next seed."""
    debit = _debit(1, rnd.total_staked)
    async with journal.player(KEY) as pj:
        await pj.record_movement(debit)
        await pj.commit_round(StepWrite(
            round=_header(rnd), new_events_from=0, request=_request("d1", "deal"),
            bookings=(Booking.applied(replace(debit, wallet_reference="sw-1"), 9_000),),
            last=last, next_seed=FOLLOWING))
    return debit


async def test_a_deals_commit_books_its_debit_at_the_wallets_balance_with_the_round_and_seeds(
        journal: Journal) -> None:
    rnd = _dealt()
    debit = await _deal(journal, rnd, last=False)
    assert await _rows(journal) == [(debit.transaction_id, MovementStatus.BOOKED, 9_000, "sw-1",
                                     1, "")]
    stored = await journal.get_round(KEY, RID)
    assert stored is not None
    assert (stored.seq, stored.status, stored.total_staked, stored.events, stored.fair) == (
        rnd.seq, "player_turn", 1_000, rnd.events, FAIR)
    assert await journal.next_seed(KEY, "s1") == FOLLOWING
    async with journal.player(KEY) as pj:
        state = await pj.open_call(CallRead(request_id="d1", scope=RequestScope.PLAYER,
                                            round_id=RID))
        assert state.request == _request("d1", "deal")
        assert state.round == stored and state.open_movements == []
        assert [m.status for m in state.round_movements] == [MovementStatus.BOOKED]


async def test_a_last_commit_gives_the_player_back_so_another_call_takes_it_at_once(
        journal: Journal) -> None:
    rnd = _dealt()
    debit = _debit(1, rnd.total_staked)
    async with journal.player(KEY) as pj:
        await pj.record_movement(debit)
        await pj.commit_round(StepWrite(
            round=_header(rnd), new_events_from=0, request=_request("d1", "deal"),
            bookings=(Booking.applied(debit, 9_000),), last=True))
        # Still inside the first call's block: another call takes the player without waiting.
        async with journal.player(KEY) as taker:  # held: JournalBusy after 0.5 s
            found = await taker.get_round(RID)
            assert found is not None and found.events == rnd.events
            assert [m.status for m in await taker.movements(RID)] == [MovementStatus.BOOKED]
        with pytest.raises(JournalLeaseLost):  # nothing more is written after the last
            await pj.record_movement(_debit(2, 500))
    assert await _rows(journal) == [(debit.transaction_id, MovementStatus.BOOKED, 9_000, "", 1,
                                     "")]


def _credit() -> Movement:
    return Movement(transaction_id=transaction_id(RID, "settle", MoneyKind.CREDIT),
                    round_id=RID, kind=MoneyKind.CREDIT, amount=2_000, session_id="s1",
                    currency="EUR", brand_id="b")


async def _won(journal: Journal) -> tuple[Movement, Movement, Round, int]:
    """A Deal, then an Act whose commit ends the round with its win's row as the call's last
    write (the player given back); the win is paid after it."""
    rnd = _dealt()
    debit = await _deal(journal, rnd, last=False)
    new_from = len(rnd.events)
    rnd.act(1, 0, Action.STAND)
    assert rnd.finished and rnd.total_paid == 2_000
    return debit, _credit(), rnd, new_from


def _paid(credit: Movement, **changes: Any) -> PaidAnswer:
    return replace(PaidAnswer(transaction_id=credit.transaction_id, balance_after=11_000,
                              wallet_reference="sw-2", request_id="a1",
                              response='{"paid": true}'), **changes)


async def _commit_win(pj: Any, rnd: Round, credit: Movement, new_from: int) -> None:
    await pj.commit_round(StepWrite(round=_header(rnd), new_events_from=new_from,
                                    request=_request("a1", "act"), movements=(credit,),
                                    last=True))


async def test_a_win_paid_after_the_last_write_is_recorded_with_the_paid_answer(
        journal: Journal) -> None:
    debit, credit, rnd, new_from = await _won(journal)
    async with journal.player(KEY) as pj:
        await _commit_win(pj, rnd, credit, new_from)
        # The win goes out after the last write: another call may take the player meanwhile.
        async with journal.player(KEY) as taker:  # held: JournalBusy after 0.5 s
            assert [m.transaction_id for m in await taker.open_movements()] == [
                credit.transaction_id]
        await pj.answer_later(_paid(credit))
    # A read of the round on this replica finds the win paid (GetRound says nothing pending).
    assert [m.status for m in await journal.movements(KEY, RID)] == [
        MovementStatus.BOOKED, MovementStatus.APPLIED]
    # The player's next call on this replica reads the answer written (not a pending win).
    async with journal.player(KEY) as pj:
        assert await pj.open_movements() == []
        found = await pj.find_request("a1", RequestScope.PLAYER)
        assert found is not None and found.response == '{"paid": true}'
    await journal.flush_answers()
    assert await _rows(journal) == [
        (debit.transaction_id, MovementStatus.BOOKED, 9_000, "sw-1", 1, ""),
        (credit.transaction_id, MovementStatus.APPLIED, 11_000, "sw-2", 1, "")]
    stored = await journal.get_round(KEY, RID)
    assert stored is not None and stored.status == "settled" and stored.events == rnd.events


async def test_a_late_answer_changes_nothing_once_another_call_settled_the_win(
        journal: Journal) -> None:
    debit, credit, rnd, new_from = await _won(journal)
    async with journal.player(KEY) as pj:
        await _commit_win(pj, rnd, credit, new_from)
        async with journal.player(KEY) as taker:  # the player's next call sends it again
            await taker.settle_movement(credit.transaction_id, MovementStatus.APPLIED, 11_000,
                                        error="", wallet_reference="sw-3")
        await pj.answer_later(_paid(credit))
    await journal.flush_answers()
    assert await _rows(journal) == [
        (debit.transaction_id, MovementStatus.BOOKED, 9_000, "sw-1", 1, ""),
        (credit.transaction_id, MovementStatus.APPLIED, 11_000, "sw-3", 1, "")]
    async with journal.player(KEY) as pj:
        found = await pj.find_request("a1", RequestScope.PLAYER)
        assert found is not None and found.response == '{"pending": true}'


async def test_a_win_the_wallet_did_not_answer_stays_open_with_its_error(
        journal: Journal) -> None:
    _, credit, rnd, new_from = await _won(journal)
    async with journal.player(KEY) as pj:
        await _commit_win(pj, rnd, credit, new_from)
        await pj.answer_later(_paid(credit, status=MovementStatus.UNKNOWN, balance_after=None,
                                    wallet_reference="", error="deadline exceeded",
                                    response=None))
    await journal.flush_answers()
    assert (await _rows(journal))[1] == (credit.transaction_id, MovementStatus.UNKNOWN, None,
                                         "", 1, "deadline exceeded")
    async with journal.player(KEY) as pj:
        assert [m.transaction_id for m in await pj.open_movements()] == [credit.transaction_id]
        found = await pj.find_request("a1", RequestScope.PLAYER)
        assert found is not None and found.response == '{"pending": true}'
