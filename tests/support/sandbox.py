"""A real sandbox wallet server for tests, with client stubs on a real channel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import grpc

from rgs.generated.wallet.v1 import wallet_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2_grpc
from sandbox_wallet.server import RunningWallet, start
from sandbox_wallet.settings import DEV_API_KEY, SandboxWalletSettings

AUTH = (("authorization", f"Bearer {DEV_API_KEY}"),)
"""Call metadata carrying the sandbox wallet's dev key."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SandboxWalletClient:
    """A running sandbox wallet and stubs connected to it."""

    running: RunningWallet
    channel: grpc.aio.Channel
    wallet: wallet_pb2_grpc.WalletServiceAsyncStub
    control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub

    @property
    def target(self) -> str:
        """``host:port`` of the server."""
        return self.running.target


@asynccontextmanager
async def sandbox_wallet_server(
    database_url: str, *, api_key: str = DEV_API_KEY, operator_id: str = "dev-operator"
) -> AsyncIterator[SandboxWalletClient]:
    """Start a sandbox wallet for ``operator_id`` on a free loopback port over ``database_url``;
    stop it after."""
    running = await start(
        SandboxWalletSettings(
            listen="127.0.0.1:0",
            database_url=database_url,
            api_key=api_key,
            operator_id=operator_id,
        )
    )
    try:
        async with grpc.aio.insecure_channel(running.target) as channel:
            yield SandboxWalletClient(
                running=running,
                channel=channel,
                wallet=wallet_pb2_grpc.WalletServiceStub(channel),
                control=sandbox_pb2_grpc.SandboxControlServiceStub(channel),
            )
    finally:
        await running.stop(grace=None)
