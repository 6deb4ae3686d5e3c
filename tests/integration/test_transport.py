"""Transport security: the RGS serves TLS by configuration, and talks TLS to the wallet."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from rgs.bootstrap import build, serve
from rgs.config import load_settings
from rgs.generated.blackjack.v1 import blackjack_pb2, blackjack_pb2_grpc
from rgs.journal.memory import InMemoryJournal
from rgs.wallet.grpc_wallet import GrpcWallet, GrpcWalletSettings
from rgs.wallet.port import Party
from sandbox_wallet.server import start
from sandbox_wallet.settings import DEV_API_KEY, SandboxWalletSettings
from support.tls import make_pki, openssl_available

pytestmark = [pytest.mark.asyncio(loop_scope="session"),
              pytest.mark.skipif(not openssl_available(), reason="needs openssl")]


async def test_rgs_serves_tls_when_configured(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    settings = load_settings(listen="127.0.0.1:0", tls_cert_file=pki.server_cert,
                             tls_key_file=pki.server_key)
    app = await build(settings, journal=InMemoryJournal(),
                      wallet=GrpcWallet(GrpcWalletSettings(target="127.0.0.1:1",
                                                           api_key="unused-key")))
    running = await serve(settings, app)
    try:
        creds = grpc.ssl_channel_credentials(root_certificates=pki.ca_cert.read_bytes())
        async with grpc.aio.secure_channel(f"127.0.0.1:{running.port}", creds) as ch:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await blackjack_pb2_grpc.BlackjackServiceStub(ch).ListVariants(
                    blackjack_pb2.ListVariantsRequest(), timeout=5)
            assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED  # TLS worked
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as ch:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await blackjack_pb2_grpc.BlackjackServiceStub(ch).ListVariants(
                    blackjack_pb2.ListVariantsRequest(), timeout=2)
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE  # plaintext is not served
    finally:
        await running.stop(grace=None)
        await app.close()


async def test_wallet_client_speaks_mutual_tls(tmp_path: Path,
                                               sandbox_wallet_database_url: str) -> None:
    pki = make_pki(tmp_path)
    running = await start(SandboxWalletSettings(
        listen="127.0.0.1:0", database_url=sandbox_wallet_database_url,
        tls_cert_file=pki.server_cert, tls_key_file=pki.server_key,
        tls_client_ca_file=pki.ca_cert))
    wallet = GrpcWallet(GrpcWalletSettings(
        target=running.target, api_key=DEV_API_KEY, tls_ca_file=pki.ca_cert,
        tls_cert_file=pki.client_cert, tls_key_file=pki.client_key))
    try:
        balance = await wallet.balance(Party(operator_id="dev-operator", brand_id="demo-casino",
                                             player_id="demo-alice", session_id="s",
                                             currency="EUR"))
        assert balance == 100_000
    finally:
        await wallet.close()
        await running.stop(grace=None)
