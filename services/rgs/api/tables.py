"""``rgs.table.v1.TableService``: the shared tables' gRPC edge (thin: authenticate, convert,
call :class:`~rgs.service.tables.service.TableService`, convert back). Errors go through the
one table of :mod:`rgs.api.errors`."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc

from rgs.api.auth import bearer
from rgs.api.drain import CallsInFlight
from rgs.api.errors import classify, status_trailer
from rgs.api.fields import check_strings
from rgs.api.servicers import Context, _serve
from rgs.engine import Action
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.service.backoffice import BackOffice
from rgs.service.errors import InvalidRequest
from rgs.service.play import GameService
from rgs.service.tables.model import BehindInsurance, BetCommand, TableAct, TableAnswer, TableEvent
from rgs.service.tables.service import TableService

log = logging.getLogger(__name__)

_INSURANCE = {
    tb.BEHIND_INSURANCE_UNSPECIFIED: BehindInsurance.NEVER,
    tb.BEHIND_INSURANCE_NEVER: BehindInsurance.NEVER,
    tb.BEHIND_INSURANCE_ALWAYS: BehindInsurance.ALWAYS,
    tb.BEHIND_INSURANCE_ASK: BehindInsurance.ASK,
}


def _answer(a: TableAnswer) -> tb.TableCommandResult:
    return tb.TableCommandResult(seq=a.seq, balance=a.balance,
                                 snapshot=tb.TableSnapshot(seq=a.seq, state_json=a.snapshot))


def _bet(b: tb.Bet) -> BetCommand:
    insurance = _INSURANCE.get(b.insurance)
    if insurance is None:
        raise InvalidRequest("unknown Bet Behind insurance preset", reason="INVALID_BET",
                             field="insurance")
    return BetCommand(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                      twenty_one_plus_three=b.twenty_one_plus_three, twenty_plus=b.twenty_plus,
                      behind=b.behind, follow_double=b.follow_double,
                      follow_split=b.follow_split, insurance=insurance)


def _action(text: str) -> Action:
    try:
        return Action(text.lower().removeprefix("action_"))
    except ValueError:
        raise InvalidRequest(f"unknown action (one of {', '.join(a.value for a in Action)})",
                             reason="INVALID_ACTION", field="action") from None


class TableServicer:
    """The table calls: players with their session token, recall with the operator's key."""

    def __init__(self, tables: TableService, game: GameService, office: BackOffice) -> None:
        self._tables = tables
        self._game = game
        self._office = office

    async def ListTables(self, request: tb.ListTablesRequest, context: Context
                         ) -> tb.ListTablesResponse:
        async def work() -> tb.ListTablesResponse:
            session = await self._game.authenticate(bearer(context))
            return tb.ListTablesResponse(tables=[
                tb.TableInfo(table_id=c.id, variant_id=c.variant, seats=c.seats,
                             currency=c.currency, main_min=c.limits.main_min,
                             main_max=c.limits.main_max, side_min=c.limits.side_min,
                             side_max=c.limits.side_max, betting_seconds=c.betting_s,
                             decision_seconds=c.decision_s)
                for c in self._tables.tables_for_brands([session.brand_id])])
        return await _serve(context, request, work)

    async def TakeSeat(self, request: tb.TakeSeatRequest, context: Context
                       ) -> tb.TakeSeatResponse:
        async def work() -> tb.TakeSeatResponse:
            session = await self._game.authenticate(bearer(context))
            return tb.TakeSeatResponse(result=_answer(await self._tables.take_seat(
                session, request.table_id, request.request_id, request.seat)))
        return await _serve(context, request, work)

    async def LeaveSeat(self, request: tb.LeaveSeatRequest, context: Context
                        ) -> tb.LeaveSeatResponse:
        async def work() -> tb.LeaveSeatResponse:
            session = await self._game.authenticate(bearer(context), allow_expired=True)
            return tb.LeaveSeatResponse(result=_answer(await self._tables.leave_seat(
                session, request.table_id, request.request_id, request.seat)))
        return await _serve(context, request, work)

    async def PlaceBets(self, request: tb.PlaceBetsRequest, context: Context
                        ) -> tb.PlaceBetsResponse:
        async def work() -> tb.PlaceBetsResponse:
            session = await self._game.authenticate(bearer(context))
            return tb.PlaceBetsResponse(result=_answer(await self._tables.place_bets(
                session, request.table_id, request.request_id,
                [_bet(b) for b in request.bets])))
        return await _serve(context, request, work)

    async def DealNow(self, request: tb.DealNowRequest, context: Context
                      ) -> tb.DealNowResponse:
        async def work() -> tb.DealNowResponse:
            session = await self._game.authenticate(bearer(context))
            return tb.DealNowResponse(result=_answer(await self._tables.deal_now(
                session, request.table_id, request.request_id, tuple(request.forced_cards))))
        return await _serve(context, request, work)

    async def Act(self, request: tb.ActRequest, context: Context
                  ) -> tb.ActResponse:
        async def work() -> tb.ActResponse:
            session = await self._game.authenticate(bearer(context), allow_expired=True)
            return tb.ActResponse(result=_answer(await self._tables.act(
                session, request.table_id, request.request_id,
                TableAct(round_id=request.round_id, seat=request.seat, hand=request.hand,
                         action=_action(request.action)))))
        return await _serve(context, request, work)

    async def DecideInsurance(self, request: tb.DecideInsuranceRequest, context: Context
                              ) -> tb.DecideInsuranceResponse:
        async def work() -> tb.DecideInsuranceResponse:
            session = await self._game.authenticate(bearer(context), allow_expired=True)
            return tb.DecideInsuranceResponse(result=_answer(
                await self._tables.decide_insurance(
                    session, request.table_id, request.request_id, round_id=request.round_id,
                    seat=request.seat, take=request.take, behind=request.behind)))
        return await _serve(context, request, work)

    async def GetTableRound(self, request: tb.GetTableRoundRequest, context: Context
                            ) -> tb.GetTableRoundResponse:
        async def work() -> tb.GetTableRoundResponse:
            operator = await self._office.authenticate(bearer(context))
            rec, _ = await self._tables.recall(operator, request.round_id)
            return tb.GetTableRoundResponse(
                round_id=rec.round_id, round_no=rec.round_no, variant_id=rec.variant,
                status=rec.status,
                events_json=json.dumps([[k, json.loads(p)] for k, p in rec.events]),
                players=[tb.PlayerShare(player_id=key.partition("/")[2], staked=staked,
                                        paid=paid) for key, _, staked, paid in rec.players])
        return await _serve(context, request, work)

    async def WatchTable(self, request: tb.WatchTableRequest, context: Context
                         ) -> AsyncIterator[tb.WatchTableResponse]:
        """The stream: pulled by gRPC's flow control, so a slow watcher reads the journal at
        its own pace and holds no queue on the server."""
        try:
            check_strings(request)
            await self._game.authenticate(bearer(context))
            from_seq = request.from_seq if request.HasField("from_seq") else None
            async for item in self._tables.watch(request.table_id, from_seq):
                if isinstance(item, TableEvent):
                    yield tb.WatchTableResponse(event=tb.TableEvent(
                        seq=item.seq, kind=item.kind, payload_json=item.payload))
                else:
                    seq, snap = item
                    yield tb.WatchTableResponse(snapshot=tb.TableSnapshot(seq=seq,
                                                                          state_json=snap))
        except Exception as exc:  # the edge: every failure becomes a documented status
            code, reason, message = classify(exc)
            if reason == "SERVER_ERROR":
                log.exception("unexpected error watching a table")
            await context.abort(code, message, trailing_metadata=status_trailer(
                code, reason, message))


def table_handler(servicer: TableServicer, calls: CallsInFlight
                  ) -> grpc.GenericRpcHandler[Any, Any]:
    """The TableService's handlers: the unary calls as lenient (and drained) as the others;
    WatchTable a server stream."""
    from google.protobuf.message_factory import GetMessageClass

    from rgs.api.server import _guarded, _lenient_deserializer  # one home for the leniency
    service = tb.DESCRIPTOR.services_by_name["TableService"]
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for m in service.methods:
        deserialize = _lenient_deserializer(GetMessageClass(m.input_type))
        if m.server_streaming:
            handlers[m.name] = grpc.unary_stream_rpc_method_handler(
                getattr(servicer, m.name), request_deserializer=GetMessageClass(
                    m.input_type).FromString,
                response_serializer=lambda r: r.SerializeToString())
        else:
            handlers[m.name] = grpc.unary_unary_rpc_method_handler(
                _guarded(getattr(servicer, m.name), calls), request_deserializer=deserialize,
                response_serializer=lambda r: r.SerializeToString())
    return grpc.method_handlers_generic_handler(service.full_name, handlers)
