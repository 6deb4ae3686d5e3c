"""grpc.aio servicers: the wallet itself and the sandbox control service.

Methods are a few lines each: convert, call the ledger (under fault injection for wallet calls),
convert back. Refusals are translated to statuses once, in :func:`_answer`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

import asyncpg
import grpc

from rgs.generated.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from sandbox_wallet import converters as cv
from sandbox_wallet import status
from sandbox_wallet.domain import BalanceQuery, MoneyCall
from sandbox_wallet.errors import Reason, WalletRefusal
from sandbox_wallet.faults import FaultBoard, Method, run_with_fault
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from sandbox_wallet.ledger import PlayerAdmin, PostgresLedger

T = TypeVar("T")
Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"

# Database trouble means the wallet cannot say what happened: a retryable answer, never UNKNOWN.
_UNAVAILABLE = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError)


async def _answer(context: Context, work: Callable[[], Awaitable[T]]) -> T:
    try:
        try:
            return await work()
        except _UNAVAILABLE as exc:
            raise WalletRefusal(Reason.WALLET_UNAVAILABLE, f"wallet storage failed: {exc}") from exc
    except WalletRefusal as refusal:
        encoded = status.encode(refusal)
        await context.abort(
            encoded.code, encoded.message, trailing_metadata=encoded.trailing_metadata
        )


class WalletServicer(wallet_pb2_grpc.WalletServiceServicer):
    """``rgs.wallet.v1.WalletService`` backed by the PostgreSQL ledger, with fault injection."""

    def __init__(self, ledger: PostgresLedger, faults: FaultBoard, operator_id: str) -> None:
        self._ledger = ledger
        self._faults = faults
        self._operator_id = operator_id

    async def _faulted(
        self,
        context: Context,
        method: Method,
        call: MoneyCall | BalanceQuery,
        apply: Callable[[], Awaitable[T]],
    ) -> T:
        async def work() -> T:
            if call.operator_id != self._operator_id:
                # Another operator's call (or one that names none) must never touch this
                # operator's players, whatever the player id.
                raise WalletRefusal(
                    Reason.INVALID_REQUEST,
                    f"this wallet serves operator {self._operator_id}, not "
                    f"{call.operator_id[:64]!r}",
                )
            rule = self._faults.draw(method, call.player_id)
            return await run_with_fault(rule, apply, time_remaining=context.time_remaining())

        return await _answer(context, work)

    async def Balance(
        self, request: wallet_pb2.BalanceRequest, context: Context
    ) -> wallet_pb2.BalanceResponse:
        """Read the player's balance."""
        query = cv.balance_query(request)
        account = await self._faulted(
            context, Method.BALANCE, query, lambda: self._ledger.balance(query)
        )
        return cv.balance_response(account)

    async def Debit(
        self, request: wallet_pb2.DebitRequest, context: Context
    ) -> wallet_pb2.DebitResponse:
        """Take a stake (idempotent per transaction id)."""
        call = cv.debit_call(request)
        movement = await self._faulted(
            context, Method.DEBIT, call, lambda: self._ledger.apply(call)
        )
        return cv.debit_response(movement)

    async def Credit(
        self, request: wallet_pb2.CreditRequest, context: Context
    ) -> wallet_pb2.CreditResponse:
        """Pay a win or close a round (idempotent per transaction id)."""
        call = cv.credit_call(request)
        movement = await self._faulted(
            context, Method.CREDIT, call, lambda: self._ledger.apply(call)
        )
        return cv.credit_response(movement)

    async def Rollback(
        self, request: wallet_pb2.RollbackRequest, context: Context
    ) -> wallet_pb2.RollbackResponse:
        """Cancel a debit, seen or not (idempotent per transaction id)."""
        call = cv.rollback_call(request)
        movement = await self._faulted(
            context, Method.ROLLBACK, call, lambda: self._ledger.apply(call)
        )
        return cv.rollback_response(movement)


class ControlServicer(sandbox_pb2_grpc.SandboxControlServiceServicer):
    """``rgs.sandbox.v1.SandboxControlService``: faults and demo players."""

    def __init__(self, admin: PlayerAdmin, faults: FaultBoard) -> None:
        self._admin = admin
        self._faults = faults

    async def SetFault(
        self, request: sandbox_pb2.SetFaultRequest, context: Context
    ) -> sandbox_pb2.SetFaultResponse:
        """Install a fault rule."""

        async def work() -> sandbox_pb2.SetFaultResponse:
            rule = self._faults.add(cv.fault_rule(request.fault))
            return sandbox_pb2.SetFaultResponse(fault=cv.fault_message(rule))

        return await _answer(context, work)

    async def ClearFaults(
        self, request: sandbox_pb2.ClearFaultsRequest, context: Context
    ) -> sandbox_pb2.ClearFaultsResponse:
        """Remove every fault rule."""
        return sandbox_pb2.ClearFaultsResponse(cleared=self._faults.clear())

    async def ListFaults(
        self, request: sandbox_pb2.ListFaultsRequest, context: Context
    ) -> sandbox_pb2.ListFaultsResponse:
        """List the fault rules."""
        return sandbox_pb2.ListFaultsResponse(
            faults=[cv.fault_message(r) for r in self._faults.rules()]
        )

    async def CreatePlayer(
        self, request: sandbox_pb2.CreatePlayerRequest, context: Context
    ) -> sandbox_pb2.CreatePlayerResponse:
        """Create or reset a player."""
        account = await _answer(
            context, lambda: self._admin.create(cv.player_account(request.player))
        )
        return sandbox_pb2.CreatePlayerResponse(player=cv.player_message(account))

    async def FundPlayer(
        self, request: sandbox_pb2.FundPlayerRequest, context: Context
    ) -> sandbox_pb2.FundPlayerResponse:
        """Add to or take from a balance."""
        account = await _answer(
            context, lambda: self._admin.fund(request.player_id, request.amount)
        )
        return sandbox_pb2.FundPlayerResponse(player=cv.player_message(account))

    async def BlockPlayer(
        self, request: sandbox_pb2.BlockPlayerRequest, context: Context
    ) -> sandbox_pb2.BlockPlayerResponse:
        """Block or unblock a player."""
        account = await _answer(
            context, lambda: self._admin.block(request.player_id, blocked=request.blocked)
        )
        return sandbox_pb2.BlockPlayerResponse(player=cv.player_message(account))

    async def ExpireSession(
        self, request: sandbox_pb2.ExpireSessionRequest, context: Context
    ) -> sandbox_pb2.ExpireSessionResponse:
        """Expire a session."""
        await _answer(context, lambda: self._admin.expire_session(request.session_id))
        return sandbox_pb2.ExpireSessionResponse()

    async def GetPlayer(
        self, request: sandbox_pb2.GetPlayerRequest, context: Context
    ) -> sandbox_pb2.GetPlayerResponse:
        """Read a player."""
        account = await _answer(context, lambda: self._admin.get(request.player_id))
        return sandbox_pb2.GetPlayerResponse(player=cv.player_message(account))

    async def ListTransactions(
        self, request: sandbox_pb2.ListTransactionsRequest, context: Context
    ) -> sandbox_pb2.ListTransactionsResponse:
        """List a player's transactions."""
        records = await _answer(context, lambda: self._admin.transactions(request.player_id))
        return sandbox_pb2.ListTransactionsResponse(
            transactions=[cv.transaction_message(r) for r in records]
        )
