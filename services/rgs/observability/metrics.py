"""Every Prometheus metric the RGS exports, and the HTTP endpoint that serves them.

The metrics live in the default registry, so one endpoint serves them all together with the
client's process and Python collectors. Lower layers register none: the RNG's health failures
are counted by a listener this module subscribes (:func:`count_rng_failures`), the journal and
wallet are measured by decorators (:mod:`rgs.observability.instrumented`).

Labels stay low-cardinality on purpose: method, status code, variant, brand, currency,
operation and outcome are bounded by configuration and code; player, session, round and
transaction ids never become labels (they belong in traces and logs).

Money is counted in integer minor units per currency, from the round's own totals when it
settles, so ``wins / stakes`` over any window is the observed RTP of the rounds settled in it
and ``stakes - wins`` is the gross gaming revenue.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    start_http_server,
)

from rgs.authenticity.check import Authentication
from rgs.eventloop import running_loop_name
from rgs.rng.entropy import ADAPTIVE_PROPORTION, REPETITION_COUNT, RngHealth
from rgs.variants import VARIANTS

# The *_created series double every counter's series for a value nobody graphs.
disable_created_metrics()  # type: ignore[no-untyped-call]

#: Where the math package keeps the PAR sheets (``<variant>.json`` with ``rtp`` in percent).
PAR_DIR: Final = Path(__file__).resolve().parent.parent / "math" / "par"

#: Latency buckets for calls that cross the network (RPCs, wallet): 2.5 ms to 10 s.
NETWORK_BUCKETS: Final = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Latency buckets for database transactions: 0.5 ms to 5 s.
DATABASE_BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                           1.0, 2.5, 5.0)

# --------------------------------------------------------------------------- RED per RPC

RPC_REQUESTS: Final = Counter(
    "rgs_rpc_requests", "gRPC calls served, by full method name and final status code.",
    ["method", "code"])
RPC_LATENCY: Final = Histogram(
    "rgs_rpc_latency_seconds", "Time to serve one gRPC call, by full method name.",
    ["method"], buckets=NETWORK_BUCKETS)
RPC_IN_FLIGHT: Final = Gauge(
    "rgs_rpc_in_flight", "gRPC calls being served right now (the HPA's load signal).",
    multiprocess_mode="livesum")  # the replica's calls: every live worker's, added
RPC_SHED: Final = Counter(
    "rgs_rpc_shed", "Calls shed before doing anything (RESOURCE_EXHAUSTED), by ErrorInfo reason "
    "(OVERLOADED: the worker's calls in flight; OPERATOR_RATE_LIMITED: the operator's rate, "
    "with its operator id; the platform file bounds the ids).", ["reason", "operator"])
RPC_STREAMS_OPEN: Final = Gauge(
    "rgs_rpc_streams_open", "Server streams open right now (e.g. table watchers), by full "
    "method name; not in rgs_rpc_in_flight, which is the unary calls' load signal.", ["method"],
    multiprocess_mode="livesum")
RPC_STREAMS: Final = Counter(
    "rgs_rpc_streams", "Server streams ended, by full method name and final status code "
    "(a client leaving is CANCELLED; a replica draining ends them UNAVAILABLE).",
    ["method", "code"])
RPC_STREAM_MESSAGES: Final = Counter(
    "rgs_rpc_stream_messages_sent", "Messages sent on server streams, by full method name.",
    ["method"])
TABLE_WATCHERS: Final = Gauge(
    "rgs_table_watchers", "Table streams (WatchTable, both edges) this replica's table feeds "
    "serve right now; a stream that ended and still counts here is a leak.",
    multiprocess_mode="livesum")
EVENT_LOOP_TASKS: Final = Gauge(
    "rgs_event_loop_tasks", "asyncio tasks alive on this replica's event loop (with several "
    "workers: every live worker's, added); a count that keeps growing under a steady load is "
    "work that never ends.", multiprocess_mode="livesum")
EVENT_LOOP_LAG: Final = Histogram(
    "rgs_event_loop_lag_seconds", "How late a timer of the event loop fired, sampled every "
    "0.1 s: the time a call's ready continuation waits for the loop (work queued ahead of it, "
    "or the process not given a core).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0))

# --------------------------------------------------------------------------- rounds and money

ROUNDS: Final = Counter(
    "rgs_rounds", "Rounds by lifecycle event: started (dealt), settled or voided.",
    ["variant", "brand", "event"])
STAKES: Final = Counter(
    "rgs_stakes_minor",
    "Stakes of settled rounds in minor units of their currency; bet is main (boxes, doubles, "
    "splits), side (side bets) or insurance.", ["variant", "currency", "bet"])
WINS: Final = Counter(
    "rgs_wins_minor",
    "Amounts paid on settled rounds (returned stakes included) in minor units; bet as for "
    "rgs_stakes_minor_total.", ["variant", "currency", "bet"])
THEORETICAL_RTP: Final = Gauge(
    "rgs_variant_theoretical_rtp_ratio",
    "The variant's theoretical return to player (main game, optimal play as its PAR sheet "
    "values it) from its PAR sheet.",
    ["variant"], multiprocess_mode="max")  # the same in every worker
BRAND_THEORETICAL_RTP: Final = Gauge(
    "rgs_brand_theoretical_rtp_ratio",
    "The theoretical return to player (main game, optimal play) of a variant as a brand plays "
    "it: from the PAR sheet of the brand's effective rules (e.g. its deck count).",
    ["brand", "variant"], multiprocess_mode="max")
RTP_STANDARD_DEVIATION: Final = Gauge(
    "rgs_variant_rtp_standard_deviation_ratio",
    "Standard deviation of one round's return per unit of main stake, from the PAR sheet "
    "(the width of the observed-RTP band is this over sqrt(rounds)).", ["variant"],
    multiprocess_mode="max")

# --------------------------------------------------------------------------- wallet and outbox

WALLET_CALLS: Final = Counter(
    "rgs_wallet_calls",
    "Calls to operators' wallets by operator, operation (balance, debit, credit, rollback) and "
    "outcome (ok, refused, unavailable, not_sent: refused by the operator's bulkhead or circuit "
    "breaker before it was sent, error).", ["operator", "operation", "outcome"])
WIN_PAYMENT_DELAY: Final = Histogram(
    "rgs_win_payment_delay_seconds",
    "From a round's settlement (its credit's outbox row written) to the wallet confirming the "
    "credit, observed where the credit is confirmed: the money-movement SLI (wins paid within "
    "10 s).", buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0,
                        3600.0))
WALLET_LATENCY: Final = Histogram(
    "rgs_wallet_latency_seconds", "Time of one wallet call, by operator and operation.",
    ["operator", "operation"], buckets=NETWORK_BUCKETS)
OUTBOX_PENDING: Final = Gauge(
    "rgs_outbox_pending",
    "Wallet outbox rows still open, all replicas: a debit pending, unknown or applied but not "
    "booked; a credit or rollback pending or unknown (applied ones are final).",
    multiprocess_mode="mostrecent")  # sampled by one worker; a restarted one's old value loses
OUTBOX_OLDEST_AGE: Final = Gauge(
    "rgs_outbox_oldest_pending_age_seconds",
    "Age of the oldest wallet outbox row that is not final (0 when none).",
    multiprocess_mode="mostrecent")

# --------------------------------------------------------------------------- journal database

JOURNAL_TX_LATENCY: Final = Histogram(
    "rgs_journal_tx_latency_seconds",
    "Time of one journal transaction, by operation (commit_round, record_movement, ...).",
    ["operation"], buckets=DATABASE_BUCKETS)
JOURNAL_ERRORS: Final = Counter(
    "rgs_journal_errors", "Journal operations that raised, by operation.", ["operation"])
JOURNAL_POOL: Final = Gauge(
    "rgs_journal_pool_connections",
    "This replica's journal connection pool: state open (connections open to the database or "
    "pooler), in_use (held by a call) or max (the pool's limit, RGS_DATABASE_POOL_SIZE).",
    ["state"], multiprocess_mode="livesum")  # every live worker's pool, added
JOURNAL_POOL_WAIT: Final = Histogram(
    "rgs_journal_pool_wait_seconds",
    "Time a call waited for a pooled connection, by pool (journal: solo play and the back "
    "office; tables: the shared tables' commands). Waits near RGS_TABLE_COMMAND_S or the 10 s "
    "acquire limit mean the pool is saturated.",
    ["pool"], buckets=(*DATABASE_BUCKETS, 10.0))
JOURNAL_LOCK_WAIT: Final = Histogram(
    "rgs_journal_lock_wait_seconds",
    "Time to take a player's journal exclusively (waiting behind that player's other calls).",
    buckets=DATABASE_BUCKETS)
DATABASE_UP: Final = Gauge(
    "rgs_journal_database_up",
    "1 when this replica's last operations sample reached the journal database, else 0.",
    multiprocess_mode="mostrecent")
OPS_SAMPLE_TIMESTAMP: Final = Gauge(
    "rgs_ops_sample_timestamp_seconds",
    "Unix time of the last successful outbox/session sample from the journal database.",
    multiprocess_mode="mostrecent")

# --------------------------------------------------------------------------- sessions, RNG, build

ACTIVE_SESSIONS: Final = Gauge(
    "rgs_active_sessions", "Player sessions not yet expired (all replicas, from the journal).",
    multiprocess_mode="mostrecent")
RNG_HEALTH_FAILURES: Final = Counter(
    "rgs_rng_health_failures_total",
    "Entropy-source continuous health test failures (SP 800-90B §4.4); any value above 0 means "
    "the RNG stopped dealing in that process.",
    ["test"])
CERTIFICATE_EXPIRY: Final = Gauge(
    "rgs_tls_certificate_expiry_timestamp_seconds",
    "Unix time at which a certificate this replica presents expires; certificate is server "
    "(the gRPC server's, reloaded when its files change) or wallet_client:<operator> (mTLS to "
    "that operator's wallet, read at start).", ["certificate"],
    multiprocess_mode="livemin")  # the same files in every worker: the soonest a worker has
SOFTWARE_AUTHENTIC: Final = Gauge(
    "rgs_software_authentic",
    "1 when this replica's last software authentication found every control program as the "
    "release manifest records it, else 0 (altered, no manifest, another release); a replica at "
    "0 in production takes no new rounds.", multiprocess_mode="livemin")
SOFTWARE_AUTHENTICATED_AT: Final = Gauge(
    "rgs_software_authentication_timestamp_seconds",
    "Unix time of this replica's last software authentication (at start, then every "
    "RGS_AUTHENTICATE_INTERVAL_S).", multiprocess_mode="livemin")
BUILD_INFO: Final = Gauge(
    "rgs_build_info", "Always 1; the labels say which build this replica runs: its version and "
    "the event loop its processes run on (uvloop, or asyncio's own).", ["version", "event_loop"],
    multiprocess_mode="max")

EXPORTED_NAMES: Final = frozenset({
    "rgs_rpc_requests_total", "rgs_rpc_latency_seconds", "rgs_rpc_in_flight", "rgs_rpc_shed_total",
    "rgs_rpc_streams_open", "rgs_rpc_streams_total", "rgs_rpc_stream_messages_sent_total",
    "rgs_table_watchers", "rgs_event_loop_tasks", "rgs_event_loop_lag_seconds",
    "rgs_rounds_total", "rgs_stakes_minor_total", "rgs_wins_minor_total",
    "rgs_variant_theoretical_rtp_ratio", "rgs_variant_rtp_standard_deviation_ratio",
    "rgs_brand_theoretical_rtp_ratio",
    "rgs_wallet_calls_total", "rgs_wallet_latency_seconds", "rgs_win_payment_delay_seconds",
    "rgs_outbox_pending",
    "rgs_outbox_oldest_pending_age_seconds", "rgs_journal_tx_latency_seconds",
    "rgs_journal_errors_total", "rgs_journal_lock_wait_seconds", "rgs_journal_database_up",
    "rgs_journal_pool_connections", "rgs_journal_pool_wait_seconds",
    "rgs_ops_sample_timestamp_seconds", "rgs_active_sessions",
    "rgs_rng_health_failures_total", "rgs_tls_certificate_expiry_timestamp_seconds",
    "rgs_software_authentic", "rgs_software_authentication_timestamp_seconds",
    "rgs_build_info",
})
"""The exported series families (as a scrape names them, ``_total`` included); dashboards and
rules may use these, plus the ``_bucket``/``_sum``/``_count`` series of the histograms."""

HISTOGRAMS: Final = frozenset({"rgs_rpc_latency_seconds", "rgs_wallet_latency_seconds",
                               "rgs_event_loop_lag_seconds",
                               "rgs_win_payment_delay_seconds",
                               "rgs_journal_tx_latency_seconds",
                               "rgs_journal_lock_wait_seconds",
                               "rgs_journal_pool_wait_seconds"})
"""The histogram families among :data:`EXPORTED_NAMES`."""


def exported_series_names() -> frozenset[str]:
    """Every series name a scrape of this process may show for the RGS's own metrics."""
    names = set(EXPORTED_NAMES)
    for h in HISTOGRAMS:
        names.update({f"{h}_bucket", f"{h}_sum", f"{h}_count"})
    return frozenset(names)


class PoolCounts(Protocol):
    """What :func:`watch_journal_pool` reads (the journal adapter's ``PoolStats``)."""

    @property
    def open(self) -> int:
        """Connections open."""
        ...

    @property
    def in_use(self) -> int:
        """Connections held by a call."""
        ...

    @property
    def max(self) -> int:
        """The pool's limit."""
        ...


MULTIPROCESS_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
"""The variable prometheus_client reads at import time to keep metrics in files (a replica with
several workers, :mod:`rgs.observability.multiprocess`)."""
#: How often a worker of a multi-process replica writes its sampled gauges.
POOL_SAMPLE_S: Final = 1.0

Stopper = Callable[[], Awaitable[None]]
"""Stops what a ``watch_*`` function started (None when it started nothing to stop)."""


def _publish(gauges: Mapping[Gauge, Callable[[], float]]) -> Stopper | None:
    """Publish each gauge from its reader: read at every scrape in a single-process replica; in
    a worker of a multi-process one (where the page is served from the workers' files, so a
    value read at scrape time is never written) written every :data:`POOL_SAMPLE_S` by a task of
    the running loop, whose stopper is returned. A reader runs on the scrape's thread."""
    if not os.environ.get(MULTIPROCESS_ENV):
        for gauge, read in gauges.items():
            gauge.set_function(read)
        return None

    async def sample() -> None:
        while True:
            for gauge, read in gauges.items():
                gauge.set(read())
            await asyncio.sleep(POOL_SAMPLE_S)

    task = asyncio.get_running_loop().create_task(sample())

    async def stop() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return stop


def watch_journal_pool(stats: Callable[[], PoolCounts]) -> Stopper | None:
    """Publish ``rgs_journal_pool_connections`` from ``stats`` (as :func:`_publish` does)."""
    return _publish({JOURNAL_POOL.labels(state=state):
                     (lambda state=state: float(getattr(stats(), state)))  # type: ignore[misc]
                     for state in ("open", "in_use", "max")})


def watch_table_watchers(watchers: Callable[[], int]) -> Stopper | None:
    """Publish ``rgs_table_watchers`` from ``watchers`` (the table feeds' count)."""
    return _publish({TABLE_WATCHERS: lambda: float(watchers())})


#: How often the event loop's lag is sampled (``rgs_event_loop_lag_seconds``).
LOOP_LAG_SAMPLE_S: Final = 0.1


def watch_event_loop() -> Stopper:
    """Publish ``rgs_event_loop_tasks``: the unfinished tasks of the running loop (counted from
    the scrape's thread too: :func:`asyncio.all_tasks` copes with the loop adding tasks), and
    observe ``rgs_event_loop_lag_seconds``: how late a sleep of :data:`LOOP_LAG_SAMPLE_S`
    wakes, which is how long any ready callback waits for the loop then."""
    loop = asyncio.get_running_loop()
    stop_tasks = _publish({EVENT_LOOP_TASKS: lambda: float(len(asyncio.all_tasks(loop)))})

    async def sample() -> None:
        while True:
            due = loop.time() + LOOP_LAG_SAMPLE_S
            await asyncio.sleep(LOOP_LAG_SAMPLE_S)
            EVENT_LOOP_LAG.observe(max(0.0, loop.time() - due))

    task = loop.create_task(sample())

    async def stop() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if stop_tasks is not None:
            await stop_tasks()
    return stop


def observe_pool_wait(pool: str) -> Callable[[float], None]:
    """What a journal adapter calls with each wait for a pooled connection (seconds):
    ``rgs_journal_pool_wait_seconds{pool}``."""
    return JOURNAL_POOL_WAIT.labels(pool=pool).observe


def count_rng_failures(health: RngHealth) -> None:
    """Count ``health``'s failure in ``rgs_rng_health_failures_total{test}``. Subscribe before
    the RNG is built, so a failed start-up test is counted too (a failure is sticky: one per
    health)."""
    health.add_listener(lambda failure: RNG_HEALTH_FAILURES.labels(test=failure.test).inc())


def publish_authentication(report: Authentication) -> None:
    """Export a software authentication's result (a listener of
    :class:`rgs.authenticity.selfcheck.SelfCheck`)."""
    SOFTWARE_AUTHENTIC.set(1 if report.authentic else 0)
    SOFTWARE_AUTHENTICATED_AT.set(report.checked_at.timestamp())


# --------------------------------------------------------------------------- PAR sheets


@dataclass(frozen=True, slots=True, kw_only=True)
class VariantMath:
    """The published figures of one variant that the dashboards compare against."""

    variant: str
    #: Decks of the rules the sheet was made for.
    decks: int
    #: Theoretical RTP as a ratio (the PAR sheet's ``rtp`` is in percent).
    rtp: float
    #: Standard deviation of one round per unit of main stake.
    standard_deviation: float


def load_variant_math(par_dir: Path = PAR_DIR) -> list[VariantMath]:
    """Read every PAR sheet in ``par_dir`` (a variant's own, and one per deck count a brand may
    choose)."""
    out = []
    for path in sorted(par_dir.glob("*.json")):
        sheet = json.loads(path.read_text("utf-8"))
        out.append(VariantMath(variant=str(sheet["variant"]), decks=int(sheet["decks"]),
                               rtp=float(sheet["rtp"]) / 100.0,
                               standard_deviation=float(sheet["standard_deviation"])))
    return out


def publish_variant_math(sheets: Iterable[VariantMath],
                         brand_decks: Mapping[tuple[str, str], int] | None = None) -> None:
    """Set the theoretical RTP and deviation gauges: per variant from its own sheet, and per
    (brand, variant) from the sheet of the deck count the brand plays."""
    by_rules = {(m.variant, m.decks): m for m in sheets}
    for (variant, decks), m in by_rules.items():
        if VARIANTS.get(variant) is None or VARIANTS[variant].decks == decks:
            THEORETICAL_RTP.labels(variant=m.variant).set(m.rtp)
            RTP_STANDARD_DEVIATION.labels(variant=m.variant).set(m.standard_deviation)
    for (brand, variant), decks in (brand_decks or {}).items():
        sheet = by_rules.get((variant, decks))
        if sheet is not None:
            BRAND_THEORETICAL_RTP.labels(brand=brand, variant=variant).set(sheet.rtp)


def initialise(*, version: str, variants: Iterable[str] = (),
               brands: Mapping[str, Iterable[str]] | None = None,
               operators: Iterable[str] = (),
               brand_decks: Mapping[tuple[str, str], int] | None = None) -> None:
    """Publish the static gauges and create the zero series a fresh replica should show.

    Counters with labels have no series until first used; a rate() over a series that appears
    mid-window loses its first increment and an absent series makes ``absent()`` alerts and
    empty panels ambiguous, so the known label sets start at 0. ``brands`` maps brand id to the
    variants it offers.
    """
    BUILD_INFO.labels(version=version, event_loop=running_loop_name()).set(1)
    publish_variant_math(load_variant_math(), brand_decks)
    for test in (REPETITION_COUNT, ADAPTIVE_PROPORTION):
        RNG_HEALTH_FAILURES.labels(test=test)
    for operator in operators:
        for operation in ("balance", "debit", "credit", "rollback"):
            WALLET_LATENCY.labels(operator=operator, operation=operation)
            for outcome in ("ok", "refused", "unavailable", "not_sent"):
                WALLET_CALLS.labels(operator=operator, operation=operation, outcome=outcome)
    for brand, offered in (brands or {}).items():
        for variant in offered:
            for event in ("started", "settled", "voided"):
                ROUNDS.labels(variant=variant, brand=brand, event=event)
    for variant in variants:
        THEORETICAL_RTP.labels(variant=variant)


# --------------------------------------------------------------------------- the endpoint


@dataclass(slots=True, kw_only=True)
class MetricsServer:
    """The metrics HTTP endpoint (``/metrics``) on its own port."""

    server: WSGIServer
    thread: threading.Thread
    port: int

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_metrics_server(listen: str) -> MetricsServer:
    """Serve the default registry on ``host:port`` (port 0 picks a free one) in a thread, so a
    scrape never waits behind the event loop."""
    host, _, port = listen.rpartition(":")
    server, thread = start_http_server(int(port), addr=host.strip("[]") or "0.0.0.0",
                                       registry=REGISTRY)
    return MetricsServer(server=server, thread=thread, port=int(server.server_address[1]))
