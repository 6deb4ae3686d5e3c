"""The PostgreSQL journal's tests' helpers (tests/integration/test_journal*.py): how a test's
replicas reach the journal (JournalDb: directly or through PgBouncer, as a replica or as one
more pool), a session for a demo player, the player's debits and balance in the sandbox wallet,
a stored round, and a player's lease as the database holds it. The ``journal_db`` and
``two_replicas`` fixtures are in tests/integration/conftest.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import asyncpg

from rgs.bootstrap import App, build
from rgs.config import RgsSettings
from rgs.journal.migrate import SCHEMA
from rgs.journal.postgres import PoolMode, PostgresJournal
from rgs.service.model import (
    CreateSessionCommand,
    Session,
    StoredRound,
)
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.platforms import sandbox_platform
from support.sandbox import AUTH, SandboxWalletClient

ALICE = "demo-alice"
STAND_WINS = ("TS", "6H", "9D", "7C", "9S")


@dataclass(frozen=True)
class JournalDb:
    """How this test's replicas reach the journal."""

    url: str
    pool_mode: PoolMode

    async def app(self, wallet: SandboxWalletClient, **wallet_fields: Any) -> App:
        """A test-mode replica on this database, dev-operator's wallet being the sandbox's
        (with ``wallet_fields`` changed, e.g. ``timeout_s``)."""
        platform = sandbox_platform({"dev-operator": wallet.target})
        if wallet_fields:
            platform = platform.with_wallets(**{"dev-operator": wallet_fields})
        return await build(RgsSettings(test_mode=True, database_url=self.url,
                                       database_pool_mode=self.pool_mode), platform=platform)

    async def connect(self, **options: Any) -> PostgresJournal:
        """A journal of its own (one more replica's pool)."""
        return await PostgresJournal.connect(self.url, pool_mode=self.pool_mode, **options)


async def new_session(app: App, player: str = ALICE) -> Session:
    op = await app.office.authenticate("rgs-dev-operator-key")
    new = await app.office.create_session(op, CreateSessionCommand(
        request_id=f"s-{player}", brand_id="demo-casino", player_id=player))
    return await app.game.authenticate(new.token)


async def debits_of(wallet: SandboxWalletClient, player: str = ALICE) -> list[str]:
    resp = await wallet.control.ListTransactions(
        sandbox_pb2.ListTransactionsRequest(player_id=player), metadata=AUTH)
    return [t.transaction_id for t in resp.transactions
            if t.kind == sandbox_pb2.TRANSACTION_KIND_DEBIT]


async def balance_of(wallet: SandboxWalletClient, player: str = ALICE) -> int:
    resp = await wallet.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=player),
                                          metadata=AUTH)
    return int(resp.player.balance)


async def lease_of(database_url: str, player_key: str) -> tuple[str | None, int]:
    conn = await asyncpg.connect(database_url)
    try:
        r = await conn.fetchrow(f"SELECT holder, epoch FROM {SCHEMA}.leases "
                                "WHERE kind = 'player' AND key = $1", player_key)
    finally:
        await conn.close()
    if r is None:  # a support module's assert is not rewritten by pytest: say it in full
        raise AssertionError(f"no lease row for player {player_key!r}")
    return r["holder"], int(r["epoch"])


def stored_round(player_key: str, round_id: str, seq: int) -> StoredRound:
    return StoredRound(round_id=round_id, player_key=player_key, session_id="s", operator_id="op",
                       brand_id="demo-casino", player_id="p", currency="EUR",
                       variant="classic-resplit", seq=seq, status="player_turn", forced_cards=(),
                       total_staked=100, total_paid=0, events=())


