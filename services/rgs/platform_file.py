"""The platform file: the operators sharing this RGS, each with its wallet connection and its
brands (``RGS_PLATFORM_FILE``, JSON).

This is a settings edge like :mod:`rgs.config`: pydantic validates the whole file at start-up,
every error names the field's path (``operators[1].brands[0].currencies.EUR.limits.main_min``)
and never echoes a value, and plain frozen values come out. Secrets are never written in the
file: a wallet's API key or HMAC secret is a reference, ``{"env": "NAME"}`` or
``{"file": "/path"}`` (a Kubernetes Secret mounted as a file or an environment variable), held
as :class:`pydantic.SecretStr` once read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from rgs.engine import EngineError, SideBetKind, TableLimits
from rgs.service.fingerprints import sha256_hex
from rgs.service.identifiers import TENANT_ID_PATTERN
from rgs.service.jurisdiction import PROFILES, JurisdictionProfile, with_overrides
from rgs.service.model import Brand, InterruptedResolution, InterruptedRoundsPolicy
from rgs.service.tables.model import TableConfig
from rgs.variants import VARIANTS
from rgs.variants.options import OptionError, VariantOptions, check_options

DEFAULT_PLATFORM_FILE = Path(__file__).resolve().parent / "sandbox_platform" / "platform.json"
"""The sandbox's platform file, shipped with the package: two operators, each with its own
sandbox wallet and brands."""

DEV_WALLET_KEYS = frozenset({"sandbox-wallet-dev-key", "sandbox-wallet-other-key"})
"""The documented sandbox wallet keys: refused in production."""


class PlatformError(Exception):
    """The platform file is invalid; the message names the field and what to do."""


# --------------------------------------------------------------------------- the values


@dataclass(frozen=True, slots=True, kw_only=True)
class WalletTls:
    """TLS towards a wallet: the CA verifying it, and a client certificate for mutual TLS."""

    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class WalletConnection:
    """How the RGS reaches one operator's wallet, and how much of the RGS that wallet may take."""

    kind: Literal["grpc", "http"]
    #: host:port of a gRPC wallet.
    address: str = ""
    #: Base URL of an HTTP/JSON wallet.
    url: str = ""
    #: Bearer key sent to a gRPC wallet.
    api_key: SecretStr = field(default_factory=lambda: SecretStr(""))
    #: Shared secret signing HTTP calls and answers.
    hmac_secret: SecretStr = field(default_factory=lambda: SecretStr(""))
    tls: WalletTls | None = None
    #: Deadline of one call, in seconds.
    timeout_s: float = 5.0
    #: Calls in flight to this wallet at once (the operator's bulkhead).
    max_in_flight: int = 64
    #: How long a call waits for a free slot before it is refused unsent.
    queue_wait_s: float = 0.05
    #: Consecutive calls without a definite answer that open the circuit breaker.
    breaker_failures: int = 5
    #: How long the breaker stays open at first (doubling while the wallet stays down).
    breaker_open_s: float = 5.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RateLimit:
    """An operator's admitted rate, for the whole installation (every worker of every replica
    holds its share: rgs.api.overload): ``calls_per_s`` on average, ``burst`` at once."""

    calls_per_s: float
    burst: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FileOperatorKey:
    """An operator API key the platform file gives, as its SHA-256 only (a key named by a
    secret reference is hashed as the file is read; the key itself is kept nowhere)."""

    key_hash: str
    label: str
    expires_at: datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Operator:
    """An operator: its wallet and the ids of its brands."""

    id: str
    wallet: WalletConnection
    brands: tuple[str, ...]
    #: What becomes of rounds its players abandon (None: complete them after the replica's
    #: RGS_ABANDON_AFTER_S).
    interrupted_rounds: InterruptedRoundsPolicy | None = None
    #: The calls per second (and burst) each worker admits for it (None: no limit of its own;
    #: rgs.api.overload).
    rate_limit: RateLimit | None = None
    #: Its API keys from the file (docs/operator-keys.md): live while the file lists them.
    api_keys: tuple[FileOperatorKey, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Platform:
    """Every operator and every brand, by id."""

    operators: Mapping[str, Operator] = field(default_factory=dict)
    brands: Mapping[str, Brand] = field(default_factory=dict)
    #: Shared tables by id (players of several brands and operators at one table).
    tables: Mapping[str, TableConfig] = field(default_factory=dict)

    def with_wallets(self, **changes: Mapping[str, Any]) -> Platform:
        """A copy with some operators' wallet fields replaced (``operator id -> fields``), e.g.
        the addresses of wallets a sandbox or a test started on free ports."""
        from dataclasses import replace
        ops = dict(self.operators)
        for op_id, fields in changes.items():
            ops[op_id] = replace(ops[op_id], wallet=replace(ops[op_id].wallet, **fields))
        return Platform(operators=MappingProxyType(ops), brands=self.brands, tables=self.tables)


# --------------------------------------------------------------------------- the file's models

_Id = Annotated[str, StringConstraints(pattern=TENANT_ID_PATTERN)]
_Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
#: A browser origin as browsers send it: scheme://host[:port], no path; or "*" (any page, for
#: development only).
_Origin = Annotated[str, StringConstraints(
    pattern=r"^(\*|https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?)$", max_length=255)]
#: A launch base URL (a studio's own client): an absolute http(s) URL, no fragment.
_LaunchUrl = Annotated[str, StringConstraints(
    pattern=r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[^#\s]*)?$", max_length=1024)]
_NO_LITERAL = ('a secret is never written in the platform file: give {"env": "VARIABLE"} or '
               '{"file": "/path/to/secret"}')


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _SecretRef(_Strict):
    env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
    file: Path | None = None

    @model_validator(mode="after")
    def _one(self) -> _SecretRef:
        if (self.env is None) == (self.file is None):
            raise ValueError('name exactly one of "env" and "file"')
        return self


def _no_literal(value: object) -> object:
    if isinstance(value, str):
        raise ValueError(_NO_LITERAL)
    return value


class _TlsModel(_Strict):
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None

    @model_validator(mode="after")
    def _pair(self) -> _TlsModel:
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("cert_file and key_file go together")
        return self


class _WalletModel(_Strict):
    kind: Literal["grpc", "http"]
    address: str = Field(default="", max_length=255)
    url: str = Field(default="", max_length=2048)
    api_key: _SecretRef | None = None
    hmac_secret: _SecretRef | None = None
    tls: _TlsModel | None = None
    timeout_s: float = Field(default=5.0, gt=0, le=60)
    max_in_flight: int = Field(default=64, ge=1, le=10_000)
    queue_wait_s: float = Field(default=0.05, ge=0, le=5)
    breaker_failures: int = Field(default=5, ge=1, le=1000)
    breaker_open_s: float = Field(default=5.0, gt=0, le=600)

    _literal = field_validator("api_key", "hmac_secret", mode="before")(
        lambda cls, v: _no_literal(v))

    @model_validator(mode="after")
    def _complete(self) -> _WalletModel:
        if self.kind == "grpc" and (not self.address or self.api_key is None):
            raise ValueError("a grpc wallet needs address and api_key")
        if self.kind == "http" and (not self.url or self.hmac_secret is None):
            raise ValueError("an http wallet needs url and hmac_secret")
        if self.kind == "http" and not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with https:// (or http:// in development)")
        return self


class _LimitsModel(_Strict):
    main_min: int = Field(ge=1)
    main_max: int = Field(ge=1)
    side_min: int = Field(ge=1)
    side_max: int = Field(ge=1)


class _CurrencyModel(_Strict):
    limits: _LimitsModel | None = None
    variant_limits: dict[str, _LimitsModel] = Field(default_factory=dict)


class _VariantModel(_Strict):
    decks: int | None = Field(default=None, ge=1, le=8)
    side_bets: list[Literal["twenty_plus", "perfect_pairs", "twenty_one_plus_three"]] | None = None
    cash_out: bool = True


class _OverridesModel(_Strict):
    """A brand's changes to its profile's values, where its market allows (each field as in
    :class:`rgs.service.jurisdiction.JurisdictionProfile`)."""

    min_round_interval_s: float | None = Field(default=None, ge=0, le=3600)
    one_game_at_a_time: bool | None = None
    show_session_position: bool | None = None
    reality_check_s: int | None = Field(default=None, ge=60, le=86400)
    idle_timeout_s: int | None = Field(default=None, ge=60, le=86400)
    max_stake: dict[_Currency, Annotated[int, Field(ge=1)]] | None = None


class _DemoModel(_Strict):
    #: Demo play's starting balance per currency, in minor units.
    balances: dict[_Currency, Annotated[int, Field(ge=1, le=10**12)]] = Field(min_length=1)


class _BrandModel(_Strict):
    id: _Id
    currencies: dict[_Currency, _CurrencyModel] = Field(min_length=1)
    variants: dict[str, _VariantModel] = Field(min_length=1)
    web_origins: list[_Origin] = Field(default_factory=list, max_length=64)
    hints: bool = False
    launch_url: _LaunchUrl | None = None
    demo: _DemoModel | None = None
    jurisdiction: str = "none"
    overrides: _OverridesModel | None = None

    @field_validator("jurisdiction")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in PROFILES:
            raise ValueError(f"unknown jurisdiction profile (known: {', '.join(PROFILES)})")
        return v


class _InterruptedRoundsModel(_Strict):
    # From a minute to a week after the round's last step.
    after_minutes: int = Field(default=60, ge=1, le=7 * 24 * 60)
    resolution: Literal["complete", "operator"] = "complete"


class _RateLimitModel(_Strict):
    calls_per_s: float = Field(gt=0, le=1_000_000)
    burst: int = Field(ge=1, le=1_000_000)


class _ApiKeyModel(_Strict):
    # The key's SHA-256 (lower-case hex), or the key itself by secret reference, hashed on load.
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    key: _SecretRef | None = None
    label: str = Field(default="platform file", min_length=1, max_length=100)
    expires_at: datetime | None = None

    _literal = field_validator("key", mode="before")(lambda cls, v: _no_literal(v))

    @model_validator(mode="after")
    def _one(self) -> _ApiKeyModel:
        if (self.sha256 is None) == (self.key is None):
            raise ValueError('name exactly one of "sha256" and "key"')
        if self.expires_at is not None and self.expires_at.tzinfo is None:
            raise ValueError("expires_at needs a time zone, e.g. 2027-01-01T00:00:00Z")
        return self


class _OperatorModel(_Strict):
    id: _Id
    wallet: _WalletModel
    brands: list[_BrandModel] = Field(min_length=1)
    interrupted_rounds: _InterruptedRoundsModel | None = None
    rate_limit: _RateLimitModel | None = None
    api_keys: list[_ApiKeyModel] = Field(default_factory=list, max_length=20)


class _TableModel(_Strict):
    id: _Id
    variant: str
    seats: int = Field(ge=1, le=7)
    currency: _Currency
    limits: _LimitsModel | None = None
    brands: list[_Id] = Field(min_length=1)
    betting_s: float = Field(default=15.0, ge=0.2, le=300)
    decision_s: float = Field(default=15.0, ge=0.2, le=300)
    sit_out_rounds: int = Field(default=5, ge=1, le=100)
    away_s: float = Field(default=60.0, ge=1, le=86400)


class _PlatformModel(_Strict):
    operators: list[_OperatorModel] = Field(min_length=1)
    tables: list[_TableModel] = Field(default_factory=list)


# --------------------------------------------------------------------------- loading


def field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as the file's path: ``operators[1].brands[0].id``.

    >>> field_path(("operators", 1, "brands", 0, "currencies", "EUR", "limits", "main_min"))
    'operators[1].brands[0].currencies.EUR.limits.main_min'
    """
    out = ""
    for part in loc:
        if part == "[key]":
            out += " (the key)"
        else:
            out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def describe(exc: ValidationError, source: str) -> str:
    """Every error of ``exc`` on its own line with its field path; never an input value."""
    lines = []
    for err in exc.errors(include_input=False, include_url=False, include_context=False):
        loc = tuple(p for p in err["loc"] if p not in ("function-after", "function-before"))
        lines.append(f"{source}: {field_path(loc) or '(file)'}: {err['msg']}")
    return "\n".join(lines)


def load_platform(path: Path, *, production: bool = False,
                  environ: Mapping[str, str] | None = None) -> Platform:
    """Read, validate and resolve the platform file (secrets from ``environ``, default the
    process environment; relative file paths from the file's folder); PlatformError when
    anything is wrong, naming every field at fault."""
    try:
        raw = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise PlatformError(f"platform file {path}: cannot read it as JSON ({type(exc).__name__}"
                            f": {getattr(exc, 'strerror', None) or exc})") from None
    try:
        model = _PlatformModel.model_validate(raw)
    except ValidationError as exc:
        raise PlatformError(describe(exc, str(path))) from None
    return _Resolver(path, production, os.environ if environ is None else environ).platform(model)


class _Resolver:
    def __init__(self, path: Path, production: bool, environ: Mapping[str, str]) -> None:
        self._path = path
        self._base = path.resolve().parent
        self._production = production
        self._env = environ
        self._errors: list[str] = []

    def _fail(self, where: str, message: str) -> None:
        self._errors.append(f"{self._path}: {where}: {message}")

    def platform(self, model: _PlatformModel) -> Platform:
        operators: dict[str, Operator] = {}
        brands: dict[str, Brand] = {}
        for i, op in enumerate(model.operators):
            where = f"operators[{i}]"
            if op.id in operators:
                self._fail(f"{where}.id", f"operator {op.id} appears twice")
            wallet = self._wallet(f"{where}.wallet", op.wallet)
            for j, b in enumerate(op.brands):
                if b.id in brands:
                    self._fail(f"{where}.brands[{j}].id", f"brand {b.id} appears twice")
                brand = self._brand(f"{where}.brands[{j}]", op.id, b)
                if brand is not None:
                    brands[b.id] = brand
            ir = op.interrupted_rounds
            operators[op.id] = Operator(
                id=op.id, wallet=wallet, brands=tuple(b.id for b in op.brands),
                interrupted_rounds=None if ir is None else InterruptedRoundsPolicy(
                    after=timedelta(minutes=ir.after_minutes),
                    resolution=InterruptedResolution(ir.resolution)),
                rate_limit=None if op.rate_limit is None else RateLimit(
                    calls_per_s=op.rate_limit.calls_per_s, burst=op.rate_limit.burst),
                api_keys=tuple(self._api_key(f"{where}.api_keys[{k}]", a)
                               for k, a in enumerate(op.api_keys)))
        tables: dict[str, TableConfig] = {}
        for i, tm in enumerate(model.tables):
            table = self._table(f"tables[{i}]", tm, brands)
            if tm.id in tables:
                self._fail(f"tables[{i}].id", f"table {tm.id} appears twice")
            if table is not None:
                tables[tm.id] = table
        if self._errors:
            raise PlatformError("\n".join(self._errors))
        return Platform(operators=MappingProxyType(operators), brands=MappingProxyType(brands),
                        tables=MappingProxyType(tables))

    def _table(self, where: str, t: _TableModel, brands: Mapping[str, Brand]
               ) -> TableConfig | None:
        rules = VARIANTS.get(t.variant)
        if rules is None:
            self._fail(f"{where}.variant", f"unknown variant {t.variant[:64]!r} (known: "
                       f"{', '.join(VARIANTS)})")
            return None
        ok = True
        if t.seats > rules.max_boxes:
            self._fail(f"{where}.seats", f"{t.variant} has at most {rules.max_boxes} boxes")
            ok = False
        for j, b in enumerate(t.brands):
            brand = brands.get(b)
            if brand is None:
                self._fail(f"{where}.brands[{j}]", f"no brand {b} in this file")
                ok = False
            elif t.variant not in brand.variants or t.currency not in brand.currencies:
                self._fail(f"{where}.brands[{j}]", f"brand {b} does not offer {t.variant} in "
                           f"{t.currency}")
                ok = False
        try:
            limits = TableLimits(**t.limits.model_dump()) if t.limits else rules.limits
        except EngineError as exc:
            self._fail(f"{where}.limits", str(exc))
            return None
        interval = max((brands[b].jurisdiction.min_round_interval_s for b in t.brands
                        if b in brands), default=0.0)
        if t.betting_s < interval:
            self._fail(f"{where}.betting_s", f"a table of brands under a profile with "
                       f"{interval:g} s between round starts keeps betting open at least "
                       f"that long")
            ok = False
        if not ok:
            return None
        return TableConfig(id=t.id, variant=t.variant, seats=t.seats, currency=t.currency,
                           limits=limits, brands=tuple(t.brands), betting_s=t.betting_s,
                           decision_s=t.decision_s, sit_out_rounds=t.sit_out_rounds,
                           away_s=t.away_s, min_round_interval_s=interval)

    def _file(self, p: Path | None) -> Path | None:
        return None if p is None else (p if p.is_absolute() else self._base / p)

    def _secret(self, where: str, ref: _SecretRef | None, min_length: int) -> SecretStr:
        if ref is None:
            return SecretStr("")
        if ref.env is not None:
            value = self._env.get(ref.env)
            if value is None:
                self._fail(where, f"environment variable {ref.env} is not set")
                return SecretStr("")
        else:
            path = self._file(ref.file)
            assert path is not None
            try:
                value = path.read_text("utf-8").strip()
            except OSError as exc:
                self._fail(where, f"cannot read {path} ({exc.strerror})")
                return SecretStr("")
        if len(value) < min_length:
            self._fail(where, f"the secret must be at least {min_length} characters")
        if self._production and value in DEV_WALLET_KEYS:
            self._fail(where, "the documented sandbox key is refused in production")
        return SecretStr(value)

    def _api_key(self, where: str, a: _ApiKeyModel) -> FileOperatorKey:
        key_hash = a.sha256 or sha256_hex(self._secret(f"{where}.key", a.key, 16)
                                          .get_secret_value())
        return FileOperatorKey(key_hash=key_hash, label=a.label, expires_at=a.expires_at)

    def _wallet(self, where: str, w: _WalletModel) -> WalletConnection:
        tls = None
        if w.tls is not None:
            tls = WalletTls(ca_file=self._file(w.tls.ca_file),
                            cert_file=self._file(w.tls.cert_file),
                            key_file=self._file(w.tls.key_file))
            for name in ("ca_file", "cert_file", "key_file"):
                f = getattr(tls, name)
                if f is not None and not f.is_file():
                    self._fail(f"{where}.tls.{name}", f"no such file: {f}")
        if w.kind == "grpc" and tls is not None and tls.ca_file is None:
            self._fail(f"{where}.tls.ca_file", "TLS to a gRPC wallet needs the CA that "
                       "verifies it")
        if self._production and w.kind == "grpc" and tls is None:
            self._fail(f"{where}.tls", "in production a gRPC wallet is reached over TLS only: "
                       "give tls.ca_file (and cert_file/key_file for mutual TLS)")
        if self._production and w.kind == "http" and not w.url.startswith("https://"):
            self._fail(f"{where}.url", "in production an HTTP wallet is reached over https only")
        return WalletConnection(
            kind=w.kind, address=w.address, url=w.url,
            api_key=self._secret(f"{where}.api_key", w.api_key, 8),
            hmac_secret=self._secret(f"{where}.hmac_secret", w.hmac_secret, 16), tls=tls,
            timeout_s=w.timeout_s, max_in_flight=w.max_in_flight, queue_wait_s=w.queue_wait_s,
            breaker_failures=w.breaker_failures, breaker_open_s=w.breaker_open_s)

    def _brand(self, where: str, operator_id: str, b: _BrandModel) -> Brand | None:
        ok = True
        options: dict[str, VariantOptions] = {}
        for v, vm in b.variants.items():
            rules = VARIANTS.get(v)
            if rules is None:
                self._fail(f"{where}.variants", f"unknown variant {v[:64]!r} (known: "
                           f"{', '.join(VARIANTS)})")
                ok = False
                continue
            opts = VariantOptions(
                decks=vm.decks, cash_out=vm.cash_out,
                side_bets=None if vm.side_bets is None else tuple(
                    SideBetKind(k) for k in sorted(set(vm.side_bets))))
            try:
                check_options(rules, opts)
            except OptionError as exc:
                option, _, message = str(exc).partition(": ")
                self._fail(f"{where}.variants.{v}.{option}", message)
                ok = False
            options[v] = opts
        limits: dict[str, dict[str, TableLimits]] = {}
        for cur, cm in b.currencies.items():
            cw = f"{where}.currencies.{cur}"
            stray = set(cm.variant_limits) - set(b.variants)
            if stray:
                self._fail(f"{cw}.variant_limits",
                           f"limits for variants the brand does not offer: {sorted(stray)}")
                ok = False
            limits[cur] = {}
            for v in b.variants:
                if v not in VARIANTS:
                    continue
                chosen = cm.variant_limits.get(v) or cm.limits
                lw = f"{cw}.variant_limits.{v}" if v in cm.variant_limits else f"{cw}.limits"
                try:
                    limits[cur][v] = (TableLimits(**chosen.model_dump()) if chosen
                                      else VARIANTS[v].limits)
                except EngineError as exc:
                    self._fail(lw, str(exc))
                    ok = False
        if self._production and "*" in b.web_origins:
            self._fail(f"{where}.web_origins", 'any origin ("*") is refused in production: list '
                       "the studios' origins (https://host[:port])")
            ok = False
        demo = dict(b.demo.balances) if b.demo is not None else {}
        if set(demo) - set(b.currencies):
            self._fail(f"{where}.demo.balances", "demo balances in currencies the brand does "
                       f"not play in: {sorted(set(demo) - set(b.currencies))}")
            ok = False
        profile = self._profile(where, b)
        if not ok or profile is None:
            return None
        return Brand(id=b.id, operator_id=operator_id, currencies=tuple(b.currencies),
                     variants=tuple(b.variants),
                     limits=MappingProxyType({c: MappingProxyType(v) for c, v in limits.items()}),
                     options=MappingProxyType(options),
                     web_origins=tuple(dict.fromkeys(b.web_origins)), hints=b.hints,
                     jurisdiction=profile, launch_url=b.launch_url or "",
                     demo_balances=MappingProxyType(demo))

    def _profile(self, where: str, b: _BrandModel) -> JurisdictionProfile | None:
        """The brand's profile with its overrides applied."""
        base = PROFILES[b.jurisdiction]
        if b.overrides is None:
            return base
        changes = b.overrides.model_dump(exclude_none=True)
        stray = set(changes.get("max_stake", {})) - set(b.currencies)
        if stray:
            self._fail(f"{where}.overrides.max_stake",
                       f"stake limits for currencies the brand does not play: {sorted(stray)}")
            return None
        try:
            return with_overrides(base, changes)
        except ValueError as exc:
            name, _, message = str(exc).partition(": ")
            self._fail(f"{where}.overrides.{name}", message)
            return None
