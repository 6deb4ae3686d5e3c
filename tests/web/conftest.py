"""Browser-edge fixtures: one stack for the module run (a sandbox wallet per operator and one
RGS process in test mode with its browser edge on) over real PostgreSQL databases."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest_asyncio
from web_stack import OTHER_ORIGIN, STUDIO_ORIGIN, WEB_TABLES, Web

from e2e.e2e_servers import free_port, start_stack
from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from rgs.platform_file import DEFAULT_PLATFORM_FILE
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates


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
    port, metrics_port = free_port(), free_port()
    stack = await start_stack(
        rgs_db=rgs_db, wallet_dbs={"dev-operator": wallet_db, "other-operator": other_db},
        replicas=1, logs=logs, env={"RGS_WEB_LISTEN": f"127.0.0.1:{port}",
                                    "RGS_METRICS_LISTEN": f"127.0.0.1:{metrics_port}"},
        brand_fields={"demo-casino": {"web_origins": [STUDIO_ORIGIN]},
                      "other-casino": {"web_origins": [OTHER_ORIGIN]}},
        tables=[*json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))["tables"], *WEB_TABLES])
    channel = grpc.aio.insecure_channel(stack.replicas[0].target)
    wallet_channels = {o: grpc.aio.insecure_channel(w.target) for o, w in stack.wallets.items()}
    try:
        yield Web(stack=stack, base_url=f"http://127.0.0.1:{port}", web_port=port,
                  metrics_url=f"http://127.0.0.1:{metrics_port}/metrics",
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
