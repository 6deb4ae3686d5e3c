"""Assemble and run the sandbox wallet gRPC server."""

from __future__ import annotations

import random
from dataclasses import dataclass

import asyncpg
import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from rgs import devdb
from rgs.config import is_loopback
from rgs.generated.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from sandbox_wallet.auth import BearerAuth
from sandbox_wallet.errors import ConfigError
from sandbox_wallet.faults import FaultBoard
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from sandbox_wallet.ledger import PlayerAdmin, Pool, PostgresLedger
from sandbox_wallet.migrate import migrate
from sandbox_wallet.servicers import ControlServicer, WalletServicer
from sandbox_wallet.settings import SandboxWalletSettings

SERVICE_NAMES = (
    wallet_pb2.DESCRIPTOR.services_by_name["WalletService"].full_name,
    sandbox_pb2.DESCRIPTOR.services_by_name["SandboxControlService"].full_name,
)
"""Fully qualified names of the services this server offers (health reports each)."""

DEV_DATABASE = "rgs_sandbox"
"""Database used on the local or embedded server when no URL is configured."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunningWallet:
    """A started sandbox wallet: where it listens and how to stop it."""

    server: grpc.aio.Server
    pool: Pool
    host: str
    port: int
    database_url: str
    faults: FaultBoard

    @property
    def target(self) -> str:
        """``host:port`` for a client channel."""
        return f"{self.host}:{self.port}"

    async def stop(self, grace: float | None = 1.0) -> None:
        """Stop serving (letting calls finish for ``grace`` seconds) and close the pool."""
        await self.server.stop(grace)
        await self.pool.close()


def split_listen(listen: str) -> tuple[str, int]:
    """Split ``host:port`` (``[v6]:port`` for IPv6) into host and port."""
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(f"listen address must be host:port, got {listen!r}")
    return host.strip("[]"), int(port)


def _server_credentials(settings: SandboxWalletSettings) -> grpc.ServerCredentials | None:
    if settings.tls_cert_file is None and settings.tls_key_file is None:
        return None
    if settings.tls_cert_file is None or settings.tls_key_file is None:
        raise ConfigError("TLS needs both tls_cert_file and tls_key_file")
    ca = settings.tls_client_ca_file.read_bytes() if settings.tls_client_ca_file else None
    return grpc.ssl_server_credentials(
        [(settings.tls_key_file.read_bytes(), settings.tls_cert_file.read_bytes())],
        root_certificates=ca,
        require_client_auth=ca is not None,
    )


async def _no_reset(conn: asyncpg.Connection) -> None:
    """A connection given back needs no reset: nothing of a call outlives its statement."""


async def start(settings: SandboxWalletSettings) -> RunningWallet:
    """Migrate the database, seed demo players and start serving; return the running server."""
    host, port = split_listen(settings.listen)
    credentials = _server_credentials(settings)
    if credentials is None and not (is_loopback(settings.listen) or settings.allow_plaintext):
        raise ConfigError(
            f"refusing plaintext on non-loopback {host}: give TLS files or --allow-plaintext"
        )
    database_url = settings.database_url or await devdb.resolve_dev_database(DEV_DATABASE)
    await migrate(database_url)
    # No reset on release (asyncpg's default is one more statement per call): the wallet keeps
    # no session state; every call is one statement in its own transaction.
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=settings.pool_size,
                                     reset=_no_reset)
    try:
        admin = PlayerAdmin(pool)
        if settings.seed_demo_players:
            await admin.seed_demo_players()
        faults = FaultBoard(rng=random.Random(settings.fault_seed))
        server = grpc.aio.server(interceptors=[BearerAuth(settings.api_key)])
        wallet_pb2_grpc.add_WalletServiceServicer_to_server(
            WalletServicer(PostgresLedger(pool), faults, settings.operator_id), server
        )
        sandbox_pb2_grpc.add_SandboxControlServiceServicer_to_server(
            ControlServicer(admin, faults), server
        )
        # `health.aio` is re-exported at run time but invisible to mypy through grpc_health.
        health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        reflection.enable_server_reflection(
            (*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME), server
        )
        address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        if credentials is None:
            bound = server.add_insecure_port(address)
        else:
            bound = server.add_secure_port(address, credentials)
        await server.start()
        for name in ("", *SERVICE_NAMES):
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    except BaseException:
        await pool.close()
        raise
    return RunningWallet(
        server=server, pool=pool, host=host, port=bound, database_url=database_url, faults=faults
    )
