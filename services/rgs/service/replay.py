"""Round replay links for an operator's support: a signed capability that names one round of
one of the operator's players and expires.

A link is ``<edge>/replay#r1.<payload>.<signature>``: the payload (base64url JSON) names the
operator, brand, player and round and when the link expires; the signature is HMAC-SHA256 of
``r1.<payload>`` with the replay secret, which every replica shares (``RGS_REPLAY_SECRET`` or
``RGS_REPLAY_SECRET_FILE``), so any replica's browser edge accepts a link any replica issued and
nothing is stored. It carries no session token and no operator key; the capability sits in the
URL's fragment, which browsers never send to a server nor put in a Referer. Anything changed in
it fails the signature (REPLAY_LINK_INVALID); past its time it is REPLAY_LINK_EXPIRED.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from rgs.service.backoffice import BackOffice
from rgs.service.errors import InvalidRequest, PermissionDenied, Unavailable
from rgs.service.launch import LANGUAGES
from rgs.service.model import RoundSummary
from rgs.service.tables.recall import PlayerTableRound

VERSION = "r1"
#: The development secret, used only outside production when none is configured.
DEVELOPMENT_SECRET = b"rgs-development-replay-secret"
#: The shortest and longest life a caller may ask for, in seconds.
MIN_TTL_S, MAX_TTL_S = 60, 24 * 3600


#: The reasons of a link refused (PERMISSION_DENIED): altered or cut, or past its time.
LINK_INVALID = "REPLAY_LINK_INVALID"
LINK_EXPIRED = "REPLAY_LINK_EXPIRED"


def _invalid() -> PermissionDenied:
    return PermissionDenied("this replay link is not valid: it was changed or cut",
                            reason=LINK_INVALID)


@dataclass(frozen=True, slots=True)
class ReplayCapability:
    """What a link lets its holder read: one round, until ``expires_at``."""

    operator_id: str
    brand_id: str
    player_id: str
    round_id: str
    expires_at: datetime


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class ReplayLinks:
    """Issues and reads replay links with one secret (never logged, never in a message)."""

    def __init__(self, secret: bytes, base_url: str, *, default_ttl_s: int = 900,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        if len(secret) < 16:
            raise ValueError("the replay secret must be at least 16 bytes")
        self._secret = secret
        self.base_url = base_url.rstrip("/")
        self.default_ttl_s = default_ttl_s
        self._clock = clock

    def __repr__(self) -> str:  # the secret stays out of any log or traceback
        return f"ReplayLinks(base_url={self.base_url!r})"

    def _sign(self, signed: str) -> str:
        return _b64(hmac.new(self._secret, signed.encode("ascii"), hashlib.sha256).digest())

    def issue(self, operator_id: str, brand_id: str, player_id: str, round_id: str,
              ttl_s: int = 0, *, language: str = "") -> tuple[str, datetime]:
        """(URL, expiry) of a link to the round; ``ttl_s`` 0 means the configured default;
        ``language`` (empty: the browser's) is the page's ``?lang=``, not part of the signed
        capability (whoever holds the link may read the round in any language)."""
        ttl = ttl_s or self.default_ttl_s
        if not MIN_TTL_S <= ttl <= MAX_TTL_S:
            raise InvalidRequest(f"ttl_seconds must be {MIN_TTL_S}-{MAX_TTL_S} (0: the default)",
                                 reason="INVALID_REPLAY_TTL", field="ttl_seconds")
        if language and language not in LANGUAGES:
            raise InvalidRequest(f"language must be one of {', '.join(LANGUAGES)} (BCP 47), or "
                                 "empty for the browser's", reason="UNSUPPORTED_LANGUAGE",
                                 field="language")
        expires = (self._clock() + timedelta(seconds=ttl)).replace(microsecond=0)
        payload = _b64(json.dumps({"o": operator_id, "b": brand_id, "p": player_id,
                                   "r": round_id, "x": int(expires.timestamp())},
                                  separators=(",", ":"), sort_keys=True).encode("utf-8"))
        signed = f"{VERSION}.{payload}"
        query = f"?lang={language}" if language else ""
        return f"{self.base_url}/replay{query}#{signed}.{self._sign(signed)}", expires

    def read(self, token: str) -> ReplayCapability:
        """The capability of a link's token; PermissionDenied REPLAY_LINK_INVALID or
        REPLAY_LINK_EXPIRED."""
        parts = token.strip().split(".")
        if len(parts) != 3 or parts[0] != VERSION or len(token) > 2048:
            raise _invalid()
        signed = f"{parts[0]}.{parts[1]}"
        if not hmac.compare_digest(self._sign(signed), parts[2]):
            raise _invalid()
        try:
            fields = json.loads(_unb64(parts[1]))
            cap = ReplayCapability(
                operator_id=str(fields["o"]), brand_id=str(fields["b"]),
                player_id=str(fields["p"]), round_id=str(fields["r"]),
                expires_at=datetime.fromtimestamp(int(fields["x"]), UTC))
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise _invalid() from exc
        if self._clock() >= cap.expires_at:
            raise PermissionDenied(
                f"this replay link expired at {cap.expires_at.isoformat()}: ask the operator "
                "for a new one", reason=LINK_EXPIRED)
        return cap


def not_configured() -> Unavailable:
    """The refusal when this replica has no replay links (no secret in production, no edge)."""
    return Unavailable("round replay is not configured on this server (RGS_REPLAY_SECRET and "
                       "RGS_REPLAY_URL or RGS_WEB_LISTEN)", reason="REPLAY_NOT_CONFIGURED")


class RoundReplays:
    """The use cases: an operator asks for a link to a round it can recall; the replay page
    reads the round with the link alone."""

    def __init__(self, office: BackOffice, links: ReplayLinks | None) -> None:
        self._office = office
        self._links = links

    def _configured(self) -> ReplayLinks:
        if self._links is None:
            raise not_configured()
        return self._links

    async def create(self, operator_id: str, brand_id: str, player_id: str, round_id: str,
                     ttl_s: int = 0, *, language: str = "") -> tuple[str, datetime]:
        """A link to the round, once recall finds it (another operator's: ROUND_NOT_FOUND),
        opening in ``language`` (empty: the browser's)."""
        links = self._configured()
        await self._office.recall_round(operator_id, brand_id, player_id, round_id)
        return links.issue(operator_id, brand_id, player_id, round_id, ttl_s, language=language)

    async def open(self, token: str) -> tuple[ReplayCapability,
                                              RoundSummary | PlayerTableRound]:
        """The capability and the round, as its operator's recall shows it."""
        cap = self._configured().read(token)
        rec = await self._office.recall_round(cap.operator_id, cap.brand_id, cap.player_id,
                                              cap.round_id)
        return cap, rec


def replay_links(*, secret: str | None, secret_file: str | None, url: str | None,
                 web_listen: str | None, ttl_s: int, production: bool) -> ReplayLinks | None:
    """The replica's replay links from its settings; None when it cannot issue or open any
    (production without a secret, or no browser edge address)."""
    if secret:
        key = secret.encode("utf-8")
    elif secret_file:
        with open(secret_file, "rb") as f:
            key = f.read().strip()
    elif not production:
        key = DEVELOPMENT_SECRET
    else:
        return None
    base = url or (f"http://{web_listen}" if web_listen else None)
    return ReplayLinks(key, base, default_ttl_s=ttl_s) if base else None
