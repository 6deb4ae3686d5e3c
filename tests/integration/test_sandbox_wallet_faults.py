"""The sandbox wallet's fault injection over a real gRPC connection and a real PostgreSQL
database: latency, timeouts before and after applying, error answers and duplicate deliveries,
and which calls a fault applies to.

Each test gets its own database (copied from a migrated template) and its own server with the
demo players seeded: demo-alice EUR 1,000.00, demo-bob EUR 250.00, demo-carol-usd USD 500.00,
demo-dave-blocked (blocked), demo-erin-limited (debits above 10.00 refused).
"""

from __future__ import annotations

import asyncio
import random
import time

import grpc
import pytest

from sandbox_wallet.faults import FaultBoard, FaultKind, FaultRule, Method
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
    set_fault,
    transactions_of,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


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
