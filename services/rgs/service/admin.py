"""The platform administrator's credential: API keys of its own (hashed in the journal), apart
from the operators'. An operator's key is unknown here and an administrator's key is unknown to
:meth:`~rgs.service.backoffice.BackOffice.authenticate`, so neither passes for the other.

``AdminService`` calls authenticate here first; further checks of the caller (a second factor,
a challenge) belong beside :meth:`AdminAccess.authenticate`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Protocol

from rgs.service.audit import SYSTEM, Action, AuditEntry, AuditTrail
from rgs.service.errors import Unauthenticated
from rgs.service.fingerprints import sha256_hex
from rgs.service.identifiers import is_api_key

KEY_PREFIX = "rgsadm_"
"""Every administrator key this server makes starts so (an operator key never does)."""


class AdminKeys(Protocol):
    """The administrator keys' store."""

    async def admin_for_key(self, key_hash: str) -> str | None:
        """The label of an administrator key hash (None: unknown)."""
        ...

    async def add_admin_key(self, key_hash: str, label: str) -> bool:
        """Store a key hash; whether it is new."""
        ...


@dataclass(frozen=True, slots=True)
class Administrator:
    """An authenticated administrator call: the key's label names who it was."""

    label: str


def new_admin_key() -> str:
    """A fresh administrator key (shown once; stored hashed)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


class AdminAccess:
    """Authenticating administrator calls and adding keys (each recorded)."""

    def __init__(self, keys: AdminKeys, audit: AuditTrail) -> None:
        self._keys = keys
        self._audit = audit

    async def authenticate(self, key: str) -> Administrator:
        """The administrator a key belongs to; Unauthenticated otherwise."""
        if not key.startswith(KEY_PREFIX) or not is_api_key(key):
            raise Unauthenticated("not an administrator key", reason="INVALID_ADMIN_KEY")
        label = await self._keys.admin_for_key(sha256_hex(key))
        if label is None:
            raise Unauthenticated("unknown administrator key", reason="INVALID_ADMIN_KEY")
        return Administrator(label=label)

    async def add_key(self, key: str, label: str, *, actor: str = SYSTEM) -> bool:
        """Store an administrator key (hashed); the audit trail records a new one."""
        if not key.startswith(KEY_PREFIX) or not is_api_key(key) or len(key) < 24:
            raise ValueError(f"an administrator key starts with {KEY_PREFIX} and has 24+ "
                             "printable characters")
        added = await self._keys.add_admin_key(sha256_hex(key), label)
        if added:
            await self._audit.record(AuditEntry(
                actor=actor, action=Action.ADMIN_KEY_ADDED, subject=f"admin_key:{label}",
                details={"key_sha256_prefix": sha256_hex(key)[:12]}))
        return added
