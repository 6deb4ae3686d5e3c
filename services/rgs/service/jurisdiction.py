"""Jurisdiction profiles: the game-design rules of a market, enforced by the server for every
brand that names the profile in the platform file (``jurisdiction``).

A profile is data; each rule has its one home where it is enforced (the Deal and bet paths, the
session, the views) and reads it from here. ``none`` is the behaviour without a market's rules.
Sources of each rule: ``docs/compliance.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True, slots=True, kw_only=True)
class JurisdictionProfile:
    """What a market requires of a game (every field's default is ``none``'s)."""

    id: str
    #: The least time from the start of a player's round to the start of their next one
    #: (UKGC RTS 14G: 5 s for casino games other than slots); 0: no minimum.
    min_round_interval_s: float = 0.0
    #: At most one open round per player across every variant and table of the operator
    #: (UKGC RTS 14F); otherwise one per brand and currency.
    one_game_at_a_time: bool = False
    #: Views and snapshots for the player carry, and clients show, the session's net position
    #: and elapsed time (UKGC RTS 2E / 13C).
    show_session_position: bool = False
    #: The reality-check interval when CreateSession names none, in seconds (None: none).
    reality_check_s: int | None = None
    #: A session without a call for this long expires (AGCO 4.30), in seconds (None: only the
    #: session's own expiry).
    idle_timeout_s: int | None = None
    #: The largest stake of one round per currency, in minor units (a currency not named: the
    #: brand's limits only).
    max_stake: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))


NONE = JurisdictionProfile(id="none")

PROFILES: Mapping[str, JurisdictionProfile] = MappingProxyType({
    "none": NONE,
    "ukgc": JurisdictionProfile(id="ukgc", min_round_interval_s=5.0, one_game_at_a_time=True,
                                show_session_position=True),
    "mga": JurisdictionProfile(id="mga", show_session_position=True),
    "nj": JurisdictionProfile(id="nj"),
    "ontario": JurisdictionProfile(id="ontario", show_session_position=True,
                                   idle_timeout_s=30 * 60),
})
"""The named profiles. Their values are a starting point to be checked against each market's
current rules (``docs/compliance.md``); a brand may override a field where the market allows."""
