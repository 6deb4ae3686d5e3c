"""What the browser-edge tests share (a module of its own: ``conftest`` is a name every test
folder uses): the origins the brands allow, and the running stack with helpers to make players
and sessions over native gRPC, as an operator and the wallet's owner would."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from e2e.e2e_servers import Stack, free_port, start_stack
from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from rgs.platform_file import DEFAULT_PLATFORM_FILE
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
#: The shared tables of the browser-edge tests, beside the sandbox's (each test its own table).
WEB_TABLES = [
    {"id": table_id, "variant": "vip-platinum", "seats": 7, "currency": "EUR",
     "limits": {"main_min": 1000, "main_max": 500000, "side_min": 100, "side_max": 50000},
     "brands": ["demo-casino", "other-casino"], "betting_s": 30, "decision_s": 30}
    for table_id in ("vip-edge", "vip-edge-errors", "vip-streams", "vip-browser",
                     "vip-browser-fair", "vip-browser-hints")]
#: The table where a player of the sandbox's hints brand sits with one of a brand without.
WEB_TABLES[-1]["brands"] = ["demo-casino-hints", "other-casino"]
#: The table where seats are given back: a player away for 4 s loses theirs.
WEB_TABLES.append({**WEB_TABLES[0], "id": "vip-browser-seats", "away_s": 4.0})
#: The table of the replay tests: decisions time out (stand) after a second.
WEB_TABLES.append({**WEB_TABLES[0], "id": "vip-replay", "decision_s": 1})
#: The table of the languages test (a German page at a shared table).
WEB_TABLES.append({**WEB_TABLES[0], "id": "vip-browser-lang"})
#: The table of the free-bet browser test.
WEB_TABLES.append({**WEB_TABLES[0], "id": "vip-browser-free"})
#: The table a launch opens (test_browser_launch).
WEB_TABLES.append({**WEB_TABLES[0], "id": "vip-launch"})
#: The RTP monitoring's channel test: a round with a bettor of each edge, decisions timed out.
WEB_TABLES.append({**WEB_TABLES[0], "id": "vip-rtp", "decision_s": 1})
_ids = itertools.count()


@dataclass
class Web:
    """The running stack, the edge's base URL and native gRPC stubs on the same replica."""

    stack: Stack
    base_url: str
    web_port: int
    metrics_url: str
    game: blackjack_pb2_grpc.BlackjackServiceAsyncStub
    operator: operator_pb2_grpc.OperatorServiceAsyncStub
    controls: dict[str, sandbox_pb2_grpc.SandboxControlServiceAsyncStub]
    #: The RGS journal's database (the RTP monitoring's tests run its worker on it).
    database_url: str = ""

    async def new_player(self, balance: int = START, operator: str = "dev-operator",
                         player_id: str = "") -> str:
        """A sandbox wallet player with ``balance`` minor units (``player_id``: that id, e.g. the
        same as another operator's player's)."""
        pid = player_id or f"web-{next(_ids)}"
        await self.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=balance)),
            metadata=WALLET_AUTH[operator])
        return pid

    async def wallet_balance(self, pid: str, operator: str = "dev-operator") -> int:
        """The wallet's own record of the player's balance."""
        resp = await self.controls[operator].GetPlayer(
            sandbox_pb2.GetPlayerRequest(player_id=pid), metadata=WALLET_AUTH[operator])
        return int(resp.player.balance)

    async def balances_when_paid(self, want: dict[tuple[str, str], int],
                                 timeout: float = 10.0) -> dict[tuple[str, str], int]:
        """The balances of (player, operator) once they are ``want`` (a table's wins reach the
        wallets through the outbox just after the round ends), or as they are at ``timeout``."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            got = {(p, o): await self.wallet_balance(p, o) for p, o in want}
            if got == want or asyncio.get_running_loop().time() > deadline:
                return got
            await asyncio.sleep(0.2)

    async def session_token(self, pid: str, brand: str = "demo-casino") -> str:
        """A session token from CreateSession (native gRPC, as the operator's server calls)."""
        auth = OPERATOR if brand.startswith("demo") else OTHER_OPERATOR
        resp = await self.operator.CreateSession(op.CreateSessionRequest(
            request_id=f"s-{pid}", brand_id=brand, player_id=pid, currency="EUR"),
            metadata=auth)
        return str(resp.session_token)

    def log_size(self) -> int:
        """Where the RGS process's log ends now (for :meth:`logged_since`)."""
        return self.stack.replicas[0].log.stat().st_size

    def logged_since(self, offset: int) -> list[str]:
        """The lines the RGS process logged after ``offset`` (from :meth:`log_size`)."""
        with self.stack.replicas[0].log.open("rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace").splitlines()




@asynccontextmanager
async def running_web(database_templates: DatabaseTemplates, logs: Path,
                      brand_fields: Mapping[str, Mapping[str, Any]] | None = None
                      ) -> AsyncIterator[Web]:
    """One stack over fresh databases: a sandbox wallet per operator and one RGS process in
    test mode with its browser edge on; ``brand_fields`` add to the brands' test settings
    (demo-casino allows STUDIO_ORIGIN, other-casino OTHER_ORIGIN)."""
    rgs_name, rgs_db = await database_templates.fresh(RGS_TEMPLATE)
    wallet_name, wallet_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    other_name, other_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    port, metrics_port = free_port(), free_port()
    brands: dict[str, dict[str, object]] = {"demo-casino": {"web_origins": [STUDIO_ORIGIN]},
                                            "other-casino": {"web_origins": [OTHER_ORIGIN]}}
    for brand, fields in (brand_fields or {}).items():
        brands.setdefault(brand, {}).update(fields)
    stack = await start_stack(
        rgs_db=rgs_db, wallet_dbs={"dev-operator": wallet_db, "other-operator": other_db},
        replicas=1, logs=logs, env={"RGS_WEB_LISTEN": f"127.0.0.1:{port}",
                                    "RGS_METRICS_LISTEN": f"127.0.0.1:{metrics_port}"},
        brand_fields=brands,
        tables=[*json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))["tables"], *WEB_TABLES])
    channel = grpc.aio.insecure_channel(stack.replicas[0].target)
    wallet_channels = {o: grpc.aio.insecure_channel(w.target) for o, w in stack.wallets.items()}
    try:
        yield Web(stack=stack, base_url=f"http://127.0.0.1:{port}", web_port=port,
                  metrics_url=f"http://127.0.0.1:{metrics_port}/metrics",
                  game=blackjack_pb2_grpc.BlackjackServiceStub(channel),
                  operator=operator_pb2_grpc.OperatorServiceStub(channel),
                  controls={o: sandbox_pb2_grpc.SandboxControlServiceStub(c)
                            for o, c in wallet_channels.items()},
                  database_url=rgs_db)
    finally:
        for c in (channel, *wallet_channels.values()):
            await c.close()
        stack.stop()
        for name in (rgs_name, wallet_name, other_name):
            database_templates.discard(name)
