"""The session's side of a jurisdiction profile for the game service: the market's rules read
before a new round (:mod:`rgs.service.market_rules`), the session's position a view carries,
and the reality check a player acknowledges."""

from __future__ import annotations

from collections.abc import Mapping

from rgs.engine import Round
from rgs.service import market_rules
from rgs.service.jurisdiction import NONE, JurisdictionProfile
from rgs.service.model import Brand, Session, SessionPosition
from rgs.service.ports import Clock, Journal, PlayerJournal


class SessionRules:
    """A brand's profile applied to its sessions (brands are loaded at start)."""

    def __init__(self, *, journal: Journal, brands: Mapping[str, Brand], clock: Clock) -> None:
        self._journal = journal
        self._brands = brands
        self._clock = clock

    def _profile(self, session: Session) -> JurisdictionProfile:
        brand = self._brands.get(session.brand_id)
        return brand.jurisdiction if brand is not None else NONE

    async def before_round(self, pj: PlayerJournal, session: Session, stake: int) -> None:
        """Refuse a solo Deal the market's rules do not allow now (the player's journal held)."""
        await market_rules.before_round(pj, session, self._profile(session), stake=stake,
                                        now=self._clock())

    async def in_view(self, session: Session, round_id: str, rnd: Round
                      ) -> SessionPosition | None:
        """The position a round's view carries, this round as the engine has it (None when the
        brand's profile does not show it)."""
        if not self._profile(session).show_session_position:
            return None
        return market_rules.position(
            await self._journal.session_money(session.player_key, session.session_id,
                                              except_round=round_id),
            session, self._clock, round_staked=rnd.total_staked,
            round_paid=rnd.total_paid if rnd.finished else 0)

    async def position(self, session: Session) -> SessionPosition | None:
        """The session's position, when the brand's profile shows it (else None)."""
        if not self._profile(session).show_session_position:
            return None
        return await self._now(session)

    async def acknowledge(self, session: Session) -> SessionPosition:
        """Record that the player saw the session's reality check (its time and position):
        the next one falls due an interval from now."""
        async with self._journal.player(session.player_key) as pj:
            await pj.acknowledge_reality_check(session.session_id, self._clock())
        return await self._now(session)

    async def _now(self, session: Session) -> SessionPosition:
        return market_rules.position(
            await self._journal.session_money(session.player_key, session.session_id),
            session, self._clock)
