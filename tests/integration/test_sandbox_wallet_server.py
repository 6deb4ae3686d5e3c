"""The sandbox wallet's control service and server: players created and funded through control,
a restart keeping the money, TLS and plaintext rules, the command-line entry point, migrations
and the operator a call is for.

Each test gets its own database (copied from a migrated template) and its own server with the
demo players seeded: demo-alice EUR 1,000.00, demo-bob EUR 250.00, demo-carol-usd USD 500.00,
demo-dave-blocked (blocked), demo-erin-limited (debits above 10.00 refused).
"""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs.generated.wallet.v1 import wallet_pb2_grpc
from sandbox_wallet.errors import ConfigError
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from sandbox_wallet.migrate import migrate, migrations
from sandbox_wallet.server import start
from sandbox_wallet.settings import SandboxWalletSettings
from support.sandbox import AUTH, SandboxWalletClient, sandbox_wallet_server
from support.sandbox_calls import (
    ALICE,
    balance_of,
    debit,
    refused,
)
from support.tls import make_pki, openssl_available

pytestmark = pytest.mark.asyncio(loop_scope="session")


# --- control service and server ---------------------------------------------------------------


async def test_control_creates_funds_and_lists_players(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    w = sandbox_wallet
    created = await w.control.CreatePlayer(
        sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id="p-gbp", currency="GBP", balance=1_999)
        ),
        metadata=AUTH,
    )
    funded = await w.control.FundPlayer(
        sandbox_pb2.FundPlayerRequest(player_id="p-gbp", amount=1), metadata=AUTH
    )
    overdrawn = await refused(
        w.control.FundPlayer(
            sandbox_pb2.FundPlayerRequest(player_id="p-gbp", amount=-2_001), metadata=AUTH
        )
    )
    assert created.player.balance == 1_999
    assert funded.player.balance == 2_000
    assert overdrawn.reason == "INVALID_REQUEST"
    reply = await w.wallet.Debit(debit("d-1", 2_000, player="p-gbp", currency="GBP"), metadata=AUTH)
    assert reply.balance == 0


async def test_restart_keeps_balances_and_transactions(
    sandbox_wallet_database_url: str,
) -> None:
    async with sandbox_wallet_server(sandbox_wallet_database_url) as w:
        await w.wallet.Debit(debit("d-1", 300), metadata=AUTH)
    async with sandbox_wallet_server(sandbox_wallet_database_url) as w:
        assert await balance_of(w) == 99_700
        replay = await w.wallet.Debit(debit("d-1", 300), metadata=AUTH)
        assert replay.balance == 99_700


async def test_plaintext_on_a_public_address_is_refused() -> None:
    with pytest.raises(ConfigError):
        await start(SandboxWalletSettings(listen="0.0.0.0:0", database_url="postgresql://x/y"))


@pytest.mark.skipif(not openssl_available(), reason="needs the openssl command")
async def test_tls_with_client_ca_requires_a_client_certificate(
    sandbox_wallet_database_url: str, tmp_path: Path
) -> None:
    pki = make_pki(tmp_path)
    running = await start(
        SandboxWalletSettings(
            listen="127.0.0.1:0",
            database_url=sandbox_wallet_database_url,
            tls_cert_file=pki.server_cert,
            tls_key_file=pki.server_key,
            tls_client_ca_file=pki.ca_cert,
        )
    )
    ca = pki.ca_cert.read_bytes()
    mutual = grpc.ssl_channel_credentials(
        root_certificates=ca,
        private_key=pki.client_key.read_bytes(),
        certificate_chain=pki.client_cert.read_bytes(),
    )
    server_only = grpc.ssl_channel_credentials(root_certificates=ca)
    try:
        async with grpc.aio.secure_channel(running.target, mutual) as channel:
            stub = wallet_pb2_grpc.WalletServiceStub(channel)
            assert (await stub.Debit(debit("d-1", 100), metadata=AUTH)).balance == 99_900
        async with grpc.aio.secure_channel(running.target, server_only) as channel:
            stub = wallet_pb2_grpc.WalletServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await stub.Debit(debit("d-2", 100), metadata=AUTH, timeout=5)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
    finally:
        await running.stop(grace=None)


async def test_command_line_entry_point_serves_until_terminated(
    sandbox_wallet_database_url: str,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "sandbox_wallet", "--listen", f"127.0.0.1:{port}",
        "--database-url", sandbox_wallet_database_url,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            reply = await health.Check(
                health_pb2.HealthCheckRequest(), wait_for_ready=True, timeout=20
            )
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            stub = wallet_pb2_grpc.WalletServiceStub(channel)
            assert (await stub.Debit(debit("d-1", 100), metadata=AUTH)).balance == 99_900
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=20)
    assert process.returncode == 0, stderr.decode()
    assert b"demo player demo-alice: EUR 100000" in stderr


async def test_migrations_are_numbered_in_order_and_rerun_as_no_ops(
    sandbox_wallet_database_url: str,
) -> None:
    # Numbers rise and are unique; gaps are allowed (as in the journal's set: ranges of numbers
    # are handed to work done side by side, so two branches never take the same one).
    versions = [m.version for m in migrations()]
    assert versions[0] == 1 and versions == sorted(set(versions))
    assert await migrate(sandbox_wallet_database_url) == []



async def test_a_call_for_another_operator_is_refused_and_moves_nothing(
    sandbox_wallet: SandboxWalletClient,
) -> None:
    """A sandbox wallet serves one operator: the same player id at another operator is another
    player, so a call naming another operator (or none) must never touch this ledger."""
    for other in ("other-operator", ""):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await sandbox_wallet.wallet.Debit(
                debit("t-other", 500, operator_id=other), metadata=AUTH
            )
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert await balance_of(sandbox_wallet) == 100_000
    done = await sandbox_wallet.wallet.Debit(debit("t-own", 500), metadata=AUTH)
    assert done.balance == 99_500
    listed = await sandbox_wallet.control.ListTransactions(
        sandbox_pb2.ListTransactionsRequest(player_id=ALICE), metadata=AUTH
    )
    assert [(t.operator_id, t.brand_id) for t in listed.transactions] == [
        ("dev-operator", "demo-casino")
    ]
