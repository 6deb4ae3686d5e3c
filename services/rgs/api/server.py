"""The grpc.aio server: the two services, health, reflection, TLS by configuration."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from rgs.api.servicers import BlackjackServicer, OperatorServicer
from rgs.blackjack.v1 import blackjack_pb2, blackjack_pb2_grpc
from rgs.operator.v1 import operator_pb2, operator_pb2_grpc
from rgs.service.backoffice import BackOffice
from rgs.service.play import GameService

SERVICE_NAMES = (
    blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"].full_name,
    operator_pb2.DESCRIPTOR.services_by_name["OperatorService"].full_name,
)
"""Full names of the served application services."""


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

    async def stop(self, grace: float | None = 5.0) -> None:
        """Report NOT_SERVING, then stop, letting calls in flight finish within ``grace``."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)


async def start_server(*, game: GameService, office: BackOffice, listen: str,
                       tls: TlsFiles | None) -> RunningServer:
    """Build, bind and start the server."""
    server = grpc.aio.server()
    blackjack_pb2_grpc.add_BlackjackServiceServicer_to_server(BlackjackServicer(game), server)
    operator_pb2_grpc.add_OperatorServiceServicer_to_server(OperatorServicer(office), server)
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
