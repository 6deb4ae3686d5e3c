"""Bet Behinds on rows of their own while betting is open (issue 27).

A VIP table's Bet Behind is unlimited: a thousand players may bet behind its seats in one
betting time. Kept in the table's state document, each bet would rewrite the whole document
(every Bet Behind so far) under the table's row lock. So a Bet Behind placed while betting is
open, by a player who holds no seat there, is a row of its own (``table_behind_bets``): its
placement inserts the row and books its debit in one short transaction that takes the table's
turn lock shared (transitions take it exclusive) and checks that betting is still open on the
same round
(:meth:`~rgs.service.tables.ports.TableLink.place_behind`), without reading or writing the
state.

Every transition of the table while betting is open (a seat's bet, Deal Now, a seat given
back, the close of betting) sees the rows merged into the state (:func:`merged`), so the
rules that look at Bet Behinds (a seat given back returns them, betting close deals or
returns them) are the same whichever way a bet was placed. What the transition writes back is
split (:func:`stored`): the rows stay rows while betting is open, and the close of betting
materialises them into the state once (the engine and the round's logic unchanged); rows a
transition returned are deleted.

A row records the seat's player when it was placed (``Behind.seat_player``): a bet whose seat
changed hands between its check and its commit is returned when betting closes instead of
following another player.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rgs.service.tables.model import Behind, TablePhase, TableState


def key(b: Behind) -> tuple[int, str]:
    """A Bet Behind's key in its round: (seat, player key)."""
    return b.seat, b.who.player_key


def merged(state: TableState, rows: Sequence[Behind]) -> TableState:
    """The state with the round's rows among its Bet Behinds (the state's own first)."""
    if not rows:
        return state
    return replace(state, behind=(*state.behind, *rows))


def stored(state: TableState, round_id: str,
           rows: Sequence[Behind]) -> tuple[TableState, list[tuple[int, str]]]:
    """What a transition that saw ``rows`` (of ``round_id``) merged into its state writes:
    the state document and the keys of the rows to delete. While betting is open on the same
    round the rows stay rows (the document keeps only the bets placed into it) and those the
    transition returned are deleted; once betting closed the state holds them (dealt, or
    returned) and every row is deleted."""
    if not rows:
        return state, []
    keys = {key(b) for b in rows}
    if state.phase is TablePhase.BETTING and state.round_id == round_id:
        present = {key(b) for b in state.behind}
        doc = replace(state, behind=tuple(b for b in state.behind if key(b) not in keys))
        return doc, sorted(keys - present)
    return state, sorted(keys)


def on_its_seat(b: Behind, seat_player: str | None) -> bool:
    """Whether a Bet Behind still follows the player it was placed behind (``seat_player``:
    the seat's player now, None when nobody sits there)."""
    return seat_player is not None and (not b.seat_player or b.seat_player == seat_player)


def totals(behind: Sequence[Behind]) -> tuple[tuple[int, int, int], ...]:
    """(seat, bettors, staked) of every seat with Bet Behinds, in seat order."""
    out: dict[int, tuple[int, int]] = {}
    for b in behind:
        n, staked = out.get(b.seat, (0, 0))
        out[b.seat] = (n + 1, staked + b.stake)
    return tuple((seat, n, staked) for seat, (n, staked) in sorted(out.items()))
