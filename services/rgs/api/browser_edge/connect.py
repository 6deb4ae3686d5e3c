"""The player services in the Connect protocol, built from the service descriptors (no
generated server code): every method runs the same-named use case of
:class:`rgs.api.calls.BlackjackCalls` or :class:`rgs.api.tables.TableCalls` and a failure is
answered with the same code and the same ``google.rpc.ErrorInfo`` as native gRPC sends (the one
table is :func:`rgs.api.errors.classify`). WatchTable is a server stream (Connect streams over
HTTP/1.1 too); it ends with UNAVAILABLE / SERVER_SHUTTING_DOWN when the replica stops, and the
client resumes on another replica from the last event number it saw.

The library (``connectrpc``) speaks the three protocols a client may choose: Connect (what
``@connectrpc/connect-web`` sends by default, JSON or binary), gRPC-Web and gRPC.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import quote

import grpc
from connectrpc._server_shared import EndpointServerStream, EndpointUnary
from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_codecs
from connectrpc.compression.gzip import GzipCompression
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.rpc import error_details_pb2
from protobuf.wkt import Any as AnyDetail

from rgs.api.calls import Caller
from rgs.api.drain import MESSAGE as SHUTTING_DOWN_MESSAGE
from rgs.api.drain import SHUTTING_DOWN, CallsInFlight
from rgs.api.errors import DOMAIN, classify, error_metadata, retry_after_ms, retry_info
from rgs.generated.blackjack.v1 import blackjack_pb2
from rgs.generated.table.v1 import table_pb2
from rgs.observability.interceptors import observe_call, observe_stream
from rgs.service.model import Channel

log = logging.getLogger(__name__)

SERVICE: ServiceDescriptor = blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"]
"""The player service (the operator service stays native gRPC only)."""
TABLE_SERVICE: ServiceDescriptor = table_pb2.DESCRIPTOR.services_by_name["TableService"]
"""The shared tables' service (its operator calls, GetTableRound and ListOperatorTables, stay
native gRPC only)."""

#: gRPC status code → Connect code (the same names; Connect spells CANCELLED with one L).
CONNECT_CODES: Mapping[grpc.StatusCode, Code] = {
    **{c: Code[c.name] for c in grpc.StatusCode
       if c.name in Code.__members__},
    grpc.StatusCode.CANCELLED: Code.CANCELED,
}

#: Methods that change nothing: a browser may call them with GET (cacheable by URL).
_READ_ONLY = frozenset({"ListVariants", "GetBalance", "GetRound", "ListTables"})
#: Operators' calls: never served to a browser.
_OPERATOR_ONLY = frozenset({"GetTableRound", "ListOperatorTables"})


class WebError(ConnectError):
    """A refusal in the Connect protocol that remembers its gRPC code (for the metrics)."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str,
                 metadata: Mapping[str, str] | None = None) -> None:
        info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN,
                                           metadata=dict(metadata or {}))
        detail = AnyDetail(type_url="type.googleapis.com/google.rpc.ErrorInfo",
                           value=info.SerializeToString())
        details = [ErrorDetail(detail)]
        retry_ms = retry_after_ms(metadata)
        if retry_ms is not None:  # a shed call: its delay as google.rpc.RetryInfo too
            packed = retry_info(retry_ms)
            details.append(ErrorDetail(AnyDetail(type_url=packed.type_url, value=packed.value)))
        super().__init__(CONNECT_CODES[code], message, details)
        self.grpc_code = code
        self.reason = reason


def refusal(exc: BaseException) -> WebError:
    """The Connect error for a failure, through the one table (never INTERNAL/UNKNOWN)."""
    code, reason, message = classify(exc)
    if reason == "SERVER_ERROR":
        log.exception("unexpected error serving a call", exc_info=exc)
    return WebError(code, reason, message, error_metadata(exc) or None)


async def _refuse_shutting_down(_context: object) -> None:
    raise WebError(grpc.StatusCode.UNAVAILABLE, SHUTTING_DOWN, SHUTTING_DOWN_MESSAGE)


async def _shed(_context: object, exc: Exception) -> None:
    raise refusal(exc)


def _outcome(exc: BaseException | None) -> grpc.StatusCode | None:
    if exc is None:
        return grpc.StatusCode.OK
    return exc.grpc_code if isinstance(exc, WebError) else None


def _headers_of(ctx: RequestContext[Any, Any]) -> list[tuple[str, str]]:
    return list(ctx.request_headers.items())


def _endpoint(method: str, call: Callable[[Caller, Any], Awaitable[Message]],
              info: MethodInfo[Any, Any], calls: CallsInFlight) -> EndpointUnary[Any, Any]:

    async def serve(request: Message, ctx: RequestContext[Any, Any]) -> Message:
        headers = ctx.request_headers
        caller = Caller(headers.get("authorization"), headers.get("origin"), Channel.BROWSER)

        async def run() -> Message:
            try:
                return await call(caller, request)
            except ConnectError:
                raise
            except Exception as exc:  # the edge: every failure becomes a documented status
                raise refusal(exc) from None
        return await observe_call(method, request, _headers_of(ctx), run, _outcome, edge="web")

    return Endpoint.unary(info, calls.serve(serve, refuse=_refuse_shutting_down,
                                             shed=_shed))


async def _until(stream: AsyncIterator[Message], stopping: asyncio.Event
                 ) -> AsyncIterator[Message]:
    """``stream``'s items until it ends or ``stopping`` is set (then UNAVAILABLE /
    SERVER_SHUTTING_DOWN: the client resumes elsewhere from the last number it saw).

    Each item is read in a task of its own, raced against ``stopping``. When this generator ends
    early (the client left: its task is cancelled; or the drain) the pending read is cancelled
    and awaited first, so ``stream`` runs its own cleanup (the table feed lets go of its
    watcher) and nothing of the stream outlives it."""
    items = aiter(stream)
    stop = asyncio.ensure_future(stopping.wait())
    step: asyncio.Future[Message] | None = None
    try:
        while True:
            step = asyncio.ensure_future(anext(items))
            await asyncio.wait((step, stop), return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                raise WebError(grpc.StatusCode.UNAVAILABLE, SHUTTING_DOWN,
                               SHUTTING_DOWN_MESSAGE)
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            step = None
            yield item
    finally:
        stop.cancel()
        if step is not None and not step.done():
            step.cancel()
            await asyncio.gather(step, return_exceptions=True)
        await items.aclose()  # type: ignore[attr-defined]


def _stream_endpoint(method: str, call: Callable[[Caller, Any], AsyncIterator[Message]],
                     info: MethodInfo[Any, Any], stopping: asyncio.Event
                     ) -> EndpointServerStream[Any, Any]:
    async def serve(request: Message, ctx: RequestContext[Any, Any]) -> AsyncIterator[Message]:
        if stopping.is_set():
            raise WebError(grpc.StatusCode.UNAVAILABLE, SHUTTING_DOWN, SHUTTING_DOWN_MESSAGE)
        headers = ctx.request_headers
        caller = Caller(headers.get("authorization"), headers.get("origin"), Channel.BROWSER)

        async def items() -> AsyncIterator[Message]:
            try:
                async for item in _until(call(caller, request), stopping):
                    yield item
            except ConnectError:
                raise
            except Exception as exc:  # the edge: every failure becomes a documented status
                raise refusal(exc) from None
        async for item in observe_stream(method, items(), _outcome, edge="web"):
            yield item

    return Endpoint.server_stream(info, serve)


def endpoints(service: ServiceDescriptor, calls_object: object, calls: CallsInFlight,
              stopping: asyncio.Event
              ) -> dict[str, EndpointUnary[Any, Any] | EndpointServerStream[Any, Any]]:
    """URL path (``/rgs.blackjack.v1.BlackjackService/Deal``) → endpoint, for every player
    method of ``service``: the unary ones counted in ``calls`` for the drain, the server
    streams ended when ``stopping`` is set."""
    out: dict[str, EndpointUnary[Any, Any] | EndpointServerStream[Any, Any]] = {}
    for m in service.methods:
        if m.name in _OPERATOR_ONLY:
            continue
        info: MethodInfo[Any, Any] = MethodInfo(
            name=m.name, service_name=service.full_name,
            input=GetMessageClass(m.input_type), output=GetMessageClass(m.output_type),
            idempotency_level=(IdempotencyLevel.NO_SIDE_EFFECTS if m.name in _READ_ONLY
                               else IdempotencyLevel.UNKNOWN),
            stream_type=StreamType.SERVER_STREAM if m.server_streaming else StreamType.UNARY)
        path, method = f"/{service.full_name}/{m.name}", f"{service.full_name}/{m.name}"
        call = getattr(calls_object, m.name)
        out[path] = (_stream_endpoint(method, call, info, stopping) if m.server_streaming
                     else _endpoint(method, call, info, calls))
    return out


MALFORMED_MESSAGE = "the request is not a valid protobuf message"
"""The message of an undecodable request, as native gRPC's (rgs.api.server)."""


class _Strict(Codec[Message, Message]):
    """A codec whose undecodable request is INVALID_ARGUMENT / MALFORMED_REQUEST with ErrorInfo,
    as on the native gRPC port (the library's own refusal carries no ErrorInfo)."""

    def __init__(self, inner: Codec[Message, Message], what: str) -> None:
        self._inner = inner
        self._what = what

    def name(self) -> str:
        return self._inner.name()

    def encode(self, message: Message) -> bytes:
        if self._inner.name() == "json":  # compact: the library's indents every line
            return json_format.MessageToJson(message, indent=None).encode()
        return bytes(self._inner.encode(message))

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        try:
            return self._inner.decode(data, message_class)
        except Exception:
            raise WebError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                           self._what) from None


def _codecs() -> list[Codec[Message, Message]]:
    return [_Strict(c, MALFORMED_MESSAGE if c.name() == "proto" else
                    "the request is not valid JSON for its message (proto3 JSON mapping)")
            for c in google_protobuf_codecs()]


#: The encodings a request's messages may be compressed with (named in its header).
COMPRESSIONS = (GzipCompression(),)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

GRPC_NEEDS_HTTP2 = (
    "native gRPC (application/grpc) needs HTTP/2 for its trailers (h2c, or HTTPS with h2): over "
    "HTTP/1.1 use gRPC-Web (application/grpc-web+proto) or Connect (application/json, "
    "application/connect+json)")
"""What the browser edge answers a native gRPC request over HTTP/1.1."""


def header(scope: Scope, name: bytes) -> str | None:
    """A request header's value (the first of that name), or None."""
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _is(content_type: str, kind: str) -> bool:
    return content_type == kind or content_type.startswith(kind + "+")


def _encoding_header(content_type: str) -> str | None:
    """The header that names the encoding of the messages of an enveloped protocol's request,
    as its specification spells it (None: the body is not enveloped)."""
    if _is(content_type, "application/connect"):
        return "Connect-Content-Encoding"
    if _is(content_type, "application/grpc-web") or _is(content_type, "application/grpc"):
        return "grpc-encoding"
    return None


class _Envelopes:
    """Follows a request body's envelopes (a flags byte, a 4-byte length, the message) across
    its chunks, to see the flags of each."""

    def __init__(self) -> None:
        self._prefix = bytearray()
        self._skip = 0

    def compressed(self, chunk: bytes) -> bool:
        """Whether a message flagged compressed has begun (in ``chunk`` or before it)."""
        at = 0
        while at < len(chunk):
            if self._skip:
                step = min(self._skip, len(chunk) - at)
                self._skip -= step
                at += step
                continue
            take = min(5 - len(self._prefix), len(chunk) - at)
            self._prefix += chunk[at:at + take]
            at += take
            if self._prefix[0] & 0x01:
                return True
            if len(self._prefix) == 5:
                self._skip = int.from_bytes(self._prefix[1:5], "big")
                self._prefix.clear()
        return False


def _undeclared_compression(receive: Receive, named_in: str) -> Receive:
    """``receive``, refusing a body with a message flagged compressed although ``named_in`` (the
    protocol's header) names no encoding: INVALID_ARGUMENT / MALFORMED_REQUEST, saying what to
    send (the library would end it INTERNAL, a server fault). Raised from the body's read, it
    is answered by the library in the request's protocol."""
    envelopes = _Envelopes()
    names = ", ".join(c.name() for c in COMPRESSIONS)
    message = (f"a message is flagged compressed but the request names no {named_in}: send "
               f"messages uncompressed, or name their encoding ({names}) in {named_in}")

    async def checked() -> dict[str, Any]:
        event = await receive()
        if event["type"] == "http.request" and envelopes.compressed(event.get("body", b"")):
            raise WebError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", message)
        return event
    return checked


async def _refuse_grpc_over_http1(send: Send) -> None:
    """415, in words and as a gRPC status (UNIMPLEMENTED), for native gRPC over HTTP/1.1 (the
    library would answer UNKNOWN and log a traceback)."""
    await send({"type": "http.response.start", "status": 415, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"grpc-status", str(grpc.StatusCode.UNIMPLEMENTED.value[0]).encode()),
        (b"grpc-message", quote(GRPC_NEEDS_HTTP2).encode())]})
    await send({"type": "http.response.body", "body": GRPC_NEEDS_HTTP2.encode() + b"\n",
                "more_body": False})


def _nothing_after_disconnect(receive: Receive, send: Send) -> tuple[Receive, Send]:
    """``receive`` and ``send``, sending nothing once the client has disconnected. The library
    still writes a stream's end after its client left, and hypercorn (0.18) waits for ever to
    flush a body on an HTTP/2 stream whose connection has closed: each stream of a closed h2
    connection (a closed tab) kept its task."""
    gone = False

    async def watched() -> dict[str, Any]:
        nonlocal gone
        event = await receive()
        gone = gone or event["type"] == "http.disconnect"
        return event

    async def sending(message: dict[str, Any]) -> None:
        if not gone:
            await send(message)
    return watched, sending


class ConnectApp(ConnectASGIApplication[object]):
    """The ASGI application of one player service in the Connect protocol."""

    def __init__(self, service: ServiceDescriptor, calls_object: object, calls: CallsInFlight,
                 stopping: asyncio.Event) -> None:
        super().__init__(service=calls_object,
                         endpoints=lambda svc: endpoints(service, svc, calls, stopping),
                         codecs=_codecs(), compressions=COMPRESSIONS,
                         read_max_bytes=64 * 1024)
        self._path = f"/{service.full_name}"

    @property
    def path(self) -> str:
        """The service's URL prefix."""
        return self._path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a request; first answer, in words, what the library would end as a server
        fault: native gRPC without HTTP/2's trailers, an undeclared compressed message."""
        if scope["type"] == "http":
            receive, send = _nothing_after_disconnect(receive, send)
            content_type = (header(scope, b"content-type") or "").strip().lower()
            if (_is(content_type, "application/grpc")
                    and "http.response.trailers" not in scope.get("extensions", {})):
                await _refuse_grpc_over_http1(send)
                return
            named = _encoding_header(content_type)
            if named is not None and (header(scope, named.lower().encode()) or "").strip() in (
                    "", "identity"):
                receive = _undeclared_compression(receive, named)
        await super().__call__(scope, receive, send)
