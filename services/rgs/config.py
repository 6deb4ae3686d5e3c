"""Settings of the RGS process (environment variables prefixed ``RGS_``); the operators, their
wallets and brands are in the platform file (:mod:`rgs.platform_file`).

This is the settings edge: pydantic validates here and hands plain frozen values to the rest.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rgs.platform_file import (
    DEFAULT_PLATFORM_FILE,
    Platform,
    PlatformError,
    describe,
    load_platform,
)

#: RGS_LAUNCH_URL's form: the code goes in the fragment, so it has none (nor a query).
_LAUNCH_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[^#?\s]*)?")


class ConfigError(Exception):
    """The settings or the brand file are invalid."""


class RgsSettings(BaseSettings):
    """How one RGS replica runs."""

    # Each field's docstring is its one description: pydantic reads it as the field's
    # ``description`` (use_attribute_docstrings), so the two cannot disagree.
    model_config = SettingsConfigDict(env_prefix="RGS_", frozen=True,
                                      use_attribute_docstrings=True)

    environment: Literal["development", "production"] = "development"
    """`production` refuses test mode and plaintext on non-loopback addresses."""
    listen: str = "127.0.0.1:50051"
    """host:port to serve gRPC on (port 0 picks a free one)."""
    web_listen: str | None = None
    """host:port serving the browser edge: the player service in the Connect protocol (and
    gRPC-Web) over HTTP/1.1 and h2c, and the reference web table at ``/``; unset serves none
    (port 0 picks a free one). Browser origins are allowed per brand (``web_origins``)."""
    database_url: str | None = None
    """PostgreSQL URL of the journal; unset means the command line finds a development database
    with rgs.devdb (refused in production)."""
    database_pool_size: int = Field(default=10, ge=1)
    """Journal connections kept open by this replica."""
    database_pool_mode: Literal["session", "transaction"] = "session"
    """How ``database_url`` hands out server connections. ``session``: PostgreSQL itself or a
    session-mode pooler (the journal also takes the previous release's advisory lock, so a
    rolling upgrade from it stays serialised). ``transaction``: a transaction-mode pooler such
    as PgBouncer (no session state, no prepared statements kept; the role's search_path must
    start with the journal's schema). ops/database.md says when to switch."""
    database_previous_release_lock: bool = True
    """In ``session`` pool mode, also take the previous release's advisory lock for every
    call, so a rolling upgrade from it stays serialised. Set false once no replica of the
    previous release is left (as before switching to ``transaction`` mode): a player's next
    call on the same replica then reads nothing first (ops/database.md, "Leases"). Ignored
    in ``transaction`` mode, which never takes it."""
    tls_cert_file: Path | None = None
    """PEM certificate chain this server presents; with tls_key_file enables TLS."""
    tls_key_file: Path | None = None
    """PEM private key of tls_cert_file."""
    allow_plaintext: bool = False
    """Serve plaintext on a non-loopback address (loopback is always allowed)."""
    test_mode: bool = False
    """Accept forced cards in Deal (certification labs and tests); refused in production."""
    rng_reseed_interval: int = Field(default=1024, ge=1, le=2**48)
    """Generate requests of the certified DRBG between reseeds from the OS (SP 800-90A)."""
    rng_prediction_resistance: bool = False
    """SP 800-90A prediction resistance: fresh OS entropy before every Generate request."""
    platform_file: Path = DEFAULT_PLATFORM_FILE
    """The platform file (:mod:`rgs.platform_file`): the operators, each with its wallet
    connection and its brands (variants and their options, currencies, limits)."""
    session_ttl_s: int = Field(default=4 * 3600, ge=60)
    """How long a player session stays valid, in seconds."""
    lock_wait_s: float = Field(default=5.0, gt=0)
    """How long a call waits for another call of the same player before ABORTED."""
    table_command_s: float = Field(default=10.0, gt=0)
    """The server's bound on a shared table command's waits (a pooled connection, the player's
    journal, the table's commit turn): past it the command answers UNAVAILABLE / TABLE_BUSY with
    nothing of it standing (a stake it took is returned). A wallet call under way is awaited on
    top of it (it has its own ``timeout_s``)."""
    table_behind_rows: bool = True
    """A Bet Behind placed while betting is open, by a player without a seat at the table,
    goes on a row of its own instead of into the table's state document (issue 27,
    docs/tables.md). Every release that has it reads such rows whatever this says; turn it on
    once every replica runs such a release (ops/rollouts.md)."""
    player_lease_s: float = Field(default=30.0, gt=0)
    """How long a call's lease on its player's journal lasts without a write (every write
    renews it). A replica that died keeps its players waiting this long (in transaction pool
    mode); a call that pauses longer than this may be taken over and then fails UNAVAILABLE.
    Must exceed the longest stretch between two writes, one wallet call: at least twice the
    longest wallet ``timeout_s`` of the platform file (checked when it is loaded)."""
    reconcile_interval_s: float = Field(default=10.0, ge=0)
    """Seconds between reconciler passes over open outbox rows (0 turns it off)."""
    reconcile_min_age_s: float = Field(default=30.0, ge=0)
    """How long an outbox row stays open before the reconciler takes it over."""
    reconcile_max_backoff_s: float = Field(default=600.0, gt=0)
    """Retries of an open outbox row back off exponentially from reconcile_min_age_s up to this
    many seconds (credits are retried for as long as it takes)."""
    abandon_after_s: float = Field(default=3600, gt=0)
    """How long after its last step an unfinished round is completed on the player's behalf,
    for an operator whose platform file entry sets no ``interrupted_rounds`` policy."""
    controls_refresh_s: float = Field(default=1.0, gt=0, le=60)
    """Seconds between reads of the game controls (docs/controls.md): a control set on one
    replica holds on every other within this time."""
    platform_reload_s: float = Field(default=5.0, ge=0, le=3600)
    """Seconds between reads of the platform file's operator keys (docs/operators.md; 0: at
    start only): a key added to or dropped from the file is live or revoked within this time."""
    metrics_listen: str | None = None
    """host:port serving ``/metrics`` (Prometheus) on its own port; unset serves none."""
    log_format: Literal["auto", "json", "text"] = "auto"
    """Log lines as JSON objects (with trace and round ids) or text; auto is json in
    production."""
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    """The root logger's level."""
    shutdown_grace_s: float = Field(default=5.0, ge=0)
    """On SIGTERM/SIGINT the replica reports NOT_SERVING (readiness), refuses new calls with
    UNAVAILABLE and gives the calls in flight this many seconds to finish; the ones still running
    then fail UNAVAILABLE / SERVER_SHUTTING_DOWN (retryable), and the process exits about a
    second later. Keep it below the orchestrator's termination grace period minus any preStop
    delay (the Helm chart derives it from terminationGracePeriodSeconds)."""
    max_connection_age_s: float = Field(default=300.0, ge=0)
    """A client connection older than this is asked to reconnect (gRPC GOAWAY), so long-lived
    clients spread over replicas the autoscaler added; 0 keeps connections forever."""
    max_connection_age_grace_s: float = Field(default=30.0, ge=0)
    """How long calls still running on a connection past its maximum age may take before it is
    closed."""
    max_in_flight: int = Field(default=128, ge=0, le=100_000)
    """Unary calls one worker serves at once (both edges, every application service); a call
    arriving past it is answered RESOURCE_EXHAUSTED / OVERLOADED before it does anything, with
    ``overload_retry_after_ms`` as its retry delay (docs/overload.md). Health checks and table
    streams are not counted. 0 admits any number (a queue until time-outs). The default leaves
    room for a shared table's burst (seven seats and a hundred Bet Behinds placed at once);
    lower it to hold admitted calls nearer their unloaded latency."""
    overload_retry_after_ms: int = Field(default=100, ge=1, le=60_000)
    """The retry delay (milliseconds) a call shed as OVERLOADED carries."""
    rate_limit_peers: str = ""
    """A DNS name with one address per replica serving (the Helm chart: the replicas' headless
    Service): the operators' rates of the platform file are the installation's, shared by every
    worker of every replica it counts (docs/overload.md); empty: this replica alone."""
    replica_workers: int = Field(default=1, ge=1, le=256)
    """The workers of this replica (set by the supervisor of ``--workers`` for each worker):
    they share the operators' rates with the other replicas' workers."""
    ops_sample_interval_s: float = Field(default=15.0, gt=0)
    """How often the outbox and session gauges are sampled from the database."""
    hints_warm: bool = True
    """Build the analysis tables of the brands with hints on at start, on a background thread
    (a few CPU seconds per replica), so no decision waits for one; false builds each on first
    use (the test suite: dozens of short-lived replicas, few of which show hints)."""
    workers: int = Field(default=1, ge=0, le=256)
    """Worker processes serving this replica's port (SO_REUSEPORT) under a supervisor that
    restarts a dead one; 1 runs the replica in this process alone; 0 starts one per CPU this
    process may run on (``os.sched_getaffinity``)."""
    event_loop: Literal["uvloop", "asyncio"] | None = None
    """The event loop the process runs on: ``uvloop`` (libuv's; the asyncpg and gRPC callbacks
    that make most of a call's own CPU cost less on it, bench/README.md) or ``asyncio``'s own
    (for a comparison, or a platform where uvloop misbehaves); unset: uvloop where installed."""
    authenticate_interval_s: float = Field(default=86400.0, gt=0, le=86400.0)
    """Seconds between the replica's software authentications while it runs (it also
    authenticates at start, before it reports ready): at most 86400, the day N.J.A.C.
    13:69O-1.5(c) allows (docs/authentication.md)."""
    release_digest: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """The whole SHA-256 of the certified release (``rgs authenticate`` prints it), kept outside
    the image (e.g. in the deployment's configuration): a replica whose installed programs
    digest to anything else fails its authentication, even with a consistent manifest."""
    operator_keys_file: Path | None = None
    """A JSON object of operator id to API key; ``rgs migrate`` stores each key hashed."""
    replay_secret: SecretStr | None = None
    """The secret that signs round replay links (CreateRoundReplay, docs/support.md): every
    replica of a deployment has the same, so any replica opens a link any issued; at least 16
    bytes. Unset: ``replay_secret_file``; with neither, a fixed development secret outside
    production and no replay links in production."""
    replay_secret_file: Path | None = None
    """A file whose content (stripped) is ``replay_secret``."""
    replay_url: str | None = None
    """The browser edge's address as support's browsers reach it (``https://play.example``);
    unset: ``http://`` + ``web_listen``."""
    replay_ttl_s: int = Field(default=900, ge=60, le=86400)
    """How long a replay link opens its round when CreateRoundReplay gives no ``ttl_seconds``."""
    launch_url: str | None = None
    """Where CreateLaunch's URLs point for a brand without its own ``launch_url`` (the browser
    edge as players reach it, ``https://play.example/``: no query, no fragment, as the code
    goes in the fragment); unset: ``replay_url``, else ``http://`` + ``web_listen`` + ``/``."""
    launch_ttl_s: int = Field(default=300, ge=10, le=1800)
    """How long a launch URL's one-time code can be redeemed (minutes at most)."""

    @field_validator("launch_url")
    @classmethod
    def _launch_url(cls, v: str | None) -> str | None:
        if v is not None and not _LAUNCH_URL.fullmatch(v):
            raise ValueError("RGS_LAUNCH_URL must be an http(s) URL with no query and no "
                             "fragment (the launch code goes in the fragment), e.g. "
                             "https://play.example.com/")
        return v

    @model_validator(mode="after")
    def _safe(self) -> RgsSettings:
        if self.environment == "production" and self.test_mode:
            raise ValueError("test_mode is refused together with environment=production")
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            raise ValueError("tls_cert_file and tls_key_file go together")
        if not self.tls_enabled and not is_loopback(self.listen) and (
                not self.allow_plaintext or self.environment == "production"):
            raise ValueError(f"plaintext on {self.listen} is not allowed: configure "
                             "RGS_TLS_CERT_FILE/RGS_TLS_KEY_FILE or listen on loopback")
        if self.web_listen and not self.tls_enabled and not is_loopback(self.web_listen) and (
                not self.allow_plaintext or self.environment == "production"):
            raise ValueError(f"plaintext on {self.web_listen} (RGS_WEB_LISTEN) is not allowed: "
                             "configure RGS_TLS_CERT_FILE/RGS_TLS_KEY_FILE or listen on loopback")
        return self

    @property
    def previous_release_lock(self) -> bool:
        """Whether calls take the previous release's advisory lock too (session mode, until
        ``database_previous_release_lock`` says the previous release is gone)."""
        return self.database_pool_mode == "session" and self.database_previous_release_lock

    @property
    def tls_enabled(self) -> bool:
        """True when the server presents a certificate."""
        return self.tls_cert_file is not None

    @property
    def session_ttl(self) -> timedelta:
        """Session lifetime."""
        return timedelta(seconds=self.session_ttl_s)


REMOVED_SETTINGS = ("RGS_BRANDS_FILE", "RGS_WALLET_ADDRESS", "RGS_WALLET_API_KEY",
                    "RGS_WALLET_TIMEOUT_S", "RGS_WALLET_KIND", "RGS_WALLET_URL",
                    "RGS_WALLET_HMAC_SECRET", "RGS_WALLET_TLS_CA_FILE", "RGS_WALLET_TLS_CERT_FILE",
                    "RGS_WALLET_TLS_KEY_FILE")
"""Settings of the single-operator RGS, now per operator in the platform file: refused at start
(silently ignoring them would send every operator's money to one wallet, or to none)."""


def load_settings(environ: Mapping[str, str] | None = None, **overrides: object
                  ) -> RgsSettings:
    """Settings from the environment with ``overrides``; ConfigError when invalid. The message
    names each field at fault and never quotes a value (a secret may be among them)."""
    env = os.environ if environ is None else environ
    stale = [name for name in REMOVED_SETTINGS if name in env]
    if stale:
        raise ConfigError(f"{', '.join(stale)}: no longer read; each operator's wallet and "
                          "brands are configured in the platform file (RGS_PLATFORM_FILE, see "
                          "docs/operators.md)")
    try:
        return RgsSettings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise ConfigError(describe(exc, "settings")) from None


def is_loopback(listen: str) -> bool:
    """True when a ``host:port`` listens on a loopback address only."""
    host = listen.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def platform(settings: RgsSettings) -> Platform:
    """The platform file the settings name, validated (production rules in production);
    ConfigError naming every field at fault."""
    try:
        loaded = load_platform(settings.platform_file,
                               production=settings.environment == "production")
    except PlatformError as exc:
        raise ConfigError(str(exc)) from None
    longest = max((o.wallet.timeout_s for o in loaded.operators.values()), default=0.0)
    if settings.player_lease_s < 2 * longest:
        raise ConfigError(f"RGS_PLAYER_LEASE_S ({settings.player_lease_s:g}) must be at least "
                          f"twice the longest wallet timeout of the platform file "
                          f"({longest:g} s): a call must not lose its player's lease while it "
                          "waits for the wallet")
    return loaded
