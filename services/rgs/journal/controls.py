"""The game controls' store (:class:`~rgs.service.controls.ControlStore`) and the administrator
keys (:class:`~rgs.service.admin.AdminKeys`) on PostgreSQL: tables ``game_controls`` and
``admin_api_keys``. A control's change and its audit row commit in one transaction."""

from __future__ import annotations

import asyncpg

from rgs.journal.audit import append
from rgs.journal.translate import translated
from rgs.service.audit import AuditEntry
from rgs.service.controls import Authority, ControlMode, ControlScope, GameControl
from rgs.service.ports import Clock

Q_CONTROLS = """
SELECT authority, operator_id, brand_id, variant_id, table_id, jurisdiction_id, mode, message,
       ends_at, set_by, set_at, reason
FROM game_controls ORDER BY set_at, control_key"""
Q_PUT = """
INSERT INTO game_controls (control_key, authority, operator_id, brand_id, variant_id, table_id,
                           jurisdiction_id, mode, message, ends_at, set_by, set_at, reason)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (control_key) DO UPDATE SET mode = EXCLUDED.mode, message = EXCLUDED.message,
    ends_at = EXCLUDED.ends_at, set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at,
    reason = EXCLUDED.reason"""
Q_REMOVE = "DELETE FROM game_controls WHERE control_key = $1"
Q_ADMIN_FOR_KEY = "SELECT label FROM admin_api_keys WHERE key_hash = $1"
Q_ADD_ADMIN_KEY = """
INSERT INTO admin_api_keys (key_hash, label) VALUES ($1, $2) ON CONFLICT (key_hash) DO NOTHING"""


def _control(r: asyncpg.Record) -> GameControl:
    return GameControl(
        authority=Authority(r["authority"]), mode=ControlMode(r["mode"]),
        scope=ControlScope(operator_id=r["operator_id"], brand_id=r["brand_id"],
                           variant_id=r["variant_id"], table_id=r["table_id"],
                           jurisdiction_id=r["jurisdiction_id"]),
        message=r["message"], ends_at=r["ends_at"], set_by=r["set_by"], set_at=r["set_at"],
        reason=r["reason"])


class PostgresControls:
    """Controls and administrator keys in the journal's database."""

    def __init__(self, pool: asyncpg.Pool, clock: Clock) -> None:
        self._pool = pool
        self._clock = clock

    @translated
    async def controls(self) -> list[GameControl]:
        """Every stored control."""
        return [_control(r) for r in await self._pool.fetch(Q_CONTROLS)]

    @translated
    async def put(self, control: GameControl, audit: AuditEntry) -> None:
        """Set a control and record it, in one commit."""
        s = control.scope
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(Q_PUT, control.key, control.authority.value, s.operator_id,
                               s.brand_id, s.variant_id, s.table_id, s.jurisdiction_id,
                               control.mode.value, control.message, control.ends_at,
                               control.set_by, control.set_at, control.reason)
            await append(conn, audit, self._clock)

    @translated
    async def remove(self, key: str, audit: AuditEntry) -> bool:
        """Lift a control and record it, in one commit (nothing when there was none)."""
        async with self._pool.acquire() as conn, conn.transaction():
            done = await conn.execute(Q_REMOVE, key)
            if done.endswith(" 0"):
                return False
            await append(conn, audit, self._clock)
            return True

    @translated
    async def admin_for_key(self, key_hash: str) -> str | None:
        """The label of an administrator key hash."""
        v = await self._pool.fetchval(Q_ADMIN_FOR_KEY, key_hash)
        return None if v is None else str(v)

    @translated
    async def add_admin_key(self, key_hash: str, label: str) -> bool:
        """Store an administrator key hash; whether it is new."""
        done = await self._pool.execute(Q_ADD_ADMIN_KEY, key_hash, label)
        return not done.endswith(" 0")
