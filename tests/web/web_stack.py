"""What the browser-edge tests share (a module of its own: ``conftest`` is a name every test
folder uses): the origins the brands allow, and the running stack with helpers to make players
and sessions over native gRPC, as an operator and the wallet's owner would."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from e2e.e2e_servers import Stack, free_port
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

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
    for table_id in ("vip-edge", "vip-edge-errors", "vip-browser")]
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


