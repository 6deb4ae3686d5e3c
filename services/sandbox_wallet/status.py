"""The one table from refusal reasons to gRPC statuses, and the status details both ways.

A refusal becomes a canonical status code with a ``google.rpc.Status`` in the
``grpc-status-details-bin`` trailer carrying a ``google.rpc.ErrorInfo`` (domain ``rgs.wallet``)
and, for insufficient funds, an ``rgs.wallet.v1.BalanceDetail``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

from rgs.generated.wallet.v1 import wallet_pb2
from sandbox_wallet.errors import Reason, WalletRefusal

DOMAIN = "rgs.wallet"
"""``google.rpc.ErrorInfo.domain`` of every wallet refusal."""

DETAILS_KEY = "grpc-status-details-bin"
"""Trailer that carries the serialised ``google.rpc.Status``."""

STATUS_CODES: dict[Reason, grpc.StatusCode] = {
    Reason.INSUFFICIENT_FUNDS: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.PLAYER_BLOCKED: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.LIMIT_EXCEEDED: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.PLAYER_EXCLUDED: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.REALITY_CHECK_DUE: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.WRONG_CURRENCY: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.BAD_SIGNATURE: grpc.StatusCode.UNAUTHENTICATED,
    Reason.SESSION_EXPIRED: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.DUPLICATE_TRANSACTION: grpc.StatusCode.ALREADY_EXISTS,
    Reason.TRANSACTION_ROLLED_BACK: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.PLAYER_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    Reason.INVALID_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.WALLET_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
}
"""Status code of each refusal reason (as documented in wallet.proto)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EncodedStatus:
    """A refusal ready for ``context.abort``."""

    code: grpc.StatusCode
    message: str
    trailing_metadata: tuple[tuple[str, bytes], ...]


def encode(refusal: WalletRefusal) -> EncodedStatus:
    """Turn a refusal into a status code, message and details trailer."""
    code = STATUS_CODES[refusal.reason]
    status = status_pb2.Status(code=code.value[0], message=refusal.message)
    info = error_details_pb2.ErrorInfo(reason=refusal.reason.value, domain=DOMAIN)
    status.details.add().Pack(info)
    if refusal.balance is not None:
        status.details.add().Pack(
            wallet_pb2.BalanceDetail(balance=refusal.balance, currency=refusal.currency or "")
        )
    return EncodedStatus(
        code=code,
        message=refusal.message,
        trailing_metadata=((DETAILS_KEY, status.SerializeToString()),),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodedRefusal:
    """What a caller reads out of a failed wallet call."""

    code: grpc.StatusCode
    reason: str
    """ErrorInfo reason, or "" when the status carried none (then the failure is retryable)."""
    balance: int | None = None
    currency: str | None = None


def decode(error: grpc.aio.AioRpcError) -> DecodedRefusal:
    """Read the ErrorInfo reason and any BalanceDetail out of a failed call's trailers."""
    reason = ""
    balance: int | None = None
    currency: str | None = None
    trailers: Any = error.trailing_metadata() or ()
    for key, value in trailers:
        if key != DETAILS_KEY or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            funds = wallet_pb2.BalanceDetail()
            if detail.Unpack(info) and info.domain == DOMAIN:
                reason = info.reason
            elif detail.Unpack(funds):
                balance, currency = funds.balance, funds.currency
    return DecodedRefusal(code=error.code(), reason=reason, balance=balance, currency=currency)
