"""rgs_win_payment_delay_seconds, the money-movement SLI: how long a win waits from its round's
settlement (the credit's outbox row) to the wallet's confirmation, observed where the credit is
confirmed, also when another replica's reconciler pays it much later. Real PostgreSQL journal
and sandbox wallet."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg
from prometheus_client import REGISTRY

from rgs.bootstrap import add_dev_operator_keys, build
from rgs.config import RgsSettings
from rgs.engine import Action, BoxBet
from rgs.observability.instrumented import WinsAwaitingPayment
from rgs.service.model import ActCommand, CreateSessionCommand, DealCommand
from rgs.service.reconciler import Reconciler
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.platforms import sandbox_platform
from support.sandbox import AUTH, SandboxWalletClient

STAND_WINS = ("TS", "6H", "9D", "7C", "9S")
METRIC = "rgs_win_payment_delay_seconds"


def _bucket(le: str) -> float:
    return REGISTRY.get_sample_value(f"{METRIC}_bucket", {"le": le}) or 0.0


def _count() -> float:
    return REGISTRY.get_sample_value(f"{METRIC}_count", {}) or 0.0


async def test_a_win_is_observed_once_paid_now_or_by_a_reconciler_from_its_settlement(
        rgs_database_url: str, sandbox_wallet: SandboxWalletClient) -> None:
    platform = sandbox_platform({"dev-operator": sandbox_wallet.target})
    app = await build(RgsSettings(test_mode=True, database_url=rgs_database_url),
                      platform=platform)
    try:
        await add_dev_operator_keys(app.journal)
        op = await app.office.authenticate("rgs-dev-operator-key")
        new = await app.office.create_session(op, CreateSessionCommand(
            request_id="s", brand_id="demo-casino", player_id="demo-alice"))
        s = await app.game.authenticate(new.token)

        async def win(request: str) -> str:
            dealt = await app.game.deal(s, DealCommand(
                request_id=f"d{request}", variant_id="classic-resplit",
                boxes=(BoxBet(seat=1, stake=500),), forced_cards=STAND_WINS))
            await app.game.act(s, ActCommand(request_id=f"a{request}", round_id=dealt.round_id,
                                             expected_seq=1, seat=1, hand=0,
                                             action=Action.STAND))
            return dealt.round_id

        count, quick = _count(), _bucket("2.5")
        await win("1")  # paid right after the commit
        assert (_count() - count, _bucket("2.5") - quick) == (1, 1)

        await sandbox_wallet.control.SetFault(sandbox_pb2.SetFaultRequest(
            fault=sandbox_pb2.Fault(kind=sandbox_pb2.FAULT_KIND_ERROR, remaining=1,
                                    method=sandbox_pb2.WALLET_METHOD_CREDIT,
                                    error_reason="WALLET_UNAVAILABLE")), metadata=AUTH)
        round_id = await win("2")
        assert _count() == count + 1  # not paid: nothing observed yet
        # Pretend the round settled 40 s ago, then let a fresh replica's reconciler pay it.
        conn = await asyncpg.connect(rgs_database_url)
        try:
            await conn.execute("UPDATE rgs.wallet_transactions SET created_at = created_at - "
                               "interval '40 seconds' WHERE round_id = $1 AND kind = 'credit'",
                               round_id)
        finally:
            await conn.close()
        other = await build(RgsSettings(test_mode=True, database_url=rgs_database_url),
                            platform=platform)
        try:
            below_30, below_60 = _bucket("30.0"), _bucket("60.0")
            later = Reconciler(journal=other.journal, wallet=other.wallet,
                               clock=lambda: datetime.now(UTC) + timedelta(minutes=5))
            assert await later.run_once() == 1
        finally:
            await other.close()
        assert _count() == count + 2
        assert (_bucket("30.0") - below_30, _bucket("60.0") - below_60) == (0, 1)
    finally:
        await app.close()


def test_the_registry_forgets_the_oldest_past_its_limit() -> None:
    wins = WinsAwaitingPayment(limit=2)
    count = _count()
    for txn in ("a", "b", "c"):
        wins.written(txn)
    wins.paid("a")  # forgotten: not observed
    wins.paid("c")
    assert _count() == count + 1
