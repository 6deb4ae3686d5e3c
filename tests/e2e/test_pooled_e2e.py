"""Money over gRPC with the journal behind a real PgBouncer in transaction mode: two replica
processes (``RGS_DATABASE_POOL_MODE=transaction``) share three server connections, so their
statements interleave on the same server sessions. Rounds settle to the cent and a deal sent to
both replicas at once is executed once, which holds only if the player's lease (not a session
lock) serialises the calls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from e2e_servers import Stack, start_stack

from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import SANDBOX_WALLET_TEMPLATE
from support.pgbouncer import PgBouncer

pytestmark = pytest.mark.asyncio(loop_scope="session")

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET_AUTH = (("authorization", "Bearer sandbox-wallet-dev-key"),)
START = 100_000


@pytest_asyncio.fixture(loop_scope="session")
async def pooled(rgs_pooled_database_url: str,
                 fresh_database: Callable[[str], Awaitable[str]],
                 pgbouncer: PgBouncer, tmp_path: Path) -> AsyncIterator[Stack]:
    journal = await PostgresJournal.connect(rgs_pooled_database_url, min_size=1, max_size=1,
                                            pool_mode="transaction")
    await add_dev_operator_keys(journal)
    await journal.close()
    stack = await start_stack(
        rgs_db=rgs_pooled_database_url,
        wallet_dbs={"dev-operator": await fresh_database(SANDBOX_WALLET_TEMPLATE)},
        replicas=2, logs=tmp_path,
        env={"RGS_DATABASE_POOL_MODE": "transaction", "RGS_METRICS_LISTEN": "127.0.0.1:0"})
    try:
        yield stack
    finally:
        stack.stop()


async def test_rounds_through_pgbouncer_in_transaction_mode_settle_to_the_cent_once(
        pooled: Stack, pgbouncer: PgBouncer) -> None:
    channels = [grpc.aio.insecure_channel(p.target) for p in pooled.replicas]
    wallet_channel = grpc.aio.insecure_channel(pooled.wallet.target)
    try:
        games = [blackjack_pb2_grpc.BlackjackServiceStub(c) for c in channels]
        operator = operator_pb2_grpc.OperatorServiceStub(channels[1])
        control = sandbox_pb2_grpc.SandboxControlServiceStub(wallet_channel)

        async def balance(pid: str) -> int:
            resp = await control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                           metadata=WALLET_AUTH)
            return int(resp.player.balance)

        await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
            player_id="pooled-1", currency="EUR", balance=START)), metadata=WALLET_AUTH)
        token = (await operator.CreateSession(op.CreateSessionRequest(
            request_id="s", brand_id="demo-casino", player_id="pooled-1"),
            metadata=OPERATOR)).session_token
        md = (("authorization", f"Bearer {token}"),)
        # A split played on alternating replicas: 1000 staked twice, both hands win.
        view = (await games[0].Deal(bj.DealRequest(
            request_id="d1", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=1000)],
            forced_cards=["8S", "5H", "8D", "TC", "TH", "9H", "KS"]), metadata=md)).round
        for i, (hand, action) in enumerate(((0, bj.ACTION_SPLIT), (0, bj.ACTION_STAND),
                                            (1, bj.ACTION_STAND))):
            view = (await games[(i + 1) % 2].Act(bj.ActRequest(
                request_id=f"a{i}", round_id=view.round_id, expected_seq=view.seq, seat=1,
                hand=hand, action=action), metadata=md)).round
        assert view.status == bj.ROUND_STATUS_SETTLED and not view.payment_pending
        assert (view.total_staked, view.total_paid) == (2000, 4000)
        assert view.balance == await balance("pooled-1") == START - 2000 + 4000
        # The same deal sent to both replicas at once: one debit, one round.
        deal = bj.DealRequest(request_id="d2", variant_id="classic-resplit",
                              boxes=[bj.BoxBet(seat=1, stake=700)],
                              forced_cards=["TS", "6H", "9D", "7C", "9S"])
        first, second = await asyncio.gather(games[0].Deal(deal, metadata=md),
                                             games[1].Deal(deal, metadata=md))
        assert first.round == second.round
        txns = await control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
            player_id="pooled-1"), metadata=WALLET_AUTH)
        debits = [(t.transaction_id, t.amount) for t in txns.transactions
                  if t.kind == sandbox_pb2.TRANSACTION_KIND_DEBIT]
        assert debits[-1] == (f"{first.round.round_id}:1:debit", 700)
        assert len(debits) == 3  # the split round's two, this deal's one
        assert await balance("pooled-1") == START + 2000 - 700
        rec = (await operator.GetPlayerRound(op.GetPlayerRoundRequest(
            brand_id="demo-casino", player_id="pooled-1", round_id=view.round_id),
            metadata=OPERATOR)).round
        assert sorted((m.kind, m.amount, m.status) for m in rec.movements) == [
            ("credit", 4000, "applied"), ("debit", 1000, "booked"), ("debit", 1000, "booked")]
    finally:
        for c in (*channels, wallet_channel):
            await c.close()
    # The replicas really went through PgBouncer.
    assert "login attempt: db=test_rgs" in pgbouncer.log.read_text()
