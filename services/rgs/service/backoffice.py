"""Operator use cases: authenticate an API key, open player sessions, recall rounds.

Tenancy: an operator reaches only its own brands; a player is keyed by operator, so a round of
another operator's player can never be named, let alone read.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from rgs.codec import decode_value, encode_value
from rgs.engine import CardDealt, Event, HoleCardRevealed
from rgs.service import demo, fairness, money, voiding
from rgs.service.audit import AuditTrail, operator_actor
from rgs.service.errors import (
    InvalidRequest,
    NotAllowedNow,
    NotFound,
    RequestConflict,
    Unauthenticated,
    preview,
)
from rgs.service.fingerprints import request_hash, sha256_hex
from rgs.service.identifiers import (
    check_nickname,
    check_player_id,
    check_request_id,
    encode_token_prefix,
    is_api_key,
    is_round_id,
    is_table_round_id,
    player_key,
)
from rgs.service.model import (
    Brand,
    CreateSessionCommand,
    NewSession,
    RequestScope,
    RoundSummary,
    Session,
    StoredRequest,
    StoredRound,
    VoidCommand,
)
from rgs.service.ports import (
    CardSourceFactory,
    CardSourceUnavailable,
    Clock,
    Journal,
    PlayerJournal,
)
from rgs.service.tables.recall import PlayerTableRound, TableRecall
from rgs.wallet.port import Party, Wallet

MAX_PAGE = 100
DEFAULT_PAGE = 20
_EPOCH = datetime.fromtimestamp(0, UTC)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallPage:
    """One page of game recall."""

    #: Rounds played alone and at shared tables, newest first.
    rounds: tuple[RoundSummary | PlayerTableRound, ...]
    next_page_token: str


def redact(stored: StoredRound) -> tuple[Event, ...]:
    """The round's events as an operator may see them: a face-down card stays hidden until the
    round reveals it (an unfinished round's hole card must not leak through recall)."""
    if any(isinstance(e, HoleCardRevealed) for e in stored.events) or stored.finished:
        return stored.events
    return tuple(e for e in stored.events if not (isinstance(e, CardDealt) and e.face_down))


class BackOffice:
    """The operator back end's use cases."""

    def __init__(self, *, journal: Journal, wallet: Wallet, brands: Mapping[str, Brand],
                 clock: Clock, session_ttl: timedelta,
                 cards: CardSourceFactory | None = None,
                 tables: TableRecall | None = None,
                 audit: AuditTrail | None = None) -> None:
        self._journal = journal
        #: Where voids are recorded (None: nowhere, as in unit tests of other things).
        self._audit = audit
        #: The shared tables' rounds (None where the replica runs no tables).
        self._tables = tables
        #: Where sessions' first fair seeds come from (without it, a session gets its first
        #: seed at its first Deal, without a commitment shown before).
        self._cards = cards
        self._wallet = wallet
        self._brands = brands
        self._clock = clock
        self._ttl = session_ttl

    async def authenticate(self, api_key: str) -> str:
        """The operator id an API key belongs to; Unauthenticated otherwise."""
        if not is_api_key(api_key):
            # Refused on its shape, before the database is asked.
            raise Unauthenticated("not an operator API key", reason="INVALID_API_KEY")
        operator = await self._journal.operator_for_key(sha256_hex(api_key))
        if operator is None:
            raise Unauthenticated("unknown API key", reason="INVALID_API_KEY")
        return operator

    def _brand(self, operator_id: str, brand_id: str) -> Brand:
        brand = self._brands.get(brand_id)
        if brand is None or brand.operator_id != operator_id:
            raise NotFound(f"no brand {preview(brand_id)}", reason="BRAND_NOT_FOUND")
        return brand

    def brands_of(self, operator_id: str, brand_id: str = "") -> list[str]:
        """The operator's brand ids: ``brand_id`` alone when given (NotFound unless it is the
        operator's), else all of them."""
        if brand_id:
            return [self._brand(operator_id, brand_id).id]
        return [b.id for b in self._brands.values() if b.operator_id == operator_id]

    async def create_session(self, operator_id: str, cmd: CreateSessionCommand) -> NewSession:
        """Open a session for a player of one of the operator's brands."""
        check_request_id(cmd.request_id)
        check_player_id(cmd.player_id)
        check_nickname(cmd.nickname)
        brand = self._brand(operator_id, cmd.brand_id)
        if cmd.currency and cmd.currency not in brand.currencies:
            raise InvalidRequest(f"brand {brand.id} plays in {', '.join(brand.currencies)}",
                                 reason="WRONG_CURRENCY", field="currency")
        currency = cmd.currency or brand.currency
        key = player_key(operator_id, cmd.player_id)
        if not 0 <= cmd.reality_check_s <= 86400:
            raise InvalidRequest("reality_check_interval_s must be 0-86400 seconds",
                                 reason="INVALID_REALITY_CHECK", field="reality_check_interval_s")
        fingerprint = request_hash("create_session", cmd, added=("nickname", "reality_check_s",
                                                                       "language"))
        async with self._journal.player(key) as pj:
            rec = await pj.find_request(cmd.request_id, RequestScope.OPERATOR)
            if rec is not None:
                if rec.method != "create_session" or rec.request_hash != fingerprint:
                    raise RequestConflict("request_id was already used for a different request",
                                          reason="REQUEST_ID_REUSED")
                # The token is stored only as a hash, so a replay cannot return the first one:
                # it answers the same session with a fresh token (both stay valid).
                session = decode_value(Session, rec.response)
                token = _new_token(key)
                await pj.save_session(session, sha256_hex(token), None)
            else:
                token = _new_token(key)
                session = Session(session_id=secrets.token_hex(16), player_key=key,
                                  operator_id=operator_id, brand_id=brand.id,
                                  player_id=cmd.player_id, currency=currency,
                                  expires_at=self._clock() + self._ttl,
                                  nickname=cmd.nickname, started_at=self._clock(),
                                  reality_check_s=(cmd.reality_check_s
                                                   or brand.jurisdiction.reality_check_s or 0),
                                  language=cmd.language)
                record = StoredRequest(
                    request_id=cmd.request_id, method="create_session",
                    request_hash=fingerprint, response=encode_value(session),
                    scope=RequestScope.OPERATOR)
                await pj.save_session(session, sha256_hex(token), record)
            next_commitment = await self._first_seed(pj, session)
        # Outside the player's lock: a slow wallet holds up only this answer. The session is
        # open whatever the wallet says; without an answer the balance is left unset.
        balance = await money.balance_or_none(self._wallet, Party(
            operator_id=operator_id, brand_id=session.brand_id, player_id=session.player_id,
            session_id=session.session_id, currency=session.currency))
        return NewSession(session=session, token=token, balance=balance,
                          next_commitment=next_commitment)

    async def create_demo_session(self, brand: Brand, currency: str,
                                  language: str = "") -> NewSession:
        """A demo session of ``brand`` (:mod:`rgs.service.demo`): a fresh demo player, no
        player id and no wallet; its balance is the brand's demo starting balance."""
        key = player_key(brand.operator_id, demo.new_demo_player_id())
        token = _new_token(key)
        session = Session(session_id=secrets.token_hex(16), player_key=key,
                          operator_id=brand.operator_id, brand_id=brand.id,
                          player_id=key.partition("/")[2], currency=currency,
                          expires_at=self._clock() + self._ttl, started_at=self._clock(),
                          reality_check_s=brand.jurisdiction.reality_check_s or 0,
                          language=language)
        async with self._journal.player(key) as pj:
            await pj.save_session(session, sha256_hex(token), None)
            next_commitment = await self._first_seed(pj, session)
        balance = await money.balance_or_none(self._wallet, Party(
            operator_id=brand.operator_id, brand_id=brand.id, player_id=session.player_id,
            session_id=session.session_id, currency=currency))
        return NewSession(session=session, token=token, balance=balance,
                          next_commitment=next_commitment)

    async def _first_seed(self, pj: PlayerJournal, session: Session) -> str:
        """Commit the session's first fair seed (kept if it has one); its commitment."""
        if self._cards is None:
            return ""
        try:
            seed = fairness.draw_seed(self._cards.picker())
        except CardSourceUnavailable:
            return ""  # the session opens; its Deals are refused until the RNG is healthy
        return (await fairness.ensure_next(pj, session, seed)).commitment

    async def void_round(self, operator_id: str, cmd: VoidCommand) -> RoundSummary:
        """Void an unfinished round: journal RoundVoided, roll back every stake it took."""
        check_request_id(cmd.request_id)
        check_player_id(cmd.player_id)
        self._brand(operator_id, cmd.brand_id)
        if not 1 <= len(cmd.reason) <= 200:
            raise InvalidRequest("reason must be 1-200 characters", reason="INVALID_REASON")
        key = player_key(operator_id, cmd.player_id)
        fingerprint = request_hash("void_round", cmd)
        async with self._journal.player(key) as pj:
            rec = await pj.find_request(cmd.request_id, RequestScope.OPERATOR)
            if rec is not None and (rec.method != "void_round"
                                    or rec.request_hash != fingerprint):
                raise RequestConflict("request_id was already used for a different request",
                                      reason="REQUEST_ID_REUSED")
            stored = await pj.get_round(cmd.round_id) if is_round_id(cmd.round_id) else None
            if stored is None or stored.brand_id != cmd.brand_id:
                raise NotFound("no such round", reason="ROUND_NOT_FOUND")
            if rec is None:
                if stored.finished:
                    raise NotAllowedNow("a finished round cannot be voided",
                                        reason="ROUND_FINISHED")
                await self._void(pj, stored, cmd, fingerprint)
            party = Party(operator_id=operator_id, brand_id=stored.brand_id,
                          player_id=cmd.player_id, session_id=stored.session_id,
                          currency=stored.currency)
            await money.reconcile(pj, self._wallet, party, await pj.open_movements())
            final = await pj.get_round(cmd.round_id)
            moves = await pj.movements(cmd.round_id)
        assert final is not None
        await voiding.record_void(self._audit, operator_actor(operator_id), stored,
                                  reason=cmd.reason, request_id=cmd.request_id)
        return RoundSummary(round=final, movements=tuple(moves))

    async def _void(self, pj: PlayerJournal, stored: StoredRound, cmd: VoidCommand,
                    fingerprint: str) -> None:
        await voiding.void(pj, stored, reason=cmd.reason, request=StoredRequest(
            request_id=cmd.request_id, method="void_round", request_hash=fingerprint,
            response="", scope=RequestScope.OPERATOR))

    async def recall(self, operator_id: str, brand_id: str, player_id: str, *,
                     page_size: int = 0, page_token: str = "") -> RecallPage:
        """A player's rounds, newest first, with every step and money movement."""
        self._brand(operator_id, brand_id)
        check_player_id(player_id)
        if page_size < 0:
            raise InvalidRequest("page_size must not be negative", reason="INVALID_PAGE_SIZE")
        limit = min(page_size or DEFAULT_PAGE, MAX_PAGE)
        before = _decode_page_token(page_token) if page_token else None
        key = player_key(operator_id, player_id)
        solo = await self._journal.list_rounds(key, brand_id, before=before, limit=limit + 1)
        at_tables = (await self._tables.player_rounds(key, brand_id, before=before,
                                                      limit=limit + 1)
                     if self._tables is not None else [])
        # Both newest first by (time, round id), as the page token orders them.
        rows: list[tuple[datetime, str, StoredRound | PlayerTableRound]] = sorted(
            [(r.created_at or _EPOCH, r.round_id, r) for r in solo]
            + [(t.started_at, t.round.round_id, t) for t in at_tables],
            key=lambda x: (x[0], x[1]), reverse=True)
        more = len(rows) > limit
        rows = rows[:limit]
        out: list[RoundSummary | PlayerTableRound] = []
        for _, _, r in rows:
            if isinstance(r, PlayerTableRound):
                out.append(r)
                continue
            moves = await self._journal.movements(key, r.round_id)
            out.append(RoundSummary(round=r, movements=tuple(moves)))
        token = _encode_page_token(rows[-1][0], rows[-1][1]) if more and rows else ""
        return RecallPage(rounds=tuple(out), next_page_token=token)

    async def recall_round(self, operator_id: str, brand_id: str, player_id: str,
                           round_id: str) -> RoundSummary | PlayerTableRound:
        """One round of one of the operator's players, played alone or at a shared table."""
        self._brand(operator_id, brand_id)
        check_player_id(player_id)
        key = player_key(operator_id, player_id)
        stored = await self._journal.get_round(key, round_id) if is_round_id(round_id) else None
        if stored is None and self._tables is not None and is_table_round_id(round_id):
            at_table = await self._tables.player_round(key, brand_id, round_id)
            if at_table is not None:
                return at_table
        if stored is None or stored.brand_id != brand_id:
            raise NotFound("no such round", reason="ROUND_NOT_FOUND")
        moves = await self._journal.movements(key, round_id)
        return RoundSummary(round=stored, movements=tuple(moves))


def _new_token(key: str) -> str:
    """A session token: a public prefix locating the player's shard, then 256 random bits."""
    return f"s1.{encode_token_prefix(key)}.{secrets.token_urlsafe(32)}"


def _encode_page_token(at: datetime, round_id: str) -> str:
    raw = f"{at.isoformat()}|{round_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _decode_page_token(token: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(token.encode()).decode()
        at, round_id = raw.split("|")
        when = datetime.fromisoformat(at)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidRequest("page_token is not one this server issued",
                             reason="INVALID_PAGE_TOKEN") from exc
    if not (is_round_id(round_id) or is_table_round_id(round_id)) or when.tzinfo is None:
        raise InvalidRequest("page_token is not one this server issued",
                             reason="INVALID_PAGE_TOKEN")
    return when, round_id

