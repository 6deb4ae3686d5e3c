"""The :class:`~rgs.wallet.port.Wallet` port over an HTTP/JSON seamless wallet with signed calls.

For operators without gRPC. The contract mirrors ``rgs.wallet.v1`` (the reference):

- ``POST {base}/balance|debit|credit|rollback`` with a JSON object body whose fields are the
  gRPC request's fields (``operator_id``, ``brand_id``, ``transaction_id``, ``round_id``,
  ``player_id``, ``session_id``, ``currency``, ``amount``, ``round_closed``,
  ``debit_transaction_id``);
- every request is signed: header :data:`TIMESTAMP_HEADER` holds the Unix time in seconds and
  :data:`SIGNATURE_HEADER` the lowercase hex HMAC-SHA256, under the shared secret, of
  ``"{timestamp}\nPOST {path}\n"`` followed by the exact body bytes (:func:`sign_request`): a
  captured debit cannot be posted to ``/credit``, nor replayed outside the wallet's time window;
- every answer is signed: :data:`SIGNATURE_HEADER` over ``"{request signature}\n{status}\n"``
  and the exact answer bytes (:func:`sign_answer`), which binds the answer to its request. An
  answer whose signature does not verify is not trusted: its outcome is unknown;
- ``200`` answers ``{"transaction_id": ..., "balance": n}`` (``{"balance": n}`` for balance);
  a refusal answers a ``4xx`` with ``{"error": {"reason": "INSUFFICIENT_FUNDS", "message": ...,
  "balance": n}}`` using the ``rgs.wallet.v1.ErrorReason`` names without their prefix;
  ``5xx``, ``429``, reason ``WALLET_UNAVAILABLE``, timeouts and transport errors mean the
  outcome is unknown.

The client is ``httpx.AsyncClient``, one per operator: a pool of kept-alive connections (no TCP
and TLS handshake per call), HTTP/2 when the wallet offers it over TLS, chunked or sized
answers alike; the whole exchange has one deadline.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from rgs.wallet.port import (
    MoneyCall,
    MoneyKind,
    MoneyResult,
    Party,
    WalletRefused,
    WalletUnavailable,
)

SIGNATURE_HEADER = "X-Rgs-Signature"
"""Header carrying the hex HMAC-SHA256 signature, on requests and answers."""
TIMESTAMP_HEADER = "X-Rgs-Timestamp"
"""Header carrying the request's Unix time in seconds (signed with it)."""

#: Reasons the wallet contract calls retryable: the outcome of the call is unknown.
_RETRYABLE_REASONS = frozenset({"WALLET_UNAVAILABLE"})
#: Largest response body read (a wallet answer is a few hundred bytes).
_MAX_BODY = 1 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpWalletSettings:
    """Where the HTTP wallet is and how requests are signed."""

    #: Base URL, e.g. ``https://wallet.operator.example/rgs`` (``http`` only where allowed).
    url: str
    hmac_secret: str
    timeout_s: float = 5.0
    #: PEM CA bundle verifying an ``https`` wallet; None uses the system's trust store.
    tls_ca_file: Path | None = None
    #: Connections kept to the wallet at most (the operator's bulkhead bounds calls anyway).
    max_connections: int = 64


def sign(secret: str, data: bytes) -> str:
    """The hex HMAC-SHA256 of ``data`` under ``secret``."""
    return hmac.new(secret.encode(), data, hashlib.sha256).hexdigest()


def sign_request(secret: str, method: str, path: str, timestamp: str, body: bytes) -> str:
    """A request's signature: over the timestamp, the method and path, and the body bytes.

    >>> sign_request("s" * 16, "POST", "/rgs/debit", "1764460800", b"{}")[:16]
    '58bb753063aac447'
    """
    return sign(secret, f"{timestamp}\n{method} {path}\n".encode() + body)


def sign_answer(secret: str, request_signature: str, status: int, body: bytes) -> str:
    """An answer's signature: over the request's signature, the status and the body bytes."""
    return sign(secret, f"{request_signature}\n{status}\n".encode() + body)


class _Unclear(Exception):
    """A call whose outcome is unknown (translated to WalletUnavailable at the edge)."""


class HttpWallet:
    """Calls an operator wallet speaking the signed HTTP/JSON contract above."""

    def __init__(self, settings: HttpWalletSettings, *,
                 clock: Any = time.time) -> None:
        parts = urlsplit(settings.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("wallet URL must be http(s)://host[:port][/path]")
        self._settings = settings
        self._clock = clock
        self._base = settings.url.rstrip("/")
        self._path = parts.path.rstrip("/")
        verify: ssl.SSLContext | bool = True
        if parts.scheme == "https":
            verify = ssl.create_default_context(
                cafile=str(settings.tls_ca_file) if settings.tls_ca_file else None)
        self._client = httpx.AsyncClient(
            http2=True, verify=verify, trust_env=False, follow_redirects=False,
            timeout=httpx.Timeout(settings.timeout_s),
            limits=httpx.Limits(max_connections=settings.max_connections,
                                max_keepalive_connections=settings.max_connections,
                                keepalive_expiry=30.0))

    async def close(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()

    async def balance(self, party: Party) -> int:
        """The player's balance in minor units."""
        answer = await self._post("balance", {
            "operator_id": party.operator_id, "brand_id": party.brand_id,
            "player_id": party.player_id, "session_id": party.session_id,
            "currency": party.currency})
        return _int(answer, "balance")

    async def move(self, call: MoneyCall) -> MoneyResult:
        """Send a debit, credit or rollback."""
        p = call.party
        body: dict[str, Any] = {
            "operator_id": p.operator_id, "brand_id": p.brand_id,
            "transaction_id": call.transaction_id, "round_id": call.round_id,
            "player_id": p.player_id, "session_id": p.session_id, "currency": p.currency,
            "amount": call.amount}
        if call.kind is MoneyKind.CREDIT:
            body["round_closed"] = call.round_closed
            if call.promotional:  # sent only when true: other credits are as before
                body["promotional"] = True
        if call.kind is MoneyKind.ROLLBACK:
            body["debit_transaction_id"] = call.debit_transaction_id
        answer = await self._post(call.kind.value, body)
        return MoneyResult(transaction_id=str(answer.get("transaction_id", call.transaction_id)),
                           balance=_int(answer, "balance"),
                           wallet_reference=str(answer.get("wallet_transaction_id") or ""))

    async def _post(self, method: str, payload: dict[str, Any]) -> dict[str, Any]:
        """POST one signed call; translate every failure once, here."""
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        path = f"{self._path}/{method}"
        stamp = str(int(self._clock()))
        signature = sign_request(self._settings.hmac_secret, "POST", path, stamp, body)
        # identity: the answer's signature is over the bytes as sent, so none are recoded.
        headers = {"Content-Type": "application/json", "Accept-Encoding": "identity",
                   TIMESTAMP_HEADER: stamp, SIGNATURE_HEADER: signature}
        try:
            status, answer_headers, raw = await asyncio.wait_for(
                self._exchange(f"{self._base}/{method}", body, headers),
                timeout=self._settings.timeout_s)
        except TimeoutError as exc:
            raise WalletUnavailable(f"wallet: {method} timed out") from exc
        except Exception as exc:  # the edge: any transport failure is an unknown outcome
            raise WalletUnavailable(f"wallet: {method}: {type(exc).__name__}: "
                                    f"{str(exc)[:200]}") from exc
        if not hmac.compare_digest(
                answer_headers.get(SIGNATURE_HEADER.lower(), ""),
                sign_answer(self._settings.hmac_secret, signature, status, raw)):
            # Anyone could have produced an unsigned answer: its outcome is not known.
            raise WalletUnavailable(f"wallet: {method} answer {status} has a bad signature")
        try:
            answer = json.loads(raw) if raw else {}
        except ValueError as exc:
            raise WalletUnavailable(f"wallet: {method} answer is not JSON") from exc
        if not isinstance(answer, dict):
            raise WalletUnavailable(f"wallet: {method} answer is not a JSON object")
        if status == 200:
            return answer
        error = answer.get("error")
        reason = str(error.get("reason", "")) if isinstance(error, dict) else ""
        if status >= 500 or status == 429 or not reason or reason in _RETRYABLE_REASONS:
            raise WalletUnavailable(f"wallet: {method} answered {status} {reason[:64]}".strip())
        assert isinstance(error, dict)
        balance = error.get("balance")
        raise WalletRefused(f"wallet refused: {reason[:64]}: {str(error.get('message', ''))[:200]}",
                            reason=reason[:64],
                            balance=balance if isinstance(balance, int) else None)

    async def _exchange(self, url: str, body: bytes, headers: dict[str, str]
                        ) -> tuple[int, httpx.Headers, bytes]:
        async with self._client.stream("POST", url, content=body, headers=headers) as resp:
            raw = bytearray()
            async for chunk in resp.aiter_raw():
                raw += chunk
                if len(raw) > _MAX_BODY:
                    raise _Unclear("answer too large")
            return resp.status_code, resp.headers, bytes(raw)


def _int(answer: dict[str, Any], key: str) -> int:
    value = answer.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise WalletUnavailable(f"wallet answer lacks an integer {key!r}")
    return value
