"""The shared tables' journal contract (rgs.service.tables.ports.TableJournal), its rounds'
rows, wake-ups and bulk payments: the same cases on the in-memory adapter and on PostgreSQL
(directly and through PgBouncer in transaction mode; the ``adapter`` fixture of
tests/integration/conftest.py). The table row, guards, held players and clock lease are in
test_table_journal_contract.py.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import timedelta

import pytest

from rgs.service.model import Channel, MovementStatus
from rgs.service.tables.model import (
    StoredTable,
    TableFair,
    TablePhase,
    TableState,
)
from rgs.service.tables.ports import (
    Bettor,
    Found,
    Guards,
    Outcome,
    RoundRecord,
    TableWrite,
)
from rgs.wallet.port import MoneyKind
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
    record_row,
    round_record,
    rows_of,
    write_table,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")



# --------------------------------------------------------------------------- rounds


async def test_a_rounds_row_is_updated_in_place_keeping_its_number_seed_and_names(
        adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    fair = TableFair(server_seed="11" * 32, commitment="c", round_number=1, decks=8,
                     next_commitment="n")
    bettors = (Bettor(player_key=ANN, brand_id="brand-a", channel=Channel.BROWSER),
               Bettor(player_key=BOB, brand_id="brand-b", channel=Channel.GRPC),
               Bettor(player_key="op/old", brand_id="brand-b"))  # a previous release's
    await write_table(a, TableWrite(state=BETTING, round=round_record(
        "r1", "player_turn", fair=fair, names=((ANN, "Ann"),), bettors=bettors)))
    first = await a.tables.get_round("r1")
    assert first is not None and first.finished_at is None and not first.finished
    assert first.players == ()
    await write_table(a, TableWrite(state=BETTING, round=round_record(
        "r1", "settled", round_no=99, events=(("a", "{}"), ("b", '{"x": 1}')),
        players=((BOB, "op", 10, 0), (ANN, "op", 20, 40)))))
    r = await a.tables.get_round("r1")
    assert r is not None
    assert (r.round_no, r.status, r.fair, r.names) == (1, "settled", fair, ((ANN, "Ann"),))
    assert r.bettors == bettors  # the bettors and their channels, as the deal wrote them
    assert r.players == ((ANN, "op", 20, 40), (BOB, "op", 10, 0))  # by player key
    assert [(k, json.loads(p)) for k, p in r.events] == [("a", {}), ("b", {"x": 1})]
    assert r.started_at == first.started_at and r.finished_at is not None
    assert await a.tables.get_round("r9") is None
    async with a.tables.link() as link:
        assert await link.get_round("r1") == r


async def test_a_transition_in_play_is_given_its_rounds_row(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    playing = replace(BETTING, phase=TablePhase.PLAYING)
    await write_table(a, TableWrite(state=playing, round=round_record("r1", "player_turn")))
    seen: list[RoundRecord | None] = []

    def apply(_t: StoredTable, r: RoundRecord | None, _f: Found) -> None:
        seen.append(r)

    async with a.tables.link() as link:
        await link.transition(T, Guards(), apply)
    assert seen[0] is not None and (seen[0].round_id, seen[0].status) == ("r1", "player_turn")


async def test_a_rounds_movements_are_given_to_its_players_operator_only(
        adapter: Adapter) -> None:
    a = adapter
    await record_row(a, ANN, debit_row("d1", "r1"))
    await record_row(a, "opx/eve", debit_row("x1", "r1"))
    await record_row(a, "other/dee", debit_row("o1", "r1"))
    await record_row(a, CY, debit_row("y1", "r1"), MovementStatus.BOOKED, 1)
    await record_row(a, ANN, debit_row("d2", "r2"))
    await record_row(a, ANN, credit_row("c1", "r1"))
    got = await a.tables.round_movements("r1", "op")
    assert {k: [(m.transaction_id, m.kind, m.status) for m in v] for k, v in got.items()} == {
        ANN: [("d1", MoneyKind.DEBIT, MovementStatus.PENDING),
              ("c1", MoneyKind.CREDIT, MovementStatus.PENDING)],
        CY: [("y1", MoneyKind.DEBIT, MovementStatus.BOOKED)]}
    assert list(got) == [ANN, CY]
    assert set(await a.tables.round_movements("r1", "other")) == {"other/dee"}
    assert await a.tables.round_movements("r3", "op") == {}


async def test_a_players_table_rounds_come_newest_first_by_their_first_movement(
        adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    for rid, status in (("r1", "settled"), ("r2", "voided"), ("r3", "not_dealt"),
                        ("r4", "player_turn"), ("r5", "settled")):
        await write_table(a, TableWrite(state=BETTING, round=round_record(rid, status)))
    await record_row(a, ANN, debit_row("d1", "r1"))
    await record_row(a, ANN, debit_row("d2", "r2"))
    await record_row(a, ANN, debit_row("d5", "r5", brand="b2"))   # another brand
    await record_row(a, ANN, debit_row("d3", "r3"))
    await record_row(a, ANN, debit_row("d4", "r4"))               # not finished
    await record_row(a, ANN, credit_row("c1", "r1"))              # r1's later row: its first counts
    await record_row(a, BOB, debit_row("e6", "r1"))
    await record_row(a, ANN, debit_row("d9", "r9"))               # no round row at all
    got = await a.tables.player_rounds(ANN, "b", before=None, limit=10)
    assert [r.round_id for r, _ in got] == ["r3", "r2", "r1"]
    firsts = {m.transaction_id: m.created_at for rid in ("r1", "r2", "r3")
              for m in (await a.tables.round_movements(rid, "op"))[ANN]}
    assert [at for _, at in got] == [firsts["d3"], firsts["d2"], firsts["d1"]]
    page = await a.tables.player_rounds(ANN, "b", before=None, limit=2)
    assert [r.round_id for r, _ in page] == ["r3", "r2"]
    rest = await a.tables.player_rounds(ANN, "b", before=(page[-1][1], "r2"), limit=2)
    assert [r.round_id for r, _ in rest] == ["r1"]
    assert rest[0][0].status == "settled" and rest[0][0].finished_at is not None
    assert [r.round_id for r, _ in await a.tables.player_rounds(
        ANN, "b2", before=None, limit=10)] == ["r5"]


# --------------------------------------------------------------------------- wake-ups


@pytest.mark.parametrize("adapter", ["postgres-pgbouncer-transaction"], indirect=True)
async def test_behind_a_transaction_pooler_a_feed_polls_and_reads_what_was_written(
        adapter: Adapter) -> None:
    """There is no LISTEN behind a transaction pooler: the wake-up is a bounded wait (a poll),
    and the feed's read after it finds the transition's events. Elsewhere the wake-up comes with
    the transition (the next test)."""
    a = adapter
    await a.tables.ensure_table(T, TableState())
    async with a.tables.subscribe(T) as wake:
        last = await write_table(a, TableWrite(state=BETTING, events=events_of("x", "y")))
        await asyncio.wait_for(wake(0.2), 30.0)  # returns by its timeout at the latest
        got = await a.tables.events_after(T, last - 2, 10)
    assert [e.kind for e in got] == ["x", "y"]


@pytest.mark.parametrize("adapter", ["memory", "postgres"], indirect=True)
async def test_a_subscriber_is_woken_by_its_tables_transition(adapter: Adapter) -> None:
    """Where there is a LISTEN (not behind a transaction pooler: the test above)."""
    a = adapter
    for tid in (T, "vip-2"):
        await a.tables.ensure_table(tid, TableState())
    async with a.tables.subscribe(T) as wake:
        woken = asyncio.create_task(wake(60.0))
        await asyncio.sleep(0.05)
        await write_table(a, TableWrite(state=BETTING, events=events_of("x")), table_id="vip-2")
        done, _ = await asyncio.wait({woken}, timeout=0.5)
        assert not done  # another table's transition is not this table's news
        await write_table(a, TableWrite(state=BETTING, events=events_of("x")))
        await asyncio.wait_for(woken, 30.0)


@pytest.mark.parametrize("adapter", ["memory", "postgres"], indirect=True)
async def test_a_deadline_brought_forward_wakes_the_clocks_and_no_other_transition_does(
        adapter: Adapter) -> None:
    """Any table's transition that brings its deadline forward (a Deal Now) wakes the table
    clocks; one that sets a later deadline, or a first one, leaves them to their own pace."""
    a = adapter
    for tid in (T, "vip-2"):
        await a.tables.ensure_table(tid, TableState())
    later = replace(BETTING, deadline=T0 + timedelta(seconds=30))
    async with a.tables.deadlines() as woken:
        await write_table(a, TableWrite(state=later, events=events_of("betting_opened")))
        assert not await woken(0.3)  # a first deadline: the clock's next pass finds it
        await write_table(a, TableWrite(state=replace(later, deadline=T0 + timedelta(seconds=40)),
                                   events=events_of("x")))
        assert not await woken(0.3)  # pushed back
        waiting = asyncio.create_task(woken(60.0))
        await write_table(a, TableWrite(state=replace(later, deadline=T0),
                                        events=events_of("deal_now")))
        assert await asyncio.wait_for(waiting, 30.0)  # brought forward: woken, not timed out


# --------------------------------------------------------------------------- bulk payments


async def test_many_players_are_held_at_once_read_and_their_answers_recorded_fenced(
        adapter: Adapter) -> None:
    """A round's payments: the players nobody else holds are held in one go (one never held
    before too; one another call holds is left out, not waited for), their open rows read
    together, the wallet's answers recorded together (none for a player not held), and all of
    them given back at the end."""
    a = adapter
    dee = "op/dee"
    for key in (ANN, BOB, CY):
        await record_row(a, key, credit_row(f"c-{key}", "r1"))
    await record_row(a, ANN, debit_row("d-ann", "r1"), MovementStatus.BOOKED, 9000)
    holding, let_go = asyncio.Event(), asyncio.Event()

    async def bob_busy() -> None:
        async with a.journal.player(BOB):
            holding.set()
            await let_go.wait()

    busy = asyncio.create_task(bob_busy())
    await holding.wait()
    try:
        async with a.tables.hold_many([CY, ANN, BOB, dee, ANN]) as h:
            assert set(h.epochs) == {ANN, CY, dee}
            rows = await h.open_movements()
            assert {k: [m.transaction_id for m in v] for k, v in rows.items()} == {
                ANN: [f"c-{ANN}"], CY: [f"c-{CY}"], dee: []}
            lost = await h.settle([
                Outcome(key=ANN, transaction_id=f"c-{ANN}", status=MovementStatus.APPLIED,
                        balance_after=11000, error="", wallet_reference="w-1"),
                Outcome(key=CY, transaction_id=f"c-{CY}", status=MovementStatus.UNKNOWN,
                        error="timeout"),
                Outcome(key=BOB, transaction_id=f"c-{BOB}", status=MovementStatus.APPLIED,
                        balance_after=1)])
            assert lost == {BOB}
    finally:
        let_go.set()
        await busy
    assert await rows_of(a, ANN, "r1") == [(f"c-{ANN}", "credit", 2000, "applied", 11000),
                                         ("d-ann", "debit", 1000, "booked", 9000)]
    assert await rows_of(a, CY, "r1") == [(f"c-{CY}", "credit", 2000, "unknown", None)]
    assert await rows_of(a, BOB, "r1") == [(f"c-{BOB}", "credit", 2000, "pending", None)]
    cy = await a.journal.movements(CY, "r1")
    assert (cy[0].attempts, cy[0].last_error) == (1, "timeout")
    for key in (ANN, CY, dee):  # given back: held again at once
        async with a.journal.player(key):
            pass


async def test_a_rollback_recorded_applied_in_bulk_marks_its_debit_rolled_back(
        adapter: Adapter) -> None:
    """A voided table round's rollbacks are paid in bulk too: the rollback's outcome alone
    cancels its debit, in the same statement (the journal's one rule for it)."""
    a = adapter
    await record_row(a, ANN, debit_row("d-ann", "r1"), MovementStatus.BOOKED, 9000)
    rollback = replace(debit_row("rb-ann", "r1"), kind=MoneyKind.ROLLBACK,
                       debit_transaction_id="d-ann")
    await record_row(a, ANN, rollback)
    async with a.tables.hold_many([ANN]) as h:
        assert await h.settle([Outcome(key=ANN, transaction_id="rb-ann",
                                       status=MovementStatus.APPLIED, balance_after=10000,
                                       error="")]) == frozenset()
    assert await rows_of(a, ANN, "r1") == [("d-ann", "debit", 1000, "rolled_back", 9000),
                                         ("rb-ann", "rollback", 1000, "applied", 10000)]
