"""Settings of the RGS process (environment variables prefixed ``RGS_``) and the brand file.

This is the settings edge: pydantic validates here and hands plain frozen values to the rest.
"""

from __future__ import annotations

import ipaddress
import json
from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rgs.engine import EngineError, TableLimits
from rgs.service.model import Brand
from rgs.variants import VARIANTS

DEFAULT_BRANDS_FILE = Path(__file__).resolve().parent / "sandbox_brands.json"
"""The sandbox's brand file, shipped with the package."""


class ConfigError(Exception):
    """The settings or the brand file are invalid."""


class RgsSettings(BaseSettings):
    """How one RGS replica runs."""

    model_config = SettingsConfigDict(env_prefix="RGS_", frozen=True)

    environment: Literal["development", "production"] = Field(
        default="development",
        description="`production` refuses test mode and plaintext on non-loopback addresses.")
    """`production` refuses test mode and plaintext on non-loopback addresses."""
    listen: str = Field(default="127.0.0.1:50051", description="host:port to serve gRPC on.")
    """host:port to serve gRPC on (port 0 picks a free one)."""
    database_url: str | None = Field(
        default=None, description="PostgreSQL URL of the journal; unset: rgs.devdb resolution.")
    """PostgreSQL URL of the journal; unset means the command line finds a development database
    with rgs.devdb (refused in production)."""
    database_pool_size: int = Field(default=10, ge=1, description="Journal connections.")
    """Journal connections kept open by this replica."""
    database_pool_mode: Literal["session", "transaction"] = Field(
        default="session",
        description="session: PostgreSQL or a session pooler; transaction: PgBouncer-style.")
    """How ``database_url`` hands out server connections. ``session``: PostgreSQL itself or a
    session-mode pooler (the journal also takes the previous release's advisory lock, so a
    rolling upgrade from it stays serialised). ``transaction``: a transaction-mode pooler such
    as PgBouncer (no session state, no prepared statements kept; the role's search_path must
    start with the journal's schema). ops/database.md says when to switch."""
    wallet_address: str = Field(default="127.0.0.1:50061", description="Wallet host:port.")
    """host:port of the operator wallet (``rgs.wallet.v1.WalletService``)."""
    wallet_api_key: str = Field(default="sandbox-wallet-dev-key", min_length=8,
                                description="Bearer secret sent to the wallet.")
    """Bearer secret sent to the wallet on every call."""
    wallet_timeout_s: float = Field(default=5.0, gt=0, description="Per-call wallet deadline.")
    """Deadline of each wallet call, in seconds."""
    wallet_kind: Literal["grpc", "http"] = Field(
        default="grpc", description="Wallet protocol: grpc (rgs.wallet.v1) or signed HTTP/JSON.")
    """Which adapter calls the wallet: ``grpc`` (``rgs.wallet.v1``) or ``http`` (signed JSON)."""
    wallet_url: str = Field(default="", description="Base URL of an HTTP/JSON wallet.")
    """Base URL of the HTTP/JSON wallet (``wallet_kind=http``)."""
    wallet_hmac_secret: str = Field(default="", description="HMAC-SHA256 secret (HTTP wallet).")
    """Shared secret signing HTTP wallet requests and answers (``wallet_kind=http``)."""
    wallet_tls_ca_file: Path | None = Field(default=None, description="CA for the wallet's TLS.")
    """PEM CA bundle to verify the wallet's certificate; unset means plaintext to the wallet."""
    wallet_tls_cert_file: Path | None = Field(default=None, description="mTLS client cert.")
    """PEM client certificate for mutual TLS with the wallet."""
    wallet_tls_key_file: Path | None = Field(default=None, description="mTLS client key.")
    """PEM private key of the client certificate."""
    tls_cert_file: Path | None = Field(default=None, description="PEM server certificate.")
    """PEM certificate chain this server presents; with tls_key_file enables TLS."""
    tls_key_file: Path | None = Field(default=None, description="PEM server private key.")
    """PEM private key of tls_cert_file."""
    allow_plaintext: bool = Field(default=False, description="Plaintext off loopback.")
    """Serve plaintext on a non-loopback address (loopback is always allowed)."""
    test_mode: bool = Field(default=False, description="Accept forced cards (labs, tests).")
    """Accept forced cards in Deal (certification labs and tests); refused in production."""
    rng_reseed_interval: int = Field(default=1024, ge=1, le=2**48,
                                     description="DRBG Generate requests between reseeds.")
    """Generate requests of the certified DRBG between reseeds from the OS (SP 800-90A)."""
    rng_prediction_resistance: bool = Field(
        default=False, description="Reseed the DRBG from the OS before every Generate request.")
    """SP 800-90A prediction resistance: fresh OS entropy before every Generate request."""
    brands_file: Path = Field(default=DEFAULT_BRANDS_FILE, description="Brand config JSON.")
    """The brand configuration file (operators' brands, variants, currency, limits)."""
    session_ttl_s: int = Field(default=4 * 3600, ge=60, description="Session lifetime.")
    """How long a player session stays valid, in seconds."""
    lock_wait_s: float = Field(default=5.0, gt=0, description="Wait for a busy player.")
    """How long a call waits for another call of the same player before ABORTED."""
    player_lease_s: float = Field(default=30.0, gt=0,
                                  description="Lease on a player's journal, renewed per write.")
    """How long a call's lease on its player's journal lasts without a write (every write
    renews it). A replica that died keeps its players waiting this long (in transaction pool
    mode); a call that pauses longer than this may be taken over and then fails UNAVAILABLE.
    Must exceed the longest stretch between two writes, one wallet call: at least twice
    wallet_timeout_s."""
    reconcile_interval_s: float = Field(default=10.0, ge=0, description="Reconciler period.")
    """Seconds between reconciler passes over open outbox rows (0 turns it off)."""
    reconcile_min_age_s: float = Field(default=30.0, ge=0, description="Outbox row age.")
    """How long an outbox row stays open before the reconciler takes it over."""
    reconcile_max_backoff_s: float = Field(default=600.0, gt=0,
                                           description="Longest rest between outbox retries.")
    """Retries of an open outbox row back off exponentially from reconcile_min_age_s up to this
    many seconds (credits are retried for as long as it takes)."""
    abandon_after_s: float = Field(default=24 * 3600, gt=0, description="Sweeper threshold.")
    """How long a round may stay unfinished before it is completed on the player's behalf."""
    metrics_listen: str | None = Field(
        default=None, description="host:port of the Prometheus endpoint; unset: none.")
    """host:port serving ``/metrics`` (Prometheus) on its own port; unset serves none."""
    log_format: Literal["auto", "json", "text"] = Field(
        default="auto", description="json lines, text, or auto (json in production).")
    """Log lines as JSON objects (with trace and round ids) or text; auto is json in
    production."""
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", description="Root log level.")
    """The root logger's level."""
    shutdown_grace_s: float = Field(
        default=5.0, ge=0, description="Time calls in flight get to finish at shutdown.")
    """On SIGTERM/SIGINT the replica reports NOT_SERVING (readiness), refuses new calls with
    UNAVAILABLE and gives the calls in flight this many seconds to finish; the ones still running
    then fail UNAVAILABLE / SERVER_SHUTTING_DOWN (retryable), and the process exits about a
    second later. Keep it below the orchestrator's termination grace period minus any preStop
    delay (the Helm chart derives it from terminationGracePeriodSeconds)."""
    max_connection_age_s: float = Field(
        default=300.0, ge=0, description="Clients reconnect after this long (0: never).")
    """A client connection older than this is asked to reconnect (gRPC GOAWAY), so long-lived
    clients spread over replicas the autoscaler added; 0 keeps connections forever."""
    max_connection_age_grace_s: float = Field(
        default=30.0, ge=0, description="Time calls on an aged connection get to finish.")
    """How long calls still running on a connection past its maximum age may take before it is
    closed."""
    ops_sample_interval_s: float = Field(default=15.0, gt=0,
                                         description="Outbox/session gauge sampling period.")
    """How often the outbox and session gauges are sampled from the database."""
    operator_keys_file: Path | None = Field(
        default=None, description="JSON {operator id: API key} stored hashed by migrate.")
    """A JSON object of operator id to API key; ``rgs migrate`` stores each key hashed."""

    @model_validator(mode="after")
    def _safe(self) -> RgsSettings:
        if self.environment == "production" and self.test_mode:
            raise ValueError("test_mode is refused together with environment=production")
        if self.wallet_kind == "http" and (not self.wallet_url
                                           or len(self.wallet_hmac_secret) < 16):
            raise ValueError("wallet_kind=http needs RGS_WALLET_URL and RGS_WALLET_HMAC_SECRET "
                             "(16+ characters)")
        if (self.wallet_kind == "http" and self.environment == "production"
                and not self.wallet_url.startswith("https://")):
            raise ValueError("in production the HTTP wallet is reached over https only")
        if self.player_lease_s < 2 * self.wallet_timeout_s:
            raise ValueError("player_lease_s must be at least twice wallet_timeout_s: a call "
                             "must not lose its player's lease while it waits for the wallet")
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            raise ValueError("tls_cert_file and tls_key_file go together")
        if not self.tls_enabled and not is_loopback(self.listen) and (
                not self.allow_plaintext or self.environment == "production"):
            raise ValueError(f"plaintext on {self.listen} is not allowed: configure "
                             "RGS_TLS_CERT_FILE/RGS_TLS_KEY_FILE or listen on loopback")
        return self

    @property
    def tls_enabled(self) -> bool:
        """True when the server presents a certificate."""
        return self.tls_cert_file is not None

    @property
    def session_ttl(self) -> timedelta:
        """Session lifetime."""
        return timedelta(seconds=self.session_ttl_s)


def load_settings(**overrides: object) -> RgsSettings:
    """Settings from the environment with ``overrides``; ConfigError when invalid."""
    try:
        return RgsSettings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise ConfigError(str(exc)) from exc


def is_loopback(listen: str) -> bool:
    """True when a ``host:port`` listens on a loopback address only."""
    host = listen.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _LimitsModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    main_min: int = Field(ge=1)
    main_max: int = Field(ge=1)
    side_min: int = Field(ge=1)
    side_max: int = Field(ge=1)


class _BrandModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,62}$")
    operator_id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,62}$")
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    variants: list[str] = Field(min_length=1)
    limits: _LimitsModel | None = None
    variant_limits: dict[str, _LimitsModel] = Field(default_factory=dict)


class _BrandFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    brands: list[_BrandModel] = Field(min_length=1)


def _limits(m: _LimitsModel) -> TableLimits:
    return TableLimits(main_min=m.main_min, main_max=m.main_max, side_min=m.side_min,
                       side_max=m.side_max)


def load_brands(path: Path) -> dict[str, Brand]:
    """Load and validate a brand file: known variants, sane limits, unique ids."""
    try:
        raw = _BrandFile.model_validate(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError) as exc:  # ValidationError and JSONDecodeError are ValueErrors
        raise ConfigError(f"brand file {path}: {exc}") from exc
    out: dict[str, Brand] = {}
    for b in raw.brands:
        if b.id in out:
            raise ConfigError(f"brand file {path}: brand {b.id} appears twice")
        limits: dict[str, TableLimits] = {}
        for v in b.variants:
            if v not in VARIANTS:
                raise ConfigError(f"brand {b.id}: unknown variant {v!r} (known: "
                                  f"{', '.join(VARIANTS)})")
            chosen = b.variant_limits.get(v) or b.limits
            try:
                limits[v] = _limits(chosen) if chosen else VARIANTS[v].limits
            except EngineError as exc:
                raise ConfigError(f"brand {b.id}, variant {v}: {exc}") from exc
        stray = set(b.variant_limits) - set(b.variants)
        if stray:
            raise ConfigError(f"brand {b.id}: limits for variants it does not offer: {stray}")
        out[b.id] = Brand(id=b.id, operator_id=b.operator_id, currency=b.currency,
                          variants=tuple(b.variants), limits=limits)
    return out
