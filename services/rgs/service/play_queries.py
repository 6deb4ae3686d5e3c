"""Solo play's queries: the session of a token, the brand's variants and their rules, the
balance, the next round's commitment, the last rounds and a round's view. None of them takes
the player's journal or writes anything (a session read is only remembered for a few seconds).
"""

from __future__ import annotations

from rgs.engine import RuleSet, TableLimits
from rgs.service import fairness, money
from rgs.service.errors import InvalidRequest, NotAllowedNow, NotFound, Unauthenticated, preview
from rgs.service.fingerprints import sha256_hex
from rgs.service.identifiers import is_round_id, token_player_key
from rgs.service.model import Brand, PlayResult, Session, StoredRound
from rgs.service.play_context import PlayContext, party, round_answer
from rgs.service.replays import in_context as _in_context
from rgs.service.restore import restore_stored
from rgs.variants import VARIANTS
from rgs.variants.options import effective_rules

#: How far back ``last_rounds`` looks for each variant's last settled round.
RECENT_ROUNDS = 50


class PlayQueries:
    """The game client's read-only use cases."""

    def __init__(self, ctx: PlayContext) -> None:
        self._ctx = ctx

    async def authenticate(self, token: str, *, allow_expired: bool = False) -> Session:
        """The session a bearer token opens; Unauthenticated otherwise.

        An expired session may still read and finish its rounds (``allow_expired``): expiry
        stops new rounds, it must not strand a player's stake in an unfinished one. A session
        read in the last seconds is not read again (:mod:`rgs.service.session_cache`).
        """
        ctx = self._ctx
        key = token_player_key(token)
        if key is None:
            raise Unauthenticated("not a session token", reason="INVALID_SESSION_TOKEN")
        token_hash = sha256_hex(token)
        now = ctx.clock()
        session = ctx.sessions.get(key, token_hash, now)
        if session is None:
            session = await ctx.journal.find_session(key, token_hash)
            if session is None:
                raise Unauthenticated("unknown session token", reason="INVALID_SESSION_TOKEN")
            ctx.sessions.put(token_hash, session, now)
        if not allow_expired and session.expires_at <= now:
            raise Unauthenticated("the session has expired", reason="SESSION_EXPIRED")
        return session

    async def balance(self, session: Session) -> int:
        """The player's balance now, as the operator's wallet reports it."""
        return await money.balance(self._ctx.wallet, party(session))

    async def balance_or_none(self, session: Session) -> int | None:
        """The player's balance, or None when the wallet does not answer."""
        return await money.balance_or_none(self._ctx.wallet, party(session))

    def brands(self) -> tuple[Brand, ...]:
        """Every brand this service plays for."""
        return tuple(self._ctx.brands.values())

    def brand(self, session: Session) -> Brand:
        """The session's brand (brands are loaded at start and never disappear)."""
        brand = self._ctx.brands.get(session.brand_id)
        if brand is None:
            raise NotFound(f"brand {session.brand_id} is not configured",
                           reason="BRAND_NOT_FOUND")
        return brand

    def variants(self, session: Session) -> list[tuple[RuleSet, TableLimits]]:
        """The variants the session's brand offers, with the brand's options applied (its
        effective rules) and its limits in the session's currency for each."""
        brand = self.brand(session)
        return [self.rules(session, v) for v in brand.variants]

    def rules(self, session: Session, variant_id: str) -> tuple[RuleSet, TableLimits]:
        """One variant's effective rules and limits for the session (a variant the brand does
        not offer, or no longer in the session's currency, is refused)."""
        brand = self.brand(session)
        if variant_id not in brand.variants:
            raise InvalidRequest(f"variant {preview(variant_id)} is not offered by this brand",
                                 reason="UNKNOWN_VARIANT", field="variant_id")
        limits = brand.limits.get(session.currency, {}).get(variant_id)
        if limits is None:  # the brand no longer plays the session's currency
            raise NotAllowedNow(f"brand {brand.id} no longer plays in {session.currency}",
                                reason="WRONG_CURRENCY")
        rules = effective_rules(VARIANTS[variant_id], brand.variant_options(variant_id))
        return rules, limits

    async def next_commitment(self, session: Session) -> str:
        """The commitment of the seed the session's next round will use ("" before the
        session has one: a session opened before fair rounds gets it at its first Deal)."""
        seed = await self._ctx.journal.next_seed(session.player_key, session.session_id)
        return seed.commitment if seed is not None else ""

    async def last_rounds(self, session: Session) -> list[StoredRound]:
        """The player's most recent settled round of each variant the brand offers (newest
        first), for a client's Rebet and Ride Bet."""
        offered = set(self.brand(session).variants)
        recent = await self._ctx.journal.list_rounds(session.player_key, session.brand_id,
                                                     before=None, limit=RECENT_ROUNDS)
        last: dict[str, StoredRound] = {}
        for r in recent:
            if r.status == "settled" and r.variant in offered:
                last.setdefault(r.variant, r)
        return list(last.values())

    async def get_round(self, session: Session, round_id: str = "") -> PlayResult:
        """A round's public view; without an id, the player's unfinished round."""
        journal = self._ctx.journal
        if round_id:
            stored = (await journal.get_round(session.player_key, round_id)
                      if is_round_id(round_id) else None)
        else:
            stored = await journal.active_round(session.player_key, session.brand_id,
                                                session.currency)
        if stored is None or not _in_context(stored, session):
            raise NotFound("no such round", reason="ROUND_NOT_FOUND")
        rnd = restore_stored(self._ctx.cards, stored)
        movements = await journal.movements(session.player_key, stored.round_id)
        return await round_answer(self._ctx, session, stored.round_id, rnd, movements,
                                  balance=None, fair=fairness.view(stored),
                                  fresh_free_bets=stored.free_bet is not None)
