"""Setting and listing game controls, and reading the audit trail: the operator's own (its
brands, variants and tables) and the platform administrator's (any operator, a jurisdiction,
everything, maintenance). Every change is recorded in the audit trail with the control, in one
commit; the changing replica reads the controls again at once, the others within their
refresh interval (:class:`~rgs.service.controls.ControlBoard`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from rgs.service.audit import (
    Action,
    AuditEntry,
    AuditPage,
    AuditTrail,
    admin_actor,
    operator_actor,
)
from rgs.service.controls import (
    Authority,
    ControlBoard,
    ControlMode,
    ControlScope,
    ControlStore,
    GameControl,
    control_key,
)
from rgs.service.errors import InvalidRequest, NotFound, PermissionDenied, preview
from rgs.service.jurisdiction import PROFILES
from rgs.service.model import Brand
from rgs.service.ports import Clock
from rgs.service.tables.model import TableConfig
from rgs.variants import VARIANTS

MAX_PAGE = 100
DEFAULT_PAGE = 20
MAX_TEXT = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class ControlCommand:
    """Set or lift a control: ``mode`` None enables (lifts the caller's control there)."""

    scope: ControlScope
    mode: ControlMode | None
    message: str = ""
    ends_at: datetime | None = None
    #: Why (1-200 characters; recorded in the audit trail).
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ControlChange:
    """What a SetGameControl did: the control now in force there (None once lifted) and
    whether anything changed."""

    control: GameControl | None
    changed: bool


class GameControls:
    """The controls' use cases and the audit trail's reading."""

    def __init__(self, *, store: ControlStore, board: ControlBoard, audit: AuditTrail,
                 brands: Mapping[str, Brand], tables: Mapping[str, TableConfig],
                 clock: Clock) -> None:
        self._store = store
        self._board = board
        self._audit = audit
        self._brands = brands
        self._tables = tables
        self._clock = clock

    # ------------------------------------------------------------------ changes

    async def set_by_operator(self, operator_id: str, cmd: ControlCommand) -> ControlChange:
        """An operator's control over its own brands, variants or tables (not maintenance:
        that is the platform administrator's)."""
        if cmd.mode is ControlMode.MAINTENANCE:
            raise PermissionDenied("maintenance is set by the platform's administrator",
                                   reason="MAINTENANCE_NOT_ALLOWED")
        s = cmd.scope
        if s.brand_id:
            brand = self._brands.get(s.brand_id)
            if brand is None or brand.operator_id != operator_id:
                raise NotFound(f"no brand {preview(s.brand_id)}", reason="BRAND_NOT_FOUND")
        if s.table_id:
            mine = {b.id for b in self._brands.values() if b.operator_id == operator_id}
            cfg = self._tables.get(s.table_id)
            if cfg is None or not mine & set(cfg.brands):
                raise NotFound("no such table", reason="TABLE_NOT_FOUND")
        scope = ControlScope(operator_id=operator_id, brand_id=s.brand_id,
                             variant_id=s.variant_id, table_id=s.table_id)
        return await self._change(Authority.OPERATOR, operator_actor(operator_id), operator_id,
                                  ControlCommand(scope=scope, mode=cmd.mode,
                                                 message=cmd.message, ends_at=cmd.ends_at,
                                                 reason=cmd.reason))

    async def set_by_admin(self, label: str, cmd: ControlCommand) -> ControlChange:
        """The administrator's control over any scope (an operator, a jurisdiction's brands,
        everything), maintenance included."""
        s = cmd.scope
        if s.operator_id and not any(b.operator_id == s.operator_id
                                     for b in self._brands.values()):
            raise NotFound(f"no operator {preview(s.operator_id)}", reason="OPERATOR_NOT_FOUND")
        if s.brand_id and s.brand_id not in self._brands:
            raise NotFound(f"no brand {preview(s.brand_id)}", reason="BRAND_NOT_FOUND")
        if s.table_id and s.table_id not in self._tables:
            raise NotFound("no such table", reason="TABLE_NOT_FOUND")
        if s.jurisdiction_id and s.jurisdiction_id not in PROFILES:
            raise InvalidRequest(f"no jurisdiction {preview(s.jurisdiction_id)} (one of "
                                 f"{', '.join(PROFILES)})", reason="UNKNOWN_JURISDICTION",
                                 field="jurisdiction_id")
        owner = s.operator_id or (self._brands[s.brand_id].operator_id if s.brand_id else "")
        return await self._change(Authority.ADMIN, admin_actor(label), owner, cmd)

    async def _change(self, authority: Authority, actor: str, owner: str,
                      cmd: ControlCommand) -> ControlChange:
        self._check(cmd)
        scope = cmd.scope
        facts = {"authority": authority.value, "scope": scope.describe()}
        if cmd.mode is None:
            lifted = await self._store.remove(control_key(authority, scope), AuditEntry(
                actor=actor, action=Action.CONTROL_CLEARED, subject=scope.describe(),
                reason=cmd.reason, operator_id=owner, details={**facts, "mode": "enabled"}))
            await self._board.refresh()
            return ControlChange(control=None, changed=lifted)
        control = GameControl(authority=authority, scope=scope, mode=cmd.mode,
                              message=cmd.message, ends_at=cmd.ends_at, set_by=actor,
                              set_at=self._clock(), reason=cmd.reason)
        ends = cmd.ends_at.isoformat(timespec="seconds") if cmd.ends_at else ""
        await self._store.put(control, AuditEntry(
            actor=actor, action=Action.CONTROL_SET, subject=scope.describe(), reason=cmd.reason,
            operator_id=owner, details={**facts, "mode": cmd.mode.value, "message": cmd.message,
                                        "ends_at": ends}))
        await self._board.refresh()
        return ControlChange(control=control, changed=True)

    def _check(self, cmd: ControlCommand) -> None:
        if not 1 <= len(cmd.reason) <= MAX_TEXT:
            raise InvalidRequest("reason must be 1-200 characters", reason="INVALID_REASON",
                                 field="reason")
        if len(cmd.message) > MAX_TEXT:
            raise InvalidRequest("message must be at most 200 characters",
                                 reason="INVALID_MESSAGE", field="message")
        if cmd.scope.variant_id and cmd.scope.variant_id not in VARIANTS:
            raise InvalidRequest(f"no variant {preview(cmd.scope.variant_id)}",
                                 reason="UNKNOWN_VARIANT", field="variant_id")
        if cmd.ends_at is not None and cmd.ends_at <= self._clock():
            raise InvalidRequest("ends_at must be in the future", reason="INVALID_END_TIME",
                                 field="ends_at")

    # ------------------------------------------------------------------ reading

    def for_operator(self, operator_id: str) -> list[GameControl]:
        """The controls that reach the operator's brands: its own, and the administrator's
        over them (the administrator's key label is not shown)."""
        brands = [b for b in self._brands.values() if b.operator_id == operator_id]
        out = []
        for c in self._board.controls:
            if c.authority is Authority.OPERATOR:
                if c.scope.operator_id == operator_id:
                    out.append(c)
            elif any(_reaches(c.scope, b) for b in brands):
                out.append(_anonymous(c))
        return out

    def every(self) -> list[GameControl]:
        """Every control (the administrator's view)."""
        return list(self._board.controls)

    async def audit_page(self, operator_id: str | None, *, page_size: int,
                         page_token: str) -> AuditPage:
        """Audit rows newest first: the operator's own (None: every row)."""
        if page_size < 0:
            raise InvalidRequest("page_size must not be negative", reason="INVALID_PAGE_SIZE")
        before = 0
        if page_token:
            if not page_token.isdigit() or len(page_token) > 18:
                raise InvalidRequest("page_token is not one this server issued",
                                     reason="INVALID_PAGE_TOKEN")
            before = int(page_token)
        return await self._audit.page(operator_id=operator_id, before=before,
                                      limit=min(page_size or DEFAULT_PAGE, MAX_PAGE))


def _reaches(scope: ControlScope, brand: Brand) -> bool:
    return all(not want or want == have for want, have in (
        (scope.operator_id, brand.operator_id), (scope.brand_id, brand.id),
        (scope.jurisdiction_id, brand.jurisdiction.id)))


def _anonymous(c: GameControl) -> GameControl:
    return replace(c, set_by="admin")
