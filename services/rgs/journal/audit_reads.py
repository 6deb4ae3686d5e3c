"""The whole-journal reads of ``rgs audit journal`` (rgs.cli.audit_journal): listings no call
of the service makes, read-only, on the audit's own pool. The checks of each round are the
service's (rgs.service.journal_audit, rgs.service.tables.audit)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import asyncpg

from rgs.codec import decode_value
from rgs.journal.freebets import use_of_row
from rgs.journal.rows import movements_json
from rgs.journal.statements import MOVEMENT_JSON
from rgs.journal.table_rows import read_round
from rgs.service.freebets import FreeBetUse
from rgs.service.model import Movement
from rgs.service.tables.model import TablePhase, TableState
from rgs.service.tables.ports import RoundRecord
from rgs.wallet.port import MoneyKind

Q_SOLO_ROUNDS = "SELECT player_key, round_id FROM rounds ORDER BY player_key, round_id"
Q_SOLO_FREE = "SELECT round_id FROM free_bet_uses"
# A Deal's debit is written before the wallet call and its round at the step's commit; a
# table's stake is written before its transition and the table round's row at betting close.
Q_OF_NO_ROUND = """
SELECT w.transaction_id, w.round_id, w.kind, w.status FROM wallet_transactions w
WHERE NOT EXISTS (SELECT 1 FROM rounds r WHERE r.player_key = w.player_key
                  AND r.round_id = w.round_id)
  AND NOT EXISTS (SELECT 1 FROM table_rounds t WHERE t.round_id = w.round_id)"""
Q_NO_EVENTS = """
SELECT r.round_id FROM rounds r WHERE NOT EXISTS (
    SELECT 1 FROM round_events e WHERE e.player_key = r.player_key AND e.round_id = r.round_id)"""
Q_MOVEMENTS_TOTAL = "SELECT count(*) FROM wallet_transactions"
Q_TABLE_ROUNDS = "SELECT round_id FROM table_rounds ORDER BY table_id, round_no, round_id"
Q_TABLE_STATES = "SELECT state::text AS state FROM game_tables"
Q_ROUND_MOVEMENTS = f"""
SELECT player_key, {MOVEMENT_JSON} AS movements FROM wallet_transactions
WHERE round_id = $1 GROUP BY player_key ORDER BY player_key"""
Q_TABLE_FREE = """
SELECT u.operator_id, u.grant_id, u.round_id, u.player_key, u.seat, u.value, u.used_at, u.paid,
       u.table_id
FROM free_bet_table_uses u"""


@dataclass(frozen=True, slots=True, kw_only=True)
class OfNoRound:
    """A movement whose round is in neither the solo nor the table journal."""

    transaction_id: str
    round_id: str
    kind: MoneyKind
    status: str


class JournalAuditReads:
    """The listings, on a pool of the journal's database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def solo_rounds(self) -> list[tuple[str, str]]:
        """(player key, round id) of every solo round."""
        return [(r["player_key"], r["round_id"]) for r in await self._pool.fetch(Q_SOLO_ROUNDS)]

    async def solo_free_rounds(self) -> set[str]:
        """The solo rounds a free bet staked."""
        return {r["round_id"] for r in await self._pool.fetch(Q_SOLO_FREE)}

    async def of_no_round(self) -> list[OfNoRound]:
        """Movements of no recorded round (solo or table)."""
        return [OfNoRound(transaction_id=r["transaction_id"], round_id=r["round_id"],
                          kind=MoneyKind(r["kind"]), status=r["status"])
                for r in await self._pool.fetch(Q_OF_NO_ROUND)]

    async def solo_rounds_without_events(self) -> list[str]:
        """Solo rounds with no event (half-written)."""
        return [r["round_id"] for r in await self._pool.fetch(Q_NO_EVENTS)]

    async def movements_total(self) -> int:
        return int(await self._pool.fetchval(Q_MOVEMENTS_TOTAL))

    async def table_rounds(self) -> list[str]:
        """Every table round's id, table by table, oldest first."""
        return [r["round_id"] for r in await self._pool.fetch(Q_TABLE_ROUNDS)]

    async def table_round(self, round_id: str) -> RoundRecord | None:
        """A table round's row with its players' shares."""
        return await read_round(self._pool, round_id)

    async def round_movements(self, round_id: str) -> dict[str, list[Movement]]:
        """Every movement with this round id, by player key (every operator's)."""
        return {r["player_key"]: movements_json(r["movements"])
                for r in await self._pool.fetch(Q_ROUND_MOVEMENTS, round_id)}

    async def table_free_bets(self) -> dict[str, dict[str, FreeBetUse]]:
        """The free bets staked at tables: by round id, then player key."""
        out: dict[str, dict[str, FreeBetUse]] = defaultdict(dict)
        for r in await self._pool.fetch(Q_TABLE_FREE):
            out[r["round_id"]][r["player_key"]] = use_of_row(r)
        return dict(out)

    async def betting_rounds(self) -> set[str]:
        """The rounds the tables are taking bets on now: their stakes have no round row yet."""
        states = [decode_value(TableState, r["state"])
                  for r in await self._pool.fetch(Q_TABLE_STATES)]
        return {s.round_id for s in states if s.phase is TablePhase.BETTING and s.round_id}
