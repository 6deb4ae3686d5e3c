"""The operator keys' store in memory (tests and the database-less builds): its rows beside the
in-memory journal's ``hash -> operator`` map, which authentication reads; a revoked key leaves
that map. (An expiry is listed here but only the PostgreSQL journal refuses an expired key.)"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from rgs.service.operator_keys import OperatorKey, key_id_of
from rgs.service.ports import Clock


class MemoryOperatorKeys:
    """Operator key rows in memory."""

    def __init__(self, clock: Clock, live: dict[str, str] | None = None) -> None:
        self._clock = clock
        #: The journal's map authentication reads (hash -> operator id).
        self._live = {} if live is None else live
        self.rows: dict[str, OperatorKey] = {}

    async def add(self, *, key_hash: str, operator_id: str, label: str, source: str,
                  expires_at: datetime | None) -> bool:
        """Store a key hash; whether it is new."""
        if key_hash in self.rows:
            return False
        self.rows[key_hash] = OperatorKey(
            key_id=key_id_of(key_hash), operator_id=operator_id, label=label, source=source,
            created_at=self._clock(), expires_at=expires_at)
        self._live[key_hash] = operator_id
        return True

    async def keys_of(self, operator_id: str) -> list[OperatorKey]:
        """The operator's keys, oldest first."""
        return sorted((k for k in self.rows.values() if k.operator_id == operator_id),
                      key=lambda k: k.created_at)

    async def revoke(self, *, operator_id: str, key_id: str, at: datetime, by: str,
                     reason: str) -> OperatorKey | None:
        """Revoke the operator's unrevoked key of that id."""
        for key_hash, k in self.rows.items():
            if k.operator_id == operator_id and k.key_id == key_id and k.revoked_at is None:
                self.rows[key_hash] = gone = replace(k, revoked_at=at, revoked_by=by,
                                                     revoke_reason=reason)
                self._live.pop(key_hash, None)
                return gone
        return None

    async def hashes_from(self, source: str) -> dict[str, str]:
        """The unrevoked keys of a source: hash -> operator id."""
        return {h: k.operator_id for h, k in self.rows.items()
                if k.source == source and k.revoked_at is None}
