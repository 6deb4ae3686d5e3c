"""The server's connections: clients are sent to reconnect after the maximum connection age
(so replicas the autoscaler adds get their share of long-lived clients), and a renewed TLS
certificate is served to new connections without a restart, its expiry published as a metric."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs import eventloop
from rgs.bootstrap import build, serve
from rgs.config import load_settings
from rgs.journal.memory import InMemoryJournal
from rgs.observability import metrics
from rgs.wallet.grpc_wallet import GrpcWallet, GrpcWalletSettings
from support.tls import make_pki, openssl_available

ON_SESSION_LOOP = pytest.mark.asyncio(loop_scope="session")


def _wallet() -> GrpcWallet:
    return GrpcWallet(GrpcWalletSettings(target="127.0.0.1:1", api_key="unused-key"))


@ON_SESSION_LOOP
async def test_a_connection_older_than_the_maximum_age_is_sent_to_reconnect() -> None:
    settings = load_settings(listen="127.0.0.1:0", max_connection_age_s=0.5,
                             max_connection_age_grace_s=0.5)
    app = await build(settings, journal=InMemoryJournal(), wallet=_wallet())
    running = await serve(settings, app)
    states = []
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as ch:
            health = health_pb2_grpc.HealthStub(ch)
            await health.Check(health_pb2.HealthCheckRequest())
            assert ch.get_state() is grpc.ChannelConnectivity.READY
            deadline = time.monotonic() + 5
            # GOAWAY at the age (±10% jitter): the channel drops to IDLE, then reconnects on
            # the next call.
            while ch.get_state() is grpc.ChannelConnectivity.READY:
                assert time.monotonic() < deadline, "the connection was never aged out"
                await asyncio.wait_for(ch.wait_for_state_change(ch.get_state()), 5)
            states.append(ch.get_state())
            resp = await health.Check(health_pb2.HealthCheckRequest())
            assert resp.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        await running.stop(grace=None)
        await app.close()
    assert states[0] is not grpc.ChannelConnectivity.READY


async def _handshake(port: int, ca: Path) -> None:
    creds = grpc.ssl_channel_credentials(root_certificates=ca.read_bytes())
    async with grpc.aio.secure_channel(f"127.0.0.1:{port}", creds) as ch:
        await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5)


async def _web_handshake(port: int, ca: Path) -> None:
    """A TLS handshake with the browser edge, as a browser makes it to an IP address (no
    server name sent), checking the certificate against ``ca``."""
    context = ssl.create_default_context(cafile=str(ca))
    _, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, ssl=context), timeout=5)
    writer.close()
    await writer.wait_closed()


def _expiry() -> datetime:
    value = metrics.CERTIFICATE_EXPIRY.labels(certificate="server")._value.get()
    return datetime.fromtimestamp(value, UTC)


@pytest.mark.skipif(not openssl_available(), reason="needs the openssl command")
@ON_SESSION_LOOP
async def test_a_renewed_certificate_is_served_without_a_restart_and_its_expiry_published(
        tmp_path: Path) -> None:
    await _renewal(tmp_path)


def test_a_renewed_certificate_is_served_on_uvloop_too(tmp_path: Path) -> None:
    """The server processes run on uvloop (rgs.eventloop), whose TLS is its own code: the
    browser edge's certificate callback must work there as on asyncio's loop."""
    pytest.importorskip("uvloop")
    assert eventloop.loop_name() == "uvloop"
    eventloop.run(_renewal(tmp_path))


async def _renewal(tmp_path: Path) -> None:
    for d in ("old", "new"):
        (tmp_path / d).mkdir()
    old, new = make_pki(tmp_path / "old", days=2), make_pki(tmp_path / "new", days=40)
    served = tmp_path / "served"
    served.mkdir()
    for name in ("server.pem", "server.key"):
        shutil.copy(old.server_cert.parent / name, served / name)
    settings = load_settings(listen="127.0.0.1:0", tls_cert_file=served / "server.pem",
                             tls_key_file=served / "server.key", web_listen="127.0.0.1:0")
    app = await build(settings, journal=InMemoryJournal(), wallet=_wallet())
    running = await serve(settings, app)
    assert running.web is not None
    web_port = running.web.port
    try:
        await _handshake(running.port, old.ca_cert)
        await _web_handshake(web_port, old.ca_cert)
        assert _expiry() - datetime.now(UTC) < timedelta(days=3)
        # The Secret is renewed: both files replaced at once, as a Secret volume swaps them.
        staging = tmp_path / "staging"
        staging.mkdir()
        for name in ("server.pem", "server.key"):
            shutil.copy(new.server_cert.parent / name, staging / name)
            (staging / name).replace(served / name)
        await _handshake(running.port, new.ca_cert)  # the new certificate, same process
        with pytest.raises(grpc.aio.AioRpcError):
            await _handshake(running.port, old.ca_cert)
        # the browser edge too, on the same files
        await _web_handshake(web_port, new.ca_cert)
        with pytest.raises(ssl.SSLCertVerificationError):
            await _web_handshake(web_port, old.ca_cert)
        assert _expiry() - datetime.now(UTC) > timedelta(days=39)
    finally:
        await running.stop(grace=None)
        await app.close()
