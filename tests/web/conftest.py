"""Browser-edge fixtures: one stack for the module run (a sandbox wallet per operator and one
RGS process in test mode with its browser edge on), real PostgreSQL databases, and helpers to
make players and sessions over native gRPC, as an operator and the wallet's owner would."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest_asyncio

from e2e.e2e_servers import Stack, free_port, start_stack
from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
OTHER_OPERATOR = (("authorization", "Bearer rgs-other-operator-key"),)
WALLET_AUTH = {"dev-operator": (("authorization", "Bearer sandbox-wallet-dev-key"),),
               "other-operator": (("authorization", "Bearer sandbox-wallet-other-key"),)}

STUDIO_ORIGIN = f"http://127.0.0.1:{free_port()}"
"""An origin demo-casino allows (a studio's page on another port: another origin)."""
OTHER_ORIGIN = f"http://127.0.0.1:{free_port()}"
"""An origin only other-casino allows."""
EVIL_ORIGIN = f"http://127.0.0.1:{free_port()}"
"""An origin no brand allows."""
START = 100_000
_ids = itertools.count()


@dataclass
class Web:
    """The running stack, the edge's base URL and native gRPC stubs on the same replica."""

    stack: Stack
    base_url: str
    web_port: int
    game: blackjack_pb2_grpc.BlackjackServiceAsyncStub
    operator: operator_pb2_grpc.OperatorServiceAsyncStub
    controls: dict[str, sandbox_pb2_grpc.SandboxControlServiceAsyncStub]

    async def new_player(self, balance: int = START, operator: str = "dev-operator") -> str:
        """A sandbox wallet player with ``balance`` minor units."""
        pid = f"web-{next(_ids)}"
        await self.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=balance)),
            metadata=WALLET_AUTH[operator])
        return pid

    async def wallet_balance(self, pid: str, operator: str = "dev-operator") -> int:
        """The wallet's own record of the player's balance."""
        resp = await self.controls[operator].GetPlayer(
            sandbox_pb2.GetPlayerRequest(player_id=pid), metadata=WALLET_AUTH[operator])
        return int(resp.player.balance)

    async def session_token(self, pid: str, brand: str = "demo-casino") -> str:
        """A session token from CreateSession (native gRPC, as the operator's server calls)."""
        auth = OPERATOR if brand.startswith("demo") else OTHER_OPERATOR
        resp = await self.operator.CreateSession(op.CreateSessionRequest(
            request_id=f"s-{pid}", brand_id=brand, player_id=pid, currency="EUR"),
            metadata=auth)
        return str(resp.session_token)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def web(database_templates: DatabaseTemplates, tmp_path_factory: object
              ) -> AsyncIterator[Web]:
    rgs_name, rgs_db = await database_templates.fresh(RGS_TEMPLATE)
    wallet_name, wallet_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    other_name, other_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    logs = Path(tmp_path_factory.mktemp("web"))  # type: ignore[attr-defined]
    port = free_port()
    stack = await start_stack(
        rgs_db=rgs_db, wallet_dbs={"dev-operator": wallet_db, "other-operator": other_db},
        replicas=1, logs=logs, env={"RGS_WEB_LISTEN": f"127.0.0.1:{port}"},
        brand_fields={"demo-casino": {"web_origins": [STUDIO_ORIGIN]},
                      "other-casino": {"web_origins": [OTHER_ORIGIN]}})
    channel = grpc.aio.insecure_channel(stack.replicas[0].target)
    wallet_channels = {o: grpc.aio.insecure_channel(w.target) for o, w in stack.wallets.items()}
    try:
        yield Web(stack=stack, base_url=f"http://127.0.0.1:{port}", web_port=port,
                  game=blackjack_pb2_grpc.BlackjackServiceStub(channel),
                  operator=operator_pb2_grpc.OperatorServiceStub(channel),
                  controls={o: sandbox_pb2_grpc.SandboxControlServiceStub(c)
                            for o, c in wallet_channels.items()})
    finally:
        for c in (channel, *wallet_channels.values()):
            await c.close()
        stack.stop()
        for name in (rgs_name, wallet_name, other_name):
            database_templates.discard(name)
