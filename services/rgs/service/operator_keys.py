"""Operator API keys' rotation and revocation, without a restart.

A key is stored as its SHA-256 only; it is named everywhere else by its *key id*, the first 12
hex characters of that hash (never the key). A key may carry an expiry, so a rotation is: create
the new key, switch the operator's systems to it, revoke the old one (or let it expire); both
work meanwhile. Authentication reads the key's row on every call (no cache), so a revoked or
expired key is refused at once on every replica, and refused exactly as an unknown key is
(``INVALID_API_KEY``): an unauthenticated caller learns nothing about which keys exist.

Every change is recorded in the audit trail: ``key.added`` and ``key.revoked``, by the
administrator's label or ``system`` (the keys file), with the key id, never the key.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from rgs.service.audit import SYSTEM, Action, AuditEntry, AuditTrail
from rgs.service.errors import InvalidRequest, NotFound
from rgs.service.fingerprints import sha256_hex
from rgs.service.ports import Clock

KEY_PREFIX = "rgsop_"
"""Every operator key this server makes starts so (an administrator key starts ``rgsadm_``)."""

KEY_ID_LENGTH = 12
"""How many hex characters of the key's SHA-256 name it."""

_KEY_ID = re.compile(r"^[0-9a-f]{12}$")


def key_id_of(key_hash: str) -> str:
    """The non-secret name of a key: its hash's first 12 hex characters."""
    return key_hash[:KEY_ID_LENGTH]


def new_operator_key() -> str:
    """A fresh operator key (shown once; stored hashed)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorKey:
    """A stored key, as listed (no secret: the key id only)."""

    key_id: str
    operator_id: str
    label: str
    #: ``admin``, ``file``, ``dev`` (or empty for a key stored before sources were kept).
    source: str
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    revoked_by: str = ""
    revoke_reason: str = ""

    def live(self, now: datetime) -> bool:
        """Whether the key authenticates at ``now``."""
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


class OperatorKeyStore(Protocol):
    """The operator keys' rows (``operator_api_keys``)."""

    async def add(self, *, key_hash: str, operator_id: str, label: str, source: str,
                  expires_at: datetime | None) -> bool:
        """Store a key hash; whether it is new (a known hash is left as it is)."""
        ...

    async def keys_of(self, operator_id: str) -> list[OperatorKey]:
        """The operator's keys, oldest first (revoked ones too)."""
        ...

    async def revoke(self, *, operator_id: str, key_id: str, at: datetime, by: str,
                     reason: str) -> OperatorKey | None:
        """Revoke the operator's live key of that id; the key as revoked, or None when the
        operator has no unrevoked key of that id."""
        ...

    async def hashes_from(self, source: str) -> dict[str, str]:
        """The unrevoked keys of a source: key hash -> operator id."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class FileKey:
    """A key a file wants live (stored by its hash): its operator, label and expiry."""

    operator_id: str
    label: str
    expires_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class NewOperatorKey:
    """A key just made: the key itself (shown once) and its listing."""

    key: str
    stored: OperatorKey


def _check_label(label: str) -> None:
    if not 1 <= len(label) <= 100:
        raise InvalidRequest("label must be 1-100 characters", reason="INVALID_LABEL",
                             field="label")


def _check_reason(reason: str) -> None:
    if not 1 <= len(reason) <= 200:
        raise InvalidRequest("reason must be 1-200 characters", reason="INVALID_REASON",
                             field="reason")


class OperatorKeyRotation:
    """Creating, listing and revoking operator keys, each change recorded."""

    def __init__(self, store: OperatorKeyStore, audit: AuditTrail, clock: Clock,
                 operators: Collection[str]) -> None:
        self._store = store
        self._audit = audit
        self._clock = clock
        #: The operators of the platform file's brands (a key for anyone else is refused).
        self._operators = frozenset(operators)

    def _check_operator(self, operator_id: str) -> None:
        if operator_id not in self._operators:
            raise NotFound("no such operator on the platform", reason="OPERATOR_NOT_FOUND")

    async def create(self, actor: str, *, operator_id: str, label: str,
                     expires_at: datetime | None) -> NewOperatorKey:
        """A new key for the operator (live at once, beside its other keys)."""
        self._check_operator(operator_id)
        _check_label(label)
        if expires_at is not None and expires_at <= self._clock():
            raise InvalidRequest("expires_at must be in the future", reason="INVALID_END_TIME",
                                 field="expires_at")
        key = new_operator_key()
        key_hash = sha256_hex(key)
        await self._store.add(key_hash=key_hash, operator_id=operator_id, label=label,
                              source="admin", expires_at=expires_at)
        details = {"operator_id": operator_id, "label": label, "source": "admin"}
        if expires_at is not None:
            details["expires_at"] = expires_at.isoformat()
        await self._audit.record(AuditEntry(
            actor=actor, action=Action.KEY_ADDED, subject=f"operator_key:{key_id_of(key_hash)}",
            operator_id=operator_id, details=details))
        stored = next(k for k in await self._store.keys_of(operator_id)
                      if k.key_id == key_id_of(key_hash))
        return NewOperatorKey(key=key, stored=stored)

    async def keys_of(self, operator_id: str) -> list[OperatorKey]:
        """The operator's keys, revoked and expired ones too, oldest first."""
        self._check_operator(operator_id)
        return await self._store.keys_of(operator_id)

    async def revoke(self, actor: str, *, operator_id: str, key_id: str, reason: str
                     ) -> OperatorKey:
        """Revoke a key: refused from now on, on every replica."""
        self._check_operator(operator_id)
        if not _KEY_ID.match(key_id):
            raise InvalidRequest("key_id is the 12 lower-case hex characters ListOperatorKeys "
                                 "shows", reason="INVALID_KEY_ID", field="key_id")
        _check_reason(reason)
        revoked = await self._store.revoke(operator_id=operator_id, key_id=key_id,
                                           at=self._clock(), by=actor, reason=reason)
        if revoked is None:
            raise NotFound("the operator has no unrevoked key of that id",
                           reason="API_KEY_NOT_FOUND")
        await self._audit.record(AuditEntry(
            actor=actor, action=Action.KEY_REVOKED, subject=f"operator_key:{key_id}",
            operator_id=operator_id, reason=reason,
            details={"operator_id": operator_id, "label": revoked.label}))
        return revoked

    async def sync_file(self, keys: Mapping[str, str]) -> tuple[int, int]:
        """Make the keys file's keys (operator id -> key) live and revoke every key an earlier
        file gave that this one no longer has; (keys added, keys revoked)."""
        return await self.sync_source("file", {
            sha256_hex(key): FileKey(operator_id=operator, label="operator keys file")
            for operator, key in keys.items()}, "no longer in the operator keys file")

    async def sync_platform(self, keys: Mapping[str, FileKey]) -> tuple[int, int]:
        """Make the platform file's keys (key hash -> key) live and revoke every key an
        earlier platform file gave that this one no longer lists; (added, revoked)."""
        return await self.sync_source("platform", keys, "no longer in the platform file")

    async def sync_source(self, source: str, wanted: Mapping[str, FileKey], gone_reason: str
                          ) -> tuple[int, int]:
        """Make ``wanted`` (key hash -> key) the live keys of ``source``: add each one not
        stored, revoke each unrevoked one of the source that is not wanted, each change a row
        of the audit trail (by ``system``). A key stored already is left as it is (one the
        administrator revoked stays revoked). Several replicas may run it at once: each change
        is made, and recorded, by one of them."""
        added = 0
        for key_hash, k in wanted.items():
            if k.operator_id not in self._operators:
                continue  # an operator the brands do not know has no key (nor calls to make)
            if await self._store.add(key_hash=key_hash, operator_id=k.operator_id,
                                     label=k.label, source=source, expires_at=k.expires_at):
                added += 1
                details = {"operator_id": k.operator_id, "label": k.label, "source": source}
                if k.expires_at is not None:
                    details["expires_at"] = k.expires_at.isoformat()
                await self._audit.record(AuditEntry(
                    actor=SYSTEM, action=Action.KEY_ADDED,
                    subject=f"operator_key:{key_id_of(key_hash)}", operator_id=k.operator_id,
                    details=details))
        revoked = 0
        for key_hash, operator in (await self._store.hashes_from(source)).items():
            if key_hash in wanted:
                continue
            gone = await self._store.revoke(operator_id=operator, key_id=key_id_of(key_hash),
                                            at=self._clock(), by=SYSTEM, reason=gone_reason)
            if gone is not None:
                revoked += 1
                await self._audit.record(AuditEntry(
                    actor=SYSTEM, action=Action.KEY_REVOKED,
                    subject=f"operator_key:{key_id_of(key_hash)}", operator_id=operator,
                    reason=gone_reason, details={"operator_id": operator, "label": gone.label,
                                                 "source": source}))
        return added, revoked
