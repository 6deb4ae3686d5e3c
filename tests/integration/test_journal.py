"""The PostgreSQL journal and the use cases over it, with the real sandbox wallet.

Each test gets its own migrated database; "two processes" are two independent connection pools
and two app instances, which is what two replicas are to PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg
import pytest
import pytest_asyncio

from rgs.bootstrap import App, add_dev_operator_keys, build
from rgs.config import RgsSettings
from rgs.engine import Action, BoxBet, Phase, replay
from rgs.journal.migrate import SCHEMA, migrate, migrations
from rgs.journal.postgres import OPEN_MOVEMENT, PostgresJournal
from rgs.service.errors import Unavailable
from rgs.service.model import (
    ActCommand,
    CreateSessionCommand,
    DealCommand,
    RequestScope,
    Session,
    StoredRequest,
    StoredRound,
)
from rgs.service.ports import JournalBusy, JournalRejected, JournalUnavailable
from rgs.variants import find_variant
from rgs.variants.options import VariantOptions
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.platforms import sandbox_platform
from support.sandbox import AUTH, SandboxWalletClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

ALICE = "demo-alice"
STAND_WINS = ("TS", "6H", "9D", "7C", "9S")


@dataclass
class Replica:
    """One app instance with its own pool, like one RGS process."""

    app: App


async def _replica(db: str, wallet: SandboxWalletClient) -> App:
    settings = RgsSettings(test_mode=True, database_url=db)
    return await build(settings, platform=sandbox_platform({"dev-operator": wallet.target}))


@pytest_asyncio.fixture(loop_scope="session")
async def two_replicas(rgs_database_url: str, sandbox_wallet: SandboxWalletClient
                       ) -> AsyncIterator[tuple[App, App]]:
    a = await _replica(rgs_database_url, sandbox_wallet)
    b = await _replica(rgs_database_url, sandbox_wallet)
    await add_dev_operator_keys(a.journal)
    yield a, b
    await a.close()
    await b.close()


async def _session(app: App, player: str = ALICE) -> Session:
    op = await app.office.authenticate("rgs-dev-operator-key")
    new = await app.office.create_session(op, CreateSessionCommand(
        request_id=f"s-{player}", brand_id="demo-casino", player_id=player))
    return await app.game.authenticate(new.token)


async def _debits(wallet: SandboxWalletClient, player: str = ALICE) -> list[str]:
    resp = await wallet.control.ListTransactions(
        sandbox_pb2.ListTransactionsRequest(player_id=player), metadata=AUTH)
    return [t.transaction_id for t in resp.transactions
            if t.kind == sandbox_pb2.TRANSACTION_KIND_DEBIT]


async def _balance(wallet: SandboxWalletClient, player: str = ALICE) -> int:
    resp = await wallet.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=player),
                                          metadata=AUTH)
    return int(resp.player.balance)


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
    s = await _session(a)
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
    assert await _balance(sandbox_wallet) == 100_500
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
    s = await _session(a)
    cmd = DealCommand(request_id="same", variant_id="classic-resplit",
                      boxes=(BoxBet(seat=1, stake=300),), forced_cards=STAND_WINS)
    first, second = await asyncio.gather(a.game.deal(s, cmd), b.game.deal(s, cmd))
    assert first == second
    assert len(await _debits(sandbox_wallet)) == 1
    assert await _balance(sandbox_wallet) == 100_000 - 300


async def test_any_replica_continues_a_round_another_dealt(
        two_replicas: tuple[App, App]) -> None:
    a, b = two_replicas
    s = await _session(a)
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


async def test_a_player_held_past_the_wait_limit_is_busy(rgs_database_url: str) -> None:
    first = await PostgresJournal.connect(rgs_database_url, lock_wait_s=5)
    second = await PostgresJournal.connect(rgs_database_url, lock_wait_s=0.2)
    try:
        async with first.player("op/p1"):
            with pytest.raises(JournalBusy):
                async with second.player("op/p1"):
                    pass
            async with second.player("op/p2"):  # other players are not blocked
                pass
    finally:
        await first.close()
        await second.close()


async def test_reconciler_rolls_back_a_debit_orphaned_by_a_crash(
        two_replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import UTC, datetime, timedelta

    from rgs.service import money
    from rgs.service.reconciler import Reconciler
    from rgs.wallet.port import Party

    a, b = two_replicas
    s = await _session(a)
    party = Party(operator_id="dev-operator", brand_id="demo-casino",
                  player_id=ALICE, session_id=s.session_id, currency="EUR")
    async with a.journal.player(s.player_key) as pj:  # the call dies after the wallet answered
        await money.debit(pj, a.wallet, party, round_id="e" * 32, step=1, amount=700)
    assert await _balance(sandbox_wallet) == 100_000 - 700
    later = Reconciler(journal=b.journal, wallet=b.wallet,
                       clock=lambda: datetime.now(UTC) + timedelta(minutes=5))
    assert await later.run_once() == 1
    assert await _balance(sandbox_wallet) == 100_000
    assert await later.run_once() == 0


async def test_sweeper_finishes_an_abandoned_round_from_another_replica(
        two_replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import UTC, datetime, timedelta

    from rgs.service.reconciler import Reconciler

    a, b = two_replicas
    s = await _session(a)
    dealt = await a.game.deal(s, DealCommand(request_id="d1", variant_id="classic-resplit",
                                             boxes=(BoxBet(seat=1, stake=500),),
                                             forced_cards=STAND_WINS))
    sweeper = Reconciler(journal=b.journal, wallet=b.wallet, game=b.game,
                         clock=lambda: datetime.now(UTC) + timedelta(days=2))
    assert await sweeper.sweep_abandoned() == 1
    stored = await a.journal.get_round(s.player_key, dealt.round_id)
    assert stored is not None and stored.status == "settled" and stored.total_paid == 1000
    assert await _balance(sandbox_wallet) == 100_500


async def test_a_double_whose_debit_timed_out_is_rolled_back_and_the_retry_succeeds(
        rgs_database_url: str, sandbox_wallet: SandboxWalletClient) -> None:
    app = await build(RgsSettings(test_mode=True, database_url=rgs_database_url),
                      platform=sandbox_platform({"dev-operator": sandbox_wallet.target}
                                                ).with_wallets(**{"dev-operator": {
                                                    "timeout_s": 0.5}}))
    try:
        await add_dev_operator_keys(app.journal)
        s = await _session(app)
        dealt = await app.game.deal(s, DealCommand(
            request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=200),),
            forced_cards=("5S", "6H", "6D", "TC", "TS", "9H")))
        await sandbox_wallet.control.SetFault(sandbox_pb2.SetFaultRequest(
            fault=sandbox_pb2.Fault(kind=sandbox_pb2.FAULT_KIND_TIMEOUT_AFTER_APPLY,
                                    method=sandbox_pb2.WALLET_METHOD_DEBIT, remaining=1)),
            metadata=AUTH)
        act = ActCommand(request_id="a1", round_id=dealt.round_id, expected_seq=1, seat=1,
                         hand=0, action=Action.DOUBLE)
        with pytest.raises(Unavailable):
            await app.game.act(s, act)
        assert await _balance(sandbox_wallet) == 100_000 - 200  # the double's stake came back
        done = await app.game.act(s, act)
        assert (done.view.total_staked, done.view.total_paid) == (400, 800)
        assert await _balance(sandbox_wallet) == 100_000 - 400 + 800
        assert await _debits(sandbox_wallet) == [f"{dealt.round_id}:1:debit",
                                                 f"{dealt.round_id}:2:debit",
                                                 f"{dealt.round_id}:2-1:debit"]
    finally:
        await app.close()


async def test_an_unpaid_credit_keeps_its_attempts_and_error_and_is_retried_with_backoff_until_paid(
        rgs_database_url: str, sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import UTC, datetime, timedelta

    from rgs.service.reconciler import Reconciler
    from rgs.wallet.port import MoneyKind

    app = await build(RgsSettings(test_mode=True, database_url=rgs_database_url),
                      platform=sandbox_platform({"dev-operator": sandbox_wallet.target}))
    try:
        await add_dev_operator_keys(app.journal)
        s = await _session(app)
        dealt = await app.game.deal(s, DealCommand(
            request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=500),),
            forced_cards=STAND_WINS))
        await sandbox_wallet.control.SetFault(sandbox_pb2.SetFaultRequest(
            fault=sandbox_pb2.Fault(kind=sandbox_pb2.FAULT_KIND_ERROR,
                                    method=sandbox_pb2.WALLET_METHOD_CREDIT,
                                    error_reason="WALLET_UNAVAILABLE")), metadata=AUTH)
        done = await app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                                expected_seq=1, seat=1, hand=0,
                                                action=Action.STAND))
        assert done.view.phase is Phase.SETTLED and done.payment_pending
        assert (await app.game.get_round(s, dealt.round_id)).payment_pending

        async def credit() -> tuple[str, int, str]:
            moves = await app.journal.movements(s.player_key, dealt.round_id)
            c = next(m for m in moves if m.kind is MoneyKind.CREDIT)
            return c.status, c.attempts, c.last_error

        status, attempts, error = await credit()
        assert (status, attempts) == ("unknown", 1) and "WALLET_UNAVAILABLE" in error
        start = datetime.now(UTC)

        def at(seconds: float) -> Reconciler:
            return Reconciler(journal=app.journal, wallet=app.wallet,
                              clock=lambda: start + timedelta(seconds=seconds),
                              min_age=timedelta(seconds=30),
                              max_backoff=timedelta(seconds=100))

        assert await at(31).run_once() == 1  # after min_age: the second attempt
        assert (await credit())[1] == 2
        assert await at(31).run_once() == 0  # the third waits twice as long
        assert await at(61).run_once() == 1
        assert await at(101).run_once() == 1  # 4 x 30 s, but never longer than max_backoff
        assert (await credit())[1] == 4
        # The wallet session has expired by now: a win is paid all the same.
        await sandbox_wallet.control.ExpireSession(
            sandbox_pb2.ExpireSessionRequest(session_id=s.session_id), metadata=AUTH)
        await sandbox_wallet.control.ClearFaults(sandbox_pb2.ClearFaultsRequest(),
                                                 metadata=AUTH)
        assert await at(600).run_once() == 1
        assert await credit() == ("applied", 5, "")
        assert not (await app.game.get_round(s, dealt.round_id)).payment_pending
        assert await _balance(sandbox_wallet) == 100_000 - 500 + 1000
    finally:
        await app.close()


async def test_a_win_the_wallet_refuses_stays_open_and_is_paid_once_the_wallet_accepts_it(
        rgs_database_url: str, sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import UTC, datetime, timedelta

    from rgs.service.reconciler import Reconciler
    from rgs.wallet.port import MoneyKind

    app = await build(RgsSettings(test_mode=True, database_url=rgs_database_url),
                      platform=sandbox_platform({"dev-operator": sandbox_wallet.target}))
    try:
        await add_dev_operator_keys(app.journal)
        s = await _session(app)
        dealt = await app.game.deal(s, DealCommand(
            request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=500),),
            forced_cards=STAND_WINS))
        await sandbox_wallet.control.SetFault(sandbox_pb2.SetFaultRequest(
            fault=sandbox_pb2.Fault(kind=sandbox_pb2.FAULT_KIND_ERROR, remaining=1,
                                    method=sandbox_pb2.WALLET_METHOD_CREDIT,
                                    error_reason="PLAYER_BLOCKED")), metadata=AUTH)
        done = await app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                                expected_seq=1, seat=1, hand=0,
                                                action=Action.STAND))
        assert done.view.phase is Phase.SETTLED and done.payment_pending
        moves = await app.journal.movements(s.player_key, dealt.round_id)
        credit = next(m for m in moves if m.kind is MoneyKind.CREDIT)
        assert credit.status == "unknown" and "PLAYER_BLOCKED" in credit.last_error
        assert await _balance(sandbox_wallet) == 100_000 - 500
        later = Reconciler(journal=app.journal, wallet=app.wallet,
                           clock=lambda: datetime.now(UTC) + timedelta(minutes=5))
        assert await later.run_once() == 1
        assert await _balance(sandbox_wallet) == 100_000 - 500 + 1000
        assert not (await app.game.get_round(s, dealt.round_id)).payment_pending
    finally:
        await app.close()


async def test_reconcilers_of_two_replicas_running_at_once_drive_each_open_row_once(
        two_replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import UTC, datetime, timedelta

    from rgs.service import money
    from rgs.service.reconciler import Reconciler
    from rgs.wallet.port import Party

    a, b = two_replicas
    for player, amount in (("demo-alice", 700), ("demo-bob", 300)):
        s = await _session(a, player)
        party = Party(operator_id="dev-operator", brand_id="demo-casino",
                      player_id=player, session_id=s.session_id, currency="EUR")
        async with a.journal.player(s.player_key) as pj:  # calls that died after the debit
            for step in (1, 2):
                await money.debit(pj, a.wallet, party, round_id=f"{step}{player[5]}" * 16,
                                  step=1, amount=amount)
    assert await _balance(sandbox_wallet) == 100_000 - 1400
    assert await _balance(sandbox_wallet, "demo-bob") == 25_000 - 600

    def later(app: App) -> Reconciler:
        return Reconciler(journal=app.journal, wallet=app.wallet,
                          clock=lambda: datetime.now(UTC) + timedelta(minutes=5))

    handled = await asyncio.gather(*(later(app).run_once() for app in (a, b, a, b)))
    assert sum(handled) >= 2  # each player by at least one of them; nobody twice at once
    assert await _balance(sandbox_wallet) == 100_000
    assert await _balance(sandbox_wallet, "demo-bob") == 25_000
    for player in ("demo-alice", "demo-bob"):
        resp = await sandbox_wallet.control.ListTransactions(
            sandbox_pb2.ListTransactionsRequest(player_id=player), metadata=AUTH)
        kinds = sorted(sandbox_pb2.TransactionKind.Name(t.kind) for t in resp.transactions)
        assert kinds == ["TRANSACTION_KIND_DEBIT"] * 2 + ["TRANSACTION_KIND_ROLLBACK"] * 2
    assert [await later(app).run_once() for app in (a, b)] == [0, 0]


async def test_a_pool_acquire_timeout_is_journal_unavailable(rgs_database_url: str) -> None:
    """A pool-acquire timeout escaped as a plain TimeoutError (a SERVER_ERROR); it is
    JournalUnavailable, retryable, like every other time the database does not answer."""
    journal = await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
    journal._acquire_timeout_s = 0.2  # type: ignore[attr-defined]
    try:
        async with journal.player("dev-operator/holder"):
            with pytest.raises(JournalUnavailable):
                async with journal.player("dev-operator/waiter"):
                    pass
    finally:
        await journal.close()


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
                await pj.commit_round(round=_open_round(rid, brand, cur), new_events_from=0,
                                      request=StoredRequest(request_id="same", method="deal",
                                                            request_hash=rid, response="{}",
                                                            scope=RequestScope.PLAYER)
                                      if rid[0] == "a" else None)
            found = await pj.active_round("demo-casino-usd", "USD")
            assert found is not None and found.round_id == "b" * 32
            assert found.options == VariantOptions(decks=2)
            with pytest.raises(JournalUnavailable):  # a second open round in one context
                await pj.commit_round(round=_open_round("d" * 32, "demo-casino", "EUR"),
                                      new_events_from=0, request=None)
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
