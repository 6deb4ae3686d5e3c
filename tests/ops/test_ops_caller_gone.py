"""A use case that finishes after its caller has gone is not a server error.

Found by bench/tables.py's crowd scene: with a thousand Bet Behinds at once, a PlaceBets ran on
(a table command runs to its end) past its caller's deadline and its refusal could no longer be
sent; ``context.abort`` failed with gRPC's core batch error, the call was counted UNKNOWN and
logged at ERROR with a traceback, hundreds of times a round. It is now counted CANCELLED and
logged like any call.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import grpc
import pytest

from rgs.api.servicers import serve_unary
from rgs.observability import metrics
from rgs.observability.interceptors import server_interceptors
from rgs.service.errors import NotAllowedNow

pytestmark = pytest.mark.asyncio

METHOD = "rgs.test.v1.Slow/Refuse"


def _count(code: str) -> float:
    return metrics.RPC_REQUESTS.labels(method=METHOD, code=code)._value.get()


async def _refuse_after_the_caller_left(caller: Any, request: bytes) -> bytes:
    """A use case that outlives its caller: the cancellation gRPC sends at the deadline is
    taken (as a shielded table command takes it) and the refusal comes after."""
    try:
        await asyncio.sleep(5)
    except asyncio.CancelledError:
        await asyncio.sleep(0.2)
    raise NotAllowedNow("betting has closed", reason="BETTING_CLOSED")


async def _serve(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    return await serve_unary(context, request, _refuse_after_the_caller_left)  # type: ignore[arg-type]


async def test_a_refusal_after_the_callers_deadline_is_counted_cancelled_not_unknown(
        caplog: pytest.LogCaptureFixture) -> None:
    server = grpc.aio.server(interceptors=server_interceptors())
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("rgs.test.v1.Slow", {
        "Refuse": grpc.unary_unary_rpc_method_handler(
            _serve, request_deserializer=bytes, response_serializer=bytes)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    unknown, cancelled = _count("UNKNOWN"), _count("CANCELLED")
    try:
        with caplog.at_level(logging.INFO):
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.unary_unary(f"/{METHOD}")
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await call(b"", timeout=0.2)
                assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            for _ in range(100):  # the handler ends 0.2 s after the deadline
                if _count("CANCELLED") > cancelled:
                    break
                await asyncio.sleep(0.02)
    finally:
        await server.stop(None)
    assert _count("CANCELLED") == cancelled + 1
    assert _count("UNKNOWN") == unknown
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    ended = [r for r in caplog.records if r.getMessage() == f"{METHOD} CANCELLED"]
    assert len(ended) == 1
