"""The operator's free-bet RPCs (GrantFreeBets, RevokeFreeBets, ListFreeBetGrants): requests
to grants and usage to messages (docs/freebets.md)."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.service.errors import InvalidRequest
from rgs.service.freebets import FreeBetGrant, FreeBets, GrantUsage

#: The longest revocation reason.
REASON_CHARS = 200


def _ts(when: datetime | None) -> Timestamp | None:
    if when is None:
        return None
    ts = Timestamp()
    ts.FromDatetime(when)
    return ts


def usage_to_proto(u: GrantUsage) -> op.FreeBetGrant:
    """A grant and its usage as the report shows it."""
    g = u.grant
    return op.FreeBetGrant(
        grant_id=g.grant_id, brand_id=g.brand_id, player_id=g.player_id, currency=g.currency,
        value=g.value, count=g.count, variant_ids=list(g.variants), table_ids=list(g.tables),
        expires_at=_ts(g.expires_at), granted_at=_ts(g.granted_at),
        revoked_at=_ts(g.revoked_at), used=u.used, left=u.left, expired=u.expired,
        paid=u.paid, status=u.status.value)


class OperatorFreeBetCalls:
    """The free-bet RPCs for an authenticated operator."""

    def __init__(self, free_bets: FreeBets) -> None:
        self._free_bets = free_bets

    async def grant(self, operator: str, req: op.GrantFreeBetsRequest
                    ) -> op.GrantFreeBetsResponse:
        """Grant free bets (idempotent on grant_id)."""
        if not req.HasField("expires_at"):
            raise InvalidRequest("expires_at is required", reason="INVALID_FREE_BET_GRANT",
                                 field="expires_at")
        grant = await self._free_bets.grant(FreeBetGrant(
            operator_id=operator, grant_id=req.grant_id, brand_id=req.brand_id,
            player_id=req.player_id, currency=req.currency, value=req.value, count=req.count,
            variants=tuple(req.variant_ids), tables=tuple(req.table_ids),
            expires_at=req.expires_at.ToDatetime(tzinfo=UTC)))
        usage = await self._free_bets.usage(operator, grant.grant_id)
        return op.GrantFreeBetsResponse(grant=usage_to_proto(usage))

    async def revoke(self, operator: str, req: op.RevokeFreeBetsRequest
                     ) -> op.RevokeFreeBetsResponse:
        """Revoke an unused grant."""
        if len(req.reason) > REASON_CHARS:
            raise InvalidRequest(f"reason is over {REASON_CHARS} characters",
                                 reason="INVALID_REASON", field="reason")
        usage = await self._free_bets.revoke(operator, req.grant_id, req.reason)
        return op.RevokeFreeBetsResponse(grant=usage_to_proto(usage))

    async def report(self, operator: str, req: op.ListFreeBetGrantsRequest
                     ) -> op.ListFreeBetGrantsResponse:
        """Each grant's usage."""
        rows = await self._free_bets.report(operator, req.brand_id, req.player_id)
        return op.ListFreeBetGrantsResponse(grants=[usage_to_proto(u) for u in rows])
