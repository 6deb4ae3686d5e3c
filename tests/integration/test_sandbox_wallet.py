"""The sandbox wallet over a real gRPC connection and a real PostgreSQL database.

Each test gets its own database (copied from a migrated template) and its own server with the
demo players seeded: demo-alice EUR 1,000.00, demo-bob EUR 250.00, demo-carol-usd USD 500.00,
demo-dave-blocked (blocked), demo-erin-limited (debits above 10.00 refused).
"""

from __future__ import annotations

import asyncio
import random
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs.generated.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from sandbox_wallet import status
from sandbox_wallet.errors import ConfigError
from sandbox_wallet.faults import FaultBoard, FaultKind, FaultRule, Method
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from sandbox_wallet.migrate import migrate, migrations
from sandbox_wallet.server import start
from sandbox_wallet.settings import SandboxWalletSettings
from support.sandbox import AUTH, SandboxWalletClient, sandbox_wallet_server
from support.tls import make_pki, openssl_available

pytestmark = pytest.mark.asyncio(loop_scope="session")

ALICE = "demo-alice"
BOB = "demo-bob"


def debit(txn: str, amount: int, *, player: str = ALICE, **kw: Any) -> wallet_pb2.DebitRequest:
    fields: dict[str, Any] = {
        "transaction_id": txn,
        "round_id": "round-1",
        "player_id": player,
        "session_id": "session-1",
        "currency": "EUR",
        "amount": amount,
        "operator_id": "dev-operator",
        "brand_id": "demo-casino",
    }
    fields.update(kw)
    return wallet_pb2.DebitRequest(**fields)


def credit(
    txn: str, amount: int, *, player: str = ALICE, round_closed: bool = False, **kw: Any
) -> wallet_pb2.CreditRequest:
    fields: dict[str, Any] = {
        "transaction_id": txn,
        "round_id": "round-1",
        "player_id": player,
        "session_id": "session-1",
        "currency": "EUR",
        "amount": amount,
        "round_closed": round_closed,
        "operator_id": "dev-operator",
        "brand_id": "demo-casino",
    }
    fields.update(kw)
    return wallet_pb2.CreditRequest(**fields)


def rollback(
    txn: str, debit_txn: str, amount: int, *, player: str = ALICE, **kw: Any
) -> wallet_pb2.RollbackRequest:
    fields: dict[str, Any] = {
        "transaction_id": txn,
        "debit_transaction_id": debit_txn,
        "round_id": "round-1",
        "player_id": player,
        "session_id": "session-1",
        "currency": "EUR",
        "amount": amount,
        "operator_id": "dev-operator",
        "brand_id": "demo-casino",
    }
    fields.update(kw)
    return wallet_pb2.RollbackRequest(**fields)


async def balance_of(w: SandboxWalletClient, player: str = ALICE) -> int:
    reply = await w.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=player), metadata=AUTH)
    return reply.player.balance


async def transactions_of(
    w: SandboxWalletClient, player: str = ALICE
) -> list[sandbox_pb2.Transaction]:
    reply = await w.control.ListTransactions(
        sandbox_pb2.ListTransactionsRequest(player_id=player), metadata=AUTH
    )
    return list(reply.transactions)


async def refused(call: Any) -> status.DecodedRefusal:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return status.decode(info.value)


async def set_fault(w: SandboxWalletClient, **fields: Any) -> sandbox_pb2.Fault:
    reply = await w.control.SetFault(
        sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(**fields)), metadata=AUTH
    )
    return reply.fault


# --- amounts --------------------------------------------------------------------------------


async def test_demo_players_are_seeded_with_their_balances(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    alice = await w.wallet.Balance(
        wallet_pb2.BalanceRequest(
            player_id=ALICE, session_id="s", currency="EUR", operator_id="dev-operator"
        ), metadata=AUTH
    )
    carol = await w.wallet.Balance(
        wallet_pb2.BalanceRequest(
            player_id="demo-carol-usd", session_id="s", currency="USD", operator_id="dev-operator"
        ),
        metadata=AUTH,
    )
    assert (alice.balance, alice.currency) == (100_000, "EUR")
    assert (carol.balance, carol.currency) == (50_000, "USD")
    assert await balance_of(w, BOB) == 25_000


async def test_debit_takes_the_stake_to_the_cent(sandbox_wallet: SandboxWalletClient) -> None:
    w = sandbox_wallet
    reply = await w.wallet.Debit(debit("d-1", 1_234), metadata=AUTH)
    assert (reply.transaction_id, reply.balance, reply.currency) == ("d-1", 98_766, "EUR")
    assert reply.wallet_transaction_id.startswith("sw-")
    assert await balance_of(w) == 98_766
    [txn] = await transactions_of(w)
    assert (txn.kind, txn.amount, txn.balance_change, txn.balance_after) == (
        sandbox_pb2.TRANSACTION_KIND_DEBIT,
        1_234,
        -1_234,
        98_766,
    )


async def test_credit_pays_the_win_and_a_zero_credit_closes_the_round(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await w.wallet.Debit(debit("d-1", 1_000), metadata=AUTH)
    win = await w.wallet.Credit(credit("c-1", 2_501), metadata=AUTH)
    close = await w.wallet.Credit(credit("c-2", 0, round_closed=True), metadata=AUTH)
    assert win.balance == 100_000 - 1_000 + 2_501
    assert close.balance == 101_501
    txns = await transactions_of(w)
    assert [(t.transaction_id, t.balance_change, t.round_closed) for t in txns] == [
        ("d-1", -1_000, False),
        ("c-1", 2_501, False),
        ("c-2", 0, True),
    ]


async def test_insufficient_funds_returns_the_balance_and_changes_nothing(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    refusal = await refused(w.wallet.Debit(debit("d-1", 25_001, player=BOB), metadata=AUTH))
    assert refusal.code is grpc.StatusCode.FAILED_PRECONDITION
    assert (refusal.reason, refusal.balance, refusal.currency) == (
        "INSUFFICIENT_FUNDS",
        25_000,
        "EUR",
    )
    assert await balance_of(w, BOB) == 25_000
    assert await transactions_of(w, BOB) == []
    exact = await w.wallet.Debit(debit("d-2", 25_000, player=BOB), metadata=AUTH)
    assert exact.balance == 0


# --- replay rules ---------------------------------------------------------------------------


async def test_same_debit_replayed_returns_the_original_result_and_moves_money_once(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    first = await w.wallet.Debit(debit("d-1", 700), metadata=AUTH)
    await w.wallet.Credit(credit("c-1", 50), metadata=AUTH)
    again = await w.wallet.Debit(debit("d-1", 700), metadata=AUTH)
    assert again == first  # the original balance after (99,300), not today's (99,350)
    assert again.balance == 99_300
    assert await balance_of(w) == 99_350
    assert len(await transactions_of(w)) == 2


async def test_same_credit_replayed_returns_the_original_result(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    first = await w.wallet.Credit(credit("c-1", 1_500, round_closed=True), metadata=AUTH)
    again = await w.wallet.Credit(credit("c-1", 1_500, round_closed=True), metadata=AUTH)
    assert again == first
    assert await balance_of(w) == 101_500


@pytest.mark.parametrize(
    "changed",
    [
        {"amount": 701},
        {"round_id": "round-2"},
        {"session_id": "session-2"},
        {"currency": "USD"},
    ],
)
async def test_debit_id_reused_with_different_parameters_is_duplicate_transaction(
    sandbox_wallet: SandboxWalletClient, changed: dict[str, Any]
) -> None:
    w = sandbox_wallet
    await w.wallet.Debit(debit("d-1", 700), metadata=AUTH)
    request = debit("d-1", 700)
    for key, value in changed.items():
        setattr(request, key, value)
    refusal = await refused(w.wallet.Debit(request, metadata=AUTH))
    assert (refusal.code, refusal.reason) == (
        grpc.StatusCode.ALREADY_EXISTS,
        "DUPLICATE_TRANSACTION",
    )
    assert await balance_of(w) == 99_300


async def test_transaction_id_reused_by_another_kind_or_player_is_duplicate_transaction(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await w.wallet.Debit(debit("t-1", 700), metadata=AUTH)
    as_credit = await refused(w.wallet.Credit(credit("t-1", 700), metadata=AUTH))
    other_player = await refused(w.wallet.Debit(debit("t-1", 700, player=BOB), metadata=AUTH))
    as_rollback = await refused(w.wallet.Rollback(rollback("t-1", "d-9", 700), metadata=AUTH))
    assert {as_credit.reason, other_player.reason, as_rollback.reason} == {"DUPLICATE_TRANSACTION"}
    assert await balance_of(w) == 99_300
    assert await balance_of(w, BOB) == 25_000


async def test_credit_id_reused_with_another_round_closed_flag_is_duplicate_transaction(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await w.wallet.Credit(credit("c-1", 0, round_closed=False), metadata=AUTH)
    refusal = await refused(w.wallet.Credit(credit("c-1", 0, round_closed=True), metadata=AUTH))
    assert refusal.reason == "DUPLICATE_TRANSACTION"


async def test_rollback_of_a_debit_reverses_it_exactly_once(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await w.wallet.Debit(debit("d-1", 4_321), metadata=AUTH)
    first = await w.wallet.Rollback(rollback("r-1", "d-1", 4_321), metadata=AUTH)
    replay = await w.wallet.Rollback(rollback("r-1", "d-1", 4_321), metadata=AUTH)
    second = await w.wallet.Rollback(rollback("r-2", "d-1", 4_321), metadata=AUTH)
    assert (first.balance, first.debit_reversed) == (100_000, True)
    assert replay == first
    assert (second.balance, second.debit_reversed) == (100_000, False)
    assert await balance_of(w) == 100_000
    txns = {t.transaction_id: t for t in await transactions_of(w)}
    assert txns["d-1"].rolled_back_by == "r-1"
    assert (txns["r-1"].balance_change, txns["r-2"].balance_change) == (4_321, 0)


async def test_rollback_of_an_unseen_debit_succeeds_and_blocks_that_debit_later(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    reply = await w.wallet.Rollback(rollback("r-1", "d-never-seen", 900), metadata=AUTH)
    assert (reply.balance, reply.debit_reversed) == (100_000, False)
    late = await refused(w.wallet.Debit(debit("d-never-seen", 900), metadata=AUTH))
    assert (late.code, late.reason) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "TRANSACTION_ROLLED_BACK",
    )
    assert await balance_of(w) == 100_000


async def test_credit_after_a_rollback_still_pays(sandbox_wallet: SandboxWalletClient) -> None:
    w = sandbox_wallet
    await w.wallet.Debit(debit("d-1", 1_000), metadata=AUTH)
    await w.wallet.Rollback(rollback("r-1", "d-1", 1_000), metadata=AUTH)
    paid = await w.wallet.Credit(credit("c-1", 0, round_closed=True), metadata=AUTH)
    bonus = await w.wallet.Credit(credit("c-2", 250), metadata=AUTH)
    assert (paid.balance, bonus.balance) == (100_000, 100_250)


async def test_rollback_that_does_not_match_its_debit_is_refused(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await w.wallet.Debit(debit("d-1", 1_000), metadata=AUTH)
    await w.wallet.Credit(credit("c-1", 10), metadata=AUTH)
    wrong_amount = await refused(w.wallet.Rollback(rollback("r-1", "d-1", 999), metadata=AUTH))
    of_a_credit = await refused(w.wallet.Rollback(rollback("r-2", "c-1", 10), metadata=AUTH))
    assert wrong_amount.code is grpc.StatusCode.INVALID_ARGUMENT
    assert wrong_amount.reason == of_a_credit.reason == "INVALID_REQUEST"
    assert await balance_of(w) == 99_010


# --- concurrency ----------------------------------------------------------------------------


async def test_twenty_concurrent_identical_debits_are_applied_once(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    replies = await asyncio.gather(
        *(w.wallet.Debit(debit("d-1", 700), metadata=AUTH) for _ in range(20))
    )
    assert {(r.wallet_transaction_id, r.balance) for r in replies} == {
        (replies[0].wallet_transaction_id, 99_300)
    }
    assert await balance_of(w) == 99_300
    assert len(await transactions_of(w)) == 1


async def test_one_transaction_id_raced_by_two_players_is_applied_for_one_only(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    results = await asyncio.gather(
        *(
            w.wallet.Debit(debit("d-1", 500, player=player), metadata=AUTH)
            for player in (ALICE, BOB) * 5
        ),
        return_exceptions=True,
    )
    refusals = {status.decode(r).reason for r in results if isinstance(r, grpc.aio.AioRpcError)}
    assert refusals == {"DUPLICATE_TRANSACTION"}
    assert (await balance_of(w), await balance_of(w, BOB)) in {(99_500, 25_000), (100_000, 24_500)}


async def test_concurrent_distinct_debits_never_overdraw(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    results = await asyncio.gather(
        *(w.wallet.Debit(debit(f"d-{i}", 10_000, player=BOB), metadata=AUTH) for i in range(20)),
        return_exceptions=True,
    )
    applied = [r for r in results if isinstance(r, wallet_pb2.DebitResponse)]
    failed = [status.decode(r) for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(applied) == 2
    assert len(failed) == 18
    assert {f.reason for f in failed} == {"INSUFFICIENT_FUNDS"}
    assert sorted(r.balance for r in applied) == [5_000, 15_000]
    assert await balance_of(w, BOB) == 5_000


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


# --- fault injection ------------------------------------------------------------------------


async def test_latency_fault_delays_the_answer_then_applies(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await set_fault(
        w,
        kind=sandbox_pb2.FAULT_KIND_LATENCY,
        method=sandbox_pb2.WALLET_METHOD_DEBIT,
        latency_ms=300,
        remaining=1,
    )
    started = time.monotonic()
    reply = await w.wallet.Debit(debit("d-1", 100), metadata=AUTH)
    assert time.monotonic() - started >= 0.3
    assert reply.balance == 99_900
    faults = await w.control.ListFaults(sandbox_pb2.ListFaultsRequest(), metadata=AUTH)
    assert list(faults.faults) == []  # its single fire is used up


async def test_timeout_before_apply_fault_applies_nothing_and_a_retry_applies_once(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await set_fault(w, kind=sandbox_pb2.FAULT_KIND_TIMEOUT_BEFORE_APPLY, remaining=1)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await w.wallet.Debit(debit("d-1", 800), metadata=AUTH, timeout=0.4)
    assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    await asyncio.sleep(0.4)  # let the server-side sleep end: still nothing applied
    assert await balance_of(w) == 100_000
    assert await transactions_of(w) == []
    retry = await w.wallet.Debit(debit("d-1", 800), metadata=AUTH)
    assert retry.balance == 99_200


async def test_timeout_after_apply_fault_applies_and_a_retry_replays_the_result(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await set_fault(w, kind=sandbox_pb2.FAULT_KIND_TIMEOUT_AFTER_APPLY, remaining=1)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await w.wallet.Debit(debit("d-1", 800), metadata=AUTH, timeout=0.4)
    assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    assert await balance_of(w) == 99_200
    retry = await w.wallet.Debit(debit("d-1", 800), metadata=AUTH)
    assert retry.balance == 99_200
    assert len(await transactions_of(w)) == 1


async def test_timeout_after_apply_of_a_debit_is_resolved_by_rollback(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await set_fault(w, kind=sandbox_pb2.FAULT_KIND_TIMEOUT_AFTER_APPLY, remaining=1)
    with pytest.raises(grpc.aio.AioRpcError):
        await w.wallet.Debit(debit("d-1", 800), metadata=AUTH, timeout=0.3)
    undo = await w.wallet.Rollback(rollback("r-1", "d-1", 800), metadata=AUTH)
    assert (undo.balance, undo.debit_reversed) == (100_000, True)


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        ("WALLET_UNAVAILABLE", grpc.StatusCode.UNAVAILABLE),
        ("PLAYER_BLOCKED", grpc.StatusCode.FAILED_PRECONDITION),
        ("INSUFFICIENT_FUNDS", grpc.StatusCode.FAILED_PRECONDITION),
    ],
)
async def test_error_fault_answers_the_chosen_reason_and_applies_nothing(
    sandbox_wallet: SandboxWalletClient, reason: str, code: grpc.StatusCode
) -> None:
    w = sandbox_wallet
    await set_fault(
        w,
        kind=sandbox_pb2.FAULT_KIND_ERROR,
        error_reason=reason,
        method=sandbox_pb2.WALLET_METHOD_CREDIT,
        remaining=1,
    )
    refusal = await refused(w.wallet.Credit(credit("c-1", 500), metadata=AUTH))
    assert (refusal.code, refusal.reason) == (code, reason)
    assert await balance_of(w) == 100_000
    retry = await w.wallet.Credit(credit("c-1", 500), metadata=AUTH)
    assert retry.balance == 100_500


async def test_duplicate_delivery_fault_still_applies_once(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    await set_fault(w, kind=sandbox_pb2.FAULT_KIND_DUPLICATE_DELIVERY)
    d = await w.wallet.Debit(debit("d-1", 1_000), metadata=AUTH)
    c = await w.wallet.Credit(credit("c-1", 2_000), metadata=AUTH)
    r = await w.wallet.Rollback(rollback("r-1", "d-1", 1_000), metadata=AUTH)
    assert (d.balance, c.balance, r.balance) == (99_000, 101_000, 102_000)
    assert await balance_of(w) == 102_000
    assert len(await transactions_of(w)) == 3


async def test_fault_counts_and_player_filter_limit_which_calls_fail(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    fault = await set_fault(
        w,
        kind=sandbox_pb2.FAULT_KIND_ERROR,
        player_id=BOB,
        remaining=2,
        error_reason="WALLET_UNAVAILABLE",
    )
    assert fault.fault_id
    assert (await w.wallet.Debit(debit("a-1", 100), metadata=AUTH)).balance == 99_900
    first = await refused(w.wallet.Debit(debit("b-1", 100, player=BOB), metadata=AUTH))
    second = await refused(w.wallet.Debit(debit("b-1", 100, player=BOB), metadata=AUTH))
    assert first.code == second.code == grpc.StatusCode.UNAVAILABLE
    third = await w.wallet.Debit(debit("b-1", 100, player=BOB), metadata=AUTH)
    assert third.balance == 24_900
    await set_fault(w, kind=sandbox_pb2.FAULT_KIND_ERROR)
    cleared = await w.control.ClearFaults(sandbox_pb2.ClearFaultsRequest(), metadata=AUTH)
    assert cleared.cleared == 1
    assert (await w.wallet.Debit(debit("a-2", 100), metadata=AUTH)).balance == 99_800


async def test_fault_with_unknown_reason_is_refused(sandbox_wallet: SandboxWalletClient) -> None:
    refusal = await refused(
        set_fault(sandbox_wallet, kind=sandbox_pb2.FAULT_KIND_ERROR, error_reason="NOPE")
    )
    assert refusal.code is grpc.StatusCode.INVALID_ARGUMENT


async def test_fault_probability_fires_about_that_often() -> None:
    board = FaultBoard(rng=random.Random(7))
    board.add(FaultRule(fault_id="", kind=FaultKind.ERROR, probability=0.25))
    fired = sum(board.draw(Method.DEBIT, ALICE) is not None for _ in range(2_000))
    assert 400 < fired < 600


# --- control service and server ---------------------------------------------------------------


async def test_control_creates_funds_and_lists_players(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    created = await w.control.CreatePlayer(
        sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id="p-gbp", currency="GBP", balance=1_999)
        ),
        metadata=AUTH,
    )
    funded = await w.control.FundPlayer(
        sandbox_pb2.FundPlayerRequest(player_id="p-gbp", amount=1), metadata=AUTH
    )
    overdrawn = await refused(
        w.control.FundPlayer(
            sandbox_pb2.FundPlayerRequest(player_id="p-gbp", amount=-2_001), metadata=AUTH
        )
    )
    assert created.player.balance == 1_999
    assert funded.player.balance == 2_000
    assert overdrawn.reason == "INVALID_REQUEST"
    reply = await w.wallet.Debit(debit("d-1", 2_000, player="p-gbp", currency="GBP"), metadata=AUTH)
    assert reply.balance == 0


async def test_restart_keeps_balances_and_transactions(
    sandbox_wallet_database_url: str,
) -> None:
    async with sandbox_wallet_server(sandbox_wallet_database_url) as w:
        await w.wallet.Debit(debit("d-1", 300), metadata=AUTH)
    async with sandbox_wallet_server(sandbox_wallet_database_url) as w:
        assert await balance_of(w) == 99_700
        replay = await w.wallet.Debit(debit("d-1", 300), metadata=AUTH)
        assert replay.balance == 99_700


async def test_plaintext_on_a_public_address_is_refused() -> None:
    with pytest.raises(ConfigError):
        await start(SandboxWalletSettings(listen="0.0.0.0:0", database_url="postgresql://x/y"))


@pytest.mark.skipif(not openssl_available(), reason="needs the openssl command")
async def test_tls_with_client_ca_requires_a_client_certificate(
    sandbox_wallet_database_url: str, tmp_path: Path
) -> None:
    pki = make_pki(tmp_path)
    running = await start(
        SandboxWalletSettings(
            listen="127.0.0.1:0",
            database_url=sandbox_wallet_database_url,
            tls_cert_file=pki.server_cert,
            tls_key_file=pki.server_key,
            tls_client_ca_file=pki.ca_cert,
        )
    )
    ca = pki.ca_cert.read_bytes()
    mutual = grpc.ssl_channel_credentials(
        root_certificates=ca,
        private_key=pki.client_key.read_bytes(),
        certificate_chain=pki.client_cert.read_bytes(),
    )
    server_only = grpc.ssl_channel_credentials(root_certificates=ca)
    try:
        async with grpc.aio.secure_channel(running.target, mutual) as channel:
            stub = wallet_pb2_grpc.WalletServiceStub(channel)
            assert (await stub.Debit(debit("d-1", 100), metadata=AUTH)).balance == 99_900
        async with grpc.aio.secure_channel(running.target, server_only) as channel:
            stub = wallet_pb2_grpc.WalletServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await stub.Debit(debit("d-2", 100), metadata=AUTH, timeout=5)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
    finally:
        await running.stop(grace=None)


async def test_command_line_entry_point_serves_until_terminated(
    sandbox_wallet_database_url: str,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "sandbox_wallet", "--listen", f"127.0.0.1:{port}",
        "--database-url", sandbox_wallet_database_url,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            reply = await health.Check(
                health_pb2.HealthCheckRequest(), wait_for_ready=True, timeout=20
            )
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            stub = wallet_pb2_grpc.WalletServiceStub(channel)
            assert (await stub.Debit(debit("d-1", 100), metadata=AUTH)).balance == 99_900
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=20)
    assert process.returncode == 0, stderr.decode()
    assert b"demo player demo-alice: EUR 100000" in stderr


async def test_migrations_are_numbered_in_order_and_rerun_as_no_ops(
    sandbox_wallet_database_url: str,
) -> None:
    # Numbers rise and are unique; gaps are allowed (as in the journal's set: ranges of numbers
    # are handed to work done side by side, so two branches never take the same one).
    versions = [m.version for m in migrations()]
    assert versions[0] == 1 and versions == sorted(set(versions))
    assert await migrate(sandbox_wallet_database_url) == []



async def test_a_call_for_another_operator_is_refused_and_moves_nothing(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    """A sandbox wallet serves one operator: the same player id at another operator is another
    player, so a call naming another operator (or none) must never touch this ledger."""
    for other in ("other-operator", ""):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await sandbox_wallet.wallet.Debit(
                debit("t-other", 500, operator_id=other), metadata=AUTH
            )
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert await balance_of(sandbox_wallet) == 100_000
    done = await sandbox_wallet.wallet.Debit(debit("t-own", 500), metadata=AUTH)
    assert done.balance == 99_500
    listed = await sandbox_wallet.control.ListTransactions(
        sandbox_pb2.ListTransactionsRequest(player_id=ALICE), metadata=AUTH
    )
    assert [(t.operator_id, t.brand_id) for t in listed.transactions] == [
        ("dev-operator", "demo-casino")
    ]
