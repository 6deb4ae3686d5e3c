"""The PostgreSQL journal and the use cases over it, with the real sandbox wallet: its
migrations, rounds journalled and continued by any replica, and what a call commits and reads.

Each test gets its own migrated database; "two processes" are two independent connection pools
and two app instances, which is what two replicas are to PostgreSQL. Every test that uses the
journal runs twice: connected to PostgreSQL directly (session pool mode) and through a real
PgBouncer in transaction mode, where consecutive statements of one connection may run on
different server sessions.

Holding players (waits, leases, poolers) is in test_journal_holds.py, the outbox and its
reconciler and sweeper in test_journal_outbox.py; the fixtures they share are in
tests/integration/conftest.py, the helpers in tests/support/journal_db.py.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest

from rgs.bootstrap import App
from rgs.engine import Action, BoxBet, Phase, replay
from rgs.journal.migrate import SCHEMA, migrate, migrations
from rgs.journal.postgres import PostgresJournal
from rgs.journal.statements import OPEN_MOVEMENT
from rgs.service.model import (
    ActCommand,
    CallRead,
    CallState,
    Channel,
    DealCommand,
    FairRecord,
    Movement,
    MovementStatus,
    RequestScope,
    Session,
    SessionSeed,
    StoredRequest,
    StoredRound,
)
from rgs.service.ports import JournalLeaseLost, JournalRejected, JournalUnavailable
from rgs.service.writes import Booking, PaidAnswer, StepWrite
from rgs.variants import find_variant
from rgs.variants.options import VariantOptions
from support.journal_db import (
    STAND_WINS,
    JournalDb,
    balance_of,
    debits_of,
    lease_of,
    new_session,
    stored_round,
)
from support.pgbouncer import PgBouncer
from support.sandbox import SandboxWalletClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_migrations_apply_once_and_every_player_table_leads_with_the_shard_key(
        rgs_database_url: str) -> None:
    assert await migrate(rgs_database_url) == []  # the template is already migrated
    conn = await asyncpg.connect(rgs_database_url)
    try:
        versions = [r["name"] for r in await conn.fetch(
            f"SELECT name FROM {SCHEMA}.schema_migrations ORDER BY version")]
        assert versions == [m.name for m in migrations()]
        rows = await conn.fetch("""
            SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc
            JOIN information_schema.key_column_usage kcu
              ON tc.constraint_name = kcu.constraint_name AND tc.table_schema = kcu.table_schema
            WHERE tc.table_schema = $1 AND tc.constraint_type = 'PRIMARY KEY'
              AND kcu.ordinal_position = 1""", SCHEMA)
    finally:
        await conn.close()
    leading = {r["table_name"]: r["column_name"] for r in rows}
    player_tables = {"sessions", "rounds", "round_events", "idempotency_records",
                     "wallet_transactions"}
    assert {t: leading[t] for t in player_tables} == dict.fromkeys(player_tables, "player_key")


async def test_migrations_through_a_transaction_pooler_run_concurrently_apply_each_file_once(
        pg_server_url: str, pgbouncer: PgBouncer) -> None:
    from rgs import devdb

    name = devdb.unique_name("test_migrate")
    url = await devdb.create_database(pg_server_url, name)
    try:
        runs = await asyncio.gather(*(migrate(pgbouncer.url_for(url)) for _ in range(3)))
        applied = [f for run in runs for f in run]
        assert sorted(applied) == [m.name for m in migrations()]  # each once, by one of them
        assert await migrate(pgbouncer.url_for(url)) == []
    finally:
        await devdb.drop_database(pg_server_url, name)


async def _index_predicate(conn: asyncpg.Connection, index: str) -> str:
    return str(await conn.fetchval(
        "SELECT pg_get_expr(indpred, indrelid) FROM pg_index WHERE indexrelid = $1::regclass",
        index))


async def test_the_open_outbox_index_holds_exactly_the_rows_the_outbox_rule_calls_open(
        rgs_database_url: str) -> None:
    # The migration spells the condition out (SQL cannot import it); PostgreSQL's own rendering
    # of both shows they are the same condition, which also lets the planner use the index.
    conn = await asyncpg.connect(rgs_database_url)
    try:
        migrated = await _index_predicate(conn, f"{SCHEMA}.wallet_transactions_open")
        await conn.execute("CREATE TEMP TABLE wallet_transactions (kind text, status text)")
        await conn.execute(f"CREATE INDEX probe_open ON wallet_transactions (kind) "
                           f"WHERE {OPEN_MOVEMENT}")
        rule = await _index_predicate(conn, "probe_open")
    finally:
        await conn.close()
    assert migrated == rule
    assert "'credit'" in rule and "'applied'" in rule


async def test_round_is_journalled_and_its_events_replay_to_the_same_state(
        two_replicas: tuple[App, App], rgs_database_url: str,
        sandbox_wallet: SandboxWalletClient) -> None:
    a, _ = two_replicas
    s = await new_session(a)
    dealt = await a.game.deal(s, DealCommand(request_id="d1", variant_id="classic-resplit",
                                             boxes=(BoxBet(seat=1, stake=500),),
                                             forced_cards=STAND_WINS))
    done = await a.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                          expected_seq=1, seat=1, hand=0, action=Action.STAND))
    assert done.view.phase is Phase.SETTLED and done.balance == 100_000 + 500
    stored = await a.journal.get_round(s.player_key, dealt.round_id)
    assert stored is not None and stored.status == "settled" and stored.forced_cards
    rebuilt = replay(find_variant("classic-resplit"), stored.events)
    assert rebuilt.view() == done.view
    assert await balance_of(sandbox_wallet) == 100_500
    await a.journal.flush_answers()  # the win's answer is written a moment after the Act
    conn = await asyncpg.connect(rgs_database_url)
    try:
        with pytest.raises(asyncpg.RaiseError):
            await conn.execute(f"UPDATE {SCHEMA}.round_events SET kind = 'x'")
        movements = await conn.fetch(
            f"SELECT transaction_id, status, amount FROM {SCHEMA}.wallet_transactions "
            "ORDER BY created_at")
    finally:
        await conn.close()
    assert [(m["transaction_id"], m["status"], m["amount"]) for m in movements] == [
        (f"{dealt.round_id}:1:debit", "booked", 500),
        (f"{dealt.round_id}:settle:credit", "applied", 1000)]


async def test_two_replicas_receiving_the_same_deal_at_once_execute_it_once(
        two_replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    a, b = two_replicas
    s = await new_session(a)
    cmd = DealCommand(request_id="same", variant_id="classic-resplit",
                      boxes=(BoxBet(seat=1, stake=300),), forced_cards=STAND_WINS)
    first, second = await asyncio.gather(a.game.deal(s, cmd), b.game.deal(s, cmd))
    assert first == second
    assert len(await debits_of(sandbox_wallet)) == 1
    assert await balance_of(sandbox_wallet) == 100_000 - 300


async def test_any_replica_continues_a_round_another_dealt(
        two_replicas: tuple[App, App]) -> None:
    a, b = two_replicas
    s = await new_session(a)
    dealt = await a.game.deal(s, DealCommand(request_id="d1", variant_id="electronic-h17",
                                             boxes=(BoxBet(seat=1, stake=100),
                                                    BoxBet(seat=2, stake=100))))
    view, replicas = dealt.view, (b, a)
    steps = 0
    while view.phase is not Phase.SETTLED:
        app = replicas[steps % 2]
        seat, hand = view.to_act or (1, 0)
        action = Action.DECLINE_INSURANCE if view.phase is Phase.INSURANCE else Action.STAND
        if view.phase is Phase.INSURANCE:
            seat = next(bx.seat for bx in view.boxes if bx.insurance_allowed)
            hand = 0
        res = await app.game.act(s, ActCommand(request_id=f"a{steps}", round_id=dealt.round_id,
                                               expected_seq=view.seq, seat=seat, hand=hand,
                                               action=action))
        view, steps = res.view, steps + 1
    stored = await a.journal.get_round(s.player_key, dealt.round_id)
    assert stored is not None
    assert replay(find_variant("electronic-h17"), stored.events).view() == view


async def test_a_nul_byte_reaching_postgresql_is_rejected_not_unavailable(
        rgs_database_url: str) -> None:
    """A NUL byte PostgreSQL cannot store was answered UNAVAILABLE (retryable, counted as the
    server failing); it is JournalRejected: the request's fault, never retryable."""
    journal = await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
    try:
        with pytest.raises(JournalRejected):
            await journal.find_session("dev-operator/\x00", "x")
        with pytest.raises(JournalRejected):
            async with journal.player("dev-operator/alice") as pj:
                await pj.find_request("r\x00", RequestScope.PLAYER)
        assert await journal.find_session("dev-operator/alice", "x") is None  # still usable
    finally:
        await journal.close()


def _open_round(round_id: str, brand: str, currency: str) -> StoredRound:
    return StoredRound(round_id=round_id, player_key="dev-operator/alice", session_id="s",
                       operator_id="dev-operator", brand_id=brand, player_id="alice",
                       currency=currency, variant="electronic-h17", seq=1,
                       status="player_turn", forced_cards=(), total_staked=100, total_paid=0,
                       events=(), options=VariantOptions(decks=2))


async def test_one_unfinished_round_per_brand_and_currency_and_request_ids_per_caller(
        rgs_database_url: str) -> None:
    """Migration 0010 on PostgreSQL: the unique index covers (player, brand, currency); the
    idempotency records have a namespace per caller kind; a round keeps its options."""
    journal = await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
    try:
        async with journal.player("dev-operator/alice") as pj:
            for rid, brand, cur in (("a" * 32, "demo-casino", "EUR"),
                                    ("b" * 32, "demo-casino-usd", "USD"),
                                    ("c" * 32, "other-casino", "EUR")):
                await pj.commit_round(StepWrite(
                    round=_open_round(rid, brand, cur), new_events_from=0,
                    request=StoredRequest(request_id="same", method="deal", request_hash=rid,
                                          response="{}", scope=RequestScope.PLAYER)
                    if rid[0] == "a" else None))
            found = await pj.active_round("demo-casino-usd", "USD")
            assert found is not None and found.round_id == "b" * 32
            assert found.options == VariantOptions(decks=2)
            with pytest.raises(JournalUnavailable):  # a second open round in one context
                await pj.commit_round(StepWrite(
                    round=_open_round("d" * 32, "demo-casino", "EUR"), new_events_from=0))
            await pj.save_session(
                Session(session_id="s2", player_key="dev-operator/alice",
                        operator_id="dev-operator", brand_id="demo-casino", player_id="alice",
                        currency="EUR", expires_at=datetime.now(UTC)), "token-hash",
                StoredRequest(request_id="same", method="create_session", request_hash="x",
                              response="{}", scope=RequestScope.OPERATOR))
            player = await pj.find_request("same", RequestScope.PLAYER)
            operator = await pj.find_request("same", RequestScope.OPERATOR)
            assert player is not None and player.method == "deal"
            assert operator is not None and operator.method == "create_session"
            assert await pj.find_request("same", RequestScope.SYSTEM) is None
    finally:
        await journal.close()


async def test_open_call_reads_in_one_statement_what_the_single_reads_return(
        journal_db: JournalDb) -> None:
    from rgs.wallet.port import MoneyKind

    key, rid, other = "op/open-call", "b" * 32, "c" * 32
    journal = await journal_db.connect()
    debit = Movement(transaction_id=f"{rid}:1:debit", round_id=rid, kind=MoneyKind.DEBIT,
                     amount=100, session_id="s", currency="EUR", brand_id="demo-casino")
    credit = Movement(transaction_id=f"{other}:settle:credit", round_id=other,
                      kind=MoneyKind.CREDIT, amount=250, session_id="s", currency="EUR",
                      brand_id="demo-casino")
    rec = StoredRequest(request_id="r1", method="act", request_hash="h", response="{}")
    try:
        async with journal.player(key) as pj:
            await pj.record_movement(debit)
            await pj.settle_movement(debit.transaction_id, MovementStatus.APPLIED, 9_900,
                                     error="")
            rnd = replace(stored_round(key, rid, 1), events=(), total_staked=100)
            await pj.commit_round(StepWrite(round=rnd, new_events_from=0, request=rec,
                                            bookings=(Booking(
                                                transaction_id=debit.transaction_id),)))
            await pj.commit_round(StepWrite(
                round=replace(stored_round(key, other, 2), status="settled", total_paid=250),
                new_events_from=0, movements=(credit,)))
        async with journal.player(key) as pj:
            by_id = await pj.open_call(CallRead(request_id="r1", scope=RequestScope.PLAYER,
                                                round_id=rid))
            active = await pj.open_call(CallRead(request_id="r2", scope=RequestScope.PLAYER,
                                                 active_in=("demo-casino", "EUR")))
            none = await pj.open_call(CallRead(request_id="r1", scope=RequestScope.SYSTEM))
            assert by_id.request == await pj.find_request("r1", RequestScope.PLAYER) == rec
            assert by_id.round == await pj.get_round(rid) == active.round
            assert by_id.round is not None and by_id.round.seq == 1
            assert by_id.round_movements == await pj.movements(rid)
            assert [(m.transaction_id, m.status, m.balance_after, m.amount)
                    for m in by_id.round_movements] == [
                (debit.transaction_id, MovementStatus.BOOKED, 9_900, 100)]
            assert by_id.open_movements == await pj.open_movements() == active.open_movements
            assert [(m.transaction_id, m.amount) for m in by_id.open_movements] == [
                (credit.transaction_id, 250)]
            assert active.request is None and none.request is None
            assert none.round is None and none.round_movements == []
            assert none.open_movements == by_id.open_movements
    finally:
        await journal.close()


async def test_a_last_commit_gives_the_player_back_in_the_same_statement(
        journal_db: JournalDb, rgs_database_url: str) -> None:
    from rgs.wallet.port import MoneyKind

    key, rid = "op/last", "d" * 32
    journal = await journal_db.connect()
    other = await journal_db.connect(lock_wait_s=0.3)
    try:
        async with journal.player(key) as pj:
            await pj.commit_round(StepWrite(round=stored_round(key, rid, 1), new_events_from=0,
                                            last=True))
            holder, epoch = await lease_of(rgs_database_url, key)
            assert holder is None and epoch == 1  # given back by the commit itself
            # Another replica takes the player at once (in session mode its advisory lock
            # too), while this call is still inside its block.
            async with other.player(key) as taker:
                stored = await taker.get_round(rid)
                assert stored is not None and stored.seq == 1
            with pytest.raises(JournalLeaseLost):  # nothing more is written after the last
                await pj.record_movement(Movement(
                    transaction_id=f"{rid}:2:debit", round_id=rid, kind=MoneyKind.DEBIT,
                    amount=100, session_id="s", currency="EUR"))
        holder, epoch = await lease_of(rgs_database_url, key)
        assert holder is None and epoch == 2  # the block's exit released nothing of the taker's
        async with other.player(key) as again:
            assert await again.movements(rid) == []
    finally:
        await journal.close()
        await other.close()


async def test_a_commit_records_the_debit_of_its_call_and_the_seeds_and_a_paid_win_ends_the_call(
        journal_db: JournalDb, rgs_database_url: str) -> None:
    """One statement each (issue 14, part C): the Deal's commit books a debit the wallet applied
    in the call (still pending: its answer was not recorded) with the balance the wallet gave,
    stores the round's fair seeds and the session's next seed; a debit not applied in the call
    (pending, no balance given) is not booked. The commit that writes a win's row is the call's
    last write (the player given back); the win's outcome and the call's new answer are written
    a moment later, with other players' answers."""
    from rgs.wallet.port import MoneyKind

    key, rid = "op/part-c", "e" * 32
    seed, nxt = "1" * 64, "2" * 64
    journal = await journal_db.connect()
    other = await journal_db.connect(lock_wait_s=0.3)
    debit = Movement(transaction_id=f"{rid}:1:debit", round_id=rid, kind=MoneyKind.DEBIT,
                     amount=100, session_id="s", currency="EUR", brand_id="demo-casino")
    stray = Movement(transaction_id=f"{rid}:1:debit:1", round_id=rid, kind=MoneyKind.DEBIT,
                     amount=100, session_id="s", currency="EUR", brand_id="demo-casino")
    credit = Movement(transaction_id=f"{rid}:settle:credit", round_id=rid,
                      kind=MoneyKind.CREDIT, amount=250, session_id="s", currency="EUR",
                      brand_id="demo-casino")
    fair = FairRecord(server_seed=seed, commitment="a" * 64, client_seed="mine",
                      round_number=3, decks=8, next_commitment="b" * 64)
    following = SessionSeed(session_id="s", server_seed=nxt, commitment="b" * 64,
                            round_number=4)
    rec = StoredRequest(request_id="d1", method="deal", request_hash="h", response="{}")
    try:
        async with journal.player(key) as pj:
            state = await pj.open_call(CallRead(request_id="d1", scope=RequestScope.PLAYER,
                                                active_in=("demo-casino", "EUR"), seed_of="s"))
            assert state.next_seed is None and state.round is None
            await pj.record_movement(debit)
            await pj.record_movement(stray)
            rnd = replace(stored_round(key, rid, 1), status="settled", total_paid=250, fair=fair)
            await pj.commit_round(StepWrite(
                round=rnd, new_events_from=0, request=rec, movements=(credit,),
                bookings=(Booking(transaction_id=debit.transaction_id, balance=9_900,
                                  wallet_reference="sw-1"),
                          Booking(transaction_id=stray.transaction_id)),
                next_seed=following, last=True))
            holder, epoch = await lease_of(rgs_database_url, key)
            assert holder is None and epoch == 1  # given back by the commit
            with pytest.raises(JournalLeaseLost):
                await pj.update_response("d1", "{}", RequestScope.PLAYER)
            await pj.answer_later(PaidAnswer(
                transaction_id=credit.transaction_id, balance_after=10_150,
                wallet_reference="sw-2", request_id="d1", response='{"paid": true}'))
        await journal.flush_answers()
        async with other.player(key) as pj:
            moves = {m.transaction_id: (m.status, m.balance_after, m.attempts,
                                        m.wallet_reference)
                     for m in await pj.movements(rid)}
            assert moves == {debit.transaction_id: (MovementStatus.BOOKED, 9_900, 1, "sw-1"),
                             stray.transaction_id: (MovementStatus.PENDING, None, 0, ""),
                             credit.transaction_id: (MovementStatus.APPLIED, 10_150, 1, "sw-2")}
            # The call's first read (movements as JSON) carries the references too.
            read = await pj.open_call(CallRead(request_id="d0", scope=RequestScope.PLAYER,
                                               round_id=rid))
            assert {m.transaction_id: m.wallet_reference for m in read.round_movements} == {
                debit.transaction_id: "sw-1", stray.transaction_id: "",
                credit.transaction_id: "sw-2"}
            stored = await pj.get_round(rid)
            assert stored is not None and stored.fair == fair
            assert await pj.next_seed("s") == following
            answer = await pj.find_request("d1", RequestScope.PLAYER)
            assert answer is not None and answer.response == '{"paid": true}'
            state = await pj.open_call(CallRead(request_id="d2", scope=RequestScope.PLAYER,
                                                active_in=("demo-casino", "EUR"), seed_of="s"))
            assert state.next_seed == following
    finally:
        await journal.close()
        await other.close()


async def test_a_call_read_made_with_the_take_sees_what_the_previous_holder_committed(
        journal_db: JournalDb) -> None:
    """The first read is made in the statement that takes the player, with that statement's
    snapshot. A call that waited for the previous holder (session mode: on the advisory lock,
    its snapshot taken before the holder's last commit; transaction mode: polling) must still
    read what that holder committed, not the state before it."""
    key, rid = "op/first-read", "f" * 32
    rec = StoredRequest(request_id="r1", method="act", request_hash="h", response="{}")
    first = CallRead(request_id="r1", scope=RequestScope.PLAYER, round_id=rid)
    holder = await journal_db.connect()
    waiter = await journal_db.connect(lock_wait_s=5.0)
    try:
        async with waiter.player(key, first) as pw:  # free: read with the take
            state = await pw.open_call(first)
            assert state.request is None and state.round is None

        async def call() -> CallState:
            async with waiter.player(key, first) as pj:
                return await pj.open_call(first)

        async with holder.player(key) as ph:
            waiting = asyncio.create_task(call())
            await asyncio.sleep(0.3)  # the waiter's statement has started (and waits)
            assert not waiting.done()
            await ph.commit_round(StepWrite(round=stored_round(key, rid, 1), new_events_from=0,
                                            request=rec, last=True))
        state = await asyncio.wait_for(waiting, 5)
        assert state.request == rec
        assert state.round is not None and state.round.seq == 1
        # And a read made with the take of a free player is the player's state.
        async with waiter.player(key, first) as pw:
            again = await pw.open_call(first)
            assert again.request == rec and again.round == state.round
    finally:
        await holder.close()
        await waiter.close()


@pytest.mark.parametrize("adapter", ["postgres", "memory"])
async def test_a_round_keeps_the_channel_of_its_first_step(rgs_database_url: str,
                                                           adapter: str) -> None:
    """Migration 0210: the edge a round's Deal came through is written by its first step and
    kept by every later one (they do not carry it), on PostgreSQL as in memory; a round
    dealt in process records none."""
    from rgs.journal.memory import InMemoryJournal

    journal: Any = (await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
                    if adapter == "postgres" else InMemoryJournal())
    dealt = replace(_open_round("e" * 32, "demo-casino", "EUR"), channel=Channel.BROWSER)
    try:
        async with journal.player("dev-operator/alice") as pj:
            await pj.commit_round(StepWrite(round=dealt, new_events_from=0))
            await pj.commit_round(StepWrite(
                round=replace(dealt, seq=2, status="settled", channel=None), new_events_from=0))
            await pj.commit_round(StepWrite(
                round=replace(_open_round("f" * 32, "demo-casino", "EUR"), status="settled"),
                new_events_from=0))
            first, other = await pj.get_round("e" * 32), await pj.get_round("f" * 32)
        assert first is not None and (first.seq, first.channel) == (2, Channel.BROWSER)
        assert other is not None and other.channel is None
    finally:
        await journal.close()
