"""grpc.aio servicers: read the caller from the call's metadata, run the use case of
:mod:`rgs.api.calls`, and turn any failure into a status.

Errors are translated once, by :func:`_serve`, through the table in :mod:`rgs.api.errors`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from rgs.api.auth import authorization
from rgs.api.calls import BlackjackCalls, Caller, OperatorCalls
from rgs.api.errors import classify, error_metadata, status_trailer
from rgs.api.launch_calls import LaunchCalls
from rgs.finance.office import FinanceOffice
from rgs.generated.blackjack.v1 import blackjack_pb2
from rgs.generated.operator.v1 import operator_pb2
from rgs.service.backoffice import BackOffice
from rgs.service.freebets import FreeBets
from rgs.service.game_controls import GameControls
from rgs.service.interrupted import InterruptedRounds
from rgs.service.play import GameService
from rgs.service.replay import RoundReplays

log = logging.getLogger(__name__)

Resp = TypeVar("Resp")
Context = grpc.aio.ServicerContext[object, object]


async def _serve(context: Context, request: Message,
                 call: Callable[[Caller, Any], Awaitable[Resp]]) -> Resp:
    """Run ``call``; turn any failure into a status with ErrorInfo (never INTERNAL/UNKNOWN)."""
    try:
        return await call(Caller(authorization(context)), request)
    except Exception as exc:  # the edge: every failure becomes a documented status
        code, reason, message = classify(exc)
        if reason == "SERVER_ERROR":
            log.exception("unexpected error serving a call")
        await context.abort(code, message, trailing_metadata=status_trailer(
            code, reason, message, metadata=error_metadata(exc)))
        raise  # pragma: no cover - abort raises


class _Servicer:
    """A servicer whose every unary method (the service descriptor's) runs the same-named
    method of a calls object (a streaming method is the subclass's own)."""

    def __init__(self, calls: object, service_name: str, file: Any) -> None:
        for method in file.DESCRIPTOR.services_by_name[service_name].methods:
            if method.server_streaming or method.client_streaming:
                continue
            setattr(self, method.name, self._method(getattr(calls, method.name)))

    @staticmethod
    def _method(call: Callable[[Caller, Any], Awaitable[Any]]
                ) -> Callable[[Any, Context], Awaitable[Any]]:
        async def handle(request: Any, context: Context) -> Any:
            return await _serve(context, request, call)
        return handle


class BlackjackServicer(_Servicer):
    """``rgs.blackjack.v1.BlackjackService``."""

    def __init__(self, game: GameService, launch: LaunchCalls | None = None) -> None:
        super().__init__(BlackjackCalls(game, launch), "BlackjackService", blackjack_pb2)


class OperatorServicer(_Servicer):
    """``rgs.operator.v1.OperatorService``."""

    def __init__(self, office: BackOffice, rounds: InterruptedRounds, *,
                 controls: GameControls | None = None,
                 finance: FinanceOffice | None = None,
                 replays: RoundReplays | None = None,
                 free_bets: FreeBets | None = None,
                 launch: LaunchCalls | None = None) -> None:
        super().__init__(OperatorCalls(office, rounds, controls=controls, finance=finance,
                                       replays=replays, free_bets=free_bets, launch=launch),
                         "OperatorService", operator_pb2)
