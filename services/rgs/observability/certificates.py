"""When the certificates this replica presents expire, for ``rgs_tls_certificate_expiry_
timestamp_seconds`` and the alert that fires before they do.

The expiry (``notAfter``) is read from the first certificate of a PEM chain with a minimal DER
walk of the X.509 structure, so no cryptography library is needed for one date.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from rgs.observability import metrics

_PEM = re.compile(rb"-----BEGIN CERTIFICATE-----(.+?)-----END CERTIFICATE-----", re.S)
_SEQUENCE, _UTC_TIME, _GENERALIZED_TIME, _VERSION_TAG = 0x30, 0x17, 0x18, 0xA0


class CertificateError(ValueError):
    """The bytes are not a PEM certificate this parser understands."""


def _tlv(der: bytes, at: int) -> tuple[int, int, int]:
    """(tag, start of the value, end of the value) of the DER element at ``at``."""
    if at + 2 > len(der):
        raise CertificateError("truncated DER")
    tag, length, at = der[at], der[at + 1], at + 2
    if length & 0x80:
        n = length & 0x7F
        if n == 0 or n > 4 or at + n > len(der):
            raise CertificateError("unsupported DER length")
        length, at = int.from_bytes(der[at:at + n], "big"), at + n
    if at + length > len(der):
        raise CertificateError("truncated DER")
    return tag, at, at + length


def not_after(pem: bytes) -> datetime:
    """The expiry of the first certificate in a PEM chain (UTC).

    >>> not_after(b"no certificate here")
    Traceback (most recent call last):
    ...
    rgs.observability.certificates.CertificateError: no PEM certificate found
    """
    match = _PEM.search(pem)
    if match is None:
        raise CertificateError("no PEM certificate found")
    try:
        der = base64.b64decode(b"".join(match.group(1).split()), validate=True)
    except ValueError as exc:
        raise CertificateError(f"bad base64: {exc}") from exc
    tag, at, _ = _tlv(der, 0)  # Certificate
    if tag != _SEQUENCE:
        raise CertificateError("not a certificate")
    tag, at, _ = _tlv(der, at)  # tbsCertificate
    if tag != _SEQUENCE:
        raise CertificateError("not a certificate")
    fields: list[tuple[int, int, int]] = []
    while len(fields) < 4:  # [version], serialNumber, signature, issuer, validity
        tag, start, end = _tlv(der, at)
        if not (tag == _VERSION_TAG and not fields):
            fields.append((tag, start, end))
        at = end
    tag, start, _ = fields[3]
    if tag != _SEQUENCE:
        raise CertificateError("no validity in the certificate")
    _, _, after_before = _tlv(der, start)  # notBefore
    tag, start, end = _tlv(der, after_before)  # notAfter
    text = der[start:end].decode("ascii")
    if tag == _UTC_TIME:  # YYMMDDHHMMSSZ: 50-99 are 19xx (RFC 5280)
        year = int(text[:2])
        text = f"{1900 + year if year >= 50 else 2000 + year}{text[2:]}"
    elif tag != _GENERALIZED_TIME:
        raise CertificateError("notAfter is not a time")
    return datetime.strptime(text, "%Y%m%d%H%M%SZ").replace(tzinfo=UTC)


def publish_expiry(certificate: str) -> Callable[[bytes], None]:
    """A callback setting ``rgs_tls_certificate_expiry_timestamp_seconds{certificate}`` from
    each PEM chain it is given (e.g. every server certificate loaded or reloaded)."""
    def publish(pem: bytes) -> None:
        metrics.CERTIFICATE_EXPIRY.labels(certificate=certificate).set(
            not_after(pem).timestamp())
    return publish


def publish_file_expiry(certificate: str, path: Path) -> None:
    """Publish the expiry of the certificate in ``path`` (read once: e.g. the wallet client
    certificate, which the replica loads at start)."""
    publish_expiry(certificate)(path.read_bytes())
