"""The PostgreSQL journal's outbox with the real sandbox wallet: the reconciler rolling back or
paying what a crash or a wallet fault left open, the sweeper finishing abandoned rounds, and two
replicas' reconcilers running at once.

Each test gets its own migrated database; "two processes" are two independent connection pools
and two app instances, which is what two replicas are to PostgreSQL. Every test that uses the
journal runs twice: connected to PostgreSQL directly (session pool mode) and through a real
PgBouncer in transaction mode, where consecutive statements of one connection may run on
different server sessions.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from rgs.bootstrap import App, add_dev_operator_keys
from rgs.engine import Action, BoxBet, Phase
from rgs.service.errors import Unavailable
from rgs.service.model import (
    ActCommand,
    DealCommand,
    PlayResult,
    Session,
)
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.journal_db import (
    ALICE,
    STAND_WINS,
    JournalDb,
    balance_of,
    debits_of,
    new_session,
)
from support.sandbox import AUTH, SandboxWalletClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_reconciler_rolls_back_a_debit_orphaned_by_a_crash(
        two_replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import timedelta

    from rgs.service import money
    from rgs.service.reconciler import Reconciler
    from rgs.wallet.port import Party

    a, b = two_replicas
    s = await new_session(a)
    party = Party(operator_id="dev-operator", brand_id="demo-casino",
                  player_id=ALICE, session_id=s.session_id, currency="EUR")
    async with a.journal.player(s.player_key) as pj:  # the call dies after the wallet answered
        await money.debit(pj, a.wallet, party, round_id="e" * 32, step=1, amount=700)
    assert await balance_of(sandbox_wallet) == 100_000 - 700
    later = Reconciler(journal=b.journal, wallet=b.wallet,
                       clock=lambda: datetime.now(UTC) + timedelta(minutes=5))
    assert await later.run_once() == 1
    assert await balance_of(sandbox_wallet) == 100_000
    assert await later.run_once() == 0


async def test_sweeper_finishes_an_abandoned_round_from_another_replica(
        two_replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import timedelta

    from rgs.service.reconciler import Reconciler

    a, b = two_replicas
    s = await new_session(a)
    dealt = await a.game.deal(s, DealCommand(request_id="d1", variant_id="classic-resplit",
                                             boxes=(BoxBet(seat=1, stake=500),),
                                             forced_cards=STAND_WINS))
    sweeper = Reconciler(journal=b.journal, wallet=b.wallet, game=b.game,
                         clock=lambda: datetime.now(UTC) + timedelta(days=2))
    assert await sweeper.sweep_abandoned() == 1
    stored = await a.journal.get_round(s.player_key, dealt.round_id)
    assert stored is not None and stored.status == "settled" and stored.total_paid == 1000
    assert await balance_of(sandbox_wallet) == 100_500


async def test_a_double_whose_debit_timed_out_is_rolled_back_and_the_retry_succeeds(
        journal_db: JournalDb, sandbox_wallet: SandboxWalletClient) -> None:
    app = await journal_db.app(sandbox_wallet, timeout_s=0.5)
    try:
        await add_dev_operator_keys(app.journal)
        s = await new_session(app)
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
        assert await balance_of(sandbox_wallet) == 100_000 - 200  # the double's stake came back
        done = await app.game.act(s, act)
        assert (done.view.total_staked, done.view.total_paid) == (400, 800)
        assert await balance_of(sandbox_wallet) == 100_000 - 400 + 800
        assert await debits_of(sandbox_wallet) == [f"{dealt.round_id}:1:debit",
                                                 f"{dealt.round_id}:2:debit",
                                                 f"{dealt.round_id}:2-1:debit"]
    finally:
        await app.close()


async def _a_win_the_wallet_does_not_take(app: App, sandbox_wallet: SandboxWalletClient,
                                          fault: sandbox_pb2.Fault) -> tuple[Session, PlayResult]:
    """A round of 500 won by standing, its credit met by ``fault``: answered payment pending,
    the failure written (a moment after the call, as the journal does)."""
    await add_dev_operator_keys(app.journal)
    s = await new_session(app)
    dealt = await app.game.deal(s, DealCommand(
        request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=500),),
        forced_cards=STAND_WINS))
    await sandbox_wallet.control.SetFault(sandbox_pb2.SetFaultRequest(fault=fault), metadata=AUTH)
    done = await app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                            expected_seq=1, seat=1, hand=0, action=Action.STAND))
    assert done.view.phase is Phase.SETTLED and done.payment_pending
    await app.journal.flush_answers()
    return s, dealt


async def test_an_unpaid_credit_keeps_its_attempts_and_error_and_is_retried_with_backoff_until_paid(
        journal_db: JournalDb, sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import timedelta

    from rgs.service.reconciler import Reconciler
    from rgs.wallet.port import MoneyKind

    app = await journal_db.app(sandbox_wallet)
    try:
        s, dealt = await _a_win_the_wallet_does_not_take(app, sandbox_wallet, sandbox_pb2.Fault(
            kind=sandbox_pb2.FAULT_KIND_ERROR, method=sandbox_pb2.WALLET_METHOD_CREDIT,
            error_reason="WALLET_UNAVAILABLE"))
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
        assert await balance_of(sandbox_wallet) == 100_000 - 500 + 1000
    finally:
        await app.close()


async def test_a_win_the_wallet_refuses_stays_open_and_is_paid_once_the_wallet_accepts_it(
        journal_db: JournalDb, sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import timedelta

    from rgs.service.reconciler import Reconciler
    from rgs.wallet.port import MoneyKind

    app = await journal_db.app(sandbox_wallet)
    try:
        s, dealt = await _a_win_the_wallet_does_not_take(app, sandbox_wallet, sandbox_pb2.Fault(
            kind=sandbox_pb2.FAULT_KIND_ERROR, remaining=1,
            method=sandbox_pb2.WALLET_METHOD_CREDIT, error_reason="PLAYER_BLOCKED"))
        moves = await app.journal.movements(s.player_key, dealt.round_id)
        credit = next(m for m in moves if m.kind is MoneyKind.CREDIT)
        assert credit.status == "unknown" and "PLAYER_BLOCKED" in credit.last_error
        assert await balance_of(sandbox_wallet) == 100_000 - 500
        later = Reconciler(journal=app.journal, wallet=app.wallet,
                           clock=lambda: datetime.now(UTC) + timedelta(minutes=5))
        assert await later.run_once() == 1
        assert await balance_of(sandbox_wallet) == 100_000 - 500 + 1000
        assert not (await app.game.get_round(s, dealt.round_id)).payment_pending
    finally:
        await app.close()


async def test_reconcilers_of_two_replicas_running_at_once_drive_each_open_row_once(
        two_replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    from datetime import timedelta

    from rgs.service import money
    from rgs.service.reconciler import Reconciler
    from rgs.wallet.port import Party

    a, b = two_replicas
    for player, amount in (("demo-alice", 700), ("demo-bob", 300)):
        s = await new_session(a, player)
        party = Party(operator_id="dev-operator", brand_id="demo-casino",
                      player_id=player, session_id=s.session_id, currency="EUR")
        async with a.journal.player(s.player_key) as pj:  # calls that died after the debit
            for step in (1, 2):
                await money.debit(pj, a.wallet, party, round_id=f"{step}{player[5]}" * 16,
                                  step=1, amount=amount)
    assert await balance_of(sandbox_wallet) == 100_000 - 1400
    assert await balance_of(sandbox_wallet, "demo-bob") == 25_000 - 600

    def later(app: App) -> Reconciler:
        return Reconciler(journal=app.journal, wallet=app.wallet,
                          clock=lambda: datetime.now(UTC) + timedelta(minutes=5))

    handled = await asyncio.gather(*(later(app).run_once() for app in (a, b, a, b)))
    assert sum(handled) >= 2  # each player by at least one of them; nobody twice at once
    assert await balance_of(sandbox_wallet) == 100_000
    assert await balance_of(sandbox_wallet, "demo-bob") == 25_000
    for player in ("demo-alice", "demo-bob"):
        resp = await sandbox_wallet.control.ListTransactions(
            sandbox_pb2.ListTransactionsRequest(player_id=player), metadata=AUTH)
        kinds = sorted(sandbox_pb2.TransactionKind.Name(t.kind) for t in resp.transactions)
        assert kinds == ["TRANSACTION_KIND_DEBIT"] * 2 + ["TRANSACTION_KIND_ROLLBACK"] * 2
    assert [await later(app).run_once() for app in (a, b)] == [0, 0]
