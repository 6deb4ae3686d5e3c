"""``AdminService``'s operator-key calls: CreateOperatorKey, ListOperatorKeys,
RevokeOperatorKey (:mod:`rgs.service.operator_keys`)."""

from __future__ import annotations

from datetime import UTC, datetime

from rgs.generated.admin.v1 import admin_pb2 as adm
from rgs.service.audit import admin_actor
from rgs.service.errors import Unavailable
from rgs.service.operator_keys import OperatorKey, OperatorKeyRotation


def operator_key_to_proto(k: OperatorKey, now: datetime) -> adm.OperatorKey:
    """A stored key as listed (no secret)."""
    out = adm.OperatorKey(key_id=k.key_id, operator_id=k.operator_id, label=k.label,
                          source=k.source, revoked_by=k.revoked_by,
                          revoke_reason=k.revoke_reason, live=k.live(now))
    out.created_at.FromDatetime(k.created_at)
    if k.expires_at is not None:
        out.expires_at.FromDatetime(k.expires_at)
    if k.revoked_at is not None:
        out.revoked_at.FromDatetime(k.revoked_at)
    return out


class OperatorKeyCalls:
    """The three calls, for an administrator already authenticated (its label)."""

    def __init__(self, rotation: OperatorKeyRotation | None) -> None:
        self._rotation = rotation

    def _keys(self) -> OperatorKeyRotation:
        if self._rotation is None:
            raise Unavailable("this server does not manage operator keys",
                              reason="OPERATOR_KEYS_UNAVAILABLE")
        return self._rotation

    async def create(self, admin: str, request: adm.CreateOperatorKeyRequest
                     ) -> adm.CreateOperatorKeyResponse:
        """A new key, shown once."""
        expires = (request.expires_at.ToDatetime(tzinfo=UTC)
                   if request.HasField("expires_at") else None)
        made = await self._keys().create(admin_actor(admin), operator_id=request.operator_id,
                                         label=request.label, expires_at=expires)
        return adm.CreateOperatorKeyResponse(
            key=made.key, operator_key=operator_key_to_proto(made.stored, datetime.now(UTC)))

    async def list(self, request: adm.ListOperatorKeysRequest) -> adm.ListOperatorKeysResponse:
        """The operator's keys."""
        now = datetime.now(UTC)
        return adm.ListOperatorKeysResponse(keys=[
            operator_key_to_proto(k, now)
            for k in await self._keys().keys_of(request.operator_id)])

    async def revoke(self, admin: str, request: adm.RevokeOperatorKeyRequest
                     ) -> adm.RevokeOperatorKeyResponse:
        """Revoke a key."""
        gone = await self._keys().revoke(admin_actor(admin), operator_id=request.operator_id,
                                         key_id=request.key_id, reason=request.reason)
        return adm.RevokeOperatorKeyResponse(
            operator_key=operator_key_to_proto(gone, datetime.now(UTC)))
