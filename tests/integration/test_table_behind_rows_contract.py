"""The table journal's contract for Bet Behinds on rows of their own (issue 27,
rgs.service.tables.behind): the same cases on the in-memory adapter and on PostgreSQL (the
``adapter`` fixture of tests/integration/conftest.py).

A placement inserts its rows, books its debits and records its answer in one transaction that
checks the table is betting on the round, without touching the table's state or its event
number; a transition while betting is open sees the rows merged into the state and keeps them
rows; the transition that closes betting materialises them into the state and deletes them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rgs.service.tables.model import Behind, TablePhase, TableState, Who
from rgs.service.tables.ports import (
    BehindPlacement,
    BehindRefused,
    TableLocked,
)
from support.table_journal import (
    ANN,
    BETTING,
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

SEATED = "op/seated"


def _who(key: str) -> Who:
    return Who(player_key=key, operator_id="op", brand_id="b", player_id=key[3:],
               session_id="s1", name=key[3:])


def _behind(key: str, seat: int, debit: str, stake: int = 1000) -> Behind:
    return Behind(seat=seat, who=_who(key), stake=stake, debit=debit, seat_player=SEATED)


async def _place(a: Adapter, key: str, *bets: Behind, request_id: str = "q1",
                 round_id: str = "r1", epoch: int | None = None,
                 wait_s: float | None = None) -> int:
    """A player's placement, under their journal (with ``epoch`` instead of theirs)."""
    async with a.tables.link() as link, link.hold_players([key], waiting=[key]) as held:
        return await link.place_behind(T, BehindPlacement(
            round_id=round_id, bets=bets,
            player=(key, held[key].epoch if epoch is None else epoch),
            booked=[(key, b.debit, 50_000, "") for b in bets],
            request=lambda seq: request_of(request_id, seq)), wait_s=wait_s)


async def _own(a: Adapter, key: str) -> tuple[Behind, ...]:
    """A player's own rows of the table's round, as a command reads them."""
    async with a.tables.link() as link, link.hold_players([key], waiting=[key]):
        return (await link.command_read(T, key, "any")).behind


async def _betting(a: Adapter, state: TableState = BETTING) -> None:
    await table_in(a, state)


async def test_a_placement_books_its_rows_without_touching_the_tables_state(
        adapter: Adapter) -> None:
    a = adapter
    in_doc = _behind(BOB, 1, "d0")
    await _betting(a, TableState(phase=TablePhase.BETTING, round_no=1, round_id="r1",
                                 behind=(in_doc,)))
    await record_row(a, ANN, debit_row("d1", "r1"))
    await record_row(a, ANN, debit_row("d2", "r1", 2000))
    await record_row(a, BOB, debit_row("d3", "r1"))
    before = await a.tables.load(T)
    assert before is not None
    ann = (_behind(ANN, 2, "d1"), _behind(ANN, 3, "d2", 2000))
    assert await _place(a, ANN, *ann) == before.last_seq
    assert await _place(a, BOB, _behind(BOB, 2, "d3"), request_id="q2") == before.last_seq
    after = await a.tables.load(T)
    assert after == before  # neither the version, the event number nor the state moved
    assert await a.tables.events_after(T, 0, 10) == []
    assert await rows_of(a, ANN, "r1") == [("d1", "debit", 1000, "booked", 50_000),
                                         ("d2", "debit", 2000, "booked", 50_000)]
    assert await a.tables.find_request(T, ANN, "q1") == request_of("q1", before.last_seq)
    # A command reads the player's own rows only.
    assert await _own(a, ANN) == ann
    assert await _own(a, BOB) == (_behind(BOB, 2, "d3"),)
    # A transition sees the state's own Bet Behinds, then the rows in the order placed; what it
    # writes while betting stays open keeps the rows rows.
    seen = await state_seen(a, lambda s: replace(s, deadline=T0))
    assert seen.behind == (in_doc, *ann, _behind(BOB, 2, "d3"))
    got = await a.tables.load(T)
    assert got is not None and got.version == before.version + 1
    assert got.state == replace(before.state, deadline=T0)
    assert (await state_seen(a)).behind == seen.behind


async def test_the_close_of_betting_materialises_the_rows_and_deletes_them(
        adapter: Adapter) -> None:
    a = adapter
    await _betting(a)
    await record_row(a, ANN, debit_row("d1", "r1"))
    await record_row(a, BOB, debit_row("d2", "r1"))
    await _place(a, ANN, _behind(ANN, 2, "d1"))
    await _place(a, BOB, _behind(BOB, 2, "d2"), request_id="q2")
    await state_seen(a, lambda s: replace(s, phase=TablePhase.PLAYING))
    got = await a.tables.load(T)
    assert got is not None and got.state.behind == (_behind(ANN, 2, "d1"),
                                                    _behind(BOB, 2, "d2"))
    assert await _own(a, ANN) == ()
    # The next round's betting sees nothing of them.
    await state_seen(a, lambda _: TableState(phase=TablePhase.BETTING, round_no=2, round_id="r2"))
    assert (await state_seen(a)).behind == ()


async def test_a_row_a_transition_returns_while_betting_is_open_is_deleted(
        adapter: Adapter) -> None:
    a = adapter
    await _betting(a)
    await record_row(a, ANN, debit_row("d1", "r1"))
    await record_row(a, BOB, debit_row("d2", "r1"))
    await _place(a, ANN, _behind(ANN, 2, "d1"))
    await _place(a, BOB, _behind(BOB, 3, "d2"), request_id="q2")
    # (seat 2 given back: its Bet Behind returned, the other kept)
    await state_seen(a, lambda s: replace(s, behind=tuple(b for b in s.behind if b.seat != 2)))
    assert (await state_seen(a)).behind == (_behind(BOB, 3, "d2"),)
    assert await _own(a, ANN) == ()
    got = await a.tables.load(T)
    assert got is not None and got.state.behind == ()


@pytest.mark.parametrize("case", ["closed", "other_round", "already_bet", "answered",
                                  "lease_lost"])
async def test_a_placement_the_table_does_not_take_records_nothing(
        adapter: Adapter, case: str) -> None:
    a = adapter
    await _betting(a, BETTING if case != "closed" else TableState(
        phase=TablePhase.PLAYING, round_no=1, round_id="r1"))
    await record_row(a, ANN, debit_row("d1", "r1"))
    await record_row(a, ANN, debit_row("d2", "r1"))
    first = (_behind(ANN, 2, "d1"),)
    if case in ("already_bet", "answered"):
        await _place(a, ANN, *first)
    second = _behind(ANN, 2 if case == "already_bet" else 4, "d2")
    with pytest.raises(BehindRefused) as refused:
        await _place(a, ANN, second, request_id="q1" if case == "answered" else "q2",
                     round_id="r0" if case == "other_round" else "r1",
                     epoch=999_999 if case == "lease_lost" else None)
    assert refused.value.reason == {"other_round": "closed"}.get(case, case)
    assert (await rows_of(a, ANN, "r1"))[1] == ("d2", "debit", 1000, "pending", None)
    assert await a.tables.find_request(T, ANN, "q2") is None
    if case != "closed":
        assert await _own(a, ANN) == (first if case in ("already_bet", "answered") else ())


async def test_a_placement_waits_for_a_locked_row_at_most_its_bound(adapter: Adapter) -> None:
    a = adapter
    await _betting(a)
    await record_row(a, ANN, debit_row("d1", "r1"))
    async with a.row_locked(T):
        with pytest.raises(TableLocked):
            await _place(a, ANN, _behind(ANN, 2, "d1"), wait_s=0.2)
    assert await rows_of(a, ANN, "r1") == [("d1", "debit", 1000, "pending", None)]
    await _place(a, ANN, _behind(ANN, 2, "d1"))
    assert await _own(a, ANN) == (_behind(ANN, 2, "d1"),)
