"""The sandbox wallet over a real gRPC connection and a real PostgreSQL database: amounts to the
cent, the replay rules of a transaction id, and concurrent calls applied once.

Each test gets its own database (copied from a migrated template) and its own server with the
demo players seeded: demo-alice EUR 1,000.00, demo-bob EUR 250.00, demo-carol-usd USD 500.00,
demo-dave-blocked (blocked), demo-erin-limited (debits above 10.00 refused).

Its final refusals are in test_sandbox_wallet_refusals.py, its fault injection in
test_sandbox_wallet_faults.py, its control service and server in test_sandbox_wallet_server.py;
the calls they share in tests/support/sandbox_calls.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from rgs.generated.wallet.v1 import wallet_pb2
from sandbox_wallet import status
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.sandbox import AUTH, SandboxWalletClient
from support.sandbox_calls import (
    ALICE,
    BOB,
    balance_of,
    credit,
    debit,
    refused,
    rollback,
    transactions_of,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


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
