"""Jurisdiction profiles: the game-design rules of a market, enforced by the server for every
brand that names the profile in the platform file (``jurisdiction``).

A profile is data; each rule has its one home where it is enforced (the Deal and bet paths, the
session, the views) and reads it from here. ``none`` is the behaviour without a market's rules.
Sources of each rule: ``docs/compliance.md``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
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
    #: The least time game and transaction records are kept, in months (UKGC LCCP, MGA, DGE
    #: N.J.A.C. 13:69O, AGCO: 5 years; ``ops/dr.md``). The journal's partitions are shared by
    #: every market of an installation, so ``rgs partitions`` keeps at least the longest of all.
    record_retention_months: int = 0

    @property
    def paces_rounds(self) -> bool:
        """True when a new round must read the player's pace first (a minimum interval, one
        game at a time, an idle time); reality checks are the session's own."""
        return (self.min_round_interval_s > 0 or self.one_game_at_a_time
                or self.idle_timeout_s is not None)


NONE = JurisdictionProfile(id="none")

PROFILES: Mapping[str, JurisdictionProfile] = MappingProxyType({
    "none": NONE,
    "ukgc": JurisdictionProfile(id="ukgc", min_round_interval_s=5.0, one_game_at_a_time=True,
                                show_session_position=True, record_retention_months=60),
    "mga": JurisdictionProfile(id="mga", show_session_position=True, record_retention_months=60),
    "nj": JurisdictionProfile(id="nj", record_retention_months=60),
    "ontario": JurisdictionProfile(id="ontario", show_session_position=True,
                                   idle_timeout_s=30 * 60, record_retention_months=60),
})
"""The named profiles. Their values are a starting point to be checked against each market's
current rules (``docs/compliance.md``); a brand may override a field where the market allows."""


def with_overrides(base: JurisdictionProfile, changes: Mapping[str, object]
                   ) -> JurisdictionProfile:
    """``base`` with a brand's overrides applied. An override may make a profile's rule
    stricter, never looser (a market's minimum stays a minimum); under ``none`` any value goes.
    Raises ValueError ``"field: why"`` for an override that loosens a rule."""
    if base.id != "none":
        for name, value in changes.items():
            why = _loosens(base, name, value)
            if why:
                raise ValueError(f"{name}: {why} under {base.id}")
    fields = dict(changes)
    if "max_stake" in fields:
        fields["max_stake"] = MappingProxyType({**base.max_stake, **dict(
            fields["max_stake"])})  # type: ignore[call-overload]
    return replace(base, **fields)  # type: ignore[arg-type]


def _loosens(base: JurisdictionProfile, name: str, value: object) -> str:
    """Why an override loosens ``base``'s rule ``name`` ("" when it does not)."""
    if name == "min_round_interval_s":
        assert isinstance(value, int | float)
        return (f"must be at least {base.min_round_interval_s:g}"
                if value < base.min_round_interval_s else "")
    if name in ("one_game_at_a_time", "show_session_position"):
        return "cannot be turned off" if getattr(base, name) and not value else ""
    if name in ("reality_check_s", "idle_timeout_s"):
        limit = getattr(base, name)
        assert isinstance(value, int)
        return f"must be at most {limit}" if limit is not None and value > limit else ""
    if name == "max_stake":
        assert isinstance(value, Mapping)
        over = sorted(c for c, v in value.items()
                      if c in base.max_stake and v > base.max_stake[c])
        return f"above the profile's limit in {', '.join(over)}" if over else ""
    return ""


class ResultClass(enum.StrEnum):
    """How a settled round ended for the player, in the regulator's terms (UKGC RTS 14C: a
    return below the stake is not to be celebrated as a win)."""

    #: Paid more than staked: the only result a client may celebrate.
    WIN = "win"
    #: Paid back exactly the stake (a push).
    RETURN_EQUAL = "return_equal"
    #: Paid back something, less than the stake (a surrender, a Cash Out below the stake).
    RETURN_BELOW = "return_below"
    #: Paid nothing.
    LOSS = "loss"


def classify_result(staked: int, paid: int) -> ResultClass:
    """The class of a settled round that took ``staked`` and paid ``paid``.

    >>> [classify_result(100, p).value for p in (250, 100, 50, 0)]
    ['win', 'return_equal', 'return_below', 'loss']
    """
    if paid > staked:
        return ResultClass.WIN
    if paid == staked:
        return ResultClass.RETURN_EQUAL
    return ResultClass.RETURN_BELOW if paid > 0 else ResultClass.LOSS
