"""The browser edge's ASGI application: CORS, the Connect services (the player service and,
when the replica has shared tables, the table service), the reference web table.

CORS follows :mod:`rgs.api.origins`: a preflight from an origin that some brand allows is
answered (and any other refused with 403), a cross-origin call from such an origin gets the
CORS headers, and the use case then refuses it unless the session's own brand allows the origin.
A page the edge served itself (same origin: the reference web table) needs no brand's consent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from rgs.api.browser_edge.connect import (
    SERVICE,
    TABLE_SERVICE,
    ConnectApp,
    Receive,
    Scope,
    Send,
)
from rgs.api.browser_edge.connect import header as _header
from rgs.api.browser_edge.replay import MAX_BODY, REPLAY_FILES, ROUND_PATH, ReplayEndpoint
from rgs.api.calls import BlackjackCalls
from rgs.api.drain import CallsInFlight
from rgs.api.origins import any_brand_allows
from rgs.api.tables import TableCalls
from rgs.service.model import Brand
from rgs.service.replay import RoundReplays
from rgs.variants import VARIANTS
from rgs.variants.catalogue import thumbnail_file, thumbnail_url

#: Request headers a browser client may send (connect-web and grpc-web clients use these).
ALLOWED_HEADERS = ("authorization", "content-type", "connect-protocol-version",
                   "connect-timeout-ms", "grpc-timeout", "x-grpc-web", "x-user-agent",
                   "traceparent", "tracestate")
#: Response headers a cross-origin page may read (gRPC-Web carries its status in them).
EXPOSED_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin")
#: How long a browser may cache a preflight answer, in seconds.
PREFLIGHT_MAX_AGE = 7200

#: The reference web table's files: URL path → (file name, content type).
STATIC_FILES: Mapping[str, tuple[str, str]] = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    # A lobby's catalogue (ListVariants, ListTables): each variant's thumbnail.
    **{thumbnail_url(v): (thumbnail_file(v), "image/svg+xml") for v in VARIANTS},
}
#: The web table loads only its own files and calls only its own origin.
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; "
                           "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                           "form-action 'none'; frame-ancestors 'none'")


def content_security_policy(brands: Iterable[Brand]) -> str:
    """The web table's policy: the casinos' pages (every brand's ``web_origins``) may frame it,
    since a launch URL opens in the operator's iframe; no other page may."""
    origins = sorted({o for b in brands for o in b.web_origins})
    ancestors = " ".join(["'self'", *origins]) if origins else "'none'"
    return CONTENT_SECURITY_POLICY.replace("frame-ancestors 'none'",
                                           f"frame-ancestors {ancestors}")


def static_file(name: str) -> bytes:
    """A file of the reference web table's committed bundle (rgs/web_table/static)."""
    return resources.files("rgs.web_table").joinpath("static", name).read_bytes()


def same_origin(scope: Scope, origin: str) -> bool:
    """Whether ``origin`` is this edge's own (the page was served here): its host:port is the
    request's Host."""
    host = _header(scope, b"host")
    return host is not None and urlsplit(origin).netloc.lower() == host.lower()


async def _respond(send: Send, status: int, headers: Iterable[tuple[str, str]],
                   body: bytes = b"") -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(k.encode(), v.encode()) for k, v in headers]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class WebApp:
    """CORS in front of the Connect service; the web table's files beside it."""

    def __init__(self, calls_object: BlackjackCalls, calls: CallsInFlight,
                 brands: Iterable[Brand], *, tables: TableCalls | None = None,
                 stopping: asyncio.Event | None = None,
                 replays: RoundReplays | None = None) -> None:
        self.stopping = stopping or asyncio.Event()
        self._connect = ConnectApp(SERVICE, calls_object, calls, self.stopping)
        self._services = {self._connect.path + "/": self._connect}
        if tables is not None:
            table_app = ConnectApp(TABLE_SERVICE, tables, calls, self.stopping)
            self._services[table_app.path + "/"] = table_app
        self._brands = tuple(brands)
        self._csp = content_security_policy(self._brands)
        self._replay = ReplayEndpoint(replays, self._brands) if replays is not None else None
        self._prefix = self._connect.path + "/"

    def _service(self, path: str) -> ConnectApp | None:
        for prefix, app in self._services.items():
            if path.startswith(prefix):
                return app
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # the first app answers it; the others resolve lazily
            await self._connect(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        origin = _header(scope, b"origin")
        cross = origin is not None and not same_origin(scope, origin)
        if cross and origin is not None and not any_brand_allows(self._brands, origin):
            await _respond(send, 403, [("content-type", "text/plain; charset=utf-8"),
                                       ("vary", "Origin")],
                           b"this origin is not allowed: the operator adds it to a brand's "
                           b"web_origins in the platform file\n")
            return
        path = scope["path"]
        if scope["method"] == "OPTIONS" and cross and origin is not None:
            await self._preflight(scope, send, origin)
            return
        service = self._service(path)
        if service is not None:
            if not cross:  # the use cases see an Origin only when a brand's consent is needed
                scope = {**scope, "headers": [(k, v) for k, v in scope.get("headers", ())
                                              if k.lower() != b"origin"]}
            await service(scope, receive, self._with_cors(send, origin if cross else None))
            return
        if self._replay is not None and path == ROUND_PATH and not cross:
            await self._replay_round(scope, receive, send)
            return
        files = {**STATIC_FILES, **REPLAY_FILES} if self._replay is not None else STATIC_FILES
        if path in files and scope["method"] in ("GET", "HEAD"):
            name, kind = files[path]
            await _respond(send, 200, [
                ("content-type", kind), ("cache-control", "no-cache"),
                ("content-security-policy", self._csp),
                ("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer")],
                b"" if scope["method"] == "HEAD" else static_file(name))
            return
        await _respond(send, 404, [("content-type", "text/plain; charset=utf-8")],
                       b"not found: the player service is under /"
                       + self._prefix.encode() + b", the web table at /\n")

    async def _replay_round(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self._replay is not None
        if scope["method"] != "POST":
            await _respond(send, 405, [("content-type", "text/plain; charset=utf-8"),
                                       ("allow", "POST")], b"POST {\"token\": ...}\n")
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_BODY or not message.get("more_body"):
                break
        status, answer = await self._replay.answer(body[:MAX_BODY + 1])
        await _respond(send, status, [
            ("content-type", "application/json"), ("cache-control", "no-store"),
            ("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer")],
            json.dumps(answer).encode("utf-8"))

    async def _preflight(self, scope: Scope, send: Send, origin: str) -> None:
        asked = _header(scope, b"access-control-request-headers") or ""
        wanted = [h.strip().lower() for h in asked.split(",") if h.strip()]
        refused = [h for h in wanted if h not in ALLOWED_HEADERS]
        if refused:
            await _respond(send, 403, [("content-type", "text/plain; charset=utf-8"),
                                       ("vary", "Origin")],
                           f"headers not allowed: {', '.join(refused)[:200]}\n".encode())
            return
        await _respond(send, 204, [
            ("access-control-allow-origin", origin),
            ("access-control-allow-methods", "POST, GET"),
            ("access-control-allow-headers", ", ".join(ALLOWED_HEADERS)),
            ("access-control-max-age", str(PREFLIGHT_MAX_AGE)),
            ("vary", "Origin")])

    @staticmethod
    def _with_cors(send: Send, origin: str | None) -> Send:
        if origin is None:
            return send

        async def cors_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [
                    *message.get("headers", ()),
                    (b"access-control-allow-origin", origin.encode()),
                    (b"access-control-expose-headers", ", ".join(EXPOSED_HEADERS).encode()),
                    (b"vary", b"Origin")]}
            await send(message)
        return cors_send
