"""grpc.aio servicers: authenticate, convert, call the use case, convert back.

Errors are translated once, by :func:`_serve`, through the table in :mod:`rgs.api.errors`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
from google.protobuf.message import Message

from rgs.api import converters as conv
from rgs.api.auth import bearer
from rgs.api.errors import classify, status_trailer
from rgs.api.fields import check_strings
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc as bj_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc as op_grpc
from rgs.service.backoffice import BackOffice
from rgs.service.play import GameService

log = logging.getLogger(__name__)

Resp = TypeVar("Resp")
Context = grpc.aio.ServicerContext[object, object]


async def _serve(context: Context, request: Message,
                 work: Callable[[], Awaitable[Resp]]) -> Resp:
    """Check the request's strings, run ``work``; turn any failure into a status with ErrorInfo
    (never INTERNAL/UNKNOWN)."""
    try:
        check_strings(request)  # before credentials are looked up or anything is logged
        return await work()
    except Exception as exc:  # the edge: every failure becomes a documented status
        code, reason, message = classify(exc)
        if reason == "SERVER_ERROR":
            log.exception("unexpected error serving a call")
        field = getattr(exc, "field", "")
        await context.abort(code, message, trailing_metadata=status_trailer(
            code, reason, message, metadata={"field": field} if field else None))
        raise  # pragma: no cover - abort raises


class BlackjackServicer(bj_grpc.BlackjackServiceServicer):
    """``rgs.blackjack.v1.BlackjackService``."""

    def __init__(self, game: GameService) -> None:
        self._game = game

    async def ListVariants(self, request: bj.ListVariantsRequest, context: Context
                           ) -> bj.ListVariantsResponse:
        """The session brand's variants."""
        async def work() -> bj.ListVariantsResponse:
            session = await self._game.authenticate(bearer(context))
            return bj.ListVariantsResponse(
                variants=[conv.variant_to_proto(r, lim)
                          for r, lim in self._game.variants(session)],
                currency=session.currency,
                last_rounds=[conv.last_round_to_proto(r)
                             for r in await self._game.last_rounds(session)],
                balance=await self._game.balance_or_none(session),
                next_commitment=await self._game.next_commitment(session))
        return await _serve(context, request, work)

    async def GetBalance(self, request: bj.GetBalanceRequest, context: Context
                         ) -> bj.GetBalanceResponse:
        """The player's balance now."""
        async def work() -> bj.GetBalanceResponse:
            session = await self._game.authenticate(bearer(context), allow_expired=True)
            return bj.GetBalanceResponse(balance=await self._game.balance(session),
                                         currency=session.currency)
        return await _serve(context, request, work)

    async def Deal(self, request: bj.DealRequest, context: Context) -> bj.DealResponse:
        """Deal a round."""
        async def work() -> bj.DealResponse:
            session = await self._game.authenticate(bearer(context))
            result = await self._game.deal(session, conv.deal_from_proto(request))
            return bj.DealResponse(round=conv.round_view_to_proto(result))
        return await _serve(context, request, work)

    async def Act(self, request: bj.ActRequest, context: Context) -> bj.ActResponse:
        """One decision."""
        async def work() -> bj.ActResponse:
            session = await self._game.authenticate(bearer(context), allow_expired=True)
            result = await self._game.act(session, conv.act_from_proto(request))
            return bj.ActResponse(round=conv.round_view_to_proto(result))
        return await _serve(context, request, work)

    async def Settle(self, request: bj.SettleRequest, context: Context) -> bj.SettleResponse:
        """Finish a round."""
        async def work() -> bj.SettleResponse:
            session = await self._game.authenticate(bearer(context), allow_expired=True)
            result = await self._game.settle(session, conv.settle_from_proto(request))
            return bj.SettleResponse(round=conv.round_view_to_proto(result))
        return await _serve(context, request, work)

    async def GetRound(self, request: bj.GetRoundRequest, context: Context
                       ) -> bj.GetRoundResponse:
        """Read a round (or the unfinished one)."""
        async def work() -> bj.GetRoundResponse:
            session = await self._game.authenticate(bearer(context), allow_expired=True)
            result = await self._game.get_round(session, request.round_id)
            return bj.GetRoundResponse(round=conv.round_view_to_proto(result))
        return await _serve(context, request, work)


class OperatorServicer(op_grpc.OperatorServiceServicer):
    """``rgs.operator.v1.OperatorService``."""

    def __init__(self, office: BackOffice) -> None:
        self._office = office

    async def CreateSession(self, request: op.CreateSessionRequest, context: Context
                            ) -> op.CreateSessionResponse:
        """Open a player session."""
        async def work() -> op.CreateSessionResponse:
            operator = await self._office.authenticate(bearer(context))
            new = await self._office.create_session(
                operator, conv.create_session_from_proto(request))
            return conv.session_to_proto(new)
        return await _serve(context, request, work)

    async def ListPlayerRounds(self, request: op.ListPlayerRoundsRequest, context: Context
                               ) -> op.ListPlayerRoundsResponse:
        """Game recall, newest first."""
        async def work() -> op.ListPlayerRoundsResponse:
            operator = await self._office.authenticate(bearer(context))
            page = await self._office.recall(operator, request.brand_id, request.player_id,
                                             page_size=request.page_size,
                                             page_token=request.page_token)
            return op.ListPlayerRoundsResponse(
                rounds=[conv.round_record_to_proto(r) for r in page.rounds],
                next_page_token=page.next_page_token)
        return await _serve(context, request, work)

    async def GetPlayerRound(self, request: op.GetPlayerRoundRequest, context: Context
                             ) -> op.GetPlayerRoundResponse:
        """Recall of one round."""
        async def work() -> op.GetPlayerRoundResponse:
            operator = await self._office.authenticate(bearer(context))
            rec = await self._office.recall_round(operator, request.brand_id,
                                                  request.player_id, request.round_id)
            return op.GetPlayerRoundResponse(round=conv.round_record_to_proto(rec))
        return await _serve(context, request, work)

    async def VoidRound(self, request: op.VoidRoundRequest, context: Context
                        ) -> op.VoidRoundResponse:
        """Void an unfinished round."""
        async def work() -> op.VoidRoundResponse:
            operator = await self._office.authenticate(bearer(context))
            rec = await self._office.void_round(operator, conv.void_from_proto(request))
            return op.VoidRoundResponse(round=conv.round_record_to_proto(rec))
        return await _serve(context, request, work)
