"""Launching a game the way operators do: a one-time launch code in a launch URL.

The operator's server asks for a launch (CreateLaunch): a player (or demo play), a variant or a
shared table, a language, a lobby and a cashier URL (each on one of the brand's allowed
origins), a device kind. The answer is a URL to the brand's client (its ``launch_url``, or the
reference web table) with a fresh launch code in its fragment, ``#launch=l1.<43 characters>``,
never a session token. The code lives a few minutes (``RGS_LAUNCH_TTL_S``); the RGS keeps only
its SHA-256, with what it launches, in the journal's database, so any replica redeems it.

The page redeems the code once (RedeemLaunch, through the browser edge): the redeem is one
atomic write, so of two concurrent redeems exactly one gets the session; a second use answers
LAUNCH_CODE_USED, an expired code LAUNCH_CODE_EXPIRED, an altered or unknown code
LAUNCH_CODE_INVALID, each with what to do (go back to the casino and open the game again).
Only then is the session opened (CreateSession's rules, or a demo session). A browser page's
origin is checked against the launch's brand before the code is spent (a peek), so a page on a
wrong origin leaves the code usable from the right one.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Protocol
from urllib.parse import urlsplit

from rgs.service.demo import check_demo_allowed
from rgs.service.errors import InvalidRequest, NotFound, PermissionDenied, preview
from rgs.service.fingerprints import sha256_hex
from rgs.service.identifiers import check_player_id
from rgs.service.model import Brand, CreateSessionCommand, NewSession
from rgs.service.ports import Clock

#: The languages the reference clients speak (BCP 47); the first is the default.
LANGUAGES = ("en", "de", "es")
DEVICES = ("desktop", "mobile")
_CODE = re.compile(r"^l1\.[A-Za-z0-9_-]{43}\Z")
_FRAGMENT_KEY = "launch"

AGAIN = "go back to the casino and open the game again"


@dataclass(frozen=True, slots=True, kw_only=True)
class LaunchRequest:
    """What CreateLaunch asks for."""

    brand_id: str
    player_id: str = ""
    currency: str = ""
    variant_id: str = ""
    table_id: str = ""
    language: str = ""
    lobby_url: str = ""
    cashier_url: str = ""
    device: str = ""
    demo: bool = False
    nickname: str = ""
    reality_check_s: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Launch:
    """A launch as stored with its code's hash (and what the redeemed page is told)."""

    operator_id: str
    brand_id: str
    player_id: str
    currency: str
    variant_id: str
    table_id: str
    language: str
    lobby_url: str
    cashier_url: str
    device: str
    demo: bool
    nickname: str = ""
    reality_check_s: int = 0

    def to_json(self) -> str:
        """The stored form."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Launch:
        """Inverse of :meth:`to_json`."""
        return cls(**json.loads(text))


@dataclass(frozen=True, slots=True)
class Redeemed:
    """The outcome of a redeem: the launch, or why not (``used``/``expired``/``unknown``)."""

    launch: Launch | None
    refusal: str = ""


class LaunchStore(Protocol):
    """Where launch codes' hashes live (the journal's database, or memory)."""

    async def save(self, code_hash: str, launch: Launch, expires_at: datetime) -> None:
        """Keep a new code's hash with its launch."""
        ...

    async def peek(self, code_hash: str, now: datetime) -> Redeemed:
        """What :meth:`redeem` would answer at ``now``, without marking the code used."""
        ...

    async def redeem(self, code_hash: str, now: datetime) -> Redeemed:
        """Mark the code used if it is unused and unexpired at ``now`` (atomically)."""
        ...


class SessionOpener(Protocol):
    """How a redeemed launch opens its session (the back office)."""

    async def create_session(self, operator_id: str, cmd: CreateSessionCommand) -> NewSession:
        """A player's session (CreateSession's rules)."""
        ...

    async def create_demo_session(self, brand: Brand, currency: str,
                                  language: str = "") -> NewSession:
        """A demo session (no player, no wallet)."""
        ...


def check_public_url(brand: Brand, url: str, field: str) -> str:
    """``url`` (may be empty) must be https/http on one of the brand's allowed origins."""
    if not url:
        return ""
    parts = urlsplit(url)
    if len(url) > 2048 or parts.scheme not in ("https", "http") or not parts.netloc:
        raise InvalidRequest(f"{field} must be an absolute http(s) URL of at most 2048 "
                             "characters", reason="INVALID_URL", field=field)
    origin = f"{parts.scheme}://{parts.netloc}"
    if origin not in brand.web_origins and "*" not in brand.web_origins:
        raise PermissionDenied(
            f"{field} {preview(url, 64)} is not on an origin brand {brand.id} allows: the "
            "operator adds it to the brand's web_origins in the platform file",
            reason="ORIGIN_NOT_ALLOWED")
    return url


class Launches:
    """CreateLaunch and RedeemLaunch."""

    def __init__(self, *, store: LaunchStore, brands: Mapping[str, Brand],
                 tables: Mapping[str, tuple[str, ...]], sessions: SessionOpener,
                 clock: Clock, ttl: timedelta, default_url: str) -> None:
        self._store = store
        self._brands = brands
        #: Table id → the brands it seats.
        self._tables = tables
        self._sessions = sessions
        self._clock = clock
        self._ttl = ttl
        self._default_url = default_url

    def _brand(self, operator_id: str, brand_id: str) -> Brand:
        brand = self._brands.get(brand_id)
        if brand is None or brand.operator_id != operator_id:
            raise NotFound(f"no brand {preview(brand_id)}", reason="BRAND_NOT_FOUND")
        return brand

    def _check(self, operator_id: str, req: LaunchRequest) -> Launch:
        brand = self._brand(operator_id, req.brand_id)
        currency = req.currency or brand.currency
        if currency not in brand.currencies:
            raise InvalidRequest(f"brand {brand.id} plays in {', '.join(brand.currencies)}",
                                 reason="WRONG_CURRENCY", field="currency")
        if bool(req.variant_id) == bool(req.table_id):
            raise InvalidRequest("name a variant or a table (one of them)",
                                 reason="INVALID_LAUNCH_TARGET", field="variant_id")
        if req.variant_id and req.variant_id not in brand.variants:
            raise InvalidRequest(f"brand {brand.id} offers no variant {preview(req.variant_id)}",
                                 reason="UNKNOWN_VARIANT", field="variant_id")
        if req.table_id and brand.id not in self._tables.get(req.table_id, ()):
            raise NotFound(f"brand {brand.id} has no table {preview(req.table_id)}",
                           reason="TABLE_NOT_FOUND")
        language = req.language or LANGUAGES[0]
        if language not in LANGUAGES:
            raise InvalidRequest(f"language must be one of {', '.join(LANGUAGES)} (BCP 47)",
                                 reason="UNSUPPORTED_LANGUAGE", field="language")
        device = req.device or DEVICES[0]
        if device not in DEVICES:
            raise InvalidRequest(f"device must be one of {', '.join(DEVICES)}",
                                 reason="INVALID_DEVICE", field="device")
        if req.demo:
            if req.player_id:
                raise InvalidRequest("a demo launch names no player", reason="INVALID_PLAYER_ID",
                                     field="player_id")
            if req.table_id:
                raise PermissionDenied("demo play is not offered at shared tables",
                                       reason="DEMO_NOT_ALLOWED")
            check_demo_allowed(brand, currency)
        else:
            check_player_id(req.player_id)
        return Launch(operator_id=operator_id, brand_id=brand.id, player_id=req.player_id,
                      currency=currency, variant_id=req.variant_id, table_id=req.table_id,
                      language=language,
                      lobby_url=check_public_url(brand, req.lobby_url, "lobby_url"),
                      cashier_url=check_public_url(brand, req.cashier_url, "cashier_url"),
                      device=device, demo=req.demo, nickname=req.nickname,
                      reality_check_s=req.reality_check_s)

    async def create(self, operator_id: str, req: LaunchRequest) -> tuple[str, datetime, Launch]:
        """A launch URL with a fresh code, when the code expires, and the launch."""
        launch = self._check(operator_id, req)
        code = f"l1.{secrets.token_urlsafe(32)}"
        expires = self._clock() + self._ttl
        await self._store.save(sha256_hex(code), launch, expires)
        base = self._brands[launch.brand_id].launch_url or self._default_url
        return f"{base.split('#')[0]}#{_FRAGMENT_KEY}={code}", expires, launch

    async def redeem(self, code: str, check: Callable[[Launch], None] | None = None
                     ) -> tuple[Launch, NewSession]:
        """Exchange a code for its session, once. ``check`` (the caller's origin rule) sees the
        launch before the code is spent: a refusal there leaves the code usable."""
        if not _CODE.match(code):
            raise PermissionDenied(f"this launch link is not valid: {AGAIN}",
                                   reason="LAUNCH_CODE_INVALID")
        code_hash = sha256_hex(code)
        if check is not None:
            peeked = _refuse(await self._store.peek(code_hash, self._clock()))
            check(peeked)
        launch = _refuse(await self._store.redeem(code_hash, self._clock()))
        brand = self._brand(launch.operator_id, launch.brand_id)
        if launch.demo:
            return launch, await self._sessions.create_demo_session(
                brand, launch.currency, launch.language)
        new = await self._sessions.create_session(launch.operator_id, CreateSessionCommand(
            request_id=f"launch-{code_hash[:40]}", brand_id=launch.brand_id,
            player_id=launch.player_id, currency=launch.currency, nickname=launch.nickname,
            reality_check_s=launch.reality_check_s, language=launch.language))
        return launch, new


def _refuse(got: Redeemed) -> Launch:
    """The launch of a redeem (or peek), or the refusal that says what to do."""
    if got.refusal == "used":
        raise PermissionDenied(f"this launch link was already used: {AGAIN}",
                               reason="LAUNCH_CODE_USED")
    if got.refusal == "expired":
        raise PermissionDenied(f"this launch link has expired: {AGAIN}",
                               reason="LAUNCH_CODE_EXPIRED")
    if got.launch is None:
        raise PermissionDenied(f"this launch link is not valid: {AGAIN}",
                               reason="LAUNCH_CODE_INVALID")
    return got.launch


class MemoryLaunchStore:
    """A :class:`LaunchStore` in memory (one process: a check and a set with no await between
    them is atomic)."""

    def __init__(self) -> None:
        self._codes: dict[str, tuple[Launch, datetime, bool]] = {}

    async def save(self, code_hash: str, launch: Launch, expires_at: datetime) -> None:
        self._codes[code_hash] = (launch, expires_at, False)

    async def peek(self, code_hash: str, now: datetime) -> Redeemed:
        found = self._codes.get(code_hash)
        if found is None:
            return Redeemed(None, "unknown")
        launch, expires, used = found
        if used:
            return Redeemed(None, "used")
        return Redeemed(None, "expired") if expires <= now else Redeemed(launch)

    async def redeem(self, code_hash: str, now: datetime) -> Redeemed:
        got = await self.peek(code_hash, now)
        if got.launch is not None:  # usable: spend it (nothing awaits in between)
            _, expires, _ = self._codes[code_hash]
            self._codes[code_hash] = (got.launch, expires, True)
        return got
