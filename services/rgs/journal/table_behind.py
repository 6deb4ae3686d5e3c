"""Bet Behinds' rows of their own on PostgreSQL: a Bet Behind placed while betting is open
(:meth:`~rgs.service.tables.ports.TableLink.place_behind`; why: :mod:`rgs.service.tables.behind`)
and a Bet Behind's live insurance decision while insurance is open
(:meth:`~rgs.service.tables.ports.TableLink.decide_insurance`;
:mod:`rgs.service.tables.live_insurance`).

Each is one short transaction: the table's turn lock taken shared
(:func:`~rgs.journal.table_statements.turn_lock`: rows do not wait for each other; a transition
waits for them, and they for it, at most the command's bound), then its phase and round read
and checked, the player's lease fenced, the request looked for, the rows inserted, the debits
booked and the command's answer recorded. The table's state document is neither read nor
written, and nothing is announced (the table's event number stays).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

from rgs.codec import encode_value
from rgs.journal.table_statements import (
    Q_BEHIND_INSERT,
    Q_BEHIND_SHARE,
    Q_BOOK,
    Q_FENCE_PLAYERS,
    Q_FIND_REQUEST,
    Q_INSURANCE_COUNT,
    Q_INSURANCE_INSERT,
    Q_REQUEST,
)
from rgs.journal.table_turns import table_turn
from rgs.journal.translate import DRIVER_ERRORS
from rgs.service.model import StoredRequest
from rgs.service.tables.model import TablePhase
from rgs.service.tables.ports import (
    BehindPlacement,
    BehindRefused,
    Decided,
    InsuranceDecision,
    NotCommitted,
)


async def place_behind(conn: Any, lease_ttl: timedelta, table_id: str, p: BehindPlacement, *,
                       wait_s: float, statement_s: float) -> int:
    """The placement's transaction on ``conn`` (a held connection); the table's newest event
    number."""
    async def insert() -> None:
        inserted = await conn.fetch(
            Q_BEHIND_INSERT, table_id, p.round_id, [b.who.player_key for b in p.bets],
            [b.seat for b in p.bets], [encode_value(b) for b in p.bets])
        if len(inserted) != len(p.bets):
            raise BehindRefused("already_bet")

    return await _on_rows(conn, table_id, lease_ttl=lease_ttl, phase=TablePhase.BETTING,
                          round_id=p.round_id, key=p.player[0], lease=p.player,
                          request=p.request, booked=p.booked, insert=insert,
                          wait_s=wait_s, statement_s=statement_s)


async def decide_insurance(conn: Any, lease_ttl: timedelta, table_id: str,
                           d: InsuranceDecision, *, wait_s: float,
                           statement_s: float) -> Decided:
    """The decision's transaction on ``conn`` (a held connection), then the round's decisions
    counted (after the commit: the last of many decisions at once to commit counts them
    all)."""
    c = d.choice

    async def insert() -> None:
        if not await conn.fetch(Q_INSURANCE_INSERT, table_id, d.round_id, c.player, c.seat,
                                encode_value(c)):
            raise BehindRefused("already_decided")

    seq = await _on_rows(conn, table_id, lease_ttl=lease_ttl, phase=TablePhase.INSURANCE,
                         round_id=d.round_id, key=c.player, lease=d.player,
                         request=d.request, booked=d.booked, insert=insert,
                         wait_s=wait_s, statement_s=statement_s)
    try:
        decided = int(await conn.fetchval(Q_INSURANCE_COUNT, table_id, d.round_id))
    except DRIVER_ERRORS:
        decided = 0  # committed all the same: insurance closes at its deadline
    return Decided(seq=seq, decided=decided)


async def _on_rows(conn: Any, table_id: str, *, lease_ttl: timedelta, phase: TablePhase,
                   round_id: str, key: str, lease: tuple[str, int] | None,
                   request: Callable[[int], StoredRequest],
                   booked: Sequence[tuple[str, str, int | None, str]],
                   insert: Callable[[], Awaitable[None]], wait_s: float,
                   statement_s: float) -> int:
    """One row transaction: the table in ``phase`` on ``round_id``, ``lease`` (when given)
    still held, the request not answered, then ``insert``, the debits booked and the answer
    recorded; the table's newest event number."""
    async with table_turn(conn, table_id, lock_s=wait_s, statement_s=statement_s,
                          shared=True) as commit:
        row = await conn.fetchrow(Q_BEHIND_SHARE, table_id)
        if row is None:
            raise NotCommitted(f"table {table_id} has no row in the journal")
        if row["phase"] != phase.value or row["round_id"] != round_id:
            raise BehindRefused("closed")
        if lease is not None and not await conn.fetch(Q_FENCE_PLAYERS, [lease[0]], [lease[1]],
                                                      lease_ttl):
            raise BehindRefused("lease_lost")
        seq = int(row["last_seq"])
        record = request(seq)
        if await conn.fetchrow(Q_FIND_REQUEST, table_id, key, record.request_id):
            raise BehindRefused("answered")
        await insert()
        if booked:
            done = await conn.fetch(Q_BOOK, [k for k, _, _, _ in booked],
                                    [t for _, t, _, _ in booked],
                                    [b for _, _, b, _ in booked],
                                    [r for _, _, _, r in booked])
            if len(done) != len(booked):
                raise NotCommitted("a debit is no longer applied (rolled back by a call "
                                   "that took the player over)")
        await conn.execute(Q_REQUEST, table_id, key, record.request_id, record.method,
                           record.request_hash, record.response)
        commit.sent = True
        await conn.execute("COMMIT")
        return seq
