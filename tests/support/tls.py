"""Throw-away certificates for TLS and mTLS tests, made with the openssl command."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True, kw_only=True)
class ThrowawayPki:
    """A CA, a server certificate for 127.0.0.1/localhost and a client certificate (PEM files)."""

    ca_cert: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def openssl_available() -> bool:
    """True when the ``openssl`` command is on PATH."""
    return shutil.which("openssl") is not None


def _run(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


# Extensions as a real PKI sets them. Python 3.13's default TLS context verifies with
# VERIFY_X509_STRICT, which rejects a CA without keyUsage (and a leaf without an authority key id),
# so a bare `openssl req -x509` CA that passes on 3.11 fails there.
_CA_EXTENSIONS = """\
[req]
distinguished_name = dn
x509_extensions = ca
prompt = no
[dn]
CN = test-ca
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
"""
_LEAF_EXTENSIONS = """\
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid, issuer
"""
_SERVER_EXTENSIONS = "extendedKeyUsage = serverAuth\nsubjectAltName = IP:127.0.0.1, DNS:localhost\n"
_CLIENT_EXTENSIONS = "extendedKeyUsage = clientAuth\n"


def make_pki(directory: Path, *, days: int = 2) -> ThrowawayPki:
    """Write a fresh CA and leaf certificates valid for ``days`` into ``directory``."""
    d = directory
    (d / "ca.cnf").write_text(_CA_EXTENSIONS)
    _run("req", "-x509", "-config", "ca.cnf", "-newkey", "rsa:2048", "-nodes", "-days", str(days),
         "-keyout", "ca.key", "-out", "ca.pem", cwd=d)  # fmt: skip
    for leaf, usage in (("server", _SERVER_EXTENSIONS), ("client", _CLIENT_EXTENSIONS)):
        (d / f"{leaf}.ext").write_text(_LEAF_EXTENSIONS + usage)
        _run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={leaf}",
             "-keyout", f"{leaf}.key", "-out", f"{leaf}.csr", cwd=d)  # fmt: skip
        _run("x509", "-req", "-in", f"{leaf}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", str(days), "-out", f"{leaf}.pem",
             "-extfile", f"{leaf}.ext", cwd=d)  # fmt: skip
    return ThrowawayPki(
        ca_cert=d / "ca.pem",
        server_cert=d / "server.pem",
        server_key=d / "server.key",
        client_cert=d / "client.pem",
        client_key=d / "client.key",
    )
