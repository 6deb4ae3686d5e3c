"""The grpc.aio server: the two services, health, reflection, TLS by configuration."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from rgs.api.errors import status_trailer
from rgs.api.servicers import BlackjackServicer, OperatorServicer
from rgs.generated.blackjack.v1 import blackjack_pb2
from rgs.generated.operator.v1 import operator_pb2
from rgs.service.backoffice import BackOffice
from rgs.service.play import GameService

SERVICE_NAMES = (
    blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"].full_name,
    operator_pb2.DESCRIPTOR.services_by_name["OperatorService"].full_name,
)
"""Full names of the served application services."""


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


def _guarded(method: Callable[[Any, Any], Awaitable[Message]]
             ) -> Callable[[Any, Any], Awaitable[Message]]:
    async def handle(request: Any, context: Any) -> Message:
        if request is _MALFORMED:
            code = grpc.StatusCode.INVALID_ARGUMENT
            message = "the request is not a valid protobuf message"
            await context.abort(code, message, trailing_metadata=status_trailer(
                code, "MALFORMED_REQUEST", message))
        return await method(request, context)
    return handle


def lenient_handler(service: ServiceDescriptor, servicer: object
                    ) -> grpc.GenericRpcHandler[Any, Any]:
    """A handler for ``service`` whose undecodable requests are INVALID_ARGUMENT (gRPC's own
    deserialisation failure would be INTERNAL, which no request may get)."""
    handlers = {}
    for m in service.methods:
        handlers[m.name] = grpc.unary_unary_rpc_method_handler(
            _guarded(getattr(servicer, m.name)),
            request_deserializer=_lenient_deserializer(GetMessageClass(m.input_type)),
            response_serializer=lambda r: r.SerializeToString())
    return grpc.method_handlers_generic_handler(service.full_name, handlers)


@dataclass(frozen=True, slots=True, kw_only=True)
class TlsFiles:
    """The server's certificate and key."""

    cert_file: Path
    key_file: Path


@dataclass(slots=True, kw_only=True)
class RunningServer:
    """A started server and the port it bound."""

    server: grpc.aio.Server
    port: int
    health: HealthServicer

    async def set_not_serving(self) -> None:
        """Report NOT_SERVING for every service (the replica must not take new rounds)."""
        for name in (*SERVICE_NAMES, ""):
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)

    async def stop(self, grace: float | None) -> None:
        """Report NOT_SERVING, then stop, letting calls in flight finish within ``grace``
        seconds (None: cancel them at once)."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)


async def start_server(*, game: GameService, office: BackOffice, listen: str,
                       tls: TlsFiles | None,
                       interceptors: Sequence[grpc.aio.ServerInterceptor[Any, Any]] = ()
                       ) -> RunningServer:
    """Build, bind and start the server (``interceptors`` e.g. from rgs.observability)."""
    server = grpc.aio.server(interceptors=list(interceptors))
    server.add_generic_rpc_handlers((
        lenient_handler(blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"],
                        BlackjackServicer(game)),
        lenient_handler(operator_pb2.DESCRIPTOR.services_by_name["OperatorService"],
                        OperatorServicer(office)),
    ))
    health_servicer = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (*SERVICE_NAMES, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
         reflection.SERVICE_NAME), server)
    if tls is None:
        port = server.add_insecure_port(listen)
    else:
        creds = grpc.ssl_server_credentials(
            [(tls.key_file.read_bytes(), tls.cert_file.read_bytes())])
        port = server.add_secure_port(listen, creds)
    await server.start()
    for name in (*SERVICE_NAMES, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server=server, port=port, health=health_servicer)
