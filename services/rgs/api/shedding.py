"""Shedding at the door (native gRPC): a call that arrives while its worker serves its maximum
of calls in flight is answered RESOURCE_EXHAUSTED / ``OVERLOADED`` by the first server
interceptor, before anything else is spent on it: its request is not parsed, no handler is
looked up, the observability interceptors (span, log line, latency) never see it, and the
answer's trailer is built once per worker (:meth:`rgs.api.overload.Admission.overloaded_answer`).
At three times a worker's capacity two calls of three are shed, so what a shed call costs is
taken from the calls admitted (bench/overload.py measures both).

It is counted as every call is (``rgs_rpc_requests_total{code="RESOURCE_EXHAUSTED"}``) and in
``rgs_rpc_shed_total{reason="OVERLOADED"}``; it is not in the latency histogram (a refusal in
microseconds would make the served calls' latency look better than it is). The count of calls
in flight is :class:`rgs.api.drain.CallsInFlight`'s, as before; the browser edge sheds in
``CallsInFlight.serve`` (its requests are parsed by its framework first). Only the application
services' unary methods are shed: health, reflection and table streams pass as they are.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor

from rgs.api.drain import CallsInFlight
from rgs.api.errors import abort
from rgs.observability import metrics

if TYPE_CHECKING:
    _ServerInterceptor = grpc.aio.ServerInterceptor[Any, Any]
else:  # the runtime class is not generic
    _ServerInterceptor = grpc.aio.ServerInterceptor

_CODE = grpc.StatusCode.RESOURCE_EXHAUSTED


def unary_paths(services: Iterable[ServiceDescriptor]) -> frozenset[str]:
    """The ``/package.Service/Method`` paths of the services' unary methods."""
    return frozenset(f"/{s.full_name}/{m.name}" for s in services for m in s.methods
                     if not m.server_streaming and not m.client_streaming)


class ShedInterceptor(_ServerInterceptor):
    """The first interceptor of the server: sheds at the door (module docstring)."""

    def __init__(self, calls: CallsInFlight, paths: frozenset[str]) -> None:
        self._calls = calls
        self._paths = paths
        self._handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    async def intercept_service(
            self, continuation: Callable[[grpc.HandlerCallDetails],
                                         Awaitable[grpc.RpcMethodHandler[Any, Any]]],
            handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        admission = self._calls.admission
        if (admission is None or admission.max_in_flight <= 0
                or len(self._calls) < admission.max_in_flight):
            return await continuation(handler_call_details)
        path = str(handler_call_details.method)
        if path not in self._paths:
            return await continuation(handler_call_details)
        handler = self._handlers.get(path)
        if handler is None:
            handler = self._handlers[path] = self._shed_handler(path)
        return handler

    def _shed_handler(self, path: str) -> grpc.RpcMethodHandler[Any, Any]:
        requests = metrics.RPC_REQUESTS.labels(method=path.lstrip("/"), code=_CODE.name)

        async def shed(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> None:
            admission = self._calls.admission
            assert admission is not None
            message, trailer = admission.overloaded_answer()
            requests.inc()
            await abort(context, _CODE, message, trailer)
        # No request deserializer: the request's bytes are never parsed.
        return grpc.unary_unary_rpc_method_handler(shed)
