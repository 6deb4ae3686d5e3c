"""The service commands of the ``rgs`` CLI: ``serve``, ``migrate`` and ``sandbox``.

``rgs.cli`` calls :func:`register`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import shutil
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import asyncpg

from rgs import devdb, eventloop
from rgs.api.calls import Caller, OperatorCalls
from rgs.api.rate_share import start_rate_share
from rgs.bootstrap import (
    DEV_OPERATOR_KEYS,
    App,
    add_dev_admin_key,
    add_dev_operator_keys,
    add_operator_keys_file,
    build,
    connect_ops_journal,
    serve,
)
from rgs.cli.workers import (
    Supervisor,
    concrete_listen,
    metrics_directory,
    refuse_taken,
    worker_count,
)
from rgs.config import ConfigError, RgsSettings, load_settings, platform
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.journal.migrate import migrate
from rgs.observability.interceptors import server_interceptors
from rgs.observability.logging import configure_logging, mask_url, redact_text
from rgs.observability.runtime import ObservabilityRuntime, start_observability
from rgs.platform_file import Platform
from rgs.service.ports import JournalError
from rgs.sqlmigrate import DatabaseConnectError
from rgs.variants import VARIANTS

log = logging.getLogger("rgs")

SANDBOX_WALLET_LISTEN = "127.0.0.1:50061"
"""Where ``rgs sandbox`` starts the first operator's sandbox wallet."""
OTHER_WALLET_LISTEN = "127.0.0.1:50062"
"""Where ``rgs sandbox`` starts the second operator's sandbox wallet."""
SANDBOX_WEB_LISTEN = "127.0.0.1:8080"
"""Where ``rgs sandbox`` serves the browser edge and the reference web table."""


async def _wait_for_signal() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


def _settings(ns: argparse.Namespace, **extra: Any) -> RgsSettings:
    overrides: dict[str, Any] = {k: v for k, v in extra.items() if v is not None}
    if getattr(ns, "listen", None):
        overrides["listen"] = ns.listen
    if getattr(ns, "database_url", None):
        overrides["database_url"] = ns.database_url
    return load_settings(**overrides)


async def database_url(settings: RgsSettings) -> str:
    """The journal database: as configured, else (development only) a local or embedded
    PostgreSQL found by :mod:`rgs.devdb`. The production wiring (:mod:`rgs.bootstrap`) never
    looks for a database itself: it gets the URL in its settings."""
    if settings.database_url:
        return settings.database_url
    if settings.environment == "production":
        raise ConfigError("RGS_DATABASE_URL is required in production")
    return await devdb.resolve_server_url()


def _configure_logging(settings: RgsSettings) -> None:
    json_lines = settings.log_format == "json" or (
        settings.log_format == "auto" and settings.environment == "production")
    configure_logging(level=settings.log_level, json_lines=json_lines)


async def _observability(settings: RgsSettings, worker: int | None) -> ObservabilityRuntime:
    """Tracing, the metrics endpoint and (with it) the database sampler of this replica. A
    supervised worker serves no endpoint (its supervisor serves the replica's); worker 0 alone
    samples the database, as one replica does."""
    plat = platform(settings)
    sample = bool(settings.metrics_listen) and worker in (None, 0)
    ops = await connect_ops_journal(settings) if sample else None
    return await start_observability(
        metrics_listen=settings.metrics_listen if worker is None else None, ops_source=ops,
        brands={b.id: b.variants for b in plat.brands.values()}, operators=plat.operators,
        brand_decks={(b.id, v): b.variant_options(v).decks or VARIANTS[v].decks
                     for b in plat.brands.values() for v in b.variants},
        sample_interval_s=settings.ops_sample_interval_s)


async def _run_replica(settings: RgsSettings,
                       ready: Callable[[App, str, str | None], Awaitable[None]], *,
                       platform: Platform | None = None, worker: int | None = None) -> None:
    """Run one replica (or, with ``worker``, one supervised worker of it) until SIGINT/SIGTERM,
    as ``rgs serve`` and ``rgs sandbox`` both do: wire the app, start tracing, the metrics
    endpoint and its database sampler, serve, start the reconciler (worker 0 only); call
    ``ready(app, address, web address or None)``; on a signal stop taking calls and let the
    calls in flight finish. Logging is configured first, so start-up is logged."""
    _configure_logging(settings)
    app = await build(settings, platform=platform)
    obs: ObservabilityRuntime | None = None
    try:
        obs = await _observability(settings, worker)
        running = await serve(settings, app, interceptors=server_interceptors())
        # Every worker holds its share of the operators' rates (docs/overload.md).
        stop_share = await start_rate_share(app.admission, peers=settings.rate_limit_peers,
                                            replica_workers=settings.replica_workers)
        if stop_share is not None:
            app.closers.append(stop_share)
        if worker in (None, 0):
            app.start_background(settings)
        web = (f"{settings.web_listen.rsplit(':', 1)[0]}:{running.web_port}"
               if settings.web_listen and running.web_port is not None else None)
        await ready(app, f"{settings.listen.rsplit(':', 1)[0]}:{running.port}", web)
        await _wait_for_signal()
        log.info("stopping: not ready, no new calls; calls in flight (%d) get %.1f s",
                 len(running.calls), settings.shutdown_grace_s,
                 extra={"shutdown_grace_s": settings.shutdown_grace_s,
                        "calls_in_flight": len(running.calls)})
        report = await running.stop(grace=settings.shutdown_grace_s)
        log.info("stopped: %d calls were in flight, %d cut short (UNAVAILABLE, retryable)",
                 report.in_flight, report.cut_short,
                 extra={"calls_in_flight": report.in_flight, "calls_cut_short": report.cut_short})
    finally:
        await app.close()
        if obs is not None:
            await obs.close()


async def _serve(settings: RgsSettings, worker: int | None) -> None:
    settings = settings.model_copy(update={"database_url": await database_url(settings)})

    async def ready(app: App, address: str, web: str | None) -> None:
        print(f"rgs listening on {address}"
              f"{' (TLS)' if settings.tls_enabled else ''}"
              f"{f', browser edge on {web}' if web else ''}"
              f"{' [TEST MODE: forced cards accepted]' if settings.test_mode else ''}"
              f"{f' (worker {worker})' if worker is not None else ''}",
              flush=True)

    await _run_replica(settings, ready, worker=worker)


def _supervise(ns: argparse.Namespace, settings: RgsSettings, count: int) -> int:
    """Run the replica as ``count`` workers under :class:`rgs.cli.workers.Supervisor`. The
    database is resolved and a port 0 chosen once, here (the gRPC port and the browser edge's),
    so every worker uses the same."""
    url = asyncio.run(database_url(settings))
    env = {**os.environ, "RGS_DATABASE_URL": url, "RGS_LISTEN": concrete_listen(settings.listen),
           "RGS_WORKERS": "1", "RGS_REPLICA_WORKERS": str(count)}
    if settings.web_listen:  # every worker serves the browser edge on the same port too
        env["RGS_WEB_LISTEN"] = concrete_listen(settings.web_listen)
    argv = [sys.executable, "-m", "rgs", "serve", *(["--test-mode"] if ns.test_mode else [])]
    directory, owned = metrics_directory()
    try:
        return Supervisor(count=count, argv=argv, env=env, metrics_dir=directory,
                          metrics_listen=settings.metrics_listen,
                          stop_timeout_s=settings.shutdown_grace_s + 10).run()
    finally:
        if owned:
            shutil.rmtree(directory, ignore_errors=True)


def cmd_serve(ns: argparse.Namespace) -> int:
    """``rgs serve``: run one RGS replica (one process, or ``--workers`` processes under a
    supervisor) until SIGINT/SIGTERM."""
    try:
        settings = _settings(ns, test_mode=True if ns.test_mode else None,
                             workers=ns.workers, web_listen=ns.web_listen)
        count = worker_count(settings.workers)
        if ns.worker is None:  # the replica, not one of its workers
            refuse_taken(settings.listen, "--listen")
            if settings.web_listen:
                refuse_taken(settings.web_listen, "--web-listen")
        if ns.worker is None and count > 1:
            return _supervise(ns, settings, count)
        eventloop.run(_serve(settings, ns.worker), settings.event_loop)
    except (ConfigError, JournalError, devdb.DevDbError, ValueError) as exc:
        print(f"error: {redact_text(str(exc))}", file=sys.stderr)
        return 2
    return 0


async def _migrate(settings: RgsSettings) -> list[str]:
    url = await database_url(settings)
    applied = await migrate(url)
    if settings.operator_keys_file is not None:
        stored = await add_operator_keys_file(url, settings.operator_keys_file,
                                              pool_mode=settings.database_pool_mode)
        print(f"operator keys stored: {stored}")
    return applied


def cmd_migrate(ns: argparse.Namespace) -> int:
    """``rgs migrate``: apply the journal's pending migrations (and store the operator keys of
    RGS_OPERATOR_KEYS_FILE, hashed)."""
    try:
        applied = asyncio.run(_migrate(_settings(ns)))
    except (ConfigError, JournalError, DatabaseConnectError, devdb.DevDbError, ValueError,
            OSError) as exc:
        print(f"error: {redact_text(str(exc))}", file=sys.stderr)
        return 2
    print("applied: " + (", ".join(applied) if applied else "nothing (up to date)"))
    return 0


HOW_TO_PLAY = """\
The sandbox is running.
  RGS (gRPC, plaintext on loopback): {rgs}
  database:                          {db}
{operators}  platform administrator key (AdminService, game controls): {admin_key}

Play in a browser (the reference web table; a demo session for demo-alice at demo-casino):
  {web_table}

Play on this terminal:
  .venv/bin/rgs play --variant classic-resplit --address {rgs}

Or script a round with grpcurl (reflection is on; a request id makes a call idempotent, so
each run takes its own: a reused one answers with the first run's session and round):
  RUN=$RANDOM$RANDOM
  TOKEN=$(grpcurl -plaintext -H 'authorization: Bearer {key}' \\
      -d '{{"request_id":"s'$RUN'","brand_id":"demo-casino","player_id":"demo-alice"}}' \\
      {rgs} rgs.operator.v1.OperatorService/CreateSession | jq -r .session_token)
  grpcurl -plaintext -H "authorization: Bearer $TOKEN" \\
      {rgs} rgs.blackjack.v1.BlackjackService/ListVariants
  grpcurl -plaintext -H "authorization: Bearer $TOKEN" \\
      -d '{{"request_id":"d'$RUN'","variant_id":"classic-resplit",
           "boxes":[{{"seat":1,"stake":100}}]}}' \\
      {rgs} rgs.blackjack.v1.BlackjackService/Deal
  grpcurl -plaintext -H "authorization: Bearer $TOKEN" \\
      -d '{{"request_id":"a'$RUN'","round_id":"<round id>","expected_seq":1,"seat":1,
           "action":"ACTION_STAND"}}' \\
      {rgs} rgs.blackjack.v1.BlackjackService/Act
Stop with Ctrl-C."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SandboxOperator:
    """One operator of the sandbox as the banner shows it."""

    id: str
    api_key: str
    brands: tuple[str, ...]
    wallet: str
    wallet_key: str
    wallet_db: str


def operator_lines(operators: Sequence[SandboxOperator]) -> str:
    """The banner's block naming, per operator, its API key, brands and own wallet."""
    out = []
    for o in operators:
        out.append(f"  operator {o.id}:\n"
                   f"    operator API key:  {o.api_key}\n"
                   f"    brands:            {', '.join(o.brands)}\n"
                   f"    its wallet:        {o.wallet} (key {o.wallet_key}; "
                   f"database {mask_url(o.wallet_db)})\n")
    return "".join(out) + "  demo players at every wallet: demo-alice, demo-bob, ... " \
        "(the same id at two operators is two players)\n"


SANDBOX_DATABASE = "rgs_sandbox"
"""The database the sandbox uses on a found (local or embedded) server."""


async def _sandbox_database() -> str:
    """DATABASE_URL as given, else a dedicated database on the local or embedded server (so
    the sandbox never writes into a server's maintenance database)."""
    choice = await devdb.resolve_server()
    if choice.source == "env":
        return choice.url
    try:
        return await devdb.create_database(choice.url, SANDBOX_DATABASE)
    except asyncpg.DuplicateDatabaseError:
        return devdb.database_url(choice.url, SANDBOX_DATABASE)


def wallet_database_name(url: str, operator_id: str) -> str:
    """The database of an operator's sandbox wallet beside the sandbox's own database (each
    wallet has its own ledger; the first operator's shares the sandbox database).

    >>> wallet_database_name("postgresql://u@h:5432/rgs_sandbox", "other-operator")
    'rgs_sandbox_other_operator'
    """
    return f"{urlsplit(url).path.lstrip('/')}_{operator_id.replace('-', '_')}"


async def _sandbox(settings: RgsSettings, wallet_listens: Sequence[str]) -> None:
    from sandbox_wallet.server import RunningWallet
    from sandbox_wallet.server import start as start_wallet
    from sandbox_wallet.settings import SandboxWalletSettings

    url = settings.database_url or await _sandbox_database()
    await migrate(url)
    plat = platform(settings)
    wallets: list[RunningWallet] = []
    shown: list[SandboxOperator] = []
    try:
        for i, (op, listen) in enumerate(zip(plat.operators.values(), wallet_listens,
                                             strict=False)):
            db = url if i == 0 else await devdb.ensure_database(
                url, wallet_database_name(url, op.id))
            key = op.wallet.api_key.get_secret_value()
            wallet = await start_wallet(SandboxWalletSettings(
                listen=listen, database_url=db, api_key=key, operator_id=op.id))
            wallets.append(wallet)
            plat = plat.with_wallets(**{op.id: {"address": wallet.target}})
            shown.append(SandboxOperator(
                id=op.id, api_key=DEV_OPERATOR_KEYS.get(op.id, "(none)"), brands=op.brands,
                wallet=wallet.target, wallet_key=key, wallet_db=db))
        settings = settings.model_copy(update={"database_url": url})

        async def ready(app: App, address: str, web: str | None) -> None:
            keys = await add_dev_operator_keys(
                app.journal, app.governance.audit if app.governance else None)
            admin_key = await add_dev_admin_key(app)
            table = (await demo_table_url(app, web, keys["dev-operator"]) if web
                     else "(off: the browser edge needs --web-listen)")
            print(HOW_TO_PLAY.format(rgs=address, db=mask_url(url),
                                     operators=operator_lines(shown), web_table=table,
                                     key=keys["dev-operator"], admin_key=admin_key),
                  flush=True)

        await _run_replica(settings, ready, platform=plat)
    finally:
        for wallet in wallets:
            await wallet.stop(grace=1.0)


async def demo_table_url(app: App, web: str, operator_key: str) -> str:
    """The web table's URL with a fresh demo session for demo-alice at demo-casino. The token
    rides in the fragment (``#token=``), which the browser never sends to a server or logs; the
    page moves it into its session storage and clears the address bar."""
    new = await OperatorCalls(app.office, app.interrupted).CreateSession(
        Caller(f"Bearer {operator_key}"),
        op.CreateSessionRequest(request_id=f"sandbox-web-{secrets.token_hex(4)}",
                                brand_id="demo-casino", player_id="demo-alice"))
    return f"http://{web}/#token={new.session_token}"


def cmd_sandbox(ns: argparse.Namespace) -> int:
    """``rgs sandbox``: database, migrations, a sandbox wallet per operator and the RGS."""
    try:
        settings = _settings(ns, test_mode=True if ns.test_mode else None,
                             web_listen=ns.web_listen or None)
        for listen, option in ((settings.listen, "--listen"),
                               (ns.wallet_listen, "--wallet-listen"),
                               (ns.other_wallet_listen, "--other-wallet-listen"),
                               (settings.web_listen, "--web-listen")):
            if listen:
                refuse_taken(listen, option)
        eventloop.run(_sandbox(settings, (ns.wallet_listen, ns.other_wallet_listen)),
                      settings.event_loop)
    except (ConfigError, JournalError, DatabaseConnectError, devdb.DevDbError, ValueError,
            OSError) as exc:
        print(f"error: {redact_text(str(exc))}", file=sys.stderr)
        return 2
    return 0


def register(subparsers: Any) -> None:
    """Add ``serve``, ``migrate`` and ``sandbox`` to the ``rgs`` CLI."""
    p = subparsers.add_parser("serve", help="run one RGS replica (settings: RGS_* env vars)")
    p.add_argument("--listen", help="host:port (default RGS_LISTEN or 127.0.0.1:50051)")
    p.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    p.add_argument("--web-listen", help="host:port of the browser edge (default "
                   "RGS_WEB_LISTEN; unset: off)")
    p.add_argument("--test-mode", action="store_true", help="accept forced cards (labs/tests)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="worker processes sharing the port (default RGS_WORKERS or 1; 0: one "
                   "per CPU)")
    # Set by the supervisor on each worker it starts; not for people.
    p.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_serve)
    p = subparsers.add_parser("migrate", help="apply the journal's database migrations")
    p.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    p.set_defaults(func=cmd_migrate)
    p = subparsers.add_parser(
        "sandbox", help="start PostgreSQL (or DATABASE_URL), migrations, wallet and RGS "
        "(other settings: RGS_* env vars, as for serve)")
    p.add_argument("--listen", help="RGS host:port (default RGS_LISTEN or 127.0.0.1:50051)")
    p.add_argument("--wallet-listen", default=SANDBOX_WALLET_LISTEN,
                   help="host:port of dev-operator's sandbox wallet")
    p.add_argument("--other-wallet-listen", default=OTHER_WALLET_LISTEN,
                   help="host:port of other-operator's sandbox wallet")
    p.add_argument("--database-url", help="PostgreSQL URL (default: DATABASE_URL, local, "
                   "embedded)")
    p.add_argument("--web-listen", default=SANDBOX_WEB_LISTEN,
                   help="host:port of the browser edge and web table ('' turns it off)")
    p.add_argument("--test-mode", action="store_true", help="accept forced cards")
    p.set_defaults(func=cmd_sandbox)

