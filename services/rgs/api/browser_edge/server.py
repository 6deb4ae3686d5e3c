"""Serving the browser edge with hypercorn (ASGI; HTTP/1.1 and h2c, HTTP/2 with TLS).

The listening socket is opened here with SO_REUSEPORT, so every worker process of a replica
(``rgs serve --workers N``) binds the same port, as the gRPC server does; the kernel spreads
connections over them. Stopping follows the replica's drain (:mod:`rgs.api.drain`): the edge
stops accepting connections, and the calls in flight (counted with the gRPC ones) get the grace.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass

from hypercorn.asyncio import serve
from hypercorn.config import Config

from rgs.api.browser_edge.app import WebApp
from rgs.api.calls import BlackjackCalls
from rgs.api.drain import CallsInFlight
from rgs.api.launch_calls import LaunchCalls
from rgs.api.tables import TableCalls
from rgs.api.tls import ReloadingSslContext, TlsFiles
from rgs.service.model import Brand
from rgs.service.play import GameService
from rgs.service.replay import RoundReplays

log = logging.getLogger("rgs.web")


def open_socket(listen: str) -> socket.socket:
    """A listening TCP socket on ``listen`` (host:port; port 0 picks one) that other processes
    of this replica may bind too (SO_REUSEPORT)."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, int(port)))
        sock.listen(1024)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


class _Config(Config):
    """hypercorn's configuration with a TLS context that follows its files."""

    reloading: ReloadingSslContext | None = None

    def create_ssl_context(self) -> ssl.SSLContext | None:
        if self.reloading is None:
            return super().create_ssl_context()
        return self.reloading.context()


def _fresh_context(config: Config) -> ssl.SSLContext:
    """hypercorn's own TLS context (its ciphers, ALPN h2/http1.1) from the files as they are."""
    context = Config.create_ssl_context(config)
    assert context is not None  # the certificate and key files are set
    return context


@dataclass(slots=True, kw_only=True)
class RunningWebEdge:
    """A started browser edge and the port it bound."""

    port: int
    task: asyncio.Task[None]
    stopping: asyncio.Event

    async def stop(self) -> None:
        """Stop accepting connections; return when hypercorn has closed them (calls in flight
        finish within its graceful timeout, the replica's shutdown grace)."""
        self.stopping.set()
        await self.task


async def start_web_edge(*, game: GameService, calls: CallsInFlight, brands: list[Brand],
                         listen: str, tls: TlsFiles | None, grace_s: float,
                         tables: TableCalls | None = None,
                         on_certificate: Callable[[bytes], None] | None = None,
                         replays: RoundReplays | None = None,
                         launch: LaunchCalls | None = None) -> RunningWebEdge:
    """Serve the browser edge on ``listen`` (calls counted in ``calls``, the gRPC server's;
    with ``tables``, the table service too). Stopping ends the table streams at once. With
    ``tls``, the certificate is read again whenever its files change (``on_certificate`` gets
    each chain loaded), as on the gRPC port."""
    config = _Config()
    config.graceful_timeout = grace_s + 1.0
    config.accesslog = None
    config.errorlog = log
    config.include_server_header = False
    config.keep_alive_timeout = 30
    if tls is not None:
        config.certfile = str(tls.cert_file)
        config.keyfile = str(tls.key_file)
        config.reloading = ReloadingSslContext(tls, lambda: _fresh_context(config),
                                               on_load=on_certificate)
    sock = open_socket(listen)
    port = int(sock.getsockname()[1])
    config.bind = [f"fd://{sock.detach()}"]
    stopping = asyncio.Event()
    app = WebApp(BlackjackCalls(game, launch), calls, brands, tables=tables, stopping=stopping,
                 replays=replays)
    task = asyncio.create_task(serve(app, config, shutdown_trigger=stopping.wait,  # type: ignore[arg-type]
                                     mode="asgi"))
    await asyncio.sleep(0)
    if task.done():
        task.result()  # raise what went wrong at start
    return RunningWebEdge(port=port, task=task, stopping=stopping)
