"""``rgs.admin.v1.AdminService``: the platform administrator's calls, each authenticated with an
administrator key (:mod:`rgs.service.admin`) before anything else. Native gRPC only, like the
operator's API; it also answers a test lab's seeded software-authentication challenge."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from google.protobuf.message import Message

from rgs.api.auth import bearer_secret
from rgs.api.calls import Caller
from rgs.api.controls import (
    audit_page_to_proto,
    changed_control,
    control_to_proto,
    ends_at_of,
    mode_of,
)
from rgs.api.fields import check_strings
from rgs.api.operator_keys import OperatorKeyCalls
from rgs.api.servicers import Context, serve_unary
from rgs.authenticity.manifest import parse_seed
from rgs.authenticity.selfcheck import SelfCheck
from rgs.generated.admin.v1 import admin_pb2 as adm
from rgs.generated.admin.v1 import admin_pb2_grpc as adm_grpc
from rgs.service.admin import AdminAccess, Administrator
from rgs.service.controls import ControlScope
from rgs.service.errors import InvalidRequest
from rgs.service.game_controls import ControlCommand, GameControls
from rgs.service.operator_keys import OperatorKeyRotation


class AdminCalls:
    """``rgs.admin.v1.AdminService``: one method per RPC, each authenticated with an
    administrator key first."""

    def __init__(self, access: AdminAccess, controls: GameControls,
                 authentication: SelfCheck | None = None,
                 operator_keys: OperatorKeyRotation | None = None) -> None:
        self._access = access
        self._controls = controls
        self._authentication = authentication
        self._operator_keys = OperatorKeyCalls(operator_keys)

    async def _admin(self, caller: Caller, request: Message) -> Administrator:
        check_strings(request)
        return await self._access.authenticate(
            bearer_secret(caller.authorization))

    async def SetGameControl(self, caller: Caller, request: adm.SetGameControlRequest
                             ) -> adm.SetGameControlResponse:
        """Disable, enable or put under maintenance any scope."""
        admin = await self._admin(caller, request)
        s = request.scope
        cmd = ControlCommand(
            scope=ControlScope(operator_id=s.operator_id, brand_id=s.brand_id,
                               variant_id=s.variant_id, table_id=s.table_id,
                               jurisdiction_id=s.jurisdiction_id),
            mode=mode_of(request.mode), message=request.message, ends_at=ends_at_of(request),
            reason=request.reason)
        change = await self._controls.set_by_admin(admin.label, cmd)
        return adm.SetGameControlResponse(control=changed_control(change),
                                          changed=change.changed)

    async def ListGameControls(self, caller: Caller, request: adm.ListGameControlsRequest
                               ) -> adm.ListGameControlsResponse:
        """Every control."""
        await self._admin(caller, request)
        now = datetime.now(UTC)
        return adm.ListGameControlsResponse(controls=[
            control_to_proto(c, now) for c in self._controls.every()])

    async def ListAuditRecords(self, caller: Caller, request: adm.ListAuditRecordsRequest
                               ) -> adm.ListAuditRecordsResponse:
        """Every audit row, newest first."""
        await self._admin(caller, request)
        page = audit_page_to_proto(await self._controls.audit_page(
            None, page_size=request.page_size, page_token=request.page_token))
        return adm.ListAuditRecordsResponse(records=page.records,
                                            next_page_token=page.next_page_token)

    async def CreateOperatorKey(self, caller: Caller, request: adm.CreateOperatorKeyRequest
                                ) -> adm.CreateOperatorKeyResponse:
        """A new operator key (shown once), live beside the operator's others."""
        admin = await self._admin(caller, request)
        return await self._operator_keys.create(admin.label, request)

    async def ListOperatorKeys(self, caller: Caller, request: adm.ListOperatorKeysRequest
                               ) -> adm.ListOperatorKeysResponse:
        """An operator's keys, by key id."""
        await self._admin(caller, request)
        return await self._operator_keys.list(request)

    async def RevokeOperatorKey(self, caller: Caller, request: adm.RevokeOperatorKeyRequest
                                ) -> adm.RevokeOperatorKeyResponse:
        """Revoke an operator key, on every replica from the next call."""
        admin = await self._admin(caller, request)
        return await self._operator_keys.revoke(admin.label, request)

    async def AuthenticateSoftware(self, caller: Caller,
                                   request: adm.AuthenticateSoftwareRequest
                                   ) -> adm.AuthenticateSoftwareResponse:
        """A lab's seeded challenge, answered from the files as installed now, with the latest
        self-check."""
        await self._admin(caller, request)
        try:
            seed = parse_seed(request.seed_hex)
        except ValueError as exc:
            raise InvalidRequest(f"seed_hex: {exc}", reason="INVALID_SEED",
                                 field="seed_hex") from exc
        check = self._authentication or SelfCheck()
        digest = await asyncio.to_thread(check.challenge, seed)
        out = adm.AuthenticateSoftwareResponse(seeded_digest=digest)
        last = check.last
        if last is not None:
            out.authentic = last.authentic
            out.verdict = last.verdict.value
            out.checked_at.FromDatetime(last.checked_at)
            out.summary = last.summary()
        return out


class AdminServicer(adm_grpc.AdminServiceServicer):
    """``rgs.admin.v1.AdminService``: each RPC runs the same-named call of
    :class:`AdminCalls`."""

    def __init__(self, access: AdminAccess, controls: GameControls,
                 authentication: SelfCheck | None = None,
                 operator_keys: OperatorKeyRotation | None = None) -> None:
        self.calls = AdminCalls(access, controls, authentication, operator_keys)

    async def SetGameControl(self, request: adm.SetGameControlRequest, context: Context
                             ) -> adm.SetGameControlResponse:
        return await serve_unary(context, request, self.calls.SetGameControl)

    async def ListGameControls(self, request: adm.ListGameControlsRequest, context: Context
                               ) -> adm.ListGameControlsResponse:
        return await serve_unary(context, request, self.calls.ListGameControls)

    async def ListAuditRecords(self, request: adm.ListAuditRecordsRequest, context: Context
                               ) -> adm.ListAuditRecordsResponse:
        return await serve_unary(context, request, self.calls.ListAuditRecords)

    async def AuthenticateSoftware(self, request: adm.AuthenticateSoftwareRequest,
                                   context: Context) -> adm.AuthenticateSoftwareResponse:
        return await serve_unary(context, request, self.calls.AuthenticateSoftware)

    async def CreateOperatorKey(self, request: adm.CreateOperatorKeyRequest, context: Context
                                ) -> adm.CreateOperatorKeyResponse:
        return await serve_unary(context, request, self.calls.CreateOperatorKey)

    async def ListOperatorKeys(self, request: adm.ListOperatorKeysRequest, context: Context
                               ) -> adm.ListOperatorKeysResponse:
        return await serve_unary(context, request, self.calls.ListOperatorKeys)

    async def RevokeOperatorKey(self, request: adm.RevokeOperatorKeyRequest, context: Context
                                ) -> adm.RevokeOperatorKeyResponse:
        return await serve_unary(context, request, self.calls.RevokeOperatorKey)
