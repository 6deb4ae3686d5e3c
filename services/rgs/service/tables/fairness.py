"""Provably fair rounds at a shared table: the table's seeds, a round's client seed, and what
the table shows of them.

The card order of a table round is :func:`rgs.rng.fair.card_order` of its server seed, its
client seed and the table's round number, exactly as for a solo round. The rules this module
keeps (``docs/rng.md``, "At a shared table"):

* a table always has one committed *next* seed, drawn from the certified RNG through the card
  source factory and stored in the table's state (the journal) by the transition that first
  shows its commitment;
* betting opens with the first bet of a round: that transition makes the next seed the round's
  and stores a fresh next seed, and its ``betting_opened`` event shows the round's commitment
  (and the next one); the round number is the table's ``round_no`` (1, 2, ... per table);
* the client seed is fixed when betting closes, before any card: the seated players' own
  client seeds (given with PlaceBets) combined by :func:`rgs.rng.fair.table_client_seed`;
* the server seed is shown only once the round is settled or voided (or closed undealt);
* a round dealt with forced cards (test mode) is marked not verifiable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from rgs.engine import CardSource
from rgs.rng.fair import commitment, table_client_seed
from rgs.service.fairness import draw_seed
from rgs.service.ports import CardSourceFactory
from rgs.service.tables.model import Revealed, Seat, SeatBet, TableFair, TablePhase, TableState

Pick = Callable[[int], int]


def fresh_seeds(pick: Pick) -> tuple[bytes, bytes]:
    """Two server seeds from the card randomness, drawn before anything of a step moves (an
    unhealthy RNG refuses here): the first serves a table that has no committed seed yet, the
    second becomes the next seed."""
    return draw_seed(pick), draw_seed(pick)


def open_round(state: TableState, *, round_no: int, decks: int,
               fresh: tuple[bytes, bytes]) -> tuple[TableFair, str]:
    """The new round's fairness (the table's committed next seed, or ``fresh[0]`` for a table
    without one) and the new next seed (``fresh[1]``, hex)."""
    seed = bytes.fromhex(state.next_seed) if state.next_seed else fresh[0]
    following = fresh[1]
    fair = TableFair(server_seed=seed.hex(), commitment=commitment(seed), round_number=round_no,
                     decks=decks, next_commitment=commitment(following))
    return fair, following.hex()


def close(fair: TableFair, bets: Sequence[SeatBet], *, forced: bool) -> TableFair:
    """The round's fairness when betting closes: the client seed fixed from the seats' ones."""
    seat_seeds = tuple((b.seat, b.client_seed) for b in sorted(bets, key=lambda b: b.seat)
                       if b.client_seed)
    return replace(fair, seat_seeds=seat_seeds, client_seed=table_client_seed(seat_seeds),
                   verifiable=not forced)


def source(cards: CardSourceFactory, fair: TableFair) -> CardSource:
    """The card source of a fair table round: its card order, first card first, from the app's
    card source factory (which keeps the orders of recent rounds)."""
    return cards.fair_source(fair.server_seed, fair.client_seed, fair.round_number, fair.decks)


def next_commitment(state: TableState) -> str:
    """The commitment of the table's next round's seed ("" for a table without one yet)."""
    return commitment(bytes.fromhex(state.next_seed)) if state.next_seed else ""


def public(fair: TableFair, *, revealed: bool, dealt: tuple[str, ...] = ()) -> dict[str, Any]:
    """What everyone is shown of a round's fairness: the seed only when ``revealed``, with the
    cards ``dealt`` in the order they left the shoe (a client verifies them without having
    watched the whole round)."""
    return {"verifiable": fair.verifiable, "commitment": fair.commitment,
            "round_number": fair.round_number, "decks": fair.decks,
            "client_seed": fair.client_seed,
            "seat_seeds": [{"seat": seat, "client_seed": seed} for seat, seed in fair.seat_seeds],
            "next_commitment": fair.next_commitment,
            "server_seed": fair.server_seed if revealed else "",
            "dealt_cards": list(dealt) if revealed else []}


def snapshot_fields(state: TableState) -> dict[str, Any]:
    """The snapshot's fairness: the round's (seed hidden), the next commitment, and the last
    finished round's with its seed."""
    last = state.revealed
    return {
        "fair": public(state.fair, revealed=False) if state.fair is not None else None,
        "next_commitment": next_commitment(state),
        "last_round": ({"round_id": last.round_id,
                        "fair": public(last.fair, revealed=True, dealt=last.dealt)}
                       if last is not None else None),
    }


def idle_after(s: TableState, *, seats: tuple[Seat, ...], fair: TableFair | None,
               dealt: tuple[str, ...] = ()) -> TableState:
    """The idle table after round ``s`` ended: the next seed kept, the round's seeds revealed
    (``fair``: the round's fairness as it ended, ``dealt`` its cards in shoe order; None keeps
    the previous reveal)."""
    return TableState(phase=TablePhase.IDLE, round_no=s.round_no, seats=seats,
                      next_seed=s.next_seed,
                      revealed=(Revealed(round_id=s.round_id, fair=fair, dealt=dealt)
                                if fair is not None else s.revealed))
