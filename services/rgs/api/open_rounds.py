"""The operator's open rounds on the wire (``ListOpenRounds``, ``ResolveRound``)."""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp

from rgs.api.converters import round_record_to_proto
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.service.errors import InvalidRequest
from rgs.service.interrupted import OpenRound, Resolution, ResolveCommand

_RESOLUTIONS = {op.RESOLUTION_COMPLETE: Resolution.COMPLETE, op.RESOLUTION_VOID: Resolution.VOID}


def open_round_to_proto(r: OpenRound) -> op.OpenRound:
    """An open round with its timing."""
    out = op.OpenRound(round=round_record_to_proto(r.summary),
                       idle_seconds=int(r.idle.total_seconds()))
    out.last_step_at.FromDatetime(r.last_step_at)
    if r.completes_at is not None:
        ts = Timestamp()
        ts.FromDatetime(r.completes_at)
        out.completes_at.CopyFrom(ts)
    return out


def resolve_from_proto(req: op.ResolveRoundRequest) -> ResolveCommand:
    """A ResolveCommand; INVALID_RESOLUTION unless COMPLETE or VOID."""
    resolution = _RESOLUTIONS.get(req.resolution)
    if resolution is None:
        raise InvalidRequest("resolution must be RESOLUTION_COMPLETE or RESOLUTION_VOID",
                             reason="INVALID_RESOLUTION", field="resolution")
    return ResolveCommand(request_id=req.request_id, brand_id=req.brand_id,
                          player_id=req.player_id, round_id=req.round_id,
                          resolution=resolution, reason=req.reason)
