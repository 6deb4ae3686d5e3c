"""The operator keys' store (:class:`~rgs.service.operator_keys.OperatorKeyStore`) on
PostgreSQL: table ``operator_api_keys`` (hashes only)."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from rgs.journal.translate import translated
from rgs.service.operator_keys import KEY_ID_LENGTH, OperatorKey, key_id_of

_COLUMNS = """key_hash, operator_id, label, source, created_at, expires_at, revoked_at,
       revoked_by, revoke_reason"""
Q_ADD = """
INSERT INTO operator_api_keys (key_hash, operator_id, label, source, expires_at)
VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key_hash) DO NOTHING"""
Q_KEYS_OF = f"""
SELECT {_COLUMNS} FROM operator_api_keys WHERE operator_id = $1 ORDER BY created_at, key_hash"""
Q_REVOKE = f"""
UPDATE operator_api_keys SET revoked_at = $3, revoked_by = $4, revoke_reason = $5
WHERE operator_id = $1 AND left(key_hash, {KEY_ID_LENGTH}) = $2 AND revoked_at IS NULL
RETURNING {_COLUMNS}"""
Q_FROM_SOURCE = """
SELECT key_hash, operator_id FROM operator_api_keys WHERE source = $1 AND revoked_at IS NULL"""


def _key(r: asyncpg.Record) -> OperatorKey:
    return OperatorKey(
        key_id=key_id_of(r["key_hash"]), operator_id=r["operator_id"], label=r["label"],
        source=r["source"], created_at=r["created_at"], expires_at=r["expires_at"],
        revoked_at=r["revoked_at"], revoked_by=r["revoked_by"],
        revoke_reason=r["revoke_reason"])


class PostgresOperatorKeys:
    """Operator keys in the journal's database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @translated
    async def add(self, *, key_hash: str, operator_id: str, label: str, source: str,
                  expires_at: datetime | None) -> bool:
        """Store a key hash; whether it is new."""
        done = await self._pool.execute(Q_ADD, key_hash, operator_id, label, source, expires_at)
        return not str(done).endswith(" 0")

    @translated
    async def keys_of(self, operator_id: str) -> list[OperatorKey]:
        """The operator's keys, oldest first."""
        return [_key(r) for r in await self._pool.fetch(Q_KEYS_OF, operator_id)]

    @translated
    async def revoke(self, *, operator_id: str, key_id: str, at: datetime, by: str,
                     reason: str) -> OperatorKey | None:
        """Revoke the operator's unrevoked key of that id."""
        r = await self._pool.fetchrow(Q_REVOKE, operator_id, key_id, at, by, reason)
        return None if r is None else _key(r)

    @translated
    async def hashes_from(self, source: str) -> dict[str, str]:
        """The unrevoked keys of a source: hash -> operator id."""
        return {r["key_hash"]: r["operator_id"]
                for r in await self._pool.fetch(Q_FROM_SOURCE, source)}
