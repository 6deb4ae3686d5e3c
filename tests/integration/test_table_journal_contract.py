"""The shared tables' journal contract (rgs.service.tables.ports.TableJournal): one set of
cases run on the in-memory adapter and on PostgreSQL (a fresh migrated database, directly and
through PgBouncer in transaction mode), so the unit tier's tables behave as production's do.

The money rows a table writes live in its players' own outboxes; the cases write and read them
through the solo journal of the same adapter (its player holds are the same leases).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
import pytest_asyncio

from rgs.journal.leases import PlayerHolds
from rgs.journal.memory import InMemoryJournal
from rgs.journal.memory_tables import InMemoryTables
from rgs.journal.migrate import SCHEMA
from rgs.journal.postgres import PostgresJournal, PostgresPlayerJournal
from rgs.journal.table_statements import turn_lock
from rgs.journal.tables import PostgresTables
from rgs.service.model import Channel, Movement, MovementStatus, StoredRequest
from rgs.service.ports import Journal, JournalBusy
from rgs.service.tables.model import (
    StoredTable,
    TableFair,
    TablePhase,
    TableState,
    Watching,
)
from rgs.service.tables.ports import (
    Bettor,
    Found,
    Guards,
    NotCommitted,
    Outcome,
    RoundRecord,
    TableJournal,
    TableLocked,
    TableWrite,
)
from rgs.wallet.port import MoneyKind
from support.databases import RGS_TEMPLATE
from support.pgbouncer import PgBouncer, set_journal_search_path

pytestmark = pytest.mark.asyncio(loop_scope="session")

FreshDatabase = Callable[[str], Awaitable[str]]

T = "vip-1"
ANN, BOB, CY = "op/ann", "op/bob", "op/cy"
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@dataclass
class Adapter:
    """One adapter under test: the tables' journal and the solo journal beside it."""

    name: str
    tables: TableJournal
    journal: Journal
    #: The PostgreSQL database's URL ("" in memory).
    url: str = ""

    @asynccontextmanager
    async def row_locked(self, table_id: str) -> AsyncIterator[None]:
        """The table's row locked by another transaction (another replica's transition)."""
        if isinstance(self.tables, InMemoryTables):
            async with self.tables.lock(table_id):
                yield
            return
        conn = await asyncpg.connect(self.url, statement_cache_size=0)
        try:
            async with conn.transaction():
                await conn.execute(f"SELECT 1 FROM {SCHEMA}.game_tables WHERE table_id = $1 "
                                   "FOR UPDATE", table_id)
                await conn.execute(turn_lock(table_id, shared=False))
                yield
        finally:
            await conn.close()


@pytest_asyncio.fixture(loop_scope="session",
                        params=["memory", "postgres", "postgres-pgbouncer-transaction"])
async def adapter(request: pytest.FixtureRequest, fresh_database: FreshDatabase,
                  pgbouncer: PgBouncer) -> AsyncIterator[Adapter]:
    if request.param == "memory":
        mem = InMemoryJournal(lock_wait_s=0.5)
        yield Adapter(name="memory", tables=InMemoryTables(mem), journal=mem)
        return
    url = await fresh_database(RGS_TEMPLATE)
    mode: Any = "session"
    if request.param.endswith("transaction"):
        await set_journal_search_path(url)
        url, mode = pgbouncer.url_for(url), "transaction"
    tables = await PostgresTables.connect(
        url, PlayerHolds(wait_s=0.5, lease_s=5.0, advisory_lock=mode == "session"),
        PostgresPlayerJournal, max_size=4, pool_mode=mode)
    journal = await PostgresJournal.connect(url, min_size=1, max_size=4, lock_wait_s=0.5,
                                            pool_mode=mode)
    try:
        yield Adapter(name=request.param, tables=tables, journal=journal, url=url)
    finally:
        await tables.close()
        await journal.close()


# --------------------------------------------------------------------------- helpers


def _debit(txn: str, round_id: str, amount: int = 1000, brand: str = "b") -> Movement:
    return Movement(transaction_id=txn, round_id=round_id, kind=MoneyKind.DEBIT, amount=amount,
                    session_id="s1", currency="EUR", brand_id=brand)


def _credit(txn: str, round_id: str, amount: int = 2000, brand: str = "b") -> Movement:
    return replace(_debit(txn, round_id, amount, brand), kind=MoneyKind.CREDIT)


async def _record(a: Adapter, key: str, m: Movement,
                  status: MovementStatus | None = None, balance: int | None = None) -> None:
    """Write an outbox row as a solo call does (under the player's journal)."""
    async with a.journal.player(key) as pj:
        await pj.record_movement(m)
        if status is not None:
            await pj.settle_movement(m.transaction_id, status, balance, error="")


async def _rows(a: Adapter, key: str, round_id: str) -> list[tuple[str, str, int, str, Any]]:
    """(transaction, kind, amount, status, balance) of a player's rows in a round, in order."""
    return [(m.transaction_id, m.kind.value, m.amount, m.status.value, m.balance_after)
            for m in await a.journal.movements(key, round_id)]


def _request(rid: str, seq: int = 1) -> StoredRequest:
    return StoredRequest(request_id=rid, method="place_bets", request_hash=f"h-{rid}",
                         response=json.dumps({"seq": seq}))


def _round(round_id: str, status: str = "settled", **more: Any) -> RoundRecord:
    return RoundRecord(round_id=round_id, round_no=more.pop("round_no", 1),
                       variant="vip-platinum", status=status,
                       events=more.pop("events", (("deal", json.dumps({"card": "AS"})),)),
                       **more)


def _events(*kinds: str) -> list[tuple[str, str]]:
    return [(k, json.dumps({"n": i, "kind": k})) for i, k in enumerate(kinds)]


async def _write(a: Adapter, w: TableWrite, guards: Guards | None = None,
                 table_id: str = T) -> int:
    """One transition writing ``w`` (on a link of its own)."""
    async with a.tables.link() as link:
        return await link.transition(table_id, guards or Guards(), lambda *_: w)


async def _found(a: Adapter, guards: Guards, table_id: str = T) -> Found:
    """What a transition's guards find (its apply writes nothing)."""
    seen: list[Found] = []

    def apply(_t: StoredTable, _r: RoundRecord | None, found: Found) -> None:
        seen.append(found)

    async with a.tables.link() as link:
        await link.transition(table_id, guards, apply)
    return seen[0]


BETTING = TableState(phase=TablePhase.BETTING, round_no=1, round_id="r1", next_seed="aa")


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
    await _record(a, ANN, _debit("d1", "r1"))
    fair = TableFair(server_seed="00" * 32, commitment="c1", round_number=1, decks=8,
                     next_commitment="c2")
    seen: list[tuple[StoredTable, RoundRecord | None, Found]] = []

    def apply(t: StoredTable, r: RoundRecord | None, f: Found) -> TableWrite:
        seen.append((t, r, f))
        return TableWrite(
            state=BETTING, events=_events("bet_placed", "deal_now"),
            booked=[(ANN, "d1", 99_000, "sw-7")], movements=[(ANN, _credit("c1", "r1"))],
            round=_round("r1", players=((ANN, "op", 1000, 2000),), fair=fair,
                         names=((ANN, "Ann"),)),
            requests=[(ANN, _request("q1", 2))])

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
    assert await _rows(a, ANN, "r1") == [("d1", "debit", 1000, "booked", 99_000),
                                         ("c1", "credit", 2000, "pending", None)]
    assert [m.wallet_reference for m in await a.journal.movements(ANN, "r1")] == ["sw-7", ""]
    r = await a.tables.get_round("r1")
    assert r is not None
    assert (r.table_id, r.round_no, r.variant, r.status, r.players, r.fair, r.names) == (
        T, 1, "vip-platinum", "settled", ((ANN, "op", 1000, 2000),), fair, ((ANN, "Ann"),))
    assert [(k, json.loads(p)) for k, p in r.events] == [("deal", {"card": "AS"})]
    assert r.started_at is not None and r.finished_at is not None and r.finished
    assert await a.tables.find_request(T, ANN, "q1") == _request("q1", 2)
    # The next transition sees the first's table, and numbers its events on from there.
    assert await _write(a, TableWrite(state=BETTING, events=_events("x"))) == 3


async def test_a_transition_that_applies_nothing_writes_nothing(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await _write(a, TableWrite(state=BETTING, events=_events("opened")))
    async with a.tables.link() as link:
        assert await link.transition(T, Guards(), lambda *_: None) == 1
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq) == (1, 1)


async def test_a_transition_whose_apply_raises_writes_nothing(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await _record(a, ANN, _debit("d1", "r1"))

    def apply(*_: object) -> TableWrite:
        raise ZeroDivisionError("refused")

    async with a.tables.link() as link:
        with pytest.raises(ZeroDivisionError):
            await link.transition(T, Guards(), apply)
        # The table is free again: the next transition goes through.
        assert await link.transition(T, Guards(), lambda *_: None) == 0
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq, got.state) == (0, 0, TableState())
    assert await _rows(a, ANN, "r1") == [("d1", "debit", 1000, "pending", None)]


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
                state=BETTING, events=_events("late")), wait_s=0.2)
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq) == (0, 0)
    assert await _write(a, TableWrite(state=BETTING, events=_events("now"))) == 1


@pytest.mark.parametrize("case", ["rolled_back", "missing", "a_credit", "written_twice"])
async def test_a_write_that_cannot_book_or_insert_is_not_committed_and_writes_nothing(
        adapter: Adapter, case: str) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await _record(a, ANN, _debit("d1", "r1"), MovementStatus.ROLLED_BACK)
    await _record(a, ANN, _debit("d2", "r1"))
    await _record(a, ANN, _credit("c0", "r1"))
    booked, moves = {"rolled_back": ("d1", "c1"), "missing": ("d9", "c1"),
                     "a_credit": ("c0", "c1"), "written_twice": ("d2", "c0")}[case]
    w = TableWrite(state=BETTING, events=_events("bet_placed"),
                   booked=[(ANN, "d2", 5, ""), (ANN, booked, None, "")],
                   movements=[(ANN, _credit(moves, "r1", 777))], round=_round("r1"),
                   requests=[(ANN, _request("q1"))])
    with pytest.raises(NotCommitted):
        await _write(a, w)
    got = await a.tables.load(T)
    assert got is not None and (got.version, got.last_seq, got.state) == (0, 0, TableState())
    assert await a.tables.events_after(T, 0, 10) == []
    assert await a.tables.get_round("r1") is None
    assert await a.tables.find_request(T, ANN, "q1") is None
    assert await _rows(a, ANN, "r1") == [("d1", "debit", 1000, "rolled_back", None),
                                         ("d2", "debit", 1000, "pending", None),
                                         ("c0", "credit", 2000, "pending", None)]


# --------------------------------------------------------------------------- the guards


async def test_guards_find_a_players_hold_lost_once_it_is_given_back(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    async with a.tables.link() as link, link.hold_players([ANN], waiting=[ANN]) as held:
        epoch = held[ANN].epoch
        assert (await _found(a, Guards(players=[(ANN, epoch)]))).lost_players == frozenset()
        # Another epoch of the same player, and a player nobody holds, are lost.
        assert (await _found(a, Guards(players=[(ANN, epoch + 1), (BOB, epoch)]))
                ).lost_players == {ANN, BOB}
    assert (await _found(a, Guards(players=[(ANN, epoch)]))).lost_players == {ANN}
    async with a.tables.link() as link, link.hold_players([ANN], waiting=[ANN]) as again:
        assert again[ANN].epoch != epoch
        assert (await _found(a, Guards(players=[(ANN, epoch)]))).lost_players == {ANN}


async def test_guards_find_the_clock_lost_to_another_epoch_or_given_back(
        adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    epoch = await a.tables.take_clock(T, "replica-a", 5.0)
    assert epoch is not None
    assert not (await _found(a, Guards(clock=epoch))).lost_clock
    assert (await _found(a, Guards(clock=epoch + 1))).lost_clock
    assert not (await _found(a, Guards())).lost_clock
    await a.tables.release_clock(T, epoch)
    assert (await _found(a, Guards(clock=epoch))).lost_clock


async def test_guards_find_the_requests_answered_already_at_this_table(
        adapter: Adapter) -> None:
    a = adapter
    for tid in (T, "vip-2"):
        await a.tables.ensure_table(tid, TableState())
    await _write(a, TableWrite(state=BETTING, requests=[(ANN, _request("q1"))]))
    asked = Guards(requests=[(ANN, "q1"), (ANN, "q2"), (BOB, "q1")])
    assert (await _found(a, asked)).answered == {(ANN, "q1")}
    assert (await _found(a, asked, "vip-2")).answered == frozenset()


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
    assert await _write(a, TableWrite(state=BETTING, events=_events("opened"),
                                      requests=[(ANN, _request("q1"))])) == 1
    await _record(a, ANN, _debit("d0", "r0"))                              # open, last round
    await _record(a, ANN, _debit("d1", "r1"), MovementStatus.BOOKED, 5)    # this round
    await _record(a, ANN, _credit("c1", "r1"))                             # open, this round
    await _record(a, ANN, _debit("d2", "r2"), MovementStatus.BOOKED, 4)    # neither
    await _record(a, BOB, _debit("e1", "r1"))                              # another player
    async with a.tables.link() as link, link.hold_players([ANN], waiting=[ANN],
                                                         first=(T, "q1")):
        read = await link.command_read(T, ANN, "q1")
        missing = await link.command_read("no-such-table", ANN, "q1")
        unknown = await link.command_read(T, ANN, "q9")
    assert read.table is not None and (read.table.version, read.table.state) == (1, BETTING)
    assert read.request == _request("q1")
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
    await _write(a, TableWrite(state=BETTING, events=_events("bet"),
                               requests=[(ANN, _request("q1", 1))]))
    t, rec = await a.tables.load_with_request(T, ANN, "q1")
    assert t is not None and (t.version, t.last_seq, t.state) == (1, 1, BETTING)
    assert rec == _request("q1", 1)
    t, rec = await a.tables.load_with_request(T, BOB, "q1")
    assert t is not None and rec is None
    assert await a.tables.load_with_request("no-such-table", ANN, "q1") == (None, None)
    assert await a.tables.find_request(T, ANN, "q1") == _request("q1", 1)
    assert await a.tables.find_request(T, BOB, "q1") is None
    assert await a.tables.find_request("vip-2", ANN, "q1") is None
    async with a.tables.link() as link:
        assert await link.find_request(T, ANN, "q1") == _request("q1", 1)
        got = await link.load(T)
        assert got is not None and got.version == 1


async def test_events_are_read_after_a_number_at_most_a_limit(adapter: Adapter) -> None:
    a = adapter
    await a.tables.ensure_table(T, TableState())
    await _write(a, TableWrite(state=BETTING, events=_events("a", "b", "c")))
    await _write(a, TableWrite(state=BETTING, events=_events("d", "e")))
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
    await _write(a, TableWrite(state=BETTING, round=_round(
        "r1", "player_turn", fair=fair, names=((ANN, "Ann"),), bettors=bettors)))
    first = await a.tables.get_round("r1")
    assert first is not None and first.finished_at is None and not first.finished
    assert first.players == ()
    await _write(a, TableWrite(state=BETTING, round=_round(
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
    await _write(a, TableWrite(state=playing, round=_round("r1", "player_turn")))
    seen: list[RoundRecord | None] = []

    def apply(_t: StoredTable, r: RoundRecord | None, _f: Found) -> None:
        seen.append(r)

    async with a.tables.link() as link:
        await link.transition(T, Guards(), apply)
    assert seen[0] is not None and (seen[0].round_id, seen[0].status) == ("r1", "player_turn")


async def test_a_rounds_movements_are_given_to_its_players_operator_only(
        adapter: Adapter) -> None:
    a = adapter
    await _record(a, ANN, _debit("d1", "r1"))
    await _record(a, "opx/eve", _debit("x1", "r1"))
    await _record(a, "other/dee", _debit("o1", "r1"))
    await _record(a, CY, _debit("y1", "r1"), MovementStatus.BOOKED, 1)
    await _record(a, ANN, _debit("d2", "r2"))
    await _record(a, ANN, _credit("c1", "r1"))
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
        await _write(a, TableWrite(state=BETTING, round=_round(rid, status)))
    await _record(a, ANN, _debit("d1", "r1"))
    await _record(a, ANN, _debit("d2", "r2"))
    await _record(a, ANN, _debit("d5", "r5", brand="b2"))   # another brand
    await _record(a, ANN, _debit("d3", "r3"))
    await _record(a, ANN, _debit("d4", "r4"))               # not finished
    await _record(a, ANN, _credit("c1", "r1"))              # r1's later row: its first counts
    await _record(a, BOB, _debit("e6", "r1"))
    await _record(a, ANN, _debit("d9", "r9"))               # no round row at all
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
        last = await _write(a, TableWrite(state=BETTING, events=_events("x", "y")))
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
        await _write(a, TableWrite(state=BETTING, events=_events("x")), table_id="vip-2")
        done, _ = await asyncio.wait({woken}, timeout=0.5)
        assert not done  # another table's transition is not this table's news
        await _write(a, TableWrite(state=BETTING, events=_events("x")))
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
        await _write(a, TableWrite(state=later, events=_events("betting_opened")))
        assert not await woken(0.3)  # a first deadline: the clock's next pass finds it
        await _write(a, TableWrite(state=replace(later, deadline=T0 + timedelta(seconds=40)),
                                   events=_events("x")))
        assert not await woken(0.3)  # pushed back
        waiting = asyncio.create_task(woken(60.0))
        await _write(a, TableWrite(state=replace(later, deadline=T0), events=_events("deal_now")))
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
        await _record(a, key, _credit(f"c-{key}", "r1"))
    await _record(a, ANN, _debit("d-ann", "r1"), MovementStatus.BOOKED, 9000)
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
    assert await _rows(a, ANN, "r1") == [(f"c-{ANN}", "credit", 2000, "applied", 11000),
                                         ("d-ann", "debit", 1000, "booked", 9000)]
    assert await _rows(a, CY, "r1") == [(f"c-{CY}", "credit", 2000, "unknown", None)]
    assert await _rows(a, BOB, "r1") == [(f"c-{BOB}", "credit", 2000, "pending", None)]
    cy = await a.journal.movements(CY, "r1")
    assert (cy[0].attempts, cy[0].last_error) == (1, "timeout")
    for key in (ANN, CY, dee):  # given back: held again at once
        async with a.journal.player(key):
            pass
