"""The throw-away PKI of the TLS tests is one that strict X.509 verification accepts.

Python 3.13's default TLS context adds ``VERIFY_X509_STRICT``; a CA without keyUsage passes on
3.11 and 3.12 and fails there. These tests apply the strict flag explicitly, so every supported
Python checks what 3.13 checks.
"""

from __future__ import annotations

import ssl
import subprocess
from pathlib import Path

import pytest

from support.tls import ThrowawayPki, make_pki, openssl_available

pytestmark = pytest.mark.skipif(not openssl_available(), reason="needs the openssl command")


def _handshake(server: ssl.SSLContext, client: ssl.SSLContext) -> None:
    """Run a TLS handshake between the two contexts in memory; raises what verification raises."""
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    c = client.wrap_bio(c_in, c_out, server_hostname="127.0.0.1")
    s = server.wrap_bio(s_in, s_out, server_side=True)
    pending = [c, s]
    for _ in range(10):
        for end in list(pending):
            try:
                end.do_handshake()
                pending.remove(end)
            except ssl.SSLWantReadError:
                pass
        s_in.write(c_out.read())
        c_in.write(s_out.read())
        if not pending:
            return
    raise AssertionError("the handshake did not finish")


def _contexts(pki: ThrowawayPki, ca: Path, *,
              strict: bool) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """Server and client contexts for mutual TLS, both verifying against ``ca``."""
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(pki.server_cert, pki.server_key)
    server.load_verify_locations(ca)
    server.verify_mode = ssl.CERT_REQUIRED
    client = ssl.create_default_context(cafile=str(ca))
    client.load_cert_chain(pki.client_cert, pki.client_key)
    for ctx in (server, client):
        if strict:
            ctx.verify_flags |= ssl.VERIFY_X509_STRICT
        else:
            ctx.verify_flags &= ~ssl.VERIFY_X509_STRICT
    return server, client


def test_the_test_pki_passes_strict_x509_verification_both_ways(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    _handshake(*_contexts(pki, pki.ca_cert, strict=True))


def test_a_ca_without_key_usage_fails_strict_verification_so_the_check_above_bites(
        tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    # The same CA key and name, re-issued the way the suite used to make its CA: no keyUsage.
    subprocess.run(["openssl", "req", "-x509", "-key", "ca.key", "-subj", "/CN=test-ca",
                    "-days", "2", "-out", "bare-ca.pem"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=60)
    bare = tmp_path / "bare-ca.pem"
    _handshake(*_contexts(pki, bare, strict=False))
    with pytest.raises(ssl.SSLCertVerificationError, match="key usage"):
        _handshake(*_contexts(pki, bare, strict=True))
