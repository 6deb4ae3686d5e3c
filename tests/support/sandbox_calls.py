"""Calls on the sandbox wallet for its tests (tests/integration/test_sandbox_wallet*.py): wallet
requests for a demo player (debit, credit, rollback with the usual round, session, operator and
brand), a player's balance and transactions read through the control service, a call's refusal
decoded, and a wallet fault switched on.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from rgs.generated.wallet.v1 import wallet_pb2
from sandbox_wallet import status
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.sandbox import AUTH, SandboxWalletClient

ALICE = "demo-alice"
BOB = "demo-bob"


def _fields(txn: str, amount: int, player: str, **kw: Any) -> dict[str, Any]:
    """What every money call carries (round, session, currency, operator, brand), ``kw`` on
    top."""
    return {"transaction_id": txn, "round_id": "round-1", "player_id": player,
            "session_id": "session-1", "currency": "EUR", "amount": amount,
            "operator_id": "dev-operator", "brand_id": "demo-casino", **kw}


def debit(txn: str, amount: int, *, player: str = ALICE, **kw: Any) -> wallet_pb2.DebitRequest:
    return wallet_pb2.DebitRequest(**_fields(txn, amount, player, **kw))


def credit(
    txn: str, amount: int, *, player: str = ALICE, round_closed: bool = False, **kw: Any
) -> wallet_pb2.CreditRequest:
    return wallet_pb2.CreditRequest(**_fields(txn, amount, player, round_closed=round_closed,
                                              **kw))


def rollback(
    txn: str, debit_txn: str, amount: int, *, player: str = ALICE, **kw: Any
) -> wallet_pb2.RollbackRequest:
    return wallet_pb2.RollbackRequest(**_fields(txn, amount, player,
                                                debit_transaction_id=debit_txn, **kw))


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

