"""``rgs.table.v1.TableService``: the shared tables' use cases as every edge calls them
(authenticate, convert, call :class:`~rgs.service.tables.service.TableService`, convert back),
and its native gRPC servicer. The browser edge (:mod:`rgs.api.browser_edge`) runs the same
:class:`TableCalls`; errors go through the one table of :mod:`rgs.api.errors`."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc

from rgs.api.auth import authorization, bearer_secret
from rgs.api.calls import Caller, availability_for, player_session
from rgs.api.controls import availability_to_proto
from rgs.api.converters import free_bet_to_proto, position_to_proto
from rgs.api.drain import CallsInFlight
from rgs.api.errors import abort, classify, error_metadata, status_trailer
from rgs.api.fields import check_strings
from rgs.api.lobby import table_entry
from rgs.api.servicers import Context, serve_unary
from rgs.api.table_messages import (
    RenderedEvents,
    recall_events,
    view_to_proto,
)
from rgs.engine import Action
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc as tb_grpc
from rgs.service.backoffice import BackOffice
from rgs.service.controls import OPEN, Availability
from rgs.service.demo import refuse_demo
from rgs.service.errors import InvalidRequest
from rgs.service.model import Session
from rgs.service.play import GameService
from rgs.service.tables.answers import TableAnswer
from rgs.service.tables.model import (
    BehindInsurance,
    BetCommand,
    TableAct,
    TableConfig,
    TableEvent,
)
from rgs.service.tables.ports import RoundRecord
from rgs.service.tables.service import TableService
from rgs.service.tables.views import TableView

log = logging.getLogger(__name__)

_INSURANCE = {
    tb.BEHIND_INSURANCE_UNSPECIFIED: BehindInsurance.NEVER,
    tb.BEHIND_INSURANCE_NEVER: BehindInsurance.NEVER,
    tb.BEHIND_INSURANCE_ALWAYS: BehindInsurance.ALWAYS,
    tb.BEHIND_INSURANCE_ASK: BehindInsurance.ASK,
}




def _bet(b: tb.Bet) -> BetCommand:
    insurance = _INSURANCE.get(b.insurance)
    if insurance is None:
        raise InvalidRequest("unknown Bet Behind insurance preset", reason="INVALID_BET",
                             field="insurance")
    return BetCommand(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                      twenty_one_plus_three=b.twenty_one_plus_three, twenty_plus=b.twenty_plus,
                      behind=b.behind, follow_double=b.follow_double,
                      follow_split=b.follow_split, insurance=insurance,
                      free_bet_id=b.free_bet_id)


def _action(text: str) -> Action:
    try:
        return Action(text.lower().removeprefix("action_"))
    except ValueError:
        raise InvalidRequest(f"unknown action (one of {', '.join(a.value for a in Action)})",
                             reason="INVALID_ACTION", field="action") from None


def _table_info(c: TableConfig, *, brands: Sequence[str] = (),
                availability: Availability = OPEN) -> tb.TableInfo:
    return tb.TableInfo(table_id=c.id, variant_id=c.variant, seats=c.seats, currency=c.currency,
                        main_min=c.limits.main_min, main_max=c.limits.main_max,
                        side_min=c.limits.side_min, side_max=c.limits.side_max,
                        betting_seconds=c.betting_s, decision_seconds=c.decision_s,
                        brand_ids=brands, sit_out_rounds=c.sit_out_rounds,
                        away_seconds=c.away_s,
                        availability=availability_to_proto(availability))


def _fairness(rec: RoundRecord) -> tb.TableFairness:
    """A recalled round's provably fair inputs; the server seed once the round is over."""
    f = rec.fair
    if f is None:
        return tb.TableFairness(verifiable=False)
    return tb.TableFairness(
        verifiable=f.verifiable, commitment=f.commitment, client_seed=f.client_seed,
        round_number=f.round_number, decks=f.decks,
        server_seed=f.server_seed if rec.finished else "", next_commitment=f.next_commitment,
        seat_seeds=[tb.SeatClientSeed(seat=seat, client_seed=seed)
                    for seat, seed in f.seat_seeds])


class TableCalls:
    """The table calls: players with their session token (and, from a browser, an origin their
    brand allows), recall with the operator's key. One method per RPC."""

    def __init__(self, tables: TableService, game: GameService, office: BackOffice) -> None:
        self._tables = tables
        self._game = game
        self._office = office
        #: The events rendered once for every watcher of this replica they do not name.
        self._rendered = RenderedEvents()

    async def _answer(self, a: TableAnswer, session: Session) -> tb.TableCommandResult:
        return tb.TableCommandResult(seq=a.seq, balance=a.balance,
                                     snapshot=await self._snapshot(a.view, session))

    async def _snapshot(self, v: TableView, session: Session) -> tb.TableSnapshot:
        """The table as the session's player sees it, with the session's position where the
        brand's profile requires it."""
        msg = view_to_proto(v, session.player_key)
        position = await self._game.session_rules.position(session)
        if position is not None:
            msg.session.CopyFrom(position_to_proto(position))
        cfg = self._tables.config(v.table_id)
        msg.free_bets.extend(free_bet_to_proto(f) for f in await self._game.free_bets.left_at_table(
            session, table_id=cfg.id, variant_id=cfg.variant, currency=cfg.currency))
        return msg

    def _hints(self, session: Session) -> bool:
        """Whether the session's brand shows decision values (its snapshots carry them)."""
        return self._game.brand(session).hints

    async def ListTables(self, caller: Caller, request: tb.ListTablesRequest
                         ) -> tb.ListTablesResponse:
        """The tables the session's brand offers."""
        session = await player_session(self._game, caller, request)
        tables = []
        for c in self._tables.tables_for_brands([session.brand_id]):
            info = _table_info(c, availability=availability_for(self._game, session,
                                                                c.variant, c.id))
            info.lobby.CopyFrom(table_entry(c, await self._tables.seats_free(c.id),
                                            session.language))
            tables.append(info)
        return tb.ListTablesResponse(tables=tables, language=session.language)

    async def ListOperatorTables(self, caller: Caller, request: tb.ListOperatorTablesRequest
                                 ) -> tb.ListOperatorTablesResponse:
        """The tables the operator's brands (or one of them) offer."""
        check_strings(request)
        operator = await self._office.authenticate(bearer_secret(caller.authorization))
        brands = self._office.brands_of(operator, request.brand_id)
        return tb.ListOperatorTablesResponse(tables=[
            _table_info(c, brands=mine, availability=self._operator_availability(c, mine))
            for c in self._tables.tables_for_brands(brands)
            for mine in [[b for b in c.brands if b in brands]]])

    def _operator_availability(self, c: TableConfig, brands: Sequence[str]) -> Availability:
        controls = self._game.controls
        if controls is None or not brands:
            return OPEN
        return controls.availability(brands[0], c.variant, c.id)

    async def TakeSeat(self, caller: Caller, request: tb.TakeSeatRequest
                       ) -> tb.TakeSeatResponse:
        """Sit at a free seat (never in demo play: DEMO_NOT_ALLOWED)."""
        session = await player_session(self._game, caller, request)
        refuse_demo(session, "a seat at a shared table")
        a = await self._tables.take_seat(session, request.table_id, request.request_id,
                                         request.seat, hints=self._hints(session))
        return tb.TakeSeatResponse(result=await self._answer(a, session))

    async def LeaveSeat(self, caller: Caller, request: tb.LeaveSeatRequest
                        ) -> tb.LeaveSeatResponse:
        """Free the player's seat."""
        session = await player_session(self._game, caller, request, allow_expired=True)
        a = await self._tables.leave_seat(session, request.table_id, request.request_id,
                                          request.seat, hints=self._hints(session))
        return tb.LeaveSeatResponse(result=await self._answer(a, session))

    async def PlaceBets(self, caller: Caller, request: tb.PlaceBetsRequest
                        ) -> tb.PlaceBetsResponse:
        """Main, side and Bet Behind bets while betting is open."""
        session = await player_session(self._game, caller, request)
        refuse_demo(session, "a bet at a shared table")
        a = await self._tables.place_bets(
            session, request.table_id, request.request_id, [_bet(b) for b in request.bets],
            client_seed=request.client_seed, hints=self._hints(session),
            channel=caller.channel)
        return tb.PlaceBetsResponse(result=await self._answer(a, session))

    async def DealNow(self, caller: Caller, request: tb.DealNowRequest) -> tb.DealNowResponse:
        """The player is ready."""
        session = await player_session(self._game, caller, request)
        a = await self._tables.deal_now(session, request.table_id, request.request_id,
                                        tuple(request.forced_cards),
                                        hints=self._hints(session))
        return tb.DealNowResponse(result=await self._answer(a, session))

    async def Act(self, caller: Caller, request: tb.ActRequest) -> tb.ActResponse:
        """A seated player's decision."""
        session = await player_session(self._game, caller, request, allow_expired=True)
        a = await self._tables.act(
            session, request.table_id, request.request_id,
            TableAct(round_id=request.round_id, seat=request.seat, hand=request.hand,
                     action=_action(request.action)), hints=self._hints(session))
        return tb.ActResponse(result=await self._answer(a, session))

    async def DecideInsurance(self, caller: Caller, request: tb.DecideInsuranceRequest
                              ) -> tb.DecideInsuranceResponse:
        """A seat's insurance decision, or a Bet Behind's live one."""
        session = await player_session(self._game, caller, request, allow_expired=True)
        a = await self._tables.decide_insurance(
            session, request.table_id, request.request_id, round_id=request.round_id,
            seat=request.seat, take=request.take, behind=request.behind,
            hints=self._hints(session))
        return tb.DecideInsuranceResponse(result=await self._answer(a, session))

    async def GetTableRound(self, caller: Caller, request: tb.GetTableRoundRequest
                            ) -> tb.GetTableRoundResponse:
        """The operator's recall of a table round: its events (its own players with their
        ids, the others by display name) and its own players' money only."""
        check_strings(request)
        operator = await self._office.authenticate(bearer_secret(caller.authorization))
        got = await self._tables.recall(operator, request.round_id, table_id=request.table_id)
        rec = got.round
        return tb.GetTableRoundResponse(
            round_id=rec.round_id, round_no=rec.round_no, variant_id=rec.variant,
            status=rec.status, table_id=rec.table_id,
            events=recall_events(rec.table_id, rec, operator),
            players=[tb.PlayerShare(player_id=m.player_id, staked=m.staked, paid=m.paid,
                                    refunded=m.refunded) for m in got.money],
            movements=[tb.PlayerMovement(
                player_id=m.player_id, transaction_id=x.transaction_id, kind=x.kind.value,
                amount=x.amount, status=x.status.value, balance_after=x.balance_after or 0,
                debit_transaction_id=x.debit_transaction_id)
                for m in got.money for x in m.movements],
            fair=_fairness(rec))

    async def WatchTable(self, caller: Caller, request: tb.WatchTableRequest
                         ) -> AsyncIterator[tb.WatchTableResponse]:
        """The stream: pulled by the transport's flow control, so a slow watcher takes the
        table's feed at its own pace and holds no queue on the server. Its snapshot carries
        decision values when the session's brand shows them; its events never do. The caller's
        own seats and bets are marked (``you``)."""
        session = await player_session(self._game, caller, request)
        from_seq = request.from_seq if request.HasField("from_seq") else None
        viewer = session.player_key
        render = self._rendered.for_viewer
        if request.batch_events:  # one message per pull, with every event there is by then
            async with contextlib.aclosing(self._tables.watch_batches(
                    session, request.table_id, from_seq, hints=self._hints(session))) as items:
                async for batch in items:
                    if isinstance(batch, TableView):
                        yield tb.WatchTableResponse(snapshot=await self._snapshot(batch,
                                                                                  session))
                    elif (shown := self._rendered.for_batch(batch, viewer)) is not None:
                        yield tb.WatchTableResponse(events=shown)
            return
        async for item in self._tables.watch(session, request.table_id, from_seq,
                                             hints=self._hints(session)):
            if isinstance(item, TableEvent):
                if (shown_one := render(item, viewer)) is not None:
                    yield tb.WatchTableResponse(event=shown_one)
            else:
                yield tb.WatchTableResponse(snapshot=await self._snapshot(item, session))


class TableServicer(tb_grpc.TableServiceServicer):
    """``rgs.table.v1.TableService`` on native gRPC: each unary RPC runs the same-named call
    of :class:`TableCalls` as every servicer's does, and WatchTable is the server stream."""

    def __init__(self, tables: TableService, game: GameService, office: BackOffice) -> None:
        self.calls = TableCalls(tables, game, office)

    async def ListTables(self, request: tb.ListTablesRequest, context: Context
                         ) -> tb.ListTablesResponse:
        return await serve_unary(context, request, self.calls.ListTables)

    async def TakeSeat(self, request: tb.TakeSeatRequest, context: Context
                       ) -> tb.TakeSeatResponse:
        return await serve_unary(context, request, self.calls.TakeSeat)

    async def LeaveSeat(self, request: tb.LeaveSeatRequest, context: Context
                        ) -> tb.LeaveSeatResponse:
        return await serve_unary(context, request, self.calls.LeaveSeat)

    async def PlaceBets(self, request: tb.PlaceBetsRequest, context: Context
                        ) -> tb.PlaceBetsResponse:
        return await serve_unary(context, request, self.calls.PlaceBets)

    async def DealNow(self, request: tb.DealNowRequest, context: Context
                      ) -> tb.DealNowResponse:
        return await serve_unary(context, request, self.calls.DealNow)

    async def Act(self, request: tb.ActRequest, context: Context) -> tb.ActResponse:
        return await serve_unary(context, request, self.calls.Act)

    async def DecideInsurance(self, request: tb.DecideInsuranceRequest, context: Context
                              ) -> tb.DecideInsuranceResponse:
        return await serve_unary(context, request, self.calls.DecideInsurance)

    async def GetTableRound(self, request: tb.GetTableRoundRequest, context: Context
                            ) -> tb.GetTableRoundResponse:
        return await serve_unary(context, request, self.calls.GetTableRound)

    async def ListOperatorTables(self, request: tb.ListOperatorTablesRequest, context: Context
                                 ) -> tb.ListOperatorTablesResponse:
        return await serve_unary(context, request, self.calls.ListOperatorTables)

    async def WatchTable(self, request: tb.WatchTableRequest, context: Context
                         ) -> AsyncIterator[tb.WatchTableResponse]:
        """The server stream; a failure becomes a documented status."""
        try:
            async for item in self.calls.WatchTable(Caller(authorization(context)), request):
                yield item
        except Exception as exc:  # the edge: every failure becomes a documented status
            code, reason, message = classify(exc)
            if reason == "SERVER_ERROR":
                log.exception("unexpected error watching a table")
            await abort(context, code, message, status_trailer(
                code, reason, message, metadata=error_metadata(exc)))


def table_handler(servicer: TableServicer, calls: CallsInFlight
                  ) -> grpc.GenericRpcHandler[Any, Any]:
    """The TableService's handlers: the unary calls as lenient (and drained) as the others;
    WatchTable a server stream, as lenient."""
    from google.protobuf.message_factory import GetMessageClass

    from rgs.api.server import (  # one home for the leniency
        _guarded,
        _guarded_stream,
        _lenient_deserializer,
    )
    service = tb.DESCRIPTOR.services_by_name["TableService"]
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for m in service.methods:
        if m.server_streaming:
            handlers[m.name] = grpc.unary_stream_rpc_method_handler(
                _guarded_stream(servicer.WatchTable),
                request_deserializer=_lenient_deserializer(GetMessageClass(m.input_type)),
                response_serializer=lambda r: r.SerializeToString())
        else:
            handlers[m.name] = grpc.unary_unary_rpc_method_handler(
                _guarded(getattr(servicer, m.name), calls),
                request_deserializer=_lenient_deserializer(GetMessageClass(m.input_type)),
                response_serializer=lambda r: r.SerializeToString())
    return grpc.method_handlers_generic_handler(service.full_name, handlers)
