"""Launch codes and demo balances on PostgreSQL (migration 0170): the
:class:`~rgs.service.launch.LaunchStore` and :class:`~rgs.service.demo.DemoStore` of every
replica, so a code made by one replica is redeemed by any other, once."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from rgs.journal.translate import translated
from rgs.service.launch import Launch, Redeemed
from rgs.wallet.port import MoneyKind, WalletRefused

Q_SAVE = """
INSERT INTO launch_codes (code_hash, operator_id, brand_id, launch, expires_at)
VALUES ($1, $2, $3, $4::jsonb, $5)"""
# One statement: of two concurrent redeems the second waits for the first's row lock, then
# finds redeemed_at set and updates nothing.
Q_REDEEM = """
UPDATE launch_codes SET redeemed_at = $2
WHERE code_hash = $1 AND redeemed_at IS NULL AND expires_at > $2
RETURNING launch::text"""
Q_PEEK = """
SELECT launch::text, redeemed_at IS NOT NULL AS used, expires_at <= $2 AS expired
FROM launch_codes WHERE code_hash = $1"""
Q_WHY = "SELECT redeemed_at IS NOT NULL AS used FROM launch_codes WHERE code_hash = $1"
Q_START = """
INSERT INTO demo_balances (player_key, currency, balance) VALUES ($1, $2, $3)
ON CONFLICT (player_key, currency) DO NOTHING"""
Q_BALANCE = "SELECT balance FROM demo_balances WHERE player_key = $1 AND currency = $2"
Q_LOCK = Q_BALANCE + " FOR UPDATE"
Q_DONE = "SELECT balance_after FROM demo_moves WHERE player_key = $1 AND transaction_id = $2"
Q_DEBIT = """
SELECT amount FROM demo_moves WHERE player_key = $1 AND transaction_id = $2 AND kind = 'debit'"""
Q_SET = "UPDATE demo_balances SET balance = $3 WHERE player_key = $1 AND currency = $2"
Q_MOVE = """
INSERT INTO demo_moves (player_key, transaction_id, kind, amount, balance_after)
VALUES ($1, $2, $3, $4, $5)"""
Q_TOP_UP = """
UPDATE demo_balances SET balance = greatest(balance, $3)
WHERE player_key = $1 AND currency = $2 RETURNING balance"""


class PostgresLaunches:
    """Launch codes and demo balances in the journal's database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @translated
    async def save(self, code_hash: str, launch: Launch, expires_at: datetime) -> None:
        await self._pool.execute(Q_SAVE, code_hash, launch.operator_id, launch.brand_id,
                                 launch.to_json(), expires_at)

    @translated
    async def peek(self, code_hash: str, now: datetime) -> Redeemed:
        row = await self._pool.fetchrow(Q_PEEK, code_hash, now)
        if row is None:
            return Redeemed(None, "unknown")
        if row["used"] or row["expired"]:
            return Redeemed(None, "used" if row["used"] else "expired")
        return Redeemed(Launch.from_json(row["launch"]))

    @translated
    async def redeem(self, code_hash: str, now: datetime) -> Redeemed:
        text = await self._pool.fetchval(Q_REDEEM, code_hash, now)
        if text is not None:
            return Redeemed(Launch.from_json(text))
        used = await self._pool.fetchval(Q_WHY, code_hash)
        return Redeemed(None, "unknown" if used is None else "used" if used else "expired")

    @translated
    async def balance(self, key: str, currency: str, start: int) -> int:
        async with self._pool.acquire() as conn:
            await conn.execute(Q_START, key, currency, start)
            return int(await conn.fetchval(Q_BALANCE, key, currency))

    @translated
    async def move(self, key: str, *, currency: str, start: int, transaction_id: str,
                   kind: str, delta: int, debit_id: str = "") -> int:
        async with self._pool.acquire() as conn, conn.transaction():
            done = await conn.fetchval(Q_DONE, key, transaction_id)
            if done is not None:
                return int(done)
            await conn.execute(Q_START, key, currency, start)
            now = int(await conn.fetchval(Q_LOCK, key, currency))
            if kind == MoneyKind.ROLLBACK.value:
                delta = int(await conn.fetchval(Q_DEBIT, key, debit_id) or 0)
            if now + delta < 0:
                raise WalletRefused("not enough demo money: top up",
                                    reason="INSUFFICIENT_FUNDS", balance=now)
            await conn.execute(Q_SET, key, currency, now + delta)
            await conn.execute(Q_MOVE, key, transaction_id, kind, abs(delta), now + delta)
            return now + delta

    @translated
    async def top_up(self, key: str, currency: str, start: int) -> int:
        async with self._pool.acquire() as conn:
            await conn.execute(Q_START, key, currency, start)
            return int(await conn.fetchval(Q_TOP_UP, key, currency, start))
