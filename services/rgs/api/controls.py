"""Game controls and the audit trail at the edge: the operator's three RPCs (on
``OperatorService``) and the converters :mod:`rgs.api.admin` uses too."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.service.audit import AuditPage, AuditRecord
from rgs.service.controls import Availability, ControlMode, ControlScope, GameControl
from rgs.service.errors import InvalidRequest
from rgs.service.game_controls import ControlChange, ControlCommand, GameControls

_MODES: dict[int, ControlMode | None] = {
    op.CONTROL_MODE_ENABLED: None,
    op.CONTROL_MODE_DISABLED: ControlMode.DISABLED,
    op.CONTROL_MODE_MAINTENANCE: ControlMode.MAINTENANCE,
}
_MODE_PROTO = {ControlMode.DISABLED: op.CONTROL_MODE_DISABLED,
               ControlMode.MAINTENANCE: op.CONTROL_MODE_MAINTENANCE}


def _ts(when: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(when.astimezone(UTC))
    return ts


def mode_of(value: int) -> ControlMode | None:
    if value not in _MODES:
        raise InvalidRequest("mode must be ENABLED, DISABLED or MAINTENANCE",
                             reason="INVALID_CONTROL_MODE", field="mode")
    return _MODES[value]


def ends_at_of(request: Message) -> datetime | None:
    if not request.HasField("ends_at"):
        return None
    return request.ends_at.ToDatetime(tzinfo=UTC)  # type: ignore[attr-defined,no-any-return]


def availability_to_proto(a: Availability) -> bj.Availability:
    """Whether new rounds are taken, as clients are shown it."""
    out = bj.Availability(state=a.state, message=a.message)
    if a.ends_at is not None:
        out.ends_at.CopyFrom(_ts(a.ends_at))
    return out


def control_to_proto(c: GameControl, now: datetime) -> op.GameControl:
    """One control."""
    s = c.scope
    out = op.GameControl(
        scope=op.ControlScope(operator_id=s.operator_id, brand_id=s.brand_id,
                              variant_id=s.variant_id, table_id=s.table_id,
                              jurisdiction_id=s.jurisdiction_id),
        mode=_MODE_PROTO[c.mode], message=c.message, set_by=c.set_by, set_at=_ts(c.set_at),
        reason=c.reason, authority=c.authority.value, in_force=c.in_force(now))
    if c.ends_at is not None:
        out.ends_at.CopyFrom(_ts(c.ends_at))
    return out


def audit_record_to_proto(r: AuditRecord) -> op.AuditRecord:
    """One row of the audit trail."""
    e = r.entry
    return op.AuditRecord(seq=r.seq, at=_ts(r.at), actor=e.actor, action=e.action,
                          subject=e.subject, reason=e.reason, details=dict(e.details),
                          operator_id=e.operator_id, hash=r.hash, prev_hash=r.prev_hash)


def audit_page_to_proto(page: AuditPage) -> op.ListAuditRecordsResponse:
    """One page of the audit trail."""
    return op.ListAuditRecordsResponse(
        records=[audit_record_to_proto(r) for r in page.records],
        next_page_token=str(page.next_before) if page.next_before else "")


class OperatorControlCalls:
    """The operator's SetGameControl, ListGameControls and ListAuditRecords (the operator
    authenticated by the caller, :class:`~rgs.api.calls.OperatorCalls`)."""

    def __init__(self, controls: GameControls) -> None:
        self._controls = controls

    async def set(self, operator: str, request: op.SetGameControlRequest
                  ) -> op.SetGameControlResponse:
        """Disable or enable within the operator's own scope."""
        cmd = ControlCommand(
            scope=ControlScope(brand_id=request.brand_id, variant_id=request.variant_id,
                               table_id=request.table_id),
            mode=mode_of(request.mode), message=request.message, ends_at=ends_at_of(request),
            reason=request.reason)
        change = await self._controls.set_by_operator(operator, cmd)
        return op.SetGameControlResponse(control=changed_control(change),
                                         changed=change.changed)

    def list(self, operator: str) -> op.ListGameControlsResponse:
        """The controls reaching the operator's brands."""
        now = datetime.now(UTC)
        return op.ListGameControlsResponse(controls=[
            control_to_proto(c, now) for c in self._controls.for_operator(operator)])

    async def audit(self, operator: str, request: op.ListAuditRecordsRequest
                    ) -> op.ListAuditRecordsResponse:
        """The operator's own audit rows."""
        return audit_page_to_proto(await self._controls.audit_page(
            operator, page_size=request.page_size, page_token=request.page_token))


def changed_control(change: ControlChange) -> op.GameControl | None:
    """The control a SetGameControl left in force (None once lifted)."""
    if change.control is None:
        return None
    return control_to_proto(change.control, datetime.now(UTC))
