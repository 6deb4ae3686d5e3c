"""The sandbox wallet's final refusals over a real gRPC connection and a real PostgreSQL
database: blocked players, wrong currency, limits, expired sessions, unknown players, malformed
requests and bad credentials.

Each test gets its own database (copied from a migrated template) and its own server with the
demo players seeded: demo-alice EUR 1,000.00, demo-bob EUR 250.00, demo-carol-usd USD 500.00,
demo-dave-blocked (blocked), demo-erin-limited (debits above 10.00 refused).
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs.generated.wallet.v1 import wallet_pb2
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.sandbox import AUTH, SandboxWalletClient
from support.sandbox_calls import (
    ALICE,
    balance_of,
    credit,
    debit,
    refused,
    rollback,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


# --- final refusals -------------------------------------------------------------------------


async def test_blocked_player_is_refused_debits_but_still_paid_credits(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    dave = "demo-dave-blocked"
    refusal = await refused(w.wallet.Debit(debit("d-1", 100, player=dave), metadata=AUTH))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_BLOCKED")
    paid = await w.wallet.Credit(credit("c-1", 300, player=dave), metadata=AUTH)
    assert paid.balance == 10_300
    await w.control.BlockPlayer(
        sandbox_pb2.BlockPlayerRequest(player_id=ALICE, blocked=True), metadata=AUTH
    )
    blocked_now = await refused(w.wallet.Debit(debit("d-2", 100), metadata=AUTH))
    assert blocked_now.reason == "PLAYER_BLOCKED"
    assert await balance_of(w) == 100_000


async def test_wrong_currency_is_refused_for_every_call(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    calls = [
        w.wallet.Debit(debit("d-1", 100, currency="USD"), metadata=AUTH),
        w.wallet.Credit(credit("c-1", 100, currency="USD"), metadata=AUTH),
        w.wallet.Rollback(rollback("r-1", "d-x", 100, currency="USD"), metadata=AUTH),
        w.wallet.Balance(
            wallet_pb2.BalanceRequest(
                player_id=ALICE, session_id="s", currency="USD", operator_id="dev-operator"
            ),
            metadata=AUTH,
        ),
    ]
    for call in calls:
        refusal = await refused(call)
        assert (refusal.code, refusal.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "WRONG_CURRENCY",
        )
    assert await balance_of(w) == 100_000


async def test_debit_above_the_players_limit_is_limit_exceeded(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    erin = "demo-erin-limited"
    refusal = await refused(w.wallet.Debit(debit("d-1", 1_001, player=erin), metadata=AUTH))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "LIMIT_EXCEEDED")
    at_limit = await w.wallet.Debit(debit("d-2", 1_000, player=erin), metadata=AUTH)
    assert at_limit.balance == 99_000


async def test_expired_session_refuses_debits_only(sandbox_wallet: SandboxWalletClient) -> None:
    w = sandbox_wallet
    await w.wallet.Debit(debit("d-1", 500), metadata=AUTH)
    await w.control.ExpireSession(
        sandbox_pb2.ExpireSessionRequest(session_id="session-1"), metadata=AUTH
    )
    refusal = await refused(w.wallet.Debit(debit("d-2", 500), metadata=AUTH))
    assert (refusal.code, refusal.reason) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "SESSION_EXPIRED",
    )
    paid = await w.wallet.Credit(credit("c-1", 1_200, round_closed=True), metadata=AUTH)
    cancelled = await w.wallet.Rollback(rollback("r-1", "d-1", 500), metadata=AUTH)
    assert (paid.balance, cancelled.balance) == (100_700, 101_200)


async def test_unknown_player_is_not_found(sandbox_wallet: SandboxWalletClient) -> None:
    refusal = await refused(
        sandbox_wallet.wallet.Debit(debit("d-1", 100, player="nobody"), metadata=AUTH)
    )
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND")


@pytest.mark.parametrize(
    "request_",
    [
        debit("", 100),
        debit("x" * 65, 100),
        debit("d-1", 0),
        debit("d-1", -5),
        debit("d-1", 100, currency="eur"),
        credit("c-1", -1),
        rollback("r-1", "", 100),
    ],
    ids=["empty-id", "long-id", "zero-debit", "negative", "currency", "neg-credit", "no-debit-id"],
)
async def test_malformed_request_is_invalid_argument_and_moves_nothing(
    sandbox_wallet: SandboxWalletClient, request_: Any
) -> None:
    w = sandbox_wallet
    method = {
        wallet_pb2.DebitRequest: w.wallet.Debit,
        wallet_pb2.CreditRequest: w.wallet.Credit,
        wallet_pb2.RollbackRequest: w.wallet.Rollback,
    }[type(request_)]
    refusal = await refused(method(request_, metadata=AUTH))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert await balance_of(w) == 100_000


@pytest.mark.parametrize(
    "metadata",
    [(), (("authorization", "Bearer wrong-key"),), (("authorization", "sandbox-wallet-dev-key"),)],
    ids=["missing", "wrong-key", "no-bearer-prefix"],
)
async def test_bad_credentials_are_unauthenticated_and_move_nothing(
    sandbox_wallet: SandboxWalletClient, metadata: tuple[tuple[str, str], ...]
) -> None:
    w = sandbox_wallet
    refusal = await refused(w.wallet.Debit(debit("d-1", 100), metadata=metadata))
    control = await refused(
        w.control.FundPlayer(
            sandbox_pb2.FundPlayerRequest(player_id=ALICE, amount=1), metadata=metadata
        )
    )
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_SIGNATURE")
    assert control.code is grpc.StatusCode.UNAUTHENTICATED
    assert await balance_of(w) == 100_000


async def test_health_is_served_without_credentials(sandbox_wallet: SandboxWalletClient) -> None:
    stub = health_pb2_grpc.HealthStub(sandbox_wallet.channel)
    for service in ("", "rgs.wallet.v1.WalletService"):
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
