"""A Bet Behind placed on rows of its own while betting is open, on PostgreSQL
(:meth:`~rgs.service.tables.ports.TableLink.place_behind`; why: :mod:`rgs.service.tables.behind`).

One short transaction: the table's turn lock taken shared
(:func:`~rgs.journal.table_statements.turn_lock`: placements do not wait for each other; a
transition waits for them, and they for it, at most the command's bound), then its phase and
round read and checked, the player's lease fenced, the request looked for, the
rows inserted, the debits booked and the command's answer recorded. The table's state document
is neither read nor written, and nothing is announced (the table's event number stays).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from rgs.codec import encode_value
from rgs.journal.table_statements import (
    Q_BEHIND_INSERT,
    Q_BEHIND_SHARE,
    Q_BOOK,
    Q_FENCE_PLAYERS,
    Q_FIND_REQUEST,
    Q_REQUEST,
)
from rgs.journal.table_turns import table_turn
from rgs.service.tables.model import TablePhase
from rgs.service.tables.ports import BehindPlacement, BehindRefused, NotCommitted


async def place_behind(conn: Any, lease_ttl: timedelta, table_id: str, p: BehindPlacement, *,
                       wait_s: float, statement_s: float) -> int:
    """The placement's transaction on ``conn`` (a held connection); the table's newest event
    number."""
    async with table_turn(conn, table_id, lock_s=wait_s, statement_s=statement_s,
                          shared=True) as commit:
        row = await conn.fetchrow(Q_BEHIND_SHARE, table_id)
        if row is None:
            raise NotCommitted(f"table {table_id} has no row in the journal")
        if row["phase"] != TablePhase.BETTING.value or row["round_id"] != p.round_id:
            raise BehindRefused("closed")
        key, epoch = p.player
        if not await conn.fetch(Q_FENCE_PLAYERS, [key], [epoch], lease_ttl):
            raise BehindRefused("lease_lost")
        seq = int(row["last_seq"])
        record = p.request(seq)
        if await conn.fetchrow(Q_FIND_REQUEST, table_id, key, record.request_id):
            raise BehindRefused("answered")
        inserted = await conn.fetch(
            Q_BEHIND_INSERT, table_id, p.round_id, [b.who.player_key for b in p.bets],
            [b.seat for b in p.bets], [encode_value(b) for b in p.bets])
        if len(inserted) != len(p.bets):
            raise BehindRefused("already_bet")
        if p.booked:
            booked = await conn.fetch(Q_BOOK, [k for k, _, _, _ in p.booked],
                                      [t for _, t, _, _ in p.booked],
                                      [b for _, _, b, _ in p.booked],
                                      [r for _, _, _, r in p.booked])
            if len(booked) != len(p.booked):
                raise NotCommitted("a debit is no longer applied (rolled back by a call "
                                   "that took the player over)")
        await conn.execute(Q_REQUEST, table_id, key, record.request_id, record.method,
                           record.request_hash, record.response)
        commit.sent = True
        await conn.execute("COMMIT")
        return seq
