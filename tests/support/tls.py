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


def make_pki(directory: Path) -> ThrowawayPki:
    """Write a fresh CA and leaf certificates into ``directory``."""
    d = directory
    _run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test-ca",
         "-keyout", "ca.key", "-out", "ca.pem", cwd=d)  # fmt: skip
    (d / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for leaf, ext in (("server", ["-extfile", "server.ext"]), ("client", [])):
        _run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={leaf}",
             "-keyout", f"{leaf}.key", "-out", f"{leaf}.csr", cwd=d)  # fmt: skip
        _run("x509", "-req", "-in", f"{leaf}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-out", f"{leaf}.pem", *ext, cwd=d)  # fmt: skip
    return ThrowawayPki(
        ca_cert=d / "ca.pem",
        server_cert=d / "server.pem",
        server_key=d / "server.key",
        client_cert=d / "client.pem",
        client_key=d / "client.key",
    )
