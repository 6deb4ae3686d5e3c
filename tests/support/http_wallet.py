"""A real HTTP/JSON seamless wallet for tests and benchmarks: an ASGI app served by hypercorn,
so it keeps connections alive, answers chunked (as many web frameworks do) and offers HTTP/2
over TLS.

It speaks the signed contract of :mod:`rgs.wallet.http_wallet` with the wallet contract's replay
rules: the same transaction id with the same parameters returns the original result, with other
parameters is refused ``DUPLICATE_TRANSACTION``; a rollback of a debit never seen succeeds and
blocks that debit. Tests can make the next calls fail (``fail_next``), stall them, or tamper with
signatures. ``legacy_signatures`` also accepts the body-only signature of the first contract (the
benchmark measures the old client with it).
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypercorn.asyncio import serve
from hypercorn.config import Config

from rgs.wallet.http_wallet import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    sign,
    sign_answer,
    sign_request,
)


@dataclass
class HttpWalletState:
    """Balances, applied transactions and switches."""

    secret: str
    balances: dict[str, int] = field(default_factory=dict)
    #: transaction id -> (method, request body, answer)
    applied: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    #: Debits blocked by a rollback that came first.
    blocked: set[str] = field(default_factory=set)
    #: Statuses to answer for the next calls (e.g. 503), before applying anything.
    fail_next: list[int] = field(default_factory=list)
    #: Seconds to stall the next call before answering (a slow wallet).
    delay_next_s: float = 0.0
    #: Seconds to stall every call (a stalled wallet).
    delay_all_s: float = 0.0
    #: Answer with a wrong signature (the client must not trust it).
    tamper_answers: bool = False
    #: Answer chunked (no Content-Length), in several pieces.
    chunked: bool = True
    #: Accept the first contract's body-only signatures too (for the benchmark).
    legacy_signatures: bool = False
    #: A final refusal (the reason) of every debit of a player: the wallet's word on them.
    refuse_debits: dict[str, str] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: HTTP versions and client ports seen, to tell kept-alive connections from new ones.
    http_versions: list[str] = field(default_factory=list)
    client_ports: list[int] = field(default_factory=list)

    def handle(self, method: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Apply one call; return (status, answer)."""
        self.requests.append((method, body))
        if self.fail_next:
            status = self.fail_next.pop(0)
            return status, {"error": {"reason": "WALLET_UNAVAILABLE", "message": "down"}}
        pid = body.get("player_id", "")
        if pid not in self.balances:
            return 404, _error("PLAYER_NOT_FOUND")
        if method == "balance":
            return 200, {"balance": self.balances[pid]}
        txn = body["transaction_id"]
        old = self.applied.get(txn)
        if old is not None:
            if (old[0], old[1]) != (method, body):
                return 409, _error("DUPLICATE_TRANSACTION")
            return 200, old[2]
        amount = int(body["amount"])
        if method == "debit" and pid in self.refuse_debits:
            return 403, _error(self.refuse_debits[pid])
        if method == "debit":
            if txn in self.blocked:
                return 409, _error("TRANSACTION_ROLLED_BACK")
            if self.balances[pid] < amount:
                return 402, _error("INSUFFICIENT_FUNDS", balance=self.balances[pid])
            self.balances[pid] -= amount
        elif method == "credit":
            self.balances[pid] += amount
        elif method == "rollback":
            debit = self.applied.get(body["debit_transaction_id"])
            if debit is None:
                self.blocked.add(body["debit_transaction_id"])
            else:
                self.balances[pid] += int(debit[1]["amount"])
        else:
            return 404, _error("INVALID_REQUEST")
        answer = {"transaction_id": txn, "wallet_transaction_id": f"hw-{len(self.applied) + 1}",
                  "balance": self.balances[pid]}
        self.applied[txn] = (method, body, answer)
        return 200, answer


def _error(reason: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"reason": reason, "message": reason.lower(), **extra}}


Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def wallet_app(state: HttpWalletState) -> Callable[[dict[str, Any], Receive, Send],
                                                     Awaitable[None]]:
    """The ASGI app serving ``state``."""

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                kind = (await receive())["type"]
                await send({"type": f"{kind}.complete"})
                if kind == "lifespan.shutdown":
                    return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        state.http_versions.append(str(scope.get("http_version")))
        client = scope.get("client")
        state.client_ports.append(int(client[1]) if client else 0)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        delay, state.delay_next_s = state.delay_next_s + state.delay_all_s, 0.0
        if delay:
            await asyncio.sleep(delay)
        path = scope["path"]
        stamp = headers.get(TIMESTAMP_HEADER.lower(), "")
        presented = headers.get(SIGNATURE_HEADER.lower(), "")
        expected = sign_request(state.secret, "POST", path, stamp, raw)
        legacy = state.legacy_signatures and not stamp
        if legacy:
            expected = sign(state.secret, raw)
        if not hmac.compare_digest(presented, expected):
            status, answer = 401, _error("BAD_SIGNATURE")
        else:
            status, answer = state.handle(path.rsplit("/", 1)[-1], json.loads(raw))
        out = json.dumps(answer).encode()
        secret = state.secret + ("x" if state.tamper_answers else "")
        signature = sign(secret, out) if legacy else sign_answer(secret, presented, status, out)
        response_headers = [(b"content-type", b"application/json"),
                            (SIGNATURE_HEADER.lower().encode(), signature.encode())]
        if not state.chunked:
            response_headers.append((b"content-length", str(len(out)).encode()))
        await send({"type": "http.response.start", "status": status,
                    "headers": response_headers})
        if state.chunked:
            half = len(out) // 2
            await send({"type": "http.response.body", "body": out[:half], "more_body": True})
            await send({"type": "http.response.body", "body": out[half:]})
        else:
            await send({"type": "http.response.body", "body": out})

    return app


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@asynccontextmanager
async def http_wallet_server(state: HttpWalletState, tls: tuple[Path, Path] | None = None
                             ) -> AsyncIterator[str]:
    """Serve ``state`` with hypercorn on a loopback port (over TLS with ``(cert, key)``, which
    offers HTTP/2); yield the base URL."""
    config = Config()
    port = free_port()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = None
    config.errorlog = None
    config.keep_alive_timeout = 30
    if tls is not None:
        config.certfile, config.keyfile = str(tls[0]), str(tls[1])
    stop = asyncio.Event()
    task = asyncio.create_task(serve(wallet_app(state), config,  # type: ignore[arg-type]
                                     shutdown_trigger=stop.wait))
    await _listening(port, task)
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}/wallet"
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def _listening(port: int, task: asyncio.Task[None]) -> None:
    for _ in range(200):
        if task.done():
            task.result()
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.02)
            continue
        writer.close()
        return
    raise RuntimeError(f"the test wallet did not listen on {port}")
