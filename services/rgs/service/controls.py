"""Game controls: a variant, a brand, a table, an operator, a jurisdiction or everything
disabled, or under maintenance until a time, by an operator or the platform's administrator.

The controls live in the journal (the :class:`ControlStore` port); every replica keeps them in
a :class:`ControlBoard` it refreshes every second or two, so the check on the Deal and bet paths
(:meth:`ControlBoard.check`, the one home of the rule) asks nothing of the database, and a
change made on one replica holds on every other within the refresh interval. Only new rounds
and bets are refused: a round in play finishes (or is voided by VoidRound). A time-limited
control ends by itself at its end time. With no control set nothing is refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from rgs.service.audit import AuditEntry
from rgs.service.errors import NotAllowedNow
from rgs.service.model import Brand
from rgs.service.ports import Clock, JournalError

log = logging.getLogger(__name__)

REFRESH_S = 1.0
"""How often a replica reads the controls again, by default (seconds)."""


class ControlMode(StrEnum):
    """What a control does; enabling removes the control."""

    DISABLED = "disabled"
    MAINTENANCE = "maintenance"


class Authority(StrEnum):
    """Who set a control: an operator's controls and the administrator's are apart (an
    operator enables only what it disabled itself)."""

    OPERATOR = "operator"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class PlayContext:
    """Where a new round or bet would be played."""

    operator_id: str
    brand_id: str
    jurisdiction_id: str
    variant_id: str
    #: A shared table's id ("" for a round played alone).
    table_id: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ControlScope:
    """What a control covers: every field given must match ("" matches anything), so a
    variant control of a brand covers the brand's solo rounds and tables of that variant, a
    table control only that table, and an empty scope everything."""

    operator_id: str = ""
    brand_id: str = ""
    variant_id: str = ""
    table_id: str = ""
    jurisdiction_id: str = ""

    def covers(self, ctx: PlayContext) -> bool:
        """Whether a round or bet in ``ctx`` falls under the scope."""
        return all(not want or want == have for want, have in (
            (self.operator_id, ctx.operator_id), (self.brand_id, ctx.brand_id),
            (self.variant_id, ctx.variant_id), (self.table_id, ctx.table_id),
            (self.jurisdiction_id, ctx.jurisdiction_id)))

    def describe(self) -> str:
        """The scope in words, for the audit trail: ``brand=b variant=v`` or ``everything``."""
        parts = [f"{name}={value}" for name, value in (
            ("operator", self.operator_id), ("jurisdiction", self.jurisdiction_id),
            ("brand", self.brand_id), ("table", self.table_id),
            ("variant", self.variant_id)) if value]
        return " ".join(parts) or "everything"


@dataclass(frozen=True, slots=True, kw_only=True)
class GameControl:
    """One control as stored."""

    authority: Authority
    scope: ControlScope
    mode: ControlMode
    #: Shown to players with the refusal (and in ListVariants / ListTables).
    message: str = ""
    #: When the control ends by itself (None: until it is lifted).
    ends_at: datetime | None = None
    set_by: str = ""
    set_at: datetime
    reason: str = ""

    @property
    def key(self) -> str:
        """The control's identity: one control per authority and scope."""
        return control_key(self.authority, self.scope)

    def in_force(self, now: datetime) -> bool:
        """Whether the control holds at ``now``."""
        return self.ends_at is None or now < self.ends_at


def control_key(authority: Authority, scope: ControlScope) -> str:
    """The stored key of a control of ``authority`` over ``scope``."""
    return "|".join((authority.value, scope.operator_id, scope.jurisdiction_id, scope.brand_id,
                     scope.table_id, scope.variant_id))


@dataclass(frozen=True, slots=True)
class Availability:
    """Whether new rounds are taken in a context, as clients are shown it."""

    #: ``open``, ``disabled`` or ``maintenance``.
    state: str = "open"
    message: str = ""
    ends_at: datetime | None = None


OPEN = Availability()


class ControlStore(Protocol):
    """Where the controls are kept (the journal's database). A change and its audit row are
    committed together."""

    async def controls(self) -> list[GameControl]:
        """Every control stored (ended ones too, until they are lifted)."""
        ...

    async def put(self, control: GameControl, audit: AuditEntry) -> None:
        """Set (or replace) the control of its authority and scope, and record ``audit``."""
        ...

    async def remove(self, key: str, audit: AuditEntry) -> bool:
        """Lift a control; record ``audit`` when there was one (returned)."""
        ...


def refusal(controls: Sequence[GameControl], ctx: PlayContext, now: datetime
            ) -> GameControl | None:
    """The control that refuses a new round in ``ctx`` (maintenance before disabled, the
    administrator's before the operator's), or None."""
    found = [c for c in controls if c.in_force(now) and c.scope.covers(ctx)]
    found.sort(key=lambda c: (c.mode is not ControlMode.MAINTENANCE,
                              c.authority is not Authority.ADMIN))
    return found[0] if found else None


def refusal_error(control: GameControl) -> NotAllowedNow:
    """The refusal a player gets: GAME_DISABLED or MAINTENANCE with the control's message
    (and, for maintenance, its end time) in the text and in ErrorInfo's metadata."""
    metadata = {"message": control.message}
    said = f": {control.message}" if control.message else ""
    if control.mode is ControlMode.MAINTENANCE:
        until = ""
        if control.ends_at is not None:
            metadata["ends_at"] = control.ends_at.isoformat(timespec="seconds")
            until = f" until {metadata['ends_at']}"
        return NotAllowedNow(f"the game is under maintenance{until}{said}",
                             reason="MAINTENANCE", metadata=metadata)
    return NotAllowedNow(f"the game is disabled{said}", reason="GAME_DISABLED",
                         metadata=metadata)


class ControlBoard:
    """This replica's copy of the controls, refreshed every ``refresh_s`` seconds; the one
    check of the Deal and bet paths."""

    def __init__(self, store: ControlStore, brands: Mapping[str, Brand], clock: Clock, *,
                 refresh_s: float = REFRESH_S) -> None:
        self._store = store
        self._brands = brands
        self._clock = clock
        self.refresh_s = refresh_s
        self._controls: tuple[GameControl, ...] = ()

    @property
    def controls(self) -> tuple[GameControl, ...]:
        """The controls as last read."""
        return self._controls

    async def refresh(self) -> None:
        """Read the controls again (raises the store's error)."""
        self._controls = tuple(await self._store.controls())

    async def run_forever(self) -> None:
        """Refresh every ``refresh_s`` seconds; a failed read keeps the last copy (logged)."""
        while True:
            await asyncio.sleep(self.refresh_s)
            try:
                await self.refresh()
            except JournalError as exc:
                log.warning("game controls not refreshed, keeping the last ones: %s", exc)

    def context(self, brand_id: str, variant_id: str, table_id: str = "") -> PlayContext:
        """The context of a round of ``brand_id``'s player (its operator and jurisdiction)."""
        brand = self._brands[brand_id]
        return PlayContext(operator_id=brand.operator_id, brand_id=brand.id,
                           jurisdiction_id=brand.jurisdiction.id, variant_id=variant_id,
                           table_id=table_id)

    def check(self, brand_id: str, variant_id: str, table_id: str = "") -> None:
        """Refuse a new round or bet (GAME_DISABLED or MAINTENANCE) when a control covers it."""
        found = refusal(self._controls, self.context(brand_id, variant_id, table_id),
                        self._clock())
        if found is not None:
            raise refusal_error(found)

    def availability(self, brand_id: str, variant_id: str, table_id: str = ""
                     ) -> Availability:
        """Whether new rounds are taken there now, as ListVariants and ListTables show it."""
        found = refusal(self._controls, self.context(brand_id, variant_id, table_id),
                        self._clock())
        if found is None:
            return OPEN
        return Availability(state=found.mode.value, message=found.message,
                            ends_at=found.ends_at)
