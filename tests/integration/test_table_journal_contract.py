"""The shared tables' journal contract (rgs.service.tables.ports.TableJournal), its table row,
guards, held players and clock lease: one set of cases run on the in-memory adapter and on
PostgreSQL (a fresh migrated database, directly and through PgBouncer in transaction mode; the
``adapter`` fixture of tests/integration/conftest.py), so the unit tier's tables behave as
production's do. Its rounds, wake-ups and bulk payments are in
test_table_journal_rounds_contract.py.

The money rows a table writes live in its players' own outboxes; the cases write and read them
through the solo journal of the same adapter (its player holds are the same leases).
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest

from rgs.service.model import MovementStatus
from rgs.service.ports import JournalBusy
from rgs.service.tables.model import (
    StoredTable,
    TableFair,
    TableState,
    Watching,
)
from rgs.service.tables.ports import (
    Found,
    Guards,
    NotCommitted,
    RoundRecord,
    TableLocked,
    TableWrite,
)
from support.table_journal import (
    ANN,
    BETTING,
    BOB,
    CY,
    T0,
    Adapter,
    T,
    credit_row,
    debit_row,
    events_of,
    found_of,
    record_row,
    request_of,
    round_record,
    rows_of,
    write_table,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")



# --------------------------------------------------------------------------- the table row


async def test_ensure_table_creates_the_row_once(adapter: Adapter) -> None:
    t = adapter.tables
    assert await t.load(T) is None
    await t.ensure_table(T, TableState(next_seed="first"))
    await t.ensure_table(T, TableState(next_seed="second"))
    got = await t.load(T)
    assert got is not None
    assert (got.version, got.last_seq, got.state) == (0, 0, TableState(next_seed="first"))


async def test_a_transition_writes_its_events_state_money_round_and_answers(
        adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await record_row(a, ANN, debit_row("d1", "r1"))
    fair = TableFair(server_seed="00" * 32, commitment="c1", round_number=1, decks=8,
                     next_commitment="c2")
    seen: list[tuple[StoredTable, RoundRecord | None, Found]] = []

    def apply(t: StoredTable, r: RoundRecord | None, f: Found) -> TableWrite:
        seen.append((t, r, f))
        return TableWrite(
            state=BETTING, events=events_of("bet_placed", "deal_now"),
            booked=[(ANN, "d1", 99_000, "sw-7")], movements=[(ANN, credit_row("c1", "r1"))],
            round=round_record("r1", players=((ANN, "op", 1000, 2000),), fair=fair,
                         names=((ANN, "Ann"),)),
            requests=[(ANN, request_of("q1", 2))])

    async with a.tables.link() as link, link.hold_players([ANN], waiting=[ANN]) as held:
        last = await link.transition(T, Guards(players=[(ANN, held[ANN].epoch)],
                                               requests=[(ANN, "q1")]), apply)
    assert last == 2
    (before, rec, found), = seen
    assert (before.version, before.last_seq, rec, found) == (0, 0, None, Found())
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq, got.state) == (1, 2, BETTING)
    events = await a.tables.events_after(T, 0, 10)
    assert [(e.seq, e.kind, json.loads(e.payload)) for e in events] == [
        (1, "bet_placed", {"n": 0, "kind": "bet_placed"}),
        (2, "deal_now", {"n": 1, "kind": "deal_now"})]
    assert all(e.table_id == T and e.at is not None for e in events)
    assert await rows_of(a, ANN, "r1") == [("d1", "debit", 1000, "booked", 99_000),
                                         ("c1", "credit", 2000, "pending", None)]
    assert [m.wallet_reference for m in await a.journal.movements(ANN, "r1")] == ["sw-7", ""]
    r = await a.tables.get_round("r1")
    assert r is not None
    assert (r.table_id, r.round_no, r.variant, r.status, r.players, r.fair, r.names) == (
        T, 1, "vip-platinum", "settled", ((ANN, "op", 1000, 2000),), fair, ((ANN, "Ann"),))
    assert [(k, json.loads(p)) for k, p in r.events] == [("deal", {"card": "AS"})]
    assert r.started_at is not None and r.finished_at is not None and r.finished
    assert await a.tables.find_request(T, ANN, "q1") == request_of("q1", 2)
    # The next transition sees the first's table, and numbers its events on from there.
    assert await write_table(a, TableWrite(state=BETTING, events=events_of("x"))) == 3


async def test_a_transition_that_applies_nothing_writes_nothing(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await write_table(a, TableWrite(state=BETTING, events=events_of("opened")))
    async with a.tables.link() as link:
        assert await link.transition(T, Guards(), lambda *_: None) == 1
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq) == (1, 1)


async def test_a_transition_whose_apply_raises_writes_nothing(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await record_row(a, ANN, debit_row("d1", "r1"))

    def apply(*_: object) -> TableWrite:
        raise ZeroDivisionError("refused")

    async with a.tables.link() as link:
        with pytest.raises(ZeroDivisionError):
            await link.transition(T, Guards(), apply)
        # The table is free again: the next transition goes through.
        assert await link.transition(T, Guards(), lambda *_: None) == 0
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq, got.state) == (0, 0, TableState())
    assert await rows_of(a, ANN, "r1") == [("d1", "debit", 1000, "pending", None)]


async def test_a_transition_of_a_table_without_a_row_is_not_committed(adapter: Adapter) -> None:
    async with adapter.tables.link() as link:
        with pytest.raises(NotCommitted):
            await link.transition("no-such-table", Guards(), lambda *_: None)


async def test_a_transition_waits_for_the_tables_row_at_most_its_bound(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    async with a.row_locked(T), a.tables.link() as link:
        with pytest.raises(TableLocked):
            await link.transition(T, Guards(), lambda *_: TableWrite(
                state=BETTING, events=events_of("late")), wait_s=0.2)
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq) == (0, 0)
    assert await write_table(a, TableWrite(state=BETTING, events=events_of("now"))) == 1


@pytest.mark.parametrize("case", ["rolled_back", "missing", "a_credit", "written_twice"])
async def test_a_write_that_cannot_book_or_insert_is_not_committed_and_writes_nothing(
        adapter: Adapter, case: str) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await record_row(a, ANN, debit_row("d1", "r1"), MovementStatus.ROLLED_BACK)
    await record_row(a, ANN, debit_row("d2", "r1"))
    await record_row(a, ANN, credit_row("c0", "r1"))
    booked, moves = {"rolled_back": ("d1", "c1"), "missing": ("d9", "c1"),
                     "a_credit": ("c0", "c1"), "written_twice": ("d2", "c0")}[case]
    w = TableWrite(state=BETTING, events=events_of("bet_placed"),
                   booked=[(ANN, "d2", 5, ""), (ANN, booked, None, "")],
                   movements=[(ANN, credit_row(moves, "r1", 777))], round=round_record("r1"),
                   requests=[(ANN, request_of("q1"))])
    with pytest.raises(NotCommitted):
        await write_table(a, w)
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq, got.state) == (0, 0, TableState())
    assert await a.tables.events_after(T, 0, 10) == []
    assert await a.tables.get_round("r1") is None
    assert await a.tables.find_request(T, ANN, "q1") is None
    assert await rows_of(a, ANN, "r1") == [("d1", "debit", 1000, "rolled_back", None),
                                         ("d2", "debit", 1000, "pending", None),
                                         ("c0", "credit", 2000, "pending", None)]


# --------------------------------------------------------------------------- the guards


async def test_guards_find_a_players_hold_lost_once_it_is_given_back(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    async with a.tables.link() as link, link.hold_players([ANN], waiting=[ANN]) as held:
        epoch = held[ANN].epoch
        assert (await found_of(a, Guards(players=[(ANN, epoch)]))).lost_players == frozenset()
        # Another epoch of the same player, and a player nobody holds, are lost.
        assert (await found_of(a, Guards(players=[(ANN, epoch + 1), (BOB, epoch)]))
                ).lost_players == {ANN, BOB}
    assert (await found_of(a, Guards(players=[(ANN, epoch)]))).lost_players == {ANN}
    async with a.tables.link() as link, link.hold_players([ANN], waiting=[ANN]) as again:
        assert again[ANN].epoch != epoch
        assert (await found_of(a, Guards(players=[(ANN, epoch)]))).lost_players == {ANN}


async def test_guards_find_the_clock_lost_to_another_epoch_or_given_back(
        adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    epoch = await a.tables.take_clock(T, "replica-a", 5.0)
    assert epoch is not None
    assert not (await found_of(a, Guards(clock=epoch))).lost_clock
    assert (await found_of(a, Guards(clock=epoch + 1))).lost_clock
    assert not (await found_of(a, Guards())).lost_clock
    await a.tables.release_clock(T, epoch)
    assert (await found_of(a, Guards(clock=epoch))).lost_clock


async def test_guards_find_the_requests_answered_already_at_this_table(
        adapter: Adapter) -> None:
    a = adapter
    for tid in (T, "vip-2"):
        await a.tables.ensure_table(tid, TableState())
    await write_table(a, TableWrite(state=BETTING, requests=[(ANN, request_of("q1"))]))
    asked = Guards(requests=[(ANN, "q1"), (ANN, "q2"), (BOB, "q1")])
    assert (await found_of(a, asked)).answered == {(ANN, "q1")}
    assert (await found_of(a, asked, "vip-2")).answered == frozenset()


# --------------------------------------------------------------------------- holding players


async def test_held_players_are_waited_for_or_tried_once(adapter: Adapter) -> None:
    a = adapter
    async with a.tables.link() as one, one.hold_players([ANN], waiting=[ANN]) as held:
        assert set(held) == {ANN}
        async with a.tables.link() as two:
            async with two.hold_players([ANN, BOB], waiting=[BOB]) as others:
                assert set(others) == {BOB}
            with pytest.raises(JournalBusy):
                async with two.hold_players([ANN], waiting=[ANN], wait_s=0.1):
                    pass
        # The solo journal's holds are the same: a solo call of ann is refused meanwhile.
        with pytest.raises(JournalBusy):
            async with a.journal.player(ANN):
                pass
    async with a.journal.player(ANN):
        pass


async def test_command_read_gives_the_table_request_open_rows_and_the_rounds_rows(
        adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    assert await write_table(a, TableWrite(state=BETTING, events=events_of("opened"),
                                      requests=[(ANN, request_of("q1"))])) == 1
    await record_row(a, ANN, debit_row("d0", "r0"))                              # open, last round
    await record_row(a, ANN, debit_row("d1", "r1"), MovementStatus.BOOKED, 5)    # this round
    await record_row(a, ANN, credit_row("c1", "r1"))                             # open, this round
    await record_row(a, ANN, debit_row("d2", "r2"), MovementStatus.BOOKED, 4)    # neither
    await record_row(a, BOB, debit_row("e1", "r1"))                              # another player
    async with a.tables.link() as link, link.hold_players([ANN], waiting=[ANN],
                                                         first=(T, "q1")):
        read = await link.command_read(T, ANN, "q1")
        missing = await link.command_read("no-such-table", ANN, "q1")
        unknown = await link.command_read(T, ANN, "q9")
    assert read.table is not None and (read.table.version, read.table.state) == (1, BETTING)
    assert read.request == request_of("q1")
    assert [m.transaction_id for m in read.open_movements] == ["d0", "c1"]
    assert [(m.transaction_id, m.status) for m in read.round_movements] == [
        ("d1", MovementStatus.BOOKED), ("c1", MovementStatus.PENDING)]
    assert all(m.created_at is not None for m in read.round_movements)
    assert (missing.table, missing.request, missing.open_movements,
            missing.round_movements) == (None, None, [], [])
    assert unknown.table is not None and unknown.request is None


async def test_requests_are_found_by_table_player_and_id_and_read_with_the_table(
        adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await write_table(a, TableWrite(state=BETTING, events=events_of("bet"),
                               requests=[(ANN, request_of("q1", 1))]))
    t, rec = await a.tables.load_with_request(T, ANN, "q1")
    assert t is not None and (t.version, t.last_seq, t.state) == (1, 1, BETTING)
    assert rec == request_of("q1", 1)
    t, rec = await a.tables.load_with_request(T, BOB, "q1")
    assert t is not None and rec is None
    assert await a.tables.load_with_request("no-such-table", ANN, "q1") == (None, None)
    assert await a.tables.find_request(T, ANN, "q1") == request_of("q1", 1)
    assert await a.tables.find_request(T, BOB, "q1") is None
    assert await a.tables.find_request("vip-2", ANN, "q1") is None
    async with a.tables.link() as link:
        assert await link.find_request(T, ANN, "q1") == request_of("q1", 1)
        got = await link.load(T)
        assert got is not None and got.version == 1


async def test_events_are_read_after_a_number_at_most_a_limit(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await write_table(a, TableWrite(state=BETTING, events=events_of("a", "b", "c")))
    await write_table(a, TableWrite(state=BETTING, events=events_of("d", "e")))
    assert [e.seq for e in await a.tables.events_after(T, 0, 2)] == [1, 2]
    assert [(e.seq, e.kind) for e in await a.tables.events_after(T, 2, 10)] == [
        (3, "c"), (4, "d"), (5, "e")]
    assert await a.tables.events_after(T, 5, 10) == []
    assert await a.tables.events_after("vip-2", 0, 10) == []


# --------------------------------------------------------------------------- the clock lease


async def test_the_clock_lease_keeps_its_epoch_for_its_holder_and_moves_on_for_another(
        adapter: Adapter) -> None:
    t = adapter.tables
    assert await t.take_clock(T, "a", 5.0) == 1
    assert await t.take_clock(T, "a", 5.0) == 1        # renewed by its holder
    assert await t.take_clock(T, "b", 5.0) is None     # held: another replica waits
    await t.release_clock(T, 7)                        # not its epoch: nothing
    assert await t.take_clock(T, "b", 5.0) is None
    await t.release_clock(T, 1)
    assert await t.take_clock(T, "b", 5.0) == 2        # given up: taken at once
    assert await t.take_clock(T, "a", 5.0) is None
    # An expired lease is taken over by another holder with the next epoch.
    assert await t.take_clock("vip-2", "a", 0.05) == 1
    await asyncio.sleep(0.3)
    assert await t.take_clock("vip-2", "b", 5.0) == 2
    # A holder that gave its lease up and takes it again gets a new epoch too.
    await t.release_clock("vip-2", 2)
    assert await t.take_clock("vip-2", "b", 5.0) == 3


async def test_watchers_are_merged_to_the_newest_sighting_and_expiry(adapter: Adapter) -> None:
    t = adapter.tables

    def w(key: str, seen_s: int, exp_s: int | None) -> Watching:
        return Watching(player_key=key, seen_at=T0 + timedelta(seconds=seen_s),
                        expires_at=None if exp_s is None else T0 + timedelta(seconds=exp_s))

    await t.mark_watching(T, [w(ANN, 20, 100)])
    await t.mark_watching(T, [w(ANN, 10, 200), w(BOB, 10, None)])
    await t.mark_watching(T, [w(BOB, 5, 50)])
    await t.mark_watching("vip-2", [w(CY, 1, 1)])
    assert await t.watching(T) == {ANN: w(ANN, 20, 200), BOB: w(BOB, 10, 50)}
    await t.mark_watching(T, [w(BOB, 30, None)])
    assert (await t.watching(T))[BOB] == w(BOB, 30, 50)
    assert await t.watching("vip-3") == {}


