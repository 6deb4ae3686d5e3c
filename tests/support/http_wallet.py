"""A small real HTTP/JSON seamless wallet for tests (stdlib ``http.server`` in a thread).

It speaks the signed contract of :mod:`rgs.wallet.http_wallet` with the wallet contract's replay
rules: the same transaction id with the same parameters returns the original result, with other
parameters is refused ``DUPLICATE_TRANSACTION``; a rollback of a debit never seen succeeds and
blocks that debit. Tests can make the next calls fail (``fail_next``) or tamper with signatures.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rgs.wallet.http_wallet import SIGNATURE_HEADER, sign


@dataclass
class HttpWalletState:
    """Balances, applied transactions and switches, shared with the server thread."""

    secret: str
    balances: dict[str, int] = field(default_factory=dict)
    #: transaction id -> (method, request body without signature-irrelevant fields, answer)
    applied: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    #: Debits blocked by a rollback that came first.
    blocked: set[str] = field(default_factory=set)
    #: Statuses to answer for the next calls (e.g. 503), before applying anything.
    fail_next: list[int] = field(default_factory=list)
    #: Seconds to stall the next call before answering (a slow wallet).
    delay_next_s: float = 0.0
    #: Answer with a wrong signature (the client must not trust it).
    tamper_answers: bool = False
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, method: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Apply one call; return (status, answer)."""
        with self.lock:
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
            answer = {"transaction_id": txn, "balance": self.balances[pid]}
            self.applied[txn] = (method, body, answer)
            return 200, answer


def _error(reason: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"reason": reason, "message": reason.lower(), **extra}}


def _handler(state: HttpWalletState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if state.delay_next_s:
                delay, state.delay_next_s = state.delay_next_s, 0.0
                time.sleep(delay)
            if self.headers.get(SIGNATURE_HEADER, "") != sign(state.secret, raw):
                status, answer = 401, _error("BAD_SIGNATURE")
            else:
                status, answer = state.handle(self.path.rsplit("/", 1)[-1], json.loads(raw))
            out = json.dumps(answer).encode()
            signature = sign(state.secret + ("x" if state.tamper_answers else ""), out)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.send_header(SIGNATURE_HEADER, signature)
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests print what matters."""

    return Handler


@contextmanager
def http_wallet_server(state: HttpWalletState,
                       tls: tuple[Path, Path] | None = None) -> Iterator[str]:
    """Serve ``state`` on a loopback port in a thread (over TLS with ``(cert, key)``); yield
    the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    scheme = "http"
    if tls is not None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(tls[0]), str(tls[1]))
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}/wallet"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
