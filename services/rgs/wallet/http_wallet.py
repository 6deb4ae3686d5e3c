"""The :class:`~rgs.wallet.port.Wallet` port over an HTTP/JSON seamless wallet with signed bodies.

For operators without gRPC. The contract mirrors ``rgs.wallet.v1`` (the reference):

- ``POST {base}/balance|debit|credit|rollback`` with a JSON object body whose fields are the
  gRPC request's fields (``transaction_id``, ``round_id``, ``player_id``, ``session_id``,
  ``currency``, ``amount``, ``round_closed``, ``debit_transaction_id``);
- every request body and every response body is signed: header :data:`SIGNATURE_HEADER` holds
  the lowercase hex HMAC-SHA256 of the exact body bytes under the shared secret. A response
  whose signature does not verify is not trusted: its outcome is unknown;
- ``200`` answers ``{"transaction_id": ..., "balance": n}`` (``{"balance": n}`` for balance);
  a refusal answers a ``4xx`` with ``{"error": {"reason": "INSUFFICIENT_FUNDS", "message": ...,
  "balance": n}}`` using the ``rgs.wallet.v1.ErrorReason`` names without their prefix;
  ``5xx``, ``429``, reason ``WALLET_UNAVAILABLE``, timeouts and transport errors mean the
  outcome is unknown.

The client is a small HTTP/1.1 client on asyncio streams (one connection per call, closed by
the request's ``Connection: close``): the project has no HTTP client dependency, and a wallet
call needs nothing more than one POST with a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rgs.wallet.port import (
    MoneyCall,
    MoneyKind,
    MoneyResult,
    Party,
    WalletRefused,
    WalletUnavailable,
)

SIGNATURE_HEADER = "X-Rgs-Signature"
"""Header carrying the hex HMAC-SHA256 of the body, on requests and responses."""

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


def sign(secret: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of ``body`` under ``secret`` (what :data:`SIGNATURE_HEADER` holds)."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class _Unclear(Exception):
    """A call whose outcome is unknown (translated to WalletUnavailable at the edge)."""


class HttpWallet:
    """Calls an operator wallet speaking the signed HTTP/JSON contract above."""

    def __init__(self, settings: HttpWalletSettings) -> None:
        parts = urlsplit(settings.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"wallet URL must be http(s)://host[:port][/path]: {settings.url}")
        self._settings = settings
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._path = parts.path.rstrip("/")
        self._ssl: ssl.SSLContext | None = None
        if parts.scheme == "https":
            self._ssl = ssl.create_default_context(
                cafile=str(settings.tls_ca_file) if settings.tls_ca_file else None)

    async def close(self) -> None:
        """Nothing to close: every call uses its own connection."""

    async def balance(self, party: Party) -> int:
        """The player's balance in minor units."""
        answer = await self._post("balance", {
            "player_id": party.player_id, "session_id": party.session_id,
            "currency": party.currency})
        return _int(answer, "balance")

    async def move(self, call: MoneyCall) -> MoneyResult:
        """Send a debit, credit or rollback."""
        p = call.party
        body: dict[str, Any] = {
            "transaction_id": call.transaction_id, "round_id": call.round_id,
            "player_id": p.player_id, "session_id": p.session_id, "currency": p.currency,
            "amount": call.amount}
        if call.kind is MoneyKind.CREDIT:
            body["round_closed"] = call.round_closed
        if call.kind is MoneyKind.ROLLBACK:
            body["debit_transaction_id"] = call.debit_transaction_id
        answer = await self._post(call.kind.value, body)
        return MoneyResult(transaction_id=str(answer.get("transaction_id", call.transaction_id)),
                           balance=_int(answer, "balance"))

    async def _post(self, method: str, payload: dict[str, Any]) -> dict[str, Any]:
        """POST one signed call; translate every failure once, here."""
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        try:
            status, headers, raw = await asyncio.wait_for(
                self._exchange(method, body), timeout=self._settings.timeout_s)
        except TimeoutError as exc:
            raise WalletUnavailable(f"wallet: {method} timed out") from exc
        except (OSError, _Unclear, asyncio.IncompleteReadError, ValueError) as exc:
            raise WalletUnavailable(f"wallet: {method}: {exc}") from exc
        if not hmac.compare_digest(headers.get(SIGNATURE_HEADER.lower(), ""),
                                   sign(self._settings.hmac_secret, raw)):
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
            raise WalletUnavailable(f"wallet: {method} answered {status} {reason}".strip())
        assert isinstance(error, dict)
        balance = error.get("balance")
        raise WalletRefused(f"wallet refused: {reason}: {error.get('message', '')}",
                            reason=reason,
                            balance=balance if isinstance(balance, int) else None)

    async def _exchange(self, method: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        reader, writer = await asyncio.open_connection(
            self._host, self._port, ssl=self._ssl,
            server_hostname=self._host if self._ssl else None)
        try:
            head = (f"POST {self._path}/{method} HTTP/1.1\r\n"
                    f"Host: {self._host}:{self._port}\r\n"
                    "Content-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n"
                    f"{SIGNATURE_HEADER}: {sign(self._settings.hmac_secret, body)}\r\n"
                    "Connection: close\r\n\r\n")
            writer.write(head.encode("ascii") + body)
            await writer.drain()
            status_line = (await reader.readline()).decode("latin-1")
            parts = status_line.split(" ", 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
                raise _Unclear(f"not an HTTP answer: {status_line[:80]!r}")
            status = int(parts[1])
            headers: dict[str, str] = {}
            while True:
                line = (await reader.readline()).decode("latin-1")
                if line in ("\r\n", "\n", ""):
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            if "chunked" in headers.get("transfer-encoding", "").lower():
                raise _Unclear("chunked answers are not supported")
            length = headers.get("content-length")
            if length is not None:
                if int(length) > _MAX_BODY:
                    raise _Unclear("answer too large")
                raw = await reader.readexactly(int(length))
            else:
                raw = await reader.read(_MAX_BODY)
            return status, headers, raw
        finally:
            writer.close()
            # The answer is already read; an error while closing changes nothing.
            with contextlib.suppress(OSError, ssl.SSLError):
                await writer.wait_closed()


def _int(answer: dict[str, Any], key: str) -> int:
    value = answer.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise WalletUnavailable(f"wallet answer lacks an integer {key!r}")
    return value
