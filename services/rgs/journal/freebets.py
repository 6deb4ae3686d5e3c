"""The free bets' store (:class:`~rgs.service.freebets.FreeBetStore`) in memory and on
PostgreSQL (tables ``free_bet_grants`` and ``free_bet_uses``, migration 0140)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import asyncpg

from rgs.journal.translate import translated
from rgs.service.freebets import FreeBetGrant, FreeBetUse

_GRANT_COLUMNS = """operator_id, grant_id, brand_id, player_id, currency, value, count,
       variants, tables, expires_at, granted_at, revoked_at"""
Q_PUT = f"""
INSERT INTO free_bet_grants ({_GRANT_COLUMNS})
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL)
ON CONFLICT (operator_id, grant_id) DO NOTHING"""
Q_GRANT = f"SELECT {_GRANT_COLUMNS} FROM free_bet_grants WHERE operator_id = $1 AND grant_id = $2"
Q_GRANTS = f"""
SELECT {_GRANT_COLUMNS} FROM free_bet_grants
WHERE operator_id = $1 AND ($2 = '' OR brand_id = $2) AND ($3 = '' OR player_id = $3)
ORDER BY granted_at, grant_id"""
Q_REVOKE = """
UPDATE free_bet_grants SET revoked_at = $3
WHERE operator_id = $1 AND grant_id = $2 AND revoked_at IS NULL"""
# A solo use counts once its round is committed (the join); one whose round never was does not.
# A table use counts from its record (deleted when the table does not take the bet).
_USE_COLUMNS = "u.operator_id, u.grant_id, u.round_id, u.player_key, u.seat, u.value, " \
               "u.used_at, u.paid"
_ALL_USES = f"""
SELECT {_USE_COLUMNS}, '' AS table_id FROM free_bet_uses u
JOIN rounds r ON r.player_key = u.player_key AND r.round_id = u.round_id
UNION ALL
SELECT {_USE_COLUMNS}, u.table_id FROM free_bet_table_uses u"""
Q_USES = f"""
SELECT * FROM ({_ALL_USES}) a WHERE a.operator_id = $1 AND a.grant_id = $2 ORDER BY a.used_at"""
Q_USAGES = f"""
SELECT {_GRANT_COLUMNS}, coalesce(n.used, 0) AS used, coalesce(n.paid, 0) AS paid
FROM free_bet_grants g
LEFT JOIN LATERAL (
    SELECT count(*) AS used, sum(coalesce(a.paid, 0)) AS paid FROM (
        SELECT u.paid FROM free_bet_uses u
        JOIN rounds r ON r.player_key = u.player_key AND r.round_id = u.round_id
        WHERE u.operator_id = g.operator_id AND u.grant_id = g.grant_id
        UNION ALL
        SELECT u.paid FROM free_bet_table_uses u
        WHERE u.operator_id = g.operator_id AND u.grant_id = g.grant_id) a
) n ON true
WHERE g.operator_id = $1 AND ($2 = '' OR g.brand_id = $2) AND ($3 = '' OR g.player_id = $3)
ORDER BY g.granted_at, g.grant_id"""
Q_USE_OF_ROUND = f"SELECT {_USE_COLUMNS} FROM free_bet_uses u WHERE u.round_id = $1"
Q_TABLE_USE = f"""SELECT {_USE_COLUMNS}, u.table_id FROM free_bet_table_uses u
WHERE u.round_id = $1 AND u.player_key = $2"""
Q_RECORD_USE = """
INSERT INTO free_bet_uses (round_id, player_key, operator_id, grant_id, seat, value, used_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (round_id) DO NOTHING"""
Q_RECORD_TABLE_USE = """
INSERT INTO free_bet_table_uses (round_id, player_key, operator_id, grant_id, seat, value,
                                 used_at, table_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (round_id, player_key) DO NOTHING"""
Q_RELEASE = "DELETE FROM free_bet_uses WHERE round_id = $1"
Q_RELEASE_TABLE = "DELETE FROM free_bet_table_uses WHERE round_id = $1 AND player_key = $2"
Q_PAID = "UPDATE free_bet_uses SET paid = $2 WHERE round_id = $1"
Q_PAID_TABLE = "UPDATE free_bet_table_uses SET paid = $2 WHERE round_id = $1 AND player_key = $3"


def _grant(r: asyncpg.Record) -> FreeBetGrant:
    return FreeBetGrant(operator_id=r["operator_id"], grant_id=r["grant_id"],
                        brand_id=r["brand_id"], player_id=r["player_id"],
                        currency=r["currency"], value=r["value"], count=r["count"],
                        variants=tuple(r["variants"]), tables=tuple(r["tables"]),
                        expires_at=r["expires_at"], granted_at=r["granted_at"],
                        revoked_at=r["revoked_at"])


def use_of_row(r: asyncpg.Record) -> FreeBetUse:
    """A free bet's use from its row (``free_bet_uses`` or ``free_bet_table_uses``)."""
    return FreeBetUse(operator_id=r["operator_id"], grant_id=r["grant_id"],
                      round_id=r["round_id"], player_key=r["player_key"], seat=r["seat"],
                      value=r["value"], used_at=r["used_at"], paid=r["paid"],
                      table_id=r.get("table_id") or "")


class PostgresFreeBets:
    """Grants and uses in the journal's database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @translated
    async def put_grant(self, grant: FreeBetGrant) -> tuple[FreeBetGrant, bool]:
        g = grant
        done = await self._pool.execute(Q_PUT, g.operator_id, g.grant_id, g.brand_id,
                                        g.player_id, g.currency, g.value, g.count,
                                        list(g.variants), list(g.tables), g.expires_at,
                                        g.granted_at)
        stored = await self.get_grant(g.operator_id, g.grant_id)
        assert stored is not None
        return stored, not done.endswith(" 0")

    @translated
    async def get_grant(self, operator_id: str, grant_id: str) -> FreeBetGrant | None:
        r = await self._pool.fetchrow(Q_GRANT, operator_id, grant_id)
        return None if r is None else _grant(r)

    @translated
    async def revoke(self, operator_id: str, grant_id: str, at: datetime) -> bool:
        done = await self._pool.execute(Q_REVOKE, operator_id, grant_id, at)
        return not done.endswith(" 0")

    @translated
    async def grants(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[FreeBetGrant]:
        return [_grant(r) for r in await self._pool.fetch(Q_GRANTS, operator_id, brand_id,
                                                           player_id)]

    @translated
    async def uses(self, operator_id: str, grant_id: str) -> list[FreeBetUse]:
        return [use_of_row(r) for r in await self._pool.fetch(Q_USES, operator_id, grant_id)]

    @translated
    async def usages(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[tuple[FreeBetGrant, int, int]]:
        rows = await self._pool.fetch(Q_USAGES, operator_id, brand_id, player_id)
        return [(_grant(r), int(r["used"]), int(r["paid"])) for r in rows]

    @translated
    async def record_use(self, use: FreeBetUse) -> None:
        args = (use.round_id, use.player_key, use.operator_id, use.grant_id, use.seat,
                use.value, use.used_at)
        if use.table_id:
            await self._pool.execute(Q_RECORD_TABLE_USE, *args, use.table_id)
        else:
            await self._pool.execute(Q_RECORD_USE, *args)

    @translated
    async def release(self, round_id: str, player_key: str = "") -> None:
        if player_key:
            await self._pool.execute(Q_RELEASE_TABLE, round_id, player_key)
        else:
            await self._pool.execute(Q_RELEASE, round_id)

    @translated
    async def use_of_round(self, round_id: str) -> FreeBetUse | None:
        r = await self._pool.fetchrow(Q_USE_OF_ROUND, round_id)
        return None if r is None else use_of_row(r)

    @translated
    async def table_use(self, round_id: str, player_key: str) -> FreeBetUse | None:
        r = await self._pool.fetchrow(Q_TABLE_USE, round_id, player_key)
        return None if r is None else use_of_row(r)

    @translated
    async def record_paid(self, round_id: str, paid: int, player_key: str = "") -> None:
        if player_key:
            await self._pool.execute(Q_PAID_TABLE, round_id, paid, player_key)
        else:
            await self._pool.execute(Q_PAID, round_id, paid)


class MemoryFreeBets:
    """Grants and uses in dicts (tests, the in-memory journal). A use counts from its record
    until released (a Deal that fails after recording it releases it, and so does a table
    that does not take the bet)."""

    def __init__(self) -> None:
        self.grants_by_id: dict[tuple[str, str], FreeBetGrant] = {}
        self.uses_by_round: dict[str, FreeBetUse] = {}
        #: The uses at shared tables, by round and player.
        self.table_uses: dict[tuple[str, str], FreeBetUse] = {}

    async def put_grant(self, grant: FreeBetGrant) -> tuple[FreeBetGrant, bool]:
        key = (grant.operator_id, grant.grant_id)
        if key in self.grants_by_id:
            return self.grants_by_id[key], False
        self.grants_by_id[key] = grant
        return grant, True

    async def get_grant(self, operator_id: str, grant_id: str) -> FreeBetGrant | None:
        return self.grants_by_id.get((operator_id, grant_id))

    async def revoke(self, operator_id: str, grant_id: str, at: datetime) -> bool:
        g = self.grants_by_id.get((operator_id, grant_id))
        if g is None or g.revoked_at is not None:
            return False
        self.grants_by_id[(operator_id, grant_id)] = replace(g, revoked_at=at)
        return True

    async def grants(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[FreeBetGrant]:
        return [g for g in self.grants_by_id.values() if g.operator_id == operator_id
                and brand_id in ("", g.brand_id) and player_id in ("", g.player_id)]

    async def uses(self, operator_id: str, grant_id: str) -> list[FreeBetUse]:
        return [u for u in (*self.uses_by_round.values(), *self.table_uses.values())
                if (u.operator_id, u.grant_id) == (operator_id, grant_id)]

    async def usages(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[tuple[FreeBetGrant, int, int]]:
        out = []
        for g in await self.grants(operator_id, brand_id, player_id):
            uses = await self.uses(g.operator_id, g.grant_id)
            out.append((g, len(uses), sum(u.paid or 0 for u in uses)))
        return out

    async def record_use(self, use: FreeBetUse) -> None:
        if use.table_id:
            self.table_uses.setdefault((use.round_id, use.player_key), use)
        else:
            self.uses_by_round.setdefault(use.round_id, use)

    async def release(self, round_id: str, player_key: str = "") -> None:
        if player_key:
            self.table_uses.pop((round_id, player_key), None)
        else:
            self.uses_by_round.pop(round_id, None)

    async def use_of_round(self, round_id: str) -> FreeBetUse | None:
        return self.uses_by_round.get(round_id)

    async def table_use(self, round_id: str, player_key: str) -> FreeBetUse | None:
        return self.table_uses.get((round_id, player_key))

    async def record_paid(self, round_id: str, paid: int, player_key: str = "") -> None:
        if player_key:
            tuse = self.table_uses.get((round_id, player_key))
            if tuse is not None:
                self.table_uses[(round_id, player_key)] = replace(tuse, paid=paid)
            return
        use = self.uses_by_round.get(round_id)
        if use is not None:
            self.uses_by_round[round_id] = replace(use, paid=paid)
