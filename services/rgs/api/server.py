"""The grpc.aio server: the two services, health, reflection, TLS by configuration.

Health has two faces. Readiness is the whole server (``""``) and each application service: it
turns NOT_SERVING when the replica must take no new rounds (its certified RNG failed, or it is
shutting down), so load balancers and Kubernetes stop sending calls while the process and its
evidence stay. Liveness is the service name :data:`LIVENESS_SERVICE`: answered by the same event
loop, it fails only when the process cannot answer at all (wedged), which is what a restart
mends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from rgs.api.browser_edge.server import RunningWebEdge, start_web_edge
from rgs.api.drain import CallsInFlight, DrainReport
from rgs.api.errors import abort, status_trailer
from rgs.api.launch_calls import LaunchCalls
from rgs.api.overload import Admission
from rgs.api.servicers import BlackjackServicer, OperatorServicer
from rgs.api.shedding import ShedInterceptor, unary_paths
from rgs.api.tls import ReloadingCertificate, TlsFiles
from rgs.authenticity.selfcheck import SelfCheck
from rgs.finance.office import FinanceOffice
from rgs.generated.blackjack.v1 import blackjack_pb2
from rgs.generated.operator.v1 import operator_pb2
from rgs.service.admin import AdminAccess
from rgs.service.backoffice import BackOffice
from rgs.service.game_controls import GameControls
from rgs.service.interrupted import InterruptedRounds
from rgs.service.operator_keys import OperatorKeyRotation
from rgs.service.play import GameService
from rgs.service.replay import ReplayLinks, RoundReplays
from rgs.service.tables.service import TableService

SERVICE_NAMES = (
    blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"].full_name,
    operator_pb2.DESCRIPTOR.services_by_name["OperatorService"].full_name,
)
"""Full names of the served application services."""

LIVENESS_SERVICE = "rgs.liveness"
"""The health service name of the liveness check (SERVING while the process answers)."""

READINESS_SERVICES = ("", *SERVICE_NAMES)
"""The health service names of readiness: the whole server and each application service."""

#: After the drain time, how long the server gives the calls it cut short to send their answer.
_ANSWER_GRACE_S = 1.0

__all__ = ["LIVENESS_SERVICE", "READINESS_SERVICES", "SERVICE_NAMES", "ConnectionLimits",
           "RunningServer", "TlsFiles", "lenient_handler", "start_server"]


class _Malformed:
    """Stands for a request whose bytes are not a valid message."""


_MALFORMED = _Malformed()


def _lenient_deserializer(cls: type[Message]) -> Callable[[bytes], object]:
    def parse(data: bytes) -> object:
        try:
            return cls.FromString(data)
        except DecodeError:
            return _MALFORMED
    return parse


async def _refuse_malformed(context: Any) -> None:
    code = grpc.StatusCode.INVALID_ARGUMENT
    message = "the request is not a valid protobuf message"
    await abort(context, code, message, status_trailer(
        code, "MALFORMED_REQUEST", message))


def _guarded(method: Callable[[Any, Any], Awaitable[Message]], calls: CallsInFlight
             ) -> Callable[[Any, Any], Awaitable[Message]]:
    method = calls.serve(method)

    async def handle(request: Any, context: Any) -> Message:
        if request is _MALFORMED:
            await _refuse_malformed(context)
        return await method(request, context)
    return handle


def _guarded_stream(method: Callable[[Any, Any], AsyncIterator[Message]]
                    ) -> Callable[[Any, Any], AsyncIterator[Message]]:
    """A server stream whose undecodable request is refused as :func:`_guarded` refuses a
    unary call's (with a :func:`_lenient_deserializer`)."""
    async def handle(request: Any, context: Any) -> AsyncIterator[Message]:
        if request is _MALFORMED:
            await _refuse_malformed(context)
        async for item in method(request, context):
            yield item
    return handle


def lenient_handler(service: ServiceDescriptor, servicer: object, calls: CallsInFlight
                    ) -> grpc.GenericRpcHandler[Any, Any]:
    """A handler for ``service`` whose undecodable requests are INVALID_ARGUMENT (gRPC's own
    deserialisation failure would be INTERNAL, which no request may get) and whose calls
    ``calls`` counts for the drain at shutdown."""
    handlers = {}
    for m in service.methods:
        handlers[m.name] = grpc.unary_unary_rpc_method_handler(
            _guarded(getattr(servicer, m.name), calls),
            request_deserializer=_lenient_deserializer(GetMessageClass(m.input_type)),
            response_serializer=lambda r: r.SerializeToString())
    return grpc.method_handlers_generic_handler(service.full_name, handlers)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectionLimits:
    """How long a client connection lives. gRPC keeps connections, so a client sends every call
    to the replicas that existed when it connected; past ``max_age_s`` the server asks it to
    reconnect (GOAWAY), which spreads it over the replicas the autoscaler added. Calls still
    running on an aged connection get ``max_age_grace_s`` more. 0 turns the limit off."""

    max_age_s: float = 0.0
    max_age_grace_s: float = 30.0

    def grpc_options(self) -> list[tuple[str, int]]:
        """The gRPC server options (channel arguments) for these limits."""
        if self.max_age_s <= 0:
            return []
        return [("grpc.max_connection_age_ms", int(self.max_age_s * 1000)),
                ("grpc.max_connection_age_grace_ms", int(self.max_age_grace_s * 1000))]


@dataclass(slots=True, kw_only=True)
class RunningServer:
    """A started server and the port it bound."""

    server: grpc.aio.Server
    port: int
    health: HealthServicer
    calls: CallsInFlight
    #: The browser edge, when it is on (same use cases, same drain).
    web: RunningWebEdge | None = None

    @property
    def web_port(self) -> int | None:
        """The browser edge's port (None when it is off)."""
        return self.web.port if self.web is not None else None

    async def set_not_serving(self) -> None:
        """Report NOT_SERVING on readiness (the replica must take no new rounds); liveness
        stays SERVING, so the process is not restarted and keeps its evidence."""
        for name in READINESS_SERVICES:
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)

    async def stop(self, grace: float | None) -> DrainReport:
        """Stop: readiness NOT_SERVING at once, no new calls (refused UNAVAILABLE, and each
        client told to reconnect elsewhere), the calls in flight given ``grace`` seconds to
        finish (None: none), then the ones still running answered UNAVAILABLE /
        SERVER_SHUTTING_DOWN."""
        seconds = grace or 0.0
        await self.set_not_serving()
        stopping = [asyncio.create_task(self.server.stop(seconds + _ANSWER_GRACE_S))]
        if self.web is not None:
            stopping.append(asyncio.create_task(self.web.stop()))
        try:
            report = await self.calls.drain(seconds)
        finally:
            await asyncio.gather(*stopping)
        return report


def _optional_services() -> list[ServiceDescriptor]:
    """The services served when configured (their unary methods shed as the others')."""
    from rgs.generated.admin.v1 import admin_pb2
    from rgs.generated.table.v1 import table_pb2
    return [admin_pb2.DESCRIPTOR.services_by_name["AdminService"],
            table_pb2.DESCRIPTOR.services_by_name["TableService"]]


async def start_server(*, game: GameService, office: BackOffice, rounds: InterruptedRounds,
                       listen: str,
                       tls: TlsFiles | None, tables: TableService | None = None,
                       interceptors: Sequence[grpc.aio.ServerInterceptor[Any, Any]] = (),
                       connections: ConnectionLimits = ConnectionLimits(),
                       on_certificate: Callable[[bytes], None] | None = None,
                       web_listen: str | None = None, grace_s: float = 5.0,
                       ready: bool = True,
                       controls: GameControls | None = None,
                       admin: AdminAccess | None = None,
                       operator_keys: OperatorKeyRotation | None = None,
                       authentication: SelfCheck | None = None,
                       finance: FinanceOffice | None = None,
                       replay: ReplayLinks | None = None,
                       admission: Admission | None = None,
                       launch: LaunchCalls | None = None) -> RunningServer:
    """Build, bind and start the server (``interceptors`` e.g. from rgs.observability). With
    TLS, the certificate is read again whenever its files change; ``on_certificate`` gets each
    chain loaded. With ``web_listen`` the browser edge (:mod:`rgs.api.browser_edge`) starts
    too, on the same use cases, its calls counted with the gRPC ones for the drain. Without
    ``ready`` the server starts NOT_SERVING on readiness (its liveness SERVING). With
    ``controls`` the operator's game-control RPCs answer, and with ``admin`` too the
    AdminService is served; with ``finance`` the movements and GGR RPCs answer; with
    ``admission`` calls past its limits are shed RESOURCE_EXHAUSTED (:mod:`rgs.api.overload`;
    health is never shed)."""
    calls = CallsInFlight(admission)
    # The first interceptor sheds a call past the worker's limit before anything is spent on
    # it (rgs.api.shedding); the application services' unary methods only.
    shed = ShedInterceptor(calls, unary_paths(
        [blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"],
         operator_pb2.DESCRIPTOR.services_by_name["OperatorService"], *_optional_services()]))
    server = grpc.aio.server(interceptors=[shed, *interceptors],
                             options=connections.grpc_options())
    replays = RoundReplays(office, replay)
    server.add_generic_rpc_handlers((
        lenient_handler(blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"],
                        BlackjackServicer(game, launch), calls),
        lenient_handler(operator_pb2.DESCRIPTOR.services_by_name["OperatorService"],
                        OperatorServicer(office, rounds, controls=controls, finance=finance,
                                         replays=replays, free_bets=game.free_bets,
                                         launch=launch), calls),
    ))
    names: tuple[str, ...] = SERVICE_NAMES
    if admin is not None and controls is not None:
        from rgs.api.admin import AdminServicer
        from rgs.generated.admin.v1 import admin_pb2
        service = admin_pb2.DESCRIPTOR.services_by_name["AdminService"]
        server.add_generic_rpc_handlers((
            lenient_handler(service, AdminServicer(admin, controls, authentication,
                                                   operator_keys), calls),))
        names = (*names, service.full_name)
    table_servicer = None
    if tables is not None:
        from rgs.api.tables import TableServicer, table_handler
        from rgs.generated.table.v1 import table_pb2
        table_servicer = TableServicer(tables, game, office)
        server.add_generic_rpc_handlers((table_handler(table_servicer, calls),))
        names = (*names, table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name)
    health_servicer = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
         reflection.SERVICE_NAME), server)
    if tls is None:
        port = server.add_insecure_port(listen)
    else:
        certificate = ReloadingCertificate(tls, on_load=on_certificate)
        port = server.add_secure_port(listen, certificate.credentials())
    await server.start()
    web = None
    if web_listen:
        try:
            web = await start_web_edge(game=game, calls=calls, brands=list(game.brands()),
                                       listen=web_listen, tls=tls, grace_s=grace_s,
                                       tables=table_servicer.calls if table_servicer else None,
                                       on_certificate=on_certificate, replays=replays,
                                       launch=launch)
        except BaseException:
            await server.stop(None)
            raise
    readiness = (health_pb2.HealthCheckResponse.SERVING if ready
                 else health_pb2.HealthCheckResponse.NOT_SERVING)
    for name in READINESS_SERVICES:
        await health_servicer.set(name, readiness)
    await health_servicer.set(LIVENESS_SERVICE, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server=server, port=port, health=health_servicer, calls=calls,
                         web=web)
