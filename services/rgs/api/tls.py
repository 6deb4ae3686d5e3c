"""The server's TLS certificate, read again whenever its files change, on both edges.

Before each new connection's handshake a stat of the two files tells whether they changed
(Kubernetes swaps a Secret volume's files at once, by a symlink), and only then are they read.
A renewed certificate (cert-manager, a rotated Secret) is thus served to new connections
without a restart; connections already open keep the old one until they close, which the
server's maximum connection age bounds. gRPC asks :meth:`ReloadingCertificate.fetch`; the
browser edge's :class:`ReloadingSslContext` answers from the TLS server-name callback, which
OpenSSL calls on every handshake (with or without a server name).
"""

from __future__ import annotations

import logging
import os
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import grpc

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class TlsFiles:
    """The server's certificate (chain) and key."""

    cert_file: Path
    key_file: Path


def _stamp(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)  # follows the symlink a Secret volume swaps
    return st.st_ino, st.st_mtime_ns, st.st_size


def _stamps(files: TlsFiles) -> tuple[tuple[int, int, int], ...]:
    """What tells that the certificate or the key file changed."""
    return _stamp(files.cert_file), _stamp(files.key_file)


class ReloadingCertificate:
    """Server credentials whose certificate follows its files; ``on_load`` receives every
    certificate chain loaded (the first one and each renewal), e.g. to publish its expiry."""

    def __init__(self, files: TlsFiles,
                 on_load: Callable[[bytes], None] | None = None) -> None:
        self._files = files
        self._on_load = on_load
        self._stamps: tuple[tuple[int, int, int], ...] | None = None
        self._first = self._read()

    def credentials(self) -> grpc.ServerCredentials:
        """Credentials for ``add_secure_port``, reloading as the files change."""
        # The stubs say the fetcher always returns a configuration; gRPC takes None as "keep".
        fetch = cast(Callable[[], grpc.ServerCertificateConfiguration], self.fetch)
        return grpc.dynamic_ssl_server_credentials(self._first, fetch)

    def fetch(self) -> grpc.ServerCertificateConfiguration | None:
        """A new configuration when the files changed since the last load, else None (keep
        serving the current one, also when the new files cannot be read)."""
        try:
            if _stamps(self._files) == self._stamps:
                return None
            config = self._read()
        except OSError as exc:
            log.warning("TLS certificate not reloaded (the current one stays): %s", exc)
            return None
        log.info("TLS certificate reloaded from %s", self._files.cert_file)
        return config

    def _read(self) -> grpc.ServerCertificateConfiguration:
        stamps = _stamps(self._files)
        cert = self._files.cert_file.read_bytes()
        key = self._files.key_file.read_bytes()
        self._stamps = stamps
        if self._on_load is not None:
            self._on_load(cert)
        return grpc.ssl_server_certificate_configuration([(key, cert)])


class ReloadingSslContext:
    """An :class:`ssl.SSLContext` (for an asyncio server such as the browser edge's hypercorn)
    whose certificate follows its files.

    ``build`` makes a context from the files as they are now (the server's own settings:
    ciphers, ALPN, ...). :meth:`context` is the one to give the server; each handshake on it
    is moved to a context built from the current files when they changed since the last load.
    Files that cannot be read keep the current certificate, as on the gRPC port.
    """

    def __init__(self, files: TlsFiles, build: Callable[[], ssl.SSLContext],
                 on_load: Callable[[bytes], None] | None = None) -> None:
        self._files = files
        self._build = build
        self._on_load = on_load
        self._stamps: tuple[tuple[int, int, int], ...] | None = None
        self._front = self._read()
        self._current = self._front
        self._front.sni_callback = self._on_hello

    def context(self) -> ssl.SSLContext:
        """The context to serve with (the first certificate, and the switch to renewals)."""
        return self._front

    def _on_hello(self, conn: ssl.SSLObject | ssl.SSLSocket, server_name: str | None,
                  ctx: ssl.SSLContext) -> None:
        try:
            if _stamps(self._files) != self._stamps:
                self._current = self._read()
                log.info("TLS certificate of the browser edge reloaded from %s",
                         self._files.cert_file)
        except (OSError, ssl.SSLError) as exc:
            log.warning("TLS certificate not reloaded (the current one stays): %s", exc)
        if self._current is not self._front:
            conn.context = self._current

    def _read(self) -> ssl.SSLContext:
        stamps = _stamps(self._files)
        context = self._build()
        self._stamps = stamps
        if self._on_load is not None:
            self._on_load(self._files.cert_file.read_bytes())
        return context
