"""Side-bet evaluation: pure functions from cards to the paytable line won.

Each returns ``(line, pays)``: the line's name and its ``X to 1`` multiple, or ``("lose", 0)``.
"""

from __future__ import annotations

from rgs.engine.cards import RANKS, RED_SUITS, hand_total
from rgs.engine.rules import (
    PerfectPairsPaytable,
    TwentyOnePlusThreePaytable,
    TwentyPlusOutcome,
    TwentyPlusPaytable,
)

LOSE = ("lose", 0)


def perfect_pairs(first: str, second: str, table: PerfectPairsPaytable) -> tuple[str, int]:
    """Perfect Pairs on a box's first two cards: a pair is two cards of the same rank."""
    if first[0] != second[0]:
        return LOSE
    if first[1] == second[1]:
        return ("perfect_pair", table.perfect)
    if (first[1] in RED_SUITS) == (second[1] in RED_SUITS):
        return ("coloured_pair", table.coloured)
    return ("mixed_pair", table.mixed)


def _is_straight(ranks: list[int]) -> bool:
    # Rank indices 0..12 for A..K. The ace plays low (A-2-3) or high (Q-K-A); K-A-2 does not wrap.
    r = sorted(ranks)
    if r[0] + 1 == r[1] and r[1] + 1 == r[2]:
        return True
    return r == [0, 11, 12]


def twenty_one_plus_three(first: str, second: str, up: str,
                          table: TwentyOnePlusThreePaytable) -> tuple[str, int]:
    """21+3 on the box's first two cards and the dealer's up card, as a three-card poker hand."""
    cards = (first, second, up)
    ranks = [RANKS.index(c[0]) for c in cards]
    flush = first[1] == second[1] == up[1]
    trips = ranks[0] == ranks[1] == ranks[2]
    if trips and flush:
        return ("suited_trips", table.suited_trips)
    straight = not trips and len(set(ranks)) == 3 and _is_straight(ranks)
    if straight and flush:
        return ("straight_flush", table.straight_flush)
    if trips:
        return ("three_of_a_kind", table.three_of_a_kind)
    if straight:
        return ("straight", table.straight)
    if flush:
        return ("flush", table.flush)
    return LOSE


def twenty_plus_qualifies(first: str, second: str) -> bool:
    """The 20+ Bonus qualifies on a first two-card total of 20 or 21 (soft 20 and blackjack)."""
    return hand_total((first, second))[0] >= 20


def twenty_plus(outcome: TwentyPlusOutcome | None, table: TwentyPlusPaytable) -> tuple[str, int]:
    """20+ Bonus line for a qualifying, stood hand's outcome (None: not qualifying/forfeited)."""
    if outcome is None:
        return LOSE
    return (outcome.value, table.pays(outcome))
