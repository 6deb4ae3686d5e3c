"""The table journal's contract for Bet Behinds' live insurance decisions on rows of their own
(issue 27, rgs.service.tables.live_insurance): the same cases on the in-memory adapter, on
PostgreSQL and through PgBouncer (the ``adapter`` fixture of tests/integration/conftest.py).

A decision inserts its row, books its debit (a take) and records its answer in one transaction
that checks insurance is open on the round, without touching the table's state or its event
number, and counts the round's decisions once committed; a transition while insurance is open
sees the rows merged into the state's decisions and keeps them rows; the transition that closes
insurance keeps what it wrote and deletes them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rgs.service.tables.model import InsuranceChoice, TablePhase, TableState
from rgs.service.tables.ports import (
    BehindRefused,
    Decided,
    InsuranceDecision,
    TableLocked,
)
from support.table_journal import (
    ANN,
    BOB,
    T0,
    Adapter,
    T,
    debit_row,
    record_row,
    request_of,
    rows_of,
    state_seen,
    table_in,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: The round in its insurance phase, with a seat's own decision in the state.
SEATS_OWN = InsuranceChoice(seat=1, take=True, debit="s1")
INSURANCE = TableState(phase=TablePhase.INSURANCE, round_no=1, round_id="r1", next_seed="aa",
                       insurance=(SEATS_OWN,))


def _choice(key: str, seat: int, debit: str = "") -> InsuranceChoice:
    return InsuranceChoice(seat=seat, player=key, take=bool(debit), debit=debit,
                           announced=False)


async def _decide(a: Adapter, c: InsuranceChoice, *, request_id: str = "q1",
                  round_id: str = "r1", epoch: int | None = None,
                  wait_s: float | None = None) -> Decided:
    """A Bet Behind's decision: a take under its player's journal (with ``epoch`` instead of
    theirs), with its debit booked; a decline holds nothing."""
    async with a.tables.link() as link:
        if not c.take:
            return await link.decide_insurance(T, InsuranceDecision(
                round_id=round_id, choice=c, player=None, booked=(),
                request=lambda seq: request_of(request_id, seq)), wait_s=wait_s)
        async with link.hold_players([c.player], waiting=[c.player]) as held:
            return await link.decide_insurance(T, InsuranceDecision(
                round_id=round_id, choice=c,
                player=(c.player, held[c.player].epoch if epoch is None else epoch),
                booked=[(c.player, c.debit, 50_000, "")],
                request=lambda seq: request_of(request_id, seq)), wait_s=wait_s)


async def _own(a: Adapter, key: str) -> tuple[InsuranceChoice, ...]:
    """A player's own decision rows of the table's round, as a command reads them."""
    async with a.tables.link() as link, link.hold_players([key], waiting=[key]):
        return (await link.command_read(T, key, "any")).insurance


async def _insurance(a: Adapter, state: TableState = INSURANCE) -> None:
    await table_in(a, state)


async def test_a_decision_is_a_row_of_its_own_and_the_state_does_not_move(
        adapter: Adapter) -> None:
    a = adapter
    await _insurance(a)
    await record_row(a, ANN, debit_row("i1", "r1", 500))
    before = await a.tables.load(T)
    assert before is not None
    ann, bob = _choice(ANN, 2, "i1"), _choice(BOB, 2)
    assert await _decide(a, ann) == Decided(seq=before.last_seq, decided=1)
    assert await _decide(a, bob, request_id="q2") == Decided(seq=before.last_seq, decided=2)
    assert await a.tables.load(T) == before  # neither the version, the number nor the state
    assert await a.tables.events_after(T, 0, 10) == []
    assert await rows_of(a, ANN, "r1") == [("i1", "debit", 500, "booked", 50_000)]
    assert await a.tables.find_request(T, ANN, "q1") == request_of("q1", before.last_seq)
    assert await a.tables.find_request(T, BOB, "q2") == request_of("q2", before.last_seq)
    assert await a.tables.insurance_rows(T, "r1") == (ann, bob)
    # A command reads the player's own decisions only.
    assert await _own(a, ANN) == (ann,)
    assert await _own(a, BOB) == (bob,)
    # A transition sees the state's own decisions, then the rows in the order made; what it
    # writes while insurance stays open keeps the rows rows.
    seen = await state_seen(a, lambda s: replace(s, deadline=T0))
    assert seen.insurance == (SEATS_OWN, ann, bob)
    got = await a.tables.load(T)
    assert got is not None and got.version == before.version + 1
    assert got.state == replace(before.state, deadline=T0)
    assert (await state_seen(a)).insurance == seen.insurance


async def test_the_close_of_insurance_keeps_what_it_wrote_and_deletes_the_rows(
        adapter: Adapter) -> None:
    a = adapter
    await _insurance(a)
    await _decide(a, _choice(ANN, 2))
    await _decide(a, _choice(BOB, 3), request_id="q2")
    # (applied to the round as insurance closes: the state keeps none of the decisions)
    await state_seen(a, lambda s: replace(s, phase=TablePhase.PLAYING, insurance=()))
    got = await a.tables.load(T)
    assert got is not None and got.state.insurance == ()
    assert await a.tables.insurance_rows(T, "r1") == ()
    assert await _own(a, ANN) == ()
    # The next round's insurance sees nothing of them.
    await state_seen(a, lambda _: replace(INSURANCE, round_no=2, round_id="r2", insurance=()))
    assert (await state_seen(a)).insurance == ()


@pytest.mark.parametrize("case", ["closed", "other_round", "already_decided", "answered",
                                  "lease_lost"])
async def test_a_decision_the_table_does_not_take_records_nothing(
        adapter: Adapter, case: str) -> None:
    a = adapter
    await _insurance(a, INSURANCE if case != "closed" else replace(
        INSURANCE, phase=TablePhase.PLAYING))
    await record_row(a, ANN, debit_row("i1", "r1", 500))
    await record_row(a, ANN, debit_row("i2", "r1", 500))
    first = _choice(ANN, 2, "i1")
    if case in ("already_decided", "answered"):
        await _decide(a, first)
    second = _choice(ANN, 2 if case == "already_decided" else 4, "i2")
    with pytest.raises(BehindRefused) as refused:
        await _decide(a, second, request_id="q1" if case == "answered" else "q2",
                      round_id="r0" if case == "other_round" else "r1",
                      epoch=999_999 if case == "lease_lost" else None)
    assert refused.value.reason == {"other_round": "closed"}.get(case, case)
    assert (await rows_of(a, ANN, "r1"))[1] == ("i2", "debit", 500, "pending", None)
    assert await a.tables.find_request(T, ANN, "q2") is None
    held = (first,) if case in ("already_decided", "answered") else ()
    assert await a.tables.insurance_rows(T, "r1") == held


async def test_a_decision_waits_for_a_locked_row_at_most_its_bound(adapter: Adapter) -> None:
    a = adapter
    await _insurance(a)
    async with a.row_locked(T):
        with pytest.raises(TableLocked):
            await _decide(a, _choice(ANN, 2), wait_s=0.2)
    assert await a.tables.insurance_rows(T, "r1") == ()
    assert await _decide(a, _choice(ANN, 2)) == Decided(seq=0, decided=1)
