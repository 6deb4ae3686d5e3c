"""Shoe compositions as rank counts, the representation every analysis in this package uses.

A composition is a tuple of ten counts: index 0 is the ace, 1..8 are the ranks 2..9 and 9 is
every ten-valued card. Ranks are therefore identified by their blackjack value minus one.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

#: Number of rank classes (A, 2..9, ten-valued).
NRANKS = 10
#: Up-card class names by rank index.
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
Counts = tuple[int, ...]
ZERO: Counts = (0,) * NRANKS


def full_shoe(decks: int) -> Counts:
    """The rank counts of ``decks`` full decks."""
    return tuple(4 * decks if r < 9 else 16 * decks for r in range(NRANKS))


def add(c: Counts, r: int, k: int = 1) -> Counts:
    """``c`` with ``k`` more cards of rank index ``r``."""
    return (*c[:r], c[r] + k, *c[r + 1:])


def unit(r: int) -> Counts:
    """The composition of one card of rank index ``r``."""
    return add(ZERO, r)


def plus(a: Counts, b: Counts) -> Counts:
    """The union of two compositions."""
    return tuple(x + y for x, y in zip(a, b, strict=True))


@cache
def hard_sum(c: Counts) -> int:
    """Total with every ace counted as one."""
    return sum((i + 1) * n for i, n in enumerate(c))


@cache
def total_soft(c: Counts) -> tuple[int, bool]:
    """Best total of a hand and whether it is soft (an ace counted as eleven)."""
    h = hard_sum(c)
    if c[0] and h <= 11:
        return h + 10, True
    return h, False


def hands_up_to(limit: int) -> Iterator[Counts]:
    """Every non-empty composition whose hard sum is at most ``limit``."""

    def rec(r: int, left: int, acc: list[int]) -> Iterator[Counts]:
        if r == NRANKS:
            if any(acc):
                yield tuple(acc)
            return
        v = r + 1
        for k in range(left // v + 1):
            acc.append(k)
            yield from rec(r + 1, left - k * v, acc)
            acc.pop()

    yield from rec(0, limit, [])


def fits(c: Counts, shoe: Counts) -> bool:
    """True when the cards of ``c`` can all come out of ``shoe``."""
    return all(x <= y for x, y in zip(c, shoe, strict=True))
