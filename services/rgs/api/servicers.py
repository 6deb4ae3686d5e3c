"""grpc.aio servicers: read the caller from the call's metadata, run the use case of
:mod:`rgs.api.calls`, and turn any failure into a status.

Each servicer subclasses the generated ``*ServiceServicer`` and has one typed method per RPC
(request, context -> response), so ``mypy --strict`` checks every signature against the
generated stubs and the use case it delegates to (tests/unit/test_servicers.py checks each
against the service descriptor too). Errors are translated once, by :func:`serve_unary`,
through the table in :mod:`rgs.api.errors`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
from google.protobuf.message import Message

from rgs.api.auth import authorization
from rgs.api.calls import BlackjackCalls, Caller, OperatorCalls
from rgs.api.errors import abort, classify, error_metadata, status_trailer
from rgs.api.launch_calls import LaunchCalls
from rgs.finance.office import FinanceOffice
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc as bj_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc as op_grpc
from rgs.service.backoffice import BackOffice
from rgs.service.freebets import FreeBets
from rgs.service.game_controls import GameControls
from rgs.service.interrupted import InterruptedRounds
from rgs.service.play import GameService
from rgs.service.replay import RoundReplays

log = logging.getLogger(__name__)

Req = TypeVar("Req", bound=Message)
Resp = TypeVar("Resp", bound=Message)
Context = grpc.aio.ServicerContext[object, object]


async def serve_unary(context: Context, request: Req,
                      call: Callable[[Caller, Req], Awaitable[Resp]]) -> Resp:
    """Run ``call`` for the call's caller; turn any failure into a status with ErrorInfo
    (never INTERNAL/UNKNOWN)."""
    try:
        return await call(Caller(authorization(context)), request)
    except Exception as exc:  # the edge: every failure becomes a documented status
        code, reason, message = classify(exc)
        if reason == "SERVER_ERROR":
            log.exception("unexpected error serving a call")
        await abort(context, code, message, status_trailer(
            code, reason, message, metadata=error_metadata(exc)))


class BlackjackServicer(bj_grpc.BlackjackServiceServicer):
    """``rgs.blackjack.v1.BlackjackService``: each RPC runs the same-named use case of
    :class:`~rgs.api.calls.BlackjackCalls`."""

    def __init__(self, game: GameService, launch: LaunchCalls | None = None) -> None:
        self.calls = BlackjackCalls(game, launch)

    async def ListVariants(self, request: bj.ListVariantsRequest, context: Context
                           ) -> bj.ListVariantsResponse:
        return await serve_unary(context, request, self.calls.ListVariants)

    async def Deal(self, request: bj.DealRequest, context: Context) -> bj.DealResponse:
        return await serve_unary(context, request, self.calls.Deal)

    async def Act(self, request: bj.ActRequest, context: Context) -> bj.ActResponse:
        return await serve_unary(context, request, self.calls.Act)

    async def Settle(self, request: bj.SettleRequest, context: Context) -> bj.SettleResponse:
        return await serve_unary(context, request, self.calls.Settle)

    async def GetRound(self, request: bj.GetRoundRequest, context: Context
                       ) -> bj.GetRoundResponse:
        return await serve_unary(context, request, self.calls.GetRound)

    async def GetBalance(self, request: bj.GetBalanceRequest, context: Context
                         ) -> bj.GetBalanceResponse:
        return await serve_unary(context, request, self.calls.GetBalance)

    async def AcknowledgeRealityCheck(self, request: bj.AcknowledgeRealityCheckRequest,
                                      context: Context
                                      ) -> bj.AcknowledgeRealityCheckResponse:
        return await serve_unary(context, request, self.calls.AcknowledgeRealityCheck)

    async def RedeemLaunch(self, request: bj.RedeemLaunchRequest, context: Context
                           ) -> bj.RedeemLaunchResponse:
        return await serve_unary(context, request, self.calls.RedeemLaunch)

    async def TopUpDemoBalance(self, request: bj.TopUpDemoBalanceRequest, context: Context
                               ) -> bj.TopUpDemoBalanceResponse:
        return await serve_unary(context, request, self.calls.TopUpDemoBalance)


class OperatorServicer(op_grpc.OperatorServiceServicer):
    """``rgs.operator.v1.OperatorService``: each RPC runs the same-named use case of
    :class:`~rgs.api.calls.OperatorCalls`."""

    def __init__(self, office: BackOffice, rounds: InterruptedRounds, *,
                 controls: GameControls | None = None,
                 finance: FinanceOffice | None = None,
                 replays: RoundReplays | None = None,
                 free_bets: FreeBets | None = None,
                 launch: LaunchCalls | None = None) -> None:
        self.calls = OperatorCalls(office, rounds, controls=controls, finance=finance,
                                   replays=replays, free_bets=free_bets, launch=launch)

    async def CreateSession(self, request: op.CreateSessionRequest, context: Context
                            ) -> op.CreateSessionResponse:
        return await serve_unary(context, request, self.calls.CreateSession)

    async def ListPlayerRounds(self, request: op.ListPlayerRoundsRequest, context: Context
                               ) -> op.ListPlayerRoundsResponse:
        return await serve_unary(context, request, self.calls.ListPlayerRounds)

    async def GetPlayerRound(self, request: op.GetPlayerRoundRequest, context: Context
                             ) -> op.GetPlayerRoundResponse:
        return await serve_unary(context, request, self.calls.GetPlayerRound)

    async def VoidRound(self, request: op.VoidRoundRequest, context: Context
                        ) -> op.VoidRoundResponse:
        return await serve_unary(context, request, self.calls.VoidRound)

    async def ListOpenRounds(self, request: op.ListOpenRoundsRequest, context: Context
                             ) -> op.ListOpenRoundsResponse:
        return await serve_unary(context, request, self.calls.ListOpenRounds)

    async def ResolveRound(self, request: op.ResolveRoundRequest, context: Context
                           ) -> op.ResolveRoundResponse:
        return await serve_unary(context, request, self.calls.ResolveRound)

    async def SetGameControl(self, request: op.SetGameControlRequest, context: Context
                             ) -> op.SetGameControlResponse:
        return await serve_unary(context, request, self.calls.SetGameControl)

    async def ListGameControls(self, request: op.ListGameControlsRequest, context: Context
                               ) -> op.ListGameControlsResponse:
        return await serve_unary(context, request, self.calls.ListGameControls)

    async def ListAuditRecords(self, request: op.ListAuditRecordsRequest, context: Context
                               ) -> op.ListAuditRecordsResponse:
        return await serve_unary(context, request, self.calls.ListAuditRecords)

    async def ListMovements(self, request: op.ListMovementsRequest, context: Context
                            ) -> op.ListMovementsResponse:
        return await serve_unary(context, request, self.calls.ListMovements)

    async def GetGgrReport(self, request: op.GetGgrReportRequest, context: Context
                           ) -> op.GetGgrReportResponse:
        return await serve_unary(context, request, self.calls.GetGgrReport)

    async def CreateRoundReplay(self, request: op.CreateRoundReplayRequest, context: Context
                                ) -> op.CreateRoundReplayResponse:
        return await serve_unary(context, request, self.calls.CreateRoundReplay)

    async def GrantFreeBets(self, request: op.GrantFreeBetsRequest, context: Context
                            ) -> op.GrantFreeBetsResponse:
        return await serve_unary(context, request, self.calls.GrantFreeBets)

    async def RevokeFreeBets(self, request: op.RevokeFreeBetsRequest, context: Context
                             ) -> op.RevokeFreeBetsResponse:
        return await serve_unary(context, request, self.calls.RevokeFreeBets)

    async def ListFreeBetGrants(self, request: op.ListFreeBetGrantsRequest, context: Context
                                ) -> op.ListFreeBetGrantsResponse:
        return await serve_unary(context, request, self.calls.ListFreeBetGrants)

    async def CreateLaunch(self, request: op.CreateLaunchRequest, context: Context
                           ) -> op.CreateLaunchResponse:
        return await serve_unary(context, request, self.calls.CreateLaunch)
