"""The certificate expiry behind rgs_tls_certificate_expiry_timestamp_seconds is the one openssl
reads, for both encodings of X.509 times (UTCTime until 2049, GeneralizedTime from 2050)."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rgs.observability.certificates import CertificateError, not_after
from support.tls import openssl_available

pytestmark = pytest.mark.skipif(not openssl_available(), reason="needs the openssl command")


@pytest.mark.parametrize("days", [1, 400, 12_000])  # 12,000 days reach past 2049
def test_not_after_agrees_with_openssl(tmp_path: Path, days: int) -> None:
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                    str(days), "-subj", "/CN=t", "-keyout", "k.pem", "-out", "c.pem"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=60)
    out = subprocess.run(["openssl", "x509", "-in", "c.pem", "-noout", "-enddate"],
                         cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    expected = datetime.strptime(out.strip().removeprefix("notAfter="),
                                 "%b %d %H:%M:%S %Y %Z").replace(tzinfo=UTC)
    chain = (tmp_path / "c.pem").read_bytes() + b"\n" + (tmp_path / "c.pem").read_bytes()
    assert not_after(chain) == expected


def test_garbage_is_refused() -> None:
    with pytest.raises(CertificateError):
        not_after(b"-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n")
