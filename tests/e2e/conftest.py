"""End-to-end fixtures: one stack (sandbox wallet + two RGS replicas, real processes and
databases) for the whole e2e module run, and gRPC stubs on it; and a site whose replicas a test
starts one at a time with settings of their own (``replica_site``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import grpc
import pytest_asyncio
from e2e_clients import Clients
from e2e_servers import start_stack
from replica_site import ReplicaSite
from replica_site import replica_site as open_replica_site

from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def e2e(database_templates: DatabaseTemplates, tmp_path_factory: object
              ) -> AsyncIterator[Clients]:
    rgs_name, rgs_db = await database_templates.fresh(RGS_TEMPLATE)
    wallet_name, wallet_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    other_name, other_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    logs = Path(tmp_path_factory.mktemp("e2e"))  # type: ignore[attr-defined]
    stack = await start_stack(rgs_db=rgs_db, wallet_dbs={"dev-operator": wallet_db,
                                                         "other-operator": other_db},
                              replicas=2, logs=logs)
    channels = [grpc.aio.insecure_channel(p.target) for p in stack.replicas]
    wallet_channel = grpc.aio.insecure_channel(stack.wallet.target)
    other_channel = grpc.aio.insecure_channel(stack.wallets["other-operator"].target)
    try:
        yield Clients(
            stack=stack,
            games=[blackjack_pb2_grpc.BlackjackServiceStub(c) for c in channels],
            operators=[operator_pb2_grpc.OperatorServiceStub(c) for c in channels],
            control=sandbox_pb2_grpc.SandboxControlServiceStub(wallet_channel),
            other_control=sandbox_pb2_grpc.SandboxControlServiceStub(other_channel),
            rgs_db=rgs_db, channels=channels)
    finally:
        for c in (*channels, wallet_channel, other_channel):
            await c.close()
        stack.stop()
        database_templates.discard(rgs_name)
        database_templates.discard(wallet_name)
        database_templates.discard(other_name)


@pytest_asyncio.fixture(loop_scope="session")
async def replica_site(rgs_database_url: str, fresh_database: Callable[[str], Awaitable[str]],
                       tmp_path: Path) -> AsyncIterator[ReplicaSite]:
    """A wallet and replicas started one at a time with settings of their own
    (tests/e2e/replica_site.py), on a fresh journal: one per test."""
    async with open_replica_site(rgs_database_url, await fresh_database(SANDBOX_WALLET_TEMPLATE),
                                 tmp_path) as site:
        yield site
