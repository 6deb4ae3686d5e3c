"""A seat's life at a shared table: taken, kept while its player is there, given back.

A seat is given back (``seat_left``, with its :class:`~rgs.service.tables.model.SeatRelease`)

- when its player leaves it; with a bet of theirs on it in play, when that round ends;
- after ``sit_out_rounds`` dealt rounds in a row without a bet on it (counted when betting
  closes on a round that is dealt);
- when its player has neither watched the table (a WatchTable stream on any replica:
  :mod:`~rgs.service.tables.presence`) nor acted at it for ``away_s`` seconds, or the newest
  session they used at the table expired, whenever no bet of theirs is on the seat.

A Bet Behind on a seat given back while bets are taken is returned at once, as for a seat that
sits out. A player who comes back while the seat is still theirs (a new page, a new session of
the same player at the same operator) finds it marked as theirs, and TakeSeat on it gives it
back to them (refreshing the session it is played with).

These are pure functions of the table's state; the commands, the clock's transitions and the
settlement call them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from rgs.service import money
from rgs.service.model import Movement
from rgs.service.tables import public
from rgs.service.tables.model import (
    Behind,
    Seat,
    SeatRelease,
    TableConfig,
    TablePhase,
    TableState,
    Watching,
    Who,
)
from rgs.service.tables.turns import Step
from rgs.wallet.port import MoneyKind


def refund_behind(b: Behind, cfg: TableConfig, round_id: str) -> Movement:
    """The rollback of a Bet Behind's debit (its seat sat out or was given back)."""
    return money.rollback_of(Movement(
        transaction_id=b.debit, round_id=round_id, kind=MoneyKind.DEBIT, amount=b.stake,
        session_id=b.who.session_id, currency=cfg.currency, brand_id=b.who.brand_id))


def bet_in_play(s: TableState, seat: int) -> bool:
    """Whether the seat's own bet is on the table (bet on, or being played)."""
    return s.bet(seat) is not None


def touch(s: TableState, who: Who, *, now: datetime, expires_at: datetime) -> TableState:
    """The state with the caller's seat (if they hold one) marked as seen now, played with
    ``who``'s session (a player back with a new session plays on with it)."""
    mine = next((x for x in s.seats if x.who.player_key == who.player_key), None)
    if mine is None:
        return s
    fresh = replace(mine, who=who, seen_at=now, expires_at=expires_at)
    return replace(s, seats=tuple(fresh if x.seat == mine.seat else x for x in s.seats))


def release(cfg: TableConfig, s: TableState, gone: Mapping[int, SeatRelease],
            step: Step) -> TableState:
    """``s`` without the seats in ``gone``, each with its ``seat_left`` event; the Bet Behinds
    on them are returned when bets are being taken (once betting closed, a seat without a
    bet has none: they were returned then)."""
    if not gone:
        return s
    for x in s.seats:
        if x.seat in gone:
            step.events.append(public.event("seat_left", seat=x.seat,
                                            player=public.player(cfg.id, x.who),
                                            reason=gone[x.seat].value))
    kept_behind = []
    for b in s.behind:
        if b.seat not in gone or s.phase not in (TablePhase.IDLE, TablePhase.BETTING):
            kept_behind.append(b)
            continue
        step.movements.append((b.who.player_key, refund_behind(b, cfg, s.round_id)))
        step.events.append(public.event("behind_refunded", seat=b.seat,
                                        player=public.player(cfg.id, b.who), amount=b.stake,
                                        reason="seat_released"))
    return replace(s, seats=tuple(x for x in s.seats if x.seat not in gone),
                   behind=tuple(kept_behind))


def idle_seats(cfg: TableConfig, s: TableState, watching: Mapping[str, Watching],
               now: datetime) -> dict[int, SeatRelease]:
    """The seats to give back now because their player is away or their session expired
    (only seats without a bet of theirs in play)."""
    gone: dict[int, SeatRelease] = {}
    for x in s.seats:
        if bet_in_play(s, x.seat):
            continue
        w = watching.get(x.who.player_key)
        expires = max((t for t in (x.expires_at, w.expires_at if w else None) if t),
                      default=None)
        if expires is not None and expires <= now:
            gone[x.seat] = SeatRelease.SESSION_EXPIRED
            continue
        seen = max((t for t in (x.seen_at, w.seen_at if w else None) if t), default=None)
        if seen is not None and now - seen > timedelta(seconds=cfg.away_s):
            gone[x.seat] = SeatRelease.AWAY
    return gone


def count_sit_outs(cfg: TableConfig, s: TableState) -> tuple[TableState, dict[int, SeatRelease]]:
    """At the close of betting on a round that is dealt: each seat's count of rounds sat out
    in a row (reset by a bet), and the seats that reached ``sit_out_rounds``."""
    betting = {b.seat for b in s.bets}
    seats = tuple(replace(x, sat_out=0) if x.seat in betting else
                  replace(x, sat_out=x.sat_out + 1) for x in s.seats)
    gone = {x.seat: SeatRelease.SAT_OUT for x in seats
            if x.seat not in betting and x.sat_out >= cfg.sit_out_rounds}
    return replace(s, seats=seats), gone


def leaving(s: TableState) -> dict[int, SeatRelease]:
    """The seats whose players left during the round (given back when it ends)."""
    return {x.seat: SeatRelease.LEFT for x in s.seats if x.leaving}


def held_by(s: TableState, player_key: str) -> Seat | None:
    """The seat ``player_key`` holds at the table, if any."""
    return next((x for x in s.seats if x.who.player_key == player_key), None)
