"""One sandbox wallet and ``rgs serve`` replicas started one at a time, each with settings (and
platform file changes) of its own, on one fresh journal: the site of the tests of one process's
behaviour (shutdown, overload). A plain module next to its tests, like e2e_servers; the fixture
``replica_site`` (tests/e2e/conftest.py) gives one per test."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from e2e_servers import ServerProcess, free_port, start, start_wallet

from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.platforms import SANDBOX_WALLET_KEYS, write_platform_file

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET_AUTH = (("authorization", f"Bearer {SANDBOX_WALLET_KEYS['dev-operator']}"),)
START = 50_000
#: 19 against the dealer's 13, who draws 9S and busts: standing wins.
STAND_WINS = ["TS", "6H", "9D", "7C", "9S"]


@dataclass
class ReplicaSite:
    """The wallet, the journal and the replicas started on them."""

    wallet: ServerProcess
    control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    rgs_database_url: str
    tmp_path: Path
    started: list[ServerProcess] = field(default_factory=list)

    async def replica(self, name: str, env: Mapping[str, str] | None = None, *,
                      operator: Mapping[str, Any] | None = None) -> ServerProcess:
        """``rgs serve --test-mode`` with JSON logs and ``env``; ``operator``: fields set on
        dev-operator's entry of its platform file (e.g. a ``rate_limit``)."""
        path = write_platform_file(self.tmp_path / f"platform-{name}.json",
                                   {"dev-operator": self.wallet.target})
        if operator:
            raw = json.loads(path.read_text("utf-8"))
            next(o for o in raw["operators"] if o["id"] == "dev-operator").update(operator)
            path.write_text(json.dumps(raw), "utf-8")
        port = free_port()
        proc = await start(["-m", "rgs", "serve", "--listen", f"127.0.0.1:{port}",
                            "--database-url", self.rgs_database_url, "--test-mode"],
                           target=f"127.0.0.1:{port}", log=self.tmp_path / f"{name}.log",
                           env={"RGS_PLATFORM_FILE": str(path), "RGS_LOG_FORMAT": "json",
                                **(env or {})})
        self.started.append(proc)
        return proc

    async def players(self, channel: grpc.aio.Channel, names: list[str]
                      ) -> list[tuple[tuple[str, str], ...]]:
        """New players with START in the wallet; each one's session metadata."""
        tokens = []
        for pid in names:
            await self.control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
                player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
                metadata=WALLET_AUTH)
            made = await operator_pb2_grpc.OperatorServiceStub(channel).CreateSession(
                op.CreateSessionRequest(request_id=f"s-{pid}", brand_id="demo-casino",
                                        player_id=pid), metadata=OPERATOR)
            tokens.append((("authorization", f"Bearer {made.session_token}"),))
        return tokens

    async def hold_debits(self, ms: int, count: int) -> None:
        """The wallet sits ``ms`` on each of its next ``count`` debits."""
        await self.control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
            kind=sandbox_pb2.FAULT_KIND_LATENCY, method=sandbox_pb2.WALLET_METHOD_DEBIT,
            latency_ms=ms, remaining=count)), metadata=WALLET_AUTH)

    async def wallet_of(self, pid: str) -> tuple[int, int]:
        """(balance, transactions) of ``pid`` as the wallet has them."""
        got = await self.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                           metadata=WALLET_AUTH)
        txns = await self.control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
            player_id=pid), metadata=WALLET_AUTH)
        return got.player.balance, len(txns.transactions)


def deal(request_id: str) -> bj.DealRequest:
    """A Deal of 500 on seat 1 that standing wins (:data:`STAND_WINS`)."""
    return bj.DealRequest(request_id=request_id, variant_id="classic-resplit",
                          boxes=[bj.BoxBet(seat=1, stake=500)], forced_cards=STAND_WINS)


@asynccontextmanager
async def replica_site(rgs_database_url: str, wallet_db: str, tmp_path: Path
                       ) -> AsyncIterator[ReplicaSite]:
    """The site on a fresh journal and wallet database; every process stopped at the end."""
    journal = await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    wallet = await start_wallet("dev-operator", wallet_db, tmp_path)
    try:
        async with grpc.aio.insecure_channel(wallet.target) as ch:
            site = ReplicaSite(wallet=wallet,
                               control=sandbox_pb2_grpc.SandboxControlServiceStub(ch),
                               rgs_database_url=rgs_database_url, tmp_path=tmp_path)
            try:
                yield site
            finally:
                for p in reversed(site.started):
                    p.stop()
    finally:
        wallet.stop()
