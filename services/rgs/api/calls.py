"""The player and operator use cases as the edges call them: check the request's strings,
authenticate, convert, call the service, convert back.

Both edges use these classes: the native gRPC servicers (:mod:`rgs.api.servicers`) and the
browser edge (:mod:`rgs.api.browser_edge`). An edge only reads the caller's credentials and
origin from its transport and turns a raised error into its protocol's status through the one
table in :mod:`rgs.api.errors`, so a rule written here holds for every client.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from google.protobuf.message import Message

from rgs.api import converters as conv
from rgs.api.auth import bearer_secret
from rgs.api.controls import OperatorControlCalls, availability_to_proto
from rgs.api.fields import check_strings
from rgs.api.finance import FinanceCalls
from rgs.api.freebet_calls import OperatorFreeBetCalls
from rgs.api.launch_calls import LaunchCalls, served
from rgs.api.lobby import variant_entry
from rgs.api.open_rounds import open_round_to_proto, resolve_from_proto
from rgs.api.origins import check_origin
from rgs.api.overload import admit_operator
from rgs.api.table_recall import recall_to_proto
from rgs.finance.office import FinanceOffice
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.service.backoffice import BackOffice
from rgs.service.controls import OPEN, Availability
from rgs.service.errors import NotFound, Unavailable
from rgs.service.freebets import FreeBets
from rgs.service.game_controls import GameControls
from rgs.service.interrupted import InterruptedRounds
from rgs.service.model import Channel, Session
from rgs.service.play import GameService
from rgs.service.replay import RoundReplays


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is calling, as the transport tells it."""

    #: The ``authorization`` header or metadata value (None when absent).
    authorization: str | None
    #: The browser's ``Origin`` header; None for native gRPC clients (no browser rule applies).
    origin: str | None = None
    #: The edge the call came through, journalled with the rounds it deals (RTP monitoring per
    #: channel): each edge says which it is.
    channel: Channel = Channel.GRPC


async def player_session(game: GameService, caller: Caller, request: Message, *,
                         allow_expired: bool = False) -> Session:
    """The caller's session for a player call: the request's strings checked first (before
    credentials are looked up or anything is logged), then the token, then a browser's origin
    against the session's own brand."""
    check_strings(request)
    session = await game.authenticate(bearer_secret(caller.authorization),
                                      allow_expired=allow_expired)
    if caller.origin is not None:
        check_origin(game.brand(session), caller.origin)
    admit_operator(session.operator_id)  # its rate, before the use case moves anything
    return session


def availability_for(game: GameService, session: Session, variant_id: str,
                  table_id: str = "") -> Availability:
    """Whether new rounds are taken there for the session now (game controls)."""
    if game.controls is None:
        return OPEN
    return game.controls.availability(session.brand_id, variant_id, table_id)


def _marked(view: bj.RoundView, session: Session) -> bj.RoundView:
    """A round view marked as demo play when the session is a demo session."""
    view.demo = session.demo
    return view


def _with_availability(v: bj.Variant, a: Availability) -> bj.Variant:
    v.availability.CopyFrom(availability_to_proto(a))
    return v


def _with_lobby(v: bj.Variant, entry: bj.LobbyEntry) -> bj.Variant:
    v.lobby.CopyFrom(entry)
    return v


class BlackjackCalls:
    """``rgs.blackjack.v1.BlackjackService``: one method per RPC."""

    def __init__(self, game: GameService, launch: LaunchCalls | None = None) -> None:
        self._game = game
        self._launch = launch

    async def _session(self, caller: Caller, request: Message, *,
                       allow_expired: bool = False) -> Session:
        return await player_session(self._game, caller, request, allow_expired=allow_expired)

    async def ListVariants(self, caller: Caller, request: bj.ListVariantsRequest
                           ) -> bj.ListVariantsResponse:
        """The session brand's variants, the player's last rounds and balance."""
        session = await self._session(caller, request)
        brand = self._game.brand(session)
        return bj.ListVariantsResponse(
            variants=[_with_lobby(_with_availability(conv.variant_to_proto(r, lim),
                                                     availability_for(self._game, session, r.id)),
                                  variant_entry(brand, r, session.language))
                      for r, lim in self._game.variants(session)],
            currency=session.currency,
            last_rounds=[conv.last_round_to_proto(r)
                         for r in await self._game.last_rounds(session)],
            balance=await self._game.balance_or_none(session),
            next_commitment=await self._game.next_commitment(session),
            free_bets=[conv.free_bet_to_proto(f)
                       for f in await self._game.free_bets.left(session, fresh=True)],
            demo=session.demo, language=session.language)

    async def GetBalance(self, caller: Caller, request: bj.GetBalanceRequest
                         ) -> bj.GetBalanceResponse:
        """The player's balance now."""
        session = await self._session(caller, request, allow_expired=True)
        return bj.GetBalanceResponse(balance=await self._game.balance(session),
                                     currency=session.currency, demo=session.demo,
                                     language=session.language)

    async def RedeemLaunch(self, caller: Caller, request: bj.RedeemLaunchRequest
                           ) -> bj.RedeemLaunchResponse:
        """A launch code's session, once (the code is the credential: no authorization)."""
        return await served(self._launch).redeem(caller.origin, request)

    async def TopUpDemoBalance(self, caller: Caller, request: bj.TopUpDemoBalanceRequest
                               ) -> bj.TopUpDemoBalanceResponse:
        """A demo session's balance back to its brand's starting balance."""
        session = await self._session(caller, request)
        return await served(self._launch).top_up(session)

    async def AcknowledgeRealityCheck(self, caller: Caller,
                                      request: bj.AcknowledgeRealityCheckRequest
                                      ) -> bj.AcknowledgeRealityCheckResponse:
        """Record the session's reality check as seen."""
        session = await self._session(caller, request)
        position = await self._game.session_rules.acknowledge(session)
        return bj.AcknowledgeRealityCheckResponse(session=conv.position_to_proto(position))

    async def Deal(self, caller: Caller, request: bj.DealRequest) -> bj.DealResponse:
        """Deal a round."""
        session = await self._session(caller, request)
        result = await self._game.deal(session, conv.deal_from_proto(request),
                                       channel=caller.channel)
        return bj.DealResponse(round=_marked(conv.round_view_to_proto(result), session))

    async def Act(self, caller: Caller, request: bj.ActRequest) -> bj.ActResponse:
        """One decision."""
        session = await self._session(caller, request, allow_expired=True)
        result = await self._game.act(session, conv.act_from_proto(request))
        return bj.ActResponse(round=_marked(conv.round_view_to_proto(result), session))

    async def Settle(self, caller: Caller, request: bj.SettleRequest) -> bj.SettleResponse:
        """Finish a round."""
        session = await self._session(caller, request, allow_expired=True)
        result = await self._game.settle(session, conv.settle_from_proto(request))
        return bj.SettleResponse(round=_marked(conv.round_view_to_proto(result), session))

    async def GetRound(self, caller: Caller, request: bj.GetRoundRequest
                       ) -> bj.GetRoundResponse:
        """Read a round (or the unfinished one)."""
        session = await self._session(caller, request, allow_expired=True)
        try:
            result = await self._game.get_round(session, request.round_id)
        except NotFound:
            if request.if_unfinished and not request.round_id:
                return bj.GetRoundResponse()  # nothing to resume: not an error
            raise
        return bj.GetRoundResponse(round=_marked(conv.round_view_to_proto(result), session))


class OperatorCalls:
    """``rgs.operator.v1.OperatorService``: one method per RPC (native gRPC only: operators
    call from their servers, never from a browser)."""

    def __init__(self, office: BackOffice, rounds: InterruptedRounds, *,
                 controls: GameControls | None = None,
                 finance: FinanceOffice | None = None,
                 replays: RoundReplays | None = None,
                 free_bets: FreeBets | None = None,
                 launch: LaunchCalls | None = None) -> None:
        self._launch = launch
        self._office = office
        self._rounds = rounds
        self._replays = replays or RoundReplays(office, None)
        self._controls = OperatorControlCalls(controls) if controls is not None else None
        self._finance = FinanceCalls(finance)
        self._free_bets = OperatorFreeBetCalls(
            free_bets or FreeBets.none(lambda: datetime.now(UTC)))

    def _control_calls(self) -> OperatorControlCalls:
        if self._controls is None:
            raise Unavailable("game controls are not served by this server",
                              reason="CONTROLS_NOT_SERVED")
        return self._controls

    async def _operator(self, caller: Caller, request: Message) -> str:
        check_strings(request)
        operator = await self._office.authenticate(bearer_secret(caller.authorization))
        admit_operator(operator)  # its rate, before the use case moves anything
        return operator

    async def CreateSession(self, caller: Caller, request: op.CreateSessionRequest
                            ) -> op.CreateSessionResponse:
        """Open a player session."""
        operator = await self._operator(caller, request)
        new = await self._office.create_session(operator, conv.create_session_from_proto(request))
        return conv.session_to_proto(new)

    async def ListPlayerRounds(self, caller: Caller, request: op.ListPlayerRoundsRequest
                               ) -> op.ListPlayerRoundsResponse:
        """Game recall, newest first."""
        operator = await self._operator(caller, request)
        page = await self._office.recall(operator, request.brand_id, request.player_id,
                                         page_size=request.page_size,
                                         page_token=request.page_token)
        return op.ListPlayerRoundsResponse(
            rounds=[recall_to_proto(r) for r in page.rounds],
            next_page_token=page.next_page_token)

    async def GetPlayerRound(self, caller: Caller, request: op.GetPlayerRoundRequest
                             ) -> op.GetPlayerRoundResponse:
        """Recall of one round."""
        operator = await self._operator(caller, request)
        rec = await self._office.recall_round(operator, request.brand_id, request.player_id,
                                              request.round_id)
        return op.GetPlayerRoundResponse(round=recall_to_proto(rec))

    async def VoidRound(self, caller: Caller, request: op.VoidRoundRequest
                        ) -> op.VoidRoundResponse:
        """Void an unfinished round."""
        operator = await self._operator(caller, request)
        rec = await self._office.void_round(operator, conv.void_from_proto(request))
        return op.VoidRoundResponse(round=conv.round_record_to_proto(rec))

    async def ListOpenRounds(self, caller: Caller, request: op.ListOpenRoundsRequest
                             ) -> op.ListOpenRoundsResponse:
        """The operator's unfinished rounds, the longest idle first."""
        operator = await self._operator(caller, request)
        rows = await self._rounds.open_rounds(
            operator, request.brand_id, idle_for=timedelta(seconds=request.idle_seconds),
            page_size=request.page_size)
        return op.ListOpenRoundsResponse(rounds=[open_round_to_proto(r) for r in rows])

    async def ResolveRound(self, caller: Caller, request: op.ResolveRoundRequest
                           ) -> op.ResolveRoundResponse:
        """Resolve an unfinished round by hand (complete or void)."""
        operator = await self._operator(caller, request)
        rec = await self._rounds.resolve(operator, resolve_from_proto(request))
        return op.ResolveRoundResponse(round=conv.round_record_to_proto(rec))

    async def SetGameControl(self, caller: Caller, request: op.SetGameControlRequest
                             ) -> op.SetGameControlResponse:
        """Disable or enable a variant, a brand or a table for the operator's players."""
        operator = await self._operator(caller, request)
        return await self._control_calls().set(operator, request)

    async def ListGameControls(self, caller: Caller, request: op.ListGameControlsRequest
                               ) -> op.ListGameControlsResponse:
        """The controls reaching the operator's brands."""
        operator = await self._operator(caller, request)
        return self._control_calls().list(operator)

    async def ListAuditRecords(self, caller: Caller, request: op.ListAuditRecordsRequest
                               ) -> op.ListAuditRecordsResponse:
        """The operator's own rows of the audit trail, newest first."""
        operator = await self._operator(caller, request)
        return await self._control_calls().audit(operator, request)

    async def ListMovements(self, caller: Caller, request: op.ListMovementsRequest
                            ) -> op.ListMovementsResponse:
        """The operator's money movements between two times, page by page."""
        operator = await self._operator(caller, request)
        return await self._finance.movements(operator, request)

    async def GetGgrReport(self, caller: Caller, request: op.GetGgrReportRequest
                           ) -> op.GetGgrReportResponse:
        """GGR per brand, variant, table, day and currency."""
        operator = await self._operator(caller, request)
        return await self._finance.ggr(operator, request)

    async def CreateRoundReplay(self, caller: Caller, request: op.CreateRoundReplayRequest
                                ) -> op.CreateRoundReplayResponse:
        """A signed, expiring link to the replay of one of the operator's players' rounds."""
        operator = await self._operator(caller, request)
        url, expires = await self._replays.create(operator, request.brand_id, request.player_id,
                                                  request.round_id, request.ttl_seconds,
                                                  language=request.language)
        resp = op.CreateRoundReplayResponse(url=url)
        resp.expires_at.FromDatetime(expires)
        return resp

    async def GrantFreeBets(self, caller: Caller, request: op.GrantFreeBetsRequest
                            ) -> op.GrantFreeBetsResponse:
        """Grant a player free bets (docs/freebets.md)."""
        return await self._free_bets.grant(await self._operator(caller, request), request)

    async def RevokeFreeBets(self, caller: Caller, request: op.RevokeFreeBetsRequest
                             ) -> op.RevokeFreeBetsResponse:
        """Revoke an unused grant."""
        return await self._free_bets.revoke(await self._operator(caller, request), request)

    async def CreateLaunch(self, caller: Caller, request: op.CreateLaunchRequest
                           ) -> op.CreateLaunchResponse:
        """A launch URL with a one-time launch code (docs/operators.md, "Launching")."""
        operator = await self._operator(caller, request)
        return await served(self._launch).create(operator, request)

    async def ListFreeBetGrants(self, caller: Caller, request: op.ListFreeBetGrantsRequest
                                ) -> op.ListFreeBetGrantsResponse:
        """The free-bet report: each grant's usage."""
        return await self._free_bets.report(await self._operator(caller, request), request)
