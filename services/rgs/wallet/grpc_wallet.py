"""The :class:`~rgs.wallet.port.Wallet` port over the ``rgs.wallet.v1`` gRPC contract."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

from rgs.generated.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from rgs.wallet.port import (
    MoneyCall,
    MoneyKind,
    MoneyResult,
    Party,
    WalletRefused,
    WalletUnavailable,
)

_STATUS_DETAILS_KEY = "grpc-status-details-bin"
#: Reasons the wallet contract calls retryable: the outcome of the call is unknown.
_RETRYABLE_REASONS = frozenset({"WALLET_UNAVAILABLE"})


@dataclass(frozen=True, slots=True, kw_only=True)
class GrpcWalletSettings:
    """Where the wallet is and how to reach it."""

    target: str
    api_key: str
    timeout_s: float = 5.0
    #: PEM CA bundle for TLS; None means plaintext (only allowed where the settings allow it).
    tls_ca_file: Path | None = None
    #: Client certificate and key for mutual TLS.
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None


def _channel(settings: GrpcWalletSettings, interceptors: Sequence[Any]) -> grpc.aio.Channel:
    if settings.tls_ca_file is None:
        return grpc.aio.insecure_channel(settings.target, interceptors=interceptors)
    cert = settings.tls_cert_file.read_bytes() if settings.tls_cert_file else None
    key = settings.tls_key_file.read_bytes() if settings.tls_key_file else None
    creds = grpc.ssl_channel_credentials(
        root_certificates=settings.tls_ca_file.read_bytes(), private_key=key,
        certificate_chain=cert)
    return grpc.aio.secure_channel(settings.target, creds, interceptors=interceptors)


def _error_info(err: grpc.aio.AioRpcError) -> tuple[str, int | None]:
    """The ErrorInfo reason and the BalanceDetail balance carried by a refused call."""
    reason, balance = "", None
    trailers: Sequence[Any] = tuple(err.trailing_metadata() or ())
    for key, value in trailers:
        if key != _STATUS_DETAILS_KEY or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                reason = info.reason
            bal = wallet_pb2.BalanceDetail()
            if detail.Unpack(bal):
                balance = bal.balance
    return reason, balance


#: A call's metadata: (key, value) pairs.
Metadata = Sequence[tuple[str, str | bytes]]


class GrpcWallet:
    """Calls an operator wallet that implements ``rgs.wallet.v1.WalletService``.

    ``outgoing`` adds to each call's metadata; bootstrap hands in tracing's
    :func:`~rgs.observability.tracing.inject_metadata`, so every call carries the current W3C
    trace context and the wallet joins the RGS's trace (this adapter knows nothing of tracing).
    A function rather than a channel interceptor: grpc.aio runs an intercepted call through a
    task and call object of its own, some 40-50 µs of CPU per call. ``interceptors`` go on the
    channel.
    """

    def __init__(self, settings: GrpcWalletSettings, *, interceptors: Sequence[Any] = (),
                 outgoing: Callable[[Metadata], Sequence[tuple[str, str | bytes]]] | None = None
                 ) -> None:
        self._settings = settings
        self._channel = _channel(settings, list(interceptors))
        self._stub = wallet_pb2_grpc.WalletServiceStub(self._channel)
        self._metadata: Metadata = (("authorization", f"Bearer {settings.api_key}"),)
        self._outgoing = outgoing

    def _md(self) -> Sequence[tuple[str, str | bytes]]:
        return self._metadata if self._outgoing is None else tuple(self._outgoing(self._metadata))

    async def close(self) -> None:
        """Close the channel."""
        await self._channel.close(None)

    async def balance(self, party: Party) -> int:
        """The player's balance in minor units."""
        req = wallet_pb2.BalanceRequest(
            player_id=party.player_id, session_id=party.session_id, currency=party.currency,
            operator_id=party.operator_id, brand_id=party.brand_id)
        try:
            resp = await self._stub.Balance(req, timeout=self._settings.timeout_s,
                                            metadata=self._md())
        except grpc.aio.AioRpcError as err:
            raise self._translate(err) from err
        return int(resp.balance)

    async def move(self, call: MoneyCall) -> MoneyResult:
        """Send a debit, credit or rollback; translate refusals once, here."""
        p = call.party
        timeout, md = self._settings.timeout_s, self._md()
        try:
            if call.kind is MoneyKind.DEBIT:
                d = await self._stub.Debit(wallet_pb2.DebitRequest(
                    transaction_id=call.transaction_id, round_id=call.round_id,
                    player_id=p.player_id, session_id=p.session_id, currency=p.currency,
                    amount=call.amount, operator_id=p.operator_id, brand_id=p.brand_id),
                    timeout=timeout, metadata=md)
                return MoneyResult(transaction_id=d.transaction_id, balance=int(d.balance),
                                   wallet_reference=d.wallet_transaction_id)
            if call.kind is MoneyKind.CREDIT:
                c = await self._stub.Credit(wallet_pb2.CreditRequest(
                    transaction_id=call.transaction_id, round_id=call.round_id,
                    player_id=p.player_id, session_id=p.session_id, currency=p.currency,
                    amount=call.amount, round_closed=call.round_closed,
                    operator_id=p.operator_id, brand_id=p.brand_id,
                    promotional=call.promotional), timeout=timeout,
                    metadata=md)
                return MoneyResult(transaction_id=c.transaction_id, balance=int(c.balance),
                                   wallet_reference=c.wallet_transaction_id)
            r = await self._stub.Rollback(wallet_pb2.RollbackRequest(
                transaction_id=call.transaction_id,
                debit_transaction_id=call.debit_transaction_id, round_id=call.round_id,
                player_id=p.player_id, session_id=p.session_id, currency=p.currency,
                amount=call.amount, operator_id=p.operator_id, brand_id=p.brand_id),
                timeout=timeout, metadata=md)
            return MoneyResult(transaction_id=r.transaction_id, balance=int(r.balance),
                                   wallet_reference=r.wallet_transaction_id)
        except grpc.aio.AioRpcError as err:
            raise self._translate(err) from err

    @staticmethod
    def _translate(err: grpc.aio.AioRpcError) -> WalletRefused | WalletUnavailable:
        reason, balance = _error_info(err)
        if not reason or reason in _RETRYABLE_REASONS or err.code() in (
                grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
            return WalletUnavailable(f"wallet: {err.code().name} {err.details()}")
        return WalletRefused(f"wallet refused: {reason}: {err.details()}", reason=reason,
                             balance=balance)
