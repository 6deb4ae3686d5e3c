"""grpc.aio server interceptors: RED metrics, a server span and one log line per call.

The service adds them where it builds its server::

    server = grpc.aio.server(interceptors=server_interceptors())

Only methods that the server actually serves are observed: an unknown method name never
becomes a metric label (a scanner could otherwise grow the label set without bound). Unary
calls get RED metrics, a span and a log line (:func:`observe_call`); server streams written as
async generators (WatchTable) get their own gauge, counters and a log line at their end
(:func:`observe_stream`), apart from the unary calls' latency and in-flight load signal.
Reflection and the health ``Watch`` (which writes through its context) pass through untouched.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, Final, TypeVar

import grpc
from opentelemetry import context as otel_context
from opentelemetry.trace import INVALID_SPAN, SpanKind, Status, StatusCode, use_span

from rgs.observability import metrics
from rgs.observability.logging import ROUND_ID
from rgs.observability.tracing import Metadata, extract_context, tracer, tracing_enabled
from rgs.service.identifiers import is_round_id

log = logging.getLogger("rgs.rpc")

#: Codes that mean the server failed the caller (OpenTelemetry's rule for server spans); the
#: others (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, ...) are the caller's business.
SERVER_FAULT_CODES: Final = frozenset({
    grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.DATA_LOSS,
    grpc.StatusCode.UNIMPLEMENTED,
})

#: Methods called every few seconds by probes: logged at DEBUG so they do not drown the rest.
QUIET_METHODS: Final = frozenset({"grpc.health.v1.Health/Check"})

Handler = Callable[[Any, Any], Any]
"""A unary-unary behaviour: (request, context) -> awaitable response."""


def round_id_of(message: object) -> str:
    """The round a request or response is about: its ``round_id`` or ``round.round_id``, only
    when it has the shape of a round id. A request is read before it is authenticated, so
    nothing else of it may reach a log line or a span (a 3 MB ``round_id`` once did, twice)."""
    direct = getattr(message, "round_id", "")
    if isinstance(direct, str) and is_round_id(direct):
        return direct
    nested = getattr(getattr(message, "round", None), "round_id", "")
    return nested if isinstance(nested, str) and is_round_id(nested) else ""


def _code_of(context: grpc.aio.ServicerContext[Any, Any]) -> grpc.StatusCode:
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code
    if isinstance(code, int):
        for candidate in grpc.StatusCode:
            if candidate.value[0] == code:
                return candidate
    return grpc.StatusCode.OK


if TYPE_CHECKING:
    _ServerInterceptor = grpc.aio.ServerInterceptor[Any, Any]
else:  # the runtime class is not generic
    _ServerInterceptor = grpc.aio.ServerInterceptor


class ObservabilityInterceptor(_ServerInterceptor):
    """Counts, times, traces and logs every unary call the server serves."""

    async def intercept_service(
            self, continuation: Callable[[grpc.HandlerCallDetails],
                                         Awaitable[grpc.RpcMethodHandler[Any, Any]]],
            handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        """Wrap the method's handler (unknown methods pass through)."""
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = str(handler_call_details.method).lstrip("/")
        if handler.unary_stream is not None and inspect.isasyncgenfunction(handler.unary_stream):
            return grpc.unary_stream_rpc_method_handler(
                _observed_stream(method, handler.unary_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
        if handler.unary_unary is None:
            return handler
        return grpc.unary_unary_rpc_method_handler(
            _observed(method, handler.unary_unary),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer)


def _observed(method: str, inner: Handler) -> Handler:
    async def observe(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        def outcome(exc: BaseException | None) -> grpc.StatusCode | None:
            if exc is None or isinstance(exc, grpc.aio.AbortError):
                return _code_of(context)
            return None
        return await observe_call(method, request, context.invocation_metadata(),
                                  lambda: inner(request, context), outcome, edge="grpc")
    return observe


def _observed_stream(method: str, inner: Callable[[Any, Any], AsyncIterator[Any]]
                     ) -> Callable[[Any, Any], AsyncIterator[Any]]:
    async def observe(request: Any, context: grpc.aio.ServicerContext[Any, Any]
                      ) -> AsyncIterator[Any]:
        def outcome(exc: BaseException | None) -> grpc.StatusCode | None:
            if exc is None or isinstance(exc, grpc.aio.AbortError):
                return _code_of(context)
            return None
        async for item in observe_stream(method, inner(request, context), outcome,
                                         edge="grpc"):
            yield item
    return observe


R = TypeVar("R")


async def observe_stream(method: str, stream: AsyncIterator[R],
                         outcome: Callable[[BaseException | None], grpc.StatusCode | None], *,
                         edge: str) -> AsyncIterator[R]:
    """``stream``'s items, counted: open streams of ``method``, messages sent, and at the end
    the stream's status code (``outcome`` as for :func:`observe_call`; a client that leaves is
    CANCELLED) with one log line giving its duration and messages (DEBUG for CANCELLED)."""
    metrics.RPC_STREAMS_OPEN.labels(method=method).inc()
    sent = metrics.RPC_STREAM_MESSAGES.labels(method=method)
    started = time.perf_counter()
    code = grpc.StatusCode.OK
    count = 0
    try:
        async for item in stream:
            count += 1
            sent.inc()
            yield item
        code = outcome(None) or grpc.StatusCode.OK
    except (asyncio.CancelledError, GeneratorExit):
        code = grpc.StatusCode.CANCELLED
        raise
    except Exception as exc:
        known = outcome(exc)
        code = grpc.StatusCode.UNKNOWN if known is None else known
        raise
    finally:
        metrics.RPC_STREAMS_OPEN.labels(method=method).dec()
        metrics.RPC_STREAMS.labels(method=method, code=code.name).inc()
        elapsed = time.perf_counter() - started
        # A client leaving is how every watch ends (a web table reopens its stream after each
        # command): counted above, logged at DEBUG.
        log.log(logging.DEBUG if code is grpc.StatusCode.CANCELLED else logging.INFO,
                "%s stream %s", method, code.name,
                extra={"rpc_method": method, "grpc_code": code.name, "rpc_edge": edge,
                       "duration_ms": round(elapsed * 1000, 3), "messages": count})


async def observe_call(method: str, request: Any, metadata: Metadata | None,
                       run: Callable[[], Awaitable[R]],
                       outcome: Callable[[BaseException | None], grpc.StatusCode | None], *,
                       edge: str) -> R:
    """Count, time, trace and log one call of ``method`` (``service/Method``), whichever edge
    serves it (``edge``: ``grpc`` or ``web``, in the log line). ``run`` serves the call;
    ``outcome`` gives the status code of its end (None when it raised: the response), or None
    for an error the edge did not expect (counted UNKNOWN and logged with its traceback)."""
    service, _, short = method.rpartition("/")
    parent = extract_context(metadata)
    attached = otel_context.attach(parent)
    round_token = ROUND_ID.set(round_id_of(request))
    metrics.RPC_IN_FLIGHT.inc()
    started = time.perf_counter()
    code = grpc.StatusCode.OK
    if tracing_enabled():
        span = tracer().start_span(
            method, context=parent, kind=SpanKind.SERVER,
            attributes={"rpc.system": "grpc", "rpc.service": service, "rpc.method": short})
        scope: AbstractContextManager[object] = use_span(
            span, end_on_exit=True, record_exception=False, set_status_on_exception=False)
    else:  # no span to record: the caller's context (attached above) stays current
        span, scope = INVALID_SPAN, nullcontext()
    try:
        # The span ends on exit; the bookkeeping runs inside it so the log line carries its
        # trace id.
        with scope:
            try:
                response = await run()
                code = outcome(None) or grpc.StatusCode.OK
                round_id = round_id_of(response)
                if round_id:
                    ROUND_ID.set(round_id)
                return response
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            except Exception as exc:
                known = outcome(exc)
                if known is None:
                    code = grpc.StatusCode.UNKNOWN
                    span.record_exception(exc)
                    log.exception("unhandled error in %s", method)
                else:
                    code = known
                raise
            finally:
                elapsed = time.perf_counter() - started
                metrics.RPC_IN_FLIGHT.dec()
                metrics.RPC_REQUESTS.labels(method=method, code=code.name).inc()
                metrics.RPC_LATENCY.labels(method=method).observe(elapsed)
                span.set_attribute("rpc.grpc.status_code", code.value[0])
                current_round = ROUND_ID.get()
                if current_round:
                    span.set_attribute("rgs.round_id", current_round)
                if code in SERVER_FAULT_CODES:
                    span.set_status(Status(StatusCode.ERROR, code.name))
                log.log(logging.DEBUG if method in QUIET_METHODS else logging.INFO, "%s %s",
                        method, code.name,
                        extra={"rpc_method": method, "grpc_code": code.name, "rpc_edge": edge,
                               "duration_ms": round(elapsed * 1000, 3)})
    finally:
        ROUND_ID.reset(round_token)
        otel_context.detach(attached)


def server_interceptors() -> list[_ServerInterceptor]:
    """The interceptors to pass to ``grpc.aio.server(interceptors=...)``."""
    return [ObservabilityInterceptor()]
