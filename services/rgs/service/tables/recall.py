"""A finished table round as an operator recalls it: the round (its events, fairness and the
names the table showed) and the money of the operator's own players in it, every movement
included (stakes, payments, and the refunds of stakes the round returned: a Bet Behind on a
seat that sat out or was given back, a bet that reached a closed table, every stake of a round
dealt no card).

Whose money: the players with a wallet movement in the round, read from the outbox by the
round's id. Another operator's players are in the round's events by display name only; their
money is never in an operator's answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from rgs.service.errors import NotFound
from rgs.service.freebets import FreeBetUse
from rgs.service.model import Movement, MovementStatus, RoundFreeBet
from rgs.service.tables.ports import RoundRecord, TableJournal
from rgs.wallet.port import MoneyKind

_EPOCH = datetime.fromtimestamp(0, UTC)


class TableUses(Protocol):
    """The free bets' store as the recall reads it (:class:`rgs.service.freebets.FreeBetStore`)."""

    async def table_use(self, round_id: str, player_key: str) -> FreeBetUse | None:
        """The free bet a player staked in a table round, if any."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerMoney:
    """A player's money in a table round: the stakes that played and their payments (from the
    settlement), the stakes returned, and every movement."""

    player_key: str
    staked: int
    paid: int
    refunded: int
    movements: tuple[Movement, ...]

    @property
    def player_id(self) -> str:
        return self.player_key.partition("/")[2]


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorTableRound:
    """A table round with the money of the calling operator's players only."""

    round: RoundRecord
    money: tuple[PlayerMoney, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerTableRound:
    """One player's table round, as the operator's player round list and recall give it."""

    round: RoundRecord
    brand_id: str
    session_id: str
    currency: str
    money: PlayerMoney
    #: When the player's first movement of the round was written (the list's order).
    started_at: datetime
    #: The free bet the player staked in the round (None: none).
    free_bet: RoundFreeBet | None = None


def _money(rec: RoundRecord, key: str, moves: Sequence[Movement]) -> PlayerMoney:
    share = next(((st, pd) for k, _, st, pd in rec.players if k == key), (0, 0))
    refunded = sum(m.amount for m in moves if m.kind is MoneyKind.ROLLBACK
                   and m.status is not MovementStatus.REFUSED)
    return PlayerMoney(player_key=key, staked=share[0], paid=share[1], refunded=refunded,
                       movements=tuple(moves))


class TableRecall:
    """The operators' recall of table rounds."""

    def __init__(self, tables: TableJournal, free_bets: TableUses | None = None) -> None:
        self._tables = tables
        #: Where the players' free bets at tables are recorded (None: none are served).
        self._free_bets = free_bets

    async def operator_round(self, operator_id: str, round_id: str, *,
                             table_id: str = "") -> OperatorTableRound:
        """A finished round in which ``operator_id`` had a player (at ``table_id`` when it is
        given), with those players' money."""
        rec = await self._tables.get_round(round_id)
        if rec is None or not rec.finished or (table_id and rec.table_id
                                               and rec.table_id != table_id):
            raise NotFound("no such round", reason="ROUND_NOT_FOUND")
        moves = await self._tables.round_movements(round_id, operator_id)
        keys = sorted({*moves, *(k for k, op, _, _ in rec.players if op == operator_id)})
        if not keys:
            raise NotFound("no such round", reason="ROUND_NOT_FOUND")
        return OperatorTableRound(round=rec, money=tuple(
            _money(rec, k, moves.get(k, [])) for k in keys))

    async def player_rounds(self, player_key: str, brand_id: str, *,
                            before: tuple[datetime, str] | None,
                            limit: int) -> list[PlayerTableRound]:
        """A player's finished table rounds in a brand, newest first."""
        out = []
        for rec, first in await self._tables.player_rounds(player_key, brand_id,
                                                           before=before, limit=limit):
            got = await self._of_player(rec, player_key, brand_id, first)
            if got is not None:
                out.append(got)
        return out

    async def player_round(self, player_key: str, brand_id: str,
                           round_id: str) -> PlayerTableRound | None:
        """One finished table round of a player in a brand (None: not theirs, or not one)."""
        rec = await self._tables.get_round(round_id)
        if rec is None or not rec.finished:
            return None
        return await self._of_player(rec, player_key, brand_id, None)

    async def _of_player(self, rec: RoundRecord, player_key: str, brand_id: str,
                         first: datetime | None) -> PlayerTableRound | None:
        operator = player_key.partition("/")[0]
        moves = [m for m in (await self._tables.round_movements(rec.round_id, operator)).get(
            player_key, []) if m.brand_id == brand_id]
        if not rec.finished or not moves:
            return None
        use = (None if self._free_bets is None
               else await self._free_bets.table_use(rec.round_id, player_key))
        return PlayerTableRound(
            round=rec, brand_id=brand_id, session_id=moves[0].session_id,
            currency=moves[0].currency, money=_money(rec, player_key, moves),
            started_at=first or moves[0].created_at or rec.started_at or _EPOCH,
            free_bet=None if use is None else RoundFreeBet(grant_id=use.grant_id,
                                                           value=use.value, seat=use.seat))
