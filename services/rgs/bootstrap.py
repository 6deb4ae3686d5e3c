"""The one place concrete adapters are chosen and wired into the use cases.

Tests call :func:`build` with fakes swapped in (in-memory journal, fake wallet, forced pickers), so
the wiring itself is tested too. Production code only: development conveniences such as finding
a local PostgreSQL (:mod:`rgs.devdb`) stay in the command line, which resolves the database URL
and hands it over in the settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import grpc

from rgs import platform_file
from rgs.api.launch_calls import LaunchCalls
from rgs.api.overload import Admission, admission_for
from rgs.api.server import ConnectionLimits, RunningServer, TlsFiles, start_server
from rgs.authenticity.check import Authentication
from rgs.authenticity.selfcheck import MismatchHook, SelfCheck
from rgs.config import ConfigError, RgsSettings
from rgs.config import platform as load_platform
from rgs.engine import CardSource, RuleSet
from rgs.finance.office import FinanceOffice
from rgs.journal.audit import PostgresAuditTrail, open_pool
from rgs.journal.controls import PostgresControls
from rgs.journal.freebets import MemoryFreeBets, PostgresFreeBets
from rgs.journal.leases import PlayerHolds, holder_name
from rgs.journal.memory import InMemoryJournal
from rgs.journal.memory_audit import MemoryAuditTrail, MemoryControls
from rgs.journal.memory_operator_keys import MemoryOperatorKeys
from rgs.journal.operator_keys import PostgresOperatorKeys
from rgs.journal.postgres import PoolMode, PostgresJournal, PostgresPlayerJournal
from rgs.journal.tables import PostgresTables
from rgs.launch_wiring import LaunchWiring
from rgs.math.hints import HintTables
from rgs.observability import replica_health
from rgs.observability.certificates import publish_expiry, publish_file_expiry
from rgs.observability.instrumented import InstrumentedJournal, InstrumentedWallet
from rgs.observability.metrics import (
    count_rng_failures,
    observe_pool_wait,
    publish_authentication,
    watch_event_loop,
    watch_journal_pool,
    watch_table_watchers,
)
from rgs.observability.tracing import inject_metadata
from rgs.platform_file import Operator, Platform
from rgs.platform_keys import PlatformKeys
from rgs.rng.certified import CertifiedRng, RngSettings
from rgs.rng.entropy import RngHealth
from rgs.rng.errors import RngError
from rgs.rng.fair import CardOrders
from rgs.service.admin import AdminAccess, AdminKeys
from rgs.service.audit import SYSTEM, Action, AuditEntry, AuditTrail
from rgs.service.authenticity import SoftwareAuthenticity
from rgs.service.backoffice import BackOffice
from rgs.service.controls import ControlBoard, ControlStore
from rgs.service.fingerprints import sha256_hex
from rgs.service.freebets import FreeBets, FreeBetStore
from rgs.service.game_controls import GameControls
from rgs.service.interrupted import InterruptedPolicies, InterruptedRounds
from rgs.service.model import Brand
from rgs.service.operator_keys import OperatorKeyRotation, OperatorKeyStore
from rgs.service.play import GameService
from rgs.service.ports import CardSourceFactory, CardSourceUnavailable, Clock, Journal
from rgs.service.reconciler import Reconciler
from rgs.service.replay import replay_links
from rgs.service.tables.clock import TableClock
from rgs.service.tables.model import TableConfig
from rgs.service.tables.ports import TableJournal
from rgs.service.tables.recall import TableRecall
from rgs.service.tables.service import TableService
from rgs.variants import VARIANTS
from rgs.variants.options import effective_rules
from rgs.wallet.grpc_wallet import GrpcWallet, GrpcWalletSettings
from rgs.wallet.guard import GuardedWallet, GuardSettings
from rgs.wallet.http_wallet import HttpWallet, HttpWalletSettings
from rgs.wallet.port import Wallet
from rgs.wallet.router import WalletRouter

DEV_ADMIN_KEY = "rgsadm_sandbox-dev-admin-key"
"""The documented sandbox administrator key (stored hashed by ``rgs sandbox``)."""

DEV_OPERATOR_KEYS = {"dev-operator": "rgs-dev-operator-key",
                     "other-operator": "rgs-other-operator-key"}
"""The documented sandbox operator API keys (stored hashed by ``rgs sandbox``)."""


class CertifiedCards:
    """Card randomness from the certified RNG (:mod:`rgs.rng`); its errors become the port's
    :class:`CardSourceUnavailable`."""

    def __init__(self, rng: CertifiedRng | None = None, *, orders: int = 512) -> None:
        self.rng = rng or CertifiedRng()
        #: The card orders of this app's recent fair rounds (solo and shared tables): a round's
        #: later calls replay its cards without instantiating its DRBG again (~0.1 ms a call).
        self.orders = CardOrders(orders)

    def fair_source(self, server_seed_hex: str, client_seed: str, round_number: int,
                    decks: int) -> CardSource:
        """A fair round's card source, from the orders of recent rounds."""
        return self.orders.source(server_seed_hex, client_seed, round_number, decks)

    def picker(self) -> Callable[[int], int]:
        """An unbiased index picker backed by the DRBG (refused at once when unhealthy)."""
        failure = self.rng.health.failure
        if failure is not None:
            raise CardSourceUnavailable(f"the certified RNG failed its {failure.test} health "
                                        "test; this replica deals no more cards")
        below = self.rng.below

        def pick(n: int) -> int:
            try:
                return below(n)
            except RngError as exc:
                raise CardSourceUnavailable(str(exc)) from exc
        return pick


def hinted_rules(brands: Iterable[Brand], tables: Iterable[TableConfig] = ()) -> set[RuleSet]:
    """The rule sets the brands with hints on show values for: their variants and the shared
    tables they offer (the ones :meth:`HintTables.warm_in_background` builds at start, so that
    no Act waits for one)."""
    brands = list(brands)
    rules = {effective_rules(VARIANTS[v], b.variant_options(v))
             for b in brands if b.hints for v in b.variants}
    showing = {b.id for b in brands if b.hints}
    rules |= {VARIANTS[t.variant] for t in tables if showing & set(t.brands)}
    return rules


def utc_now() -> datetime:
    """The wall clock in UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True, kw_only=True)
class Governance:
    """The audit trail and the game controls, as wired."""

    audit: AuditTrail
    board: ControlBoard
    controls: GameControls
    admin: AdminAccess
    #: The operators' free bets (docs/freebets.md).
    free_bets: FreeBets
    #: The operators' API keys, created and revoked by the administrator.
    operator_keys: OperatorKeyRotation
    #: The finance RPCs (movements, GGR): on the journal's database only (docs/backoffice.md).
    finance: FinanceOffice | None = None


async def governance(settings: RgsSettings, *, postgres: bool, brands: Mapping[str, Brand],
                     tables: Mapping[str, TableConfig], clock: Clock,
                     closers: list[Callable[[], Awaitable[None]]],
                     live_keys: dict[str, str] | None = None) -> Governance:
    """The audit trail, controls and administrator keys: in the journal's database (a small
    pool of their own) when the journal is PostgreSQL, else in memory. The controls are read
    once here, so a replica starts with the controls in force. ``live_keys``: the in-memory
    journal's operator keys, which a revocation in memory removes."""
    audit: AuditTrail
    store: ControlStore
    keys: AdminKeys
    operator_keys: OperatorKeyStore
    finance = None
    if postgres:
        pool = await open_pool(database_url(settings), pool_mode=settings.database_pool_mode)
        closers.append(pool.close)
        audit, pg = PostgresAuditTrail(pool, clock), PostgresControls(pool, clock)
        finance = FinanceOffice(pool)
        store = keys = pg
        bets: FreeBetStore = PostgresFreeBets(pool)
        operator_keys = PostgresOperatorKeys(pool)
    else:
        memory = MemoryAuditTrail(clock)
        audit = memory
        store = keys = MemoryControls(memory)
        bets = MemoryFreeBets()
        operator_keys = MemoryOperatorKeys(clock, live_keys)
    board = ControlBoard(store, brands, clock, refresh_s=settings.controls_refresh_s)
    await board.refresh()
    rotation = OperatorKeyRotation(operator_keys, audit, clock,
                                   {b.operator_id for b in brands.values()})
    return Governance(audit=audit, board=board, admin=AdminAccess(keys, audit),
                      free_bets=FreeBets(bets, audit, clock, brands,
                                         {t.id: t.brands for t in tables.values()}),
                      operator_keys=rotation,
                      controls=GameControls(store=store, board=board, audit=audit,
                                            brands=brands, tables=tables, clock=clock),
                      finance=finance)


async def record_configuration(audit: AuditTrail, name: str, content: bytes) -> bool:
    """Record a platform file loaded at start when its content (SHA-256) differs from the
    last one recorded under ``name``; whether a row was added."""
    return await audit.record_change(AuditEntry(
        actor=SYSTEM, action=Action.CONFIGURATION_CHANGED, subject=f"configuration:{name}",
        reason="loaded at start", details={"sha256": hashlib.sha256(content).hexdigest()}),
        first_action=Action.CONFIGURATION_LOADED) is not None


@dataclass(slots=True, kw_only=True)
class App:
    """The wired use cases and what must be closed at shutdown."""

    game: GameService
    office: BackOffice
    journal: Journal
    wallet: Wallet
    reconciler: Reconciler
    #: The operator's open rounds and their resolution.
    interrupted: InterruptedRounds
    #: The certified RNG when this app deals with it (None with injected cards).
    rng: CertifiedRng | None = None
    #: Shared tables and their clock (None without configured tables, or with a journal given
    #: without its tables).
    tables: TableService | None = None
    table_clock: TableClock | None = None
    #: This replica's software authentication (its start-up check done by :func:`build`).
    authentication: SelfCheck = field(default_factory=SelfCheck)
    #: The audit trail, the game controls (this replica's board and the use cases) and the
    #: administrator's credential (docs/controls.md).
    governance: Governance | None = None
    #: What the worker sheds (rgs.api.overload): calls in flight, operators' rates.
    admission: Admission | None = None
    #: The platform file's operator keys, re-read while serving (None: no platform file).
    platform_keys: PlatformKeys | None = None
    #: Launch URLs and demo play (None: not served, as in apps built by hand).
    launch: LaunchCalls | None = None

    @property
    def rng_health(self) -> RngHealth | None:
        """Health of the certified RNG, if this app deals with it."""
        return self.rng.health if self.rng is not None else None
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    background: list[asyncio.Task[None]] = field(default_factory=list)

    def start_background(self, settings: RgsSettings) -> None:
        """Start the reconciler loop (when its interval is not 0)."""
        if settings.reconcile_interval_s > 0:
            self.background.append(asyncio.create_task(
                self.reconciler.run_forever(settings.reconcile_interval_s)))
        if self.table_clock is not None:
            self.background.append(asyncio.create_task(self.table_clock.run_forever()))
        if self.governance is not None:
            self.background.append(asyncio.create_task(self.governance.board.run_forever()))
        if self.platform_keys is not None:
            self.background.append(asyncio.create_task(self.platform_keys.run_forever()))

    async def close(self) -> None:
        """Stop background work, then close adapters in reverse order of opening."""
        for task in self.background:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.background.clear()
        for close in reversed(self.closers):
            await close()
        self.closers.clear()


def database_url(settings: RgsSettings) -> str:
    """The journal database URL of ``settings``; ConfigError when none is configured."""
    if not settings.database_url:
        raise ConfigError("no journal database configured: set RGS_DATABASE_URL")
    return settings.database_url


async def connect_ops_journal(settings: RgsSettings) -> PostgresJournal:
    """A journal of its own for the operations sampler (outbox and session gauges): one
    connection, opened on first use, so sampling never takes a connection from the calls and a
    database that is down at start-up reads as down rather than stopping the replica."""
    return await PostgresJournal.connect(database_url(settings), min_size=0, max_size=1,
                                         pool_mode=settings.database_pool_mode,
                                         command_timeout=10.0)


def wallet_adapter(op: Operator) -> tuple[Wallet, Callable[[], Awaitable[None]]]:
    """The adapter for one operator's wallet connection, and how to close it."""
    w = op.wallet
    if w.kind == "http":
        http_wallet = HttpWallet(HttpWalletSettings(
            url=w.url, hmac_secret=w.hmac_secret.get_secret_value(), timeout_s=w.timeout_s,
            tls_ca_file=w.tls.ca_file if w.tls else None, max_connections=w.max_in_flight))
        return http_wallet, http_wallet.close
    if w.tls is not None and w.tls.cert_file is not None:
        # Read at start only: a renewed client certificate needs the pods rolled.
        publish_file_expiry(f"wallet_client:{op.id}", w.tls.cert_file)
    grpc_wallet = GrpcWallet(GrpcWalletSettings(
        target=w.address, api_key=w.api_key.get_secret_value(), timeout_s=w.timeout_s,
        tls_ca_file=w.tls.ca_file if w.tls else None,
        tls_cert_file=w.tls.cert_file if w.tls else None,
        tls_key_file=w.tls.key_file if w.tls else None), outgoing=inject_metadata)
    return grpc_wallet, grpc_wallet.close


def operator_wallets(platform: Platform) -> tuple[WalletRouter,
                                                   list[Callable[[], Awaitable[None]]]]:
    """One guarded adapter per operator behind a router: every call reaches the wallet of its
    own operator, and a slow or dead wallet exhausts only its own operator's bulkhead."""
    wallets: dict[str, Wallet] = {}
    closers: list[Callable[[], Awaitable[None]]] = []
    for op in platform.operators.values():
        adapter, close = wallet_adapter(op)
        closers.append(close)
        w = op.wallet
        wallets[op.id] = GuardedWallet(adapter, GuardSettings(
            max_in_flight=w.max_in_flight, queue_wait_s=w.queue_wait_s,
            failures=w.breaker_failures, open_s=w.breaker_open_s), name=op.id)
    return WalletRouter(wallets), closers


async def build(settings: RgsSettings, *, journal: Journal | None = None,
                wallet: Wallet | None = None, cards: CardSourceFactory | None = None,
                clock: Clock = utc_now, platform: Platform | None = None,
                tables: TableJournal | None = None,
                authentication: SelfCheck | None = None,
                hints: HintTables | None = None) -> App:
    """Wire the application; any adapter given replaces the configured one (``wallet`` replaces
    every operator's wallet; ``platform`` replaces the platform file; ``tables``, the shared
    tables' journal, goes with a ``journal`` whose players it holds: an InMemoryTables over an
    InMemoryJournal; ``authentication`` the self-check of the installed package, e.g. over
    another copy; ``hints`` the analysis' caches the hints are valued from, e.g. shared by the
    apps of one test run: else the app builds its own)."""
    from_file = platform is None
    platform = platform or load_platform(settings)
    brands = platform.brands
    closers: list[Callable[[], Awaitable[None]]] = []
    table_journal: TableJournal | None = tables if platform.tables else None
    if journal is None and tables is None and platform.tables:
        # Shared tables live in the journal's database (LISTEN/NOTIFY, the players' leases):
        # a build with another journal has none unless it is given its tables too.
        pg_tables = await PostgresTables.connect(
            database_url(settings), PlayerHolds(
                wait_s=settings.lock_wait_s, lease_s=settings.player_lease_s,
                advisory_lock=settings.previous_release_lock),
            PostgresPlayerJournal, max_size=max(2, settings.database_pool_size // 2),
            pool_mode=settings.database_pool_mode, on_wait=observe_pool_wait("tables"))
        closers.append(pg_tables.close)
        table_journal = pg_tables
    postgres = journal is None
    live_keys = journal.tables.keys if isinstance(journal, InMemoryJournal) else None
    if journal is None:
        pg = await PostgresJournal.connect(database_url(settings),
                                           max_size=settings.database_pool_size,
                                           lock_wait_s=settings.lock_wait_s,
                                           lease_s=settings.player_lease_s,
                                           pool_mode=settings.database_pool_mode,
                                           advisory_lock=settings.previous_release_lock,
                                           on_wait=observe_pool_wait("journal"))
        closers.append(pg.close)
        stop_pool_gauges = watch_journal_pool(pg.pool_stats)
        if stop_pool_gauges is not None:
            closers.append(stop_pool_gauges)
        journal = pg
    closers.append(watch_event_loop())
    if wallet is None:
        wallet, wallet_closers = operator_wallets(platform)
        closers.extend(wallet_closers)
    launching = await LaunchWiring.open(database_url(settings) if postgres else "",
                                        postgres=postgres,
                                        pool_mode=settings.database_pool_mode, closers=closers)
    # Metrics, spans and round accounting wrap whichever adapters were chosen (fakes too).
    journal, wallet = InstrumentedJournal(journal), InstrumentedWallet(wallet)
    wallet = launching.wallet(wallet, brands)  # demo money never reaches a wallet or its metrics
    if cards is None:
        # Raises EntropySourceFailure when the start-up health test fails: nothing is served.
        health = RngHealth()
        count_rng_failures(health)
        cards = CertifiedCards(CertifiedRng(RngSettings(
            reseed_interval=settings.rng_reseed_interval,
            prediction_resistance=settings.rng_prediction_resistance), health=health))
    rng = cards.rng if isinstance(cards, CertifiedCards) else None
    authentication = authentication or SelfCheck(
        interval_s=settings.authenticate_interval_s, expected_whole=settings.release_digest,
        manifest_required=settings.environment == "production")
    gov = await governance(settings, postgres=postgres, brands=brands, tables=platform.tables,
                           clock=clock, closers=closers, live_keys=live_keys)
    platform_keys = None
    if from_file:
        await record_configuration(gov.audit, "platform_file",
                                   settings.platform_file.read_bytes())
        platform_keys = PlatformKeys(settings.platform_file, gov.operator_keys,
                                     load=partial(platform_file.load_platform,
                                                  production=settings.environment == "production"),
                                     interval_s=settings.platform_reload_s)
        await platform_keys.refresh()
    software = await authenticate_at_start(authentication, gov.audit)
    hints = hints if hints is not None else HintTables()
    if settings.hints_warm:
        hints.warm_in_background(hinted_rules(brands.values(), platform.tables.values()))
    game = GameService(journal=journal, wallet=wallet, cards=cards, controls=gov.board,
                       brands=brands, clock=clock, test_mode=settings.test_mode,
                       software=software, free_bets=gov.free_bets, hints=hints)
    office = BackOffice(journal=journal, wallet=wallet, brands=brands, clock=clock,
                        session_ttl=settings.session_ttl, cards=cards, audit=gov.audit,
                        tables=TableRecall(table_journal, gov.free_bets.store)
                        if table_journal is not None else None)
    launch = launching.calls(settings, brands=brands, sessions=office, clock=clock,
                             tables={t.id: t.brands for t in platform.tables.values()})
    policies = InterruptedPolicies(
        {op.id: op.interrupted_rounds for op in platform.operators.values()},
        default_after=timedelta(seconds=settings.abandon_after_s))
    reconciler = Reconciler(journal=journal, wallet=wallet, clock=clock,
                            min_age=timedelta(seconds=settings.reconcile_min_age_s), game=game,
                            abandon_after=timedelta(seconds=settings.abandon_after_s),
                            max_backoff=timedelta(seconds=settings.reconcile_max_backoff_s),
                            interrupted=policies, audit=gov.audit)
    interrupted = InterruptedRounds(journal=journal, game=game, office=office,
                                    policies=policies, clock=clock, audit=gov.audit)
    table_service: TableService | None = None
    table_clock: TableClock | None = None
    if table_journal is not None:
        table_service = TableService(tables=table_journal, wallet=wallet, cards=cards,
                                     configs=platform.tables, clock=clock,
                                     test_mode=settings.test_mode,
                                     command_limit_s=settings.table_command_s,
                                     lock_wait_s=settings.lock_wait_s,
                                     software=software, controls=gov.board,
                                     profiles={b.id: b.jurisdiction
                                               for b in brands.values()},
                                     free_bets=gov.free_bets,
                                     behind_rows=settings.table_behind_rows, hints=hints)
        await table_service.open_tables()
        closers.append(table_service.aclose)
        stop_watchers_gauge = watch_table_watchers(table_service.feeds.watchers)
        if stop_watchers_gauge is not None:
            closers.append(stop_watchers_gauge)
        table_clock = TableClock(service=table_service, tables=table_journal,
                                 table_ids=list(platform.tables), holder=holder_name())
    return App(game=game, office=office, journal=journal, wallet=wallet, reconciler=reconciler,
               interrupted=interrupted, rng=rng, closers=closers, tables=table_service,
               table_clock=table_clock, authentication=authentication,
               governance=gov, platform_keys=platform_keys, launch=launch,
               admission=admission_for(platform, max_in_flight=settings.max_in_flight,
                                       retry_after_ms=settings.overload_retry_after_ms))


def record_mismatch(audit: AuditTrail) -> MismatchHook:
    """Where a failed software authentication is recorded beyond the log and the metric: a row
    of the audit trail naming what failed."""
    async def record(report: Authentication) -> None:
        await audit.record(AuditEntry(
            actor=SYSTEM, action=Action.SOFTWARE_NOT_AUTHENTIC, subject="software",
            reason=report.summary()[:500],
            details={"verdict": report.verdict.value, "whole": report.whole}))
    return record


async def authenticate_at_start(authentication: SelfCheck,
                                audit: AuditTrail) -> SoftwareAuthenticity:
    """Subscribe the metrics and the new-round check to ``authentication`` and run its first
    check, before anything is served; returns the check the Deal and bet paths make."""
    software = SoftwareAuthenticity()

    def stop_new_rounds(report: Authentication) -> None:
        if authentication.fails(report):
            software.fail(report.summary())

    authentication.listeners.extend((publish_authentication, stop_new_rounds))
    if authentication.on_mismatch is None:
        authentication.on_mismatch = record_mismatch(audit)
    await authentication.check()
    return software


async def serve(settings: RgsSettings, app: App,
                interceptors: Sequence[grpc.aio.ServerInterceptor[Any, Any]] = ()) -> RunningServer:
    """Start the gRPC server for a built app."""
    tls = (TlsFiles(cert_file=settings.tls_cert_file, key_file=settings.tls_key_file)
           if settings.tls_cert_file and settings.tls_key_file else None)
    running = await start_server(
        game=app.game, office=app.office, rounds=app.interrupted, listen=settings.listen,
        tls=tls, tables=app.tables,
        controls=app.governance.controls if app.governance else None,
        admin=app.governance.admin if app.governance else None,
        operator_keys=app.governance.operator_keys if app.governance else None,
        finance=app.governance.finance if app.governance else None,
        authentication=app.authentication, interceptors=interceptors,
        connections=ConnectionLimits(max_age_s=settings.max_connection_age_s,
                                     max_age_grace_s=settings.max_connection_age_grace_s),
        on_certificate=publish_expiry("server"),
        web_listen=settings.web_listen, grace_s=settings.shutdown_grace_s,
        ready=app.game.software.failure is None, admission=app.admission,
        replay=replay_links(
            secret=settings.replay_secret.get_secret_value() if settings.replay_secret else None,
            secret_file=str(settings.replay_secret_file) if settings.replay_secret_file else None,
            url=settings.replay_url, web_listen=settings.web_listen,
            ttl_s=settings.replay_ttl_s, production=settings.environment == "production"),
        launch=app.launch)
    watch_authentication(app, running)
    if app.rng_health is not None:
        loop = asyncio.get_running_loop()

        def rng_failed(failure: object) -> None:
            # A failed RNG health test stops this replica from dealing: readiness tells load
            # balancers and Kubernetes at once (the listener may run on another thread), while
            # liveness keeps the process, its counter and its logs for the investigation. In a
            # replica of several workers, every worker turns unready (replica_health).
            replica_health.mark(replica_health.RNG_FAILED, f"{failure}")
            loop.call_soon_threadsafe(lambda: loop.create_task(running.set_not_serving()))

        app.rng_health.add_listener(rng_failed)
    stop_watching = replica_health.watch(replica_health.RNG_FAILED, running.set_not_serving)
    if stop_watching is not None:
        app.closers.append(stop_watching)
    return running


def watch_authentication(app: App, running: RunningServer) -> None:
    """A failed software authentication turns the replica unready (every worker of it: the
    marker, :mod:`rgs.observability.replica_health`) and stops its new rounds; the checks go on
    every interval, in every worker."""
    software = app.game.software
    if software.failure is not None:
        replica_health.mark(replica_health.SOFTWARE_NOT_AUTHENTIC, software.failure)

    def failed(report: Authentication) -> None:
        if app.authentication.fails(report):
            replica_health.mark(replica_health.SOFTWARE_NOT_AUTHENTIC, report.summary())
            asyncio.get_running_loop().create_task(running.set_not_serving())

    app.authentication.listeners.append(failed)

    async def marked() -> None:  # another worker of the replica failed its check
        software.fail("another worker of this replica failed its software authentication")
        await running.set_not_serving()

    stop = replica_health.watch(replica_health.SOFTWARE_NOT_AUTHENTIC, marked)
    if stop is not None:
        app.closers.append(stop)
    app.background.append(asyncio.create_task(app.authentication.run_forever()))


async def add_operator_key(journal: Journal, audit: AuditTrail | None, *, operator_id: str,
                           key: str, label: str) -> None:
    """Store an operator API key (hashed); the audit trail records it (once per key and
    label: storing the same again records nothing)."""
    key_hash = sha256_hex(key)
    await journal.add_operator_key(operator_id=operator_id, key_hash=key_hash, label=label)
    if audit is not None:
        await audit.record_change(AuditEntry(
            actor=SYSTEM, action=Action.KEY_ADDED, subject=f"operator_key:{key_hash[:12]}",
            operator_id=operator_id, details={"operator_id": operator_id, "label": label}),
            first_action=Action.KEY_ADDED)


async def add_dev_operator_keys(journal: Journal, audit: AuditTrail | None = None
                                ) -> dict[str, str]:
    """Store the documented sandbox operator keys (hashed); return them by operator."""
    for operator, key in DEV_OPERATOR_KEYS.items():
        await add_operator_key(journal, audit, operator_id=operator, key=key,
                               label="sandbox dev key")
    return dict(DEV_OPERATOR_KEYS)


async def add_dev_admin_key(app: App) -> str:
    """Store the documented sandbox administrator key (hashed); return it. Sandbox and test
    mode only (``rgs sandbox``): production keys come from ``rgs admin add-key``."""
    assert app.governance is not None
    await app.governance.admin.add_key(DEV_ADMIN_KEY, "sandbox dev admin key")
    return DEV_ADMIN_KEY


async def add_operator_keys_file(url: str, path: Path, *,
                                 pool_mode: PoolMode = "session") -> int:
    """Store the operator API keys of a JSON file ``{operator id: key}`` hashed in the journal at
    ``url`` (the Helm chart's migration Job mounts the file from its Secret) and revoke every key
    an earlier file gave that this one no longer has; returns how many keys the file has."""
    raw = json.loads(path.read_text("utf-8"))
    if not isinstance(raw, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and len(v) >= 16 for k, v in raw.items()):
        raise ValueError(f"{path}: expected a JSON object of operator id -> key (16+ chars)")
    pool = await open_pool(url, pool_mode=pool_mode, max_size=1)
    try:
        rotation = OperatorKeyRotation(PostgresOperatorKeys(pool), PostgresAuditTrail(
            pool, utc_now), utc_now, set(raw))
        await rotation.sync_file(raw)
    finally:
        await pool.close()
    return len(raw)
