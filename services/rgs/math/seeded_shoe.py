"""The simulation's card source: every round dealt from the full shoe, drawn by a seeded
``random.Random``.

:class:`SeededShoe` deals, round after round, exactly the cards that a fresh
``ShoeSource(Shoe(full), rng.randrange)`` per round would deal: the same positions of the same
ordered list, picked by the same random numbers. It does not build the shoe again for each
round (a copy of 312 or 416 cards, and freeing it): the last card left takes a drawn card's
place as in ``ShoeSource``, the list is never shortened (nothing reads past the cards left), and
:meth:`SeededShoe.next_round` puts back only the positions the last round changed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rgs.engine import ShoeExhausted


class SeededShoe:
    """A full shoe for every round, drawn without replacement by ``rng``: call
    :meth:`next_round` before each round (before the first it changes nothing)."""

    __slots__ = ("_bits", "_cards", "_full", "_getrandbits", "_left", "_picked")

    def __init__(self, cards: Sequence[str], rng: random.Random) -> None:
        self._full = tuple(cards)
        self._cards = list(cards)
        self._left = len(cards)
        self._picked: list[int] = []
        self._getrandbits = rng.getrandbits
        #: ``n.bit_length()`` for every number of cards left, looked up instead of computed.
        self._bits = tuple(n.bit_length() for n in range(len(cards) + 1))

    def next_round(self) -> None:
        """The full shoe again, in its first order: the positions drawn from and those past
        the cards left are the only ones that changed."""
        cards, full, left = self._cards, self._full, self._left
        for i in self._picked:
            cards[i] = full[i]
        cards[left:] = full[left:]
        self._picked.clear()
        self._left = len(full)

    def draw(self) -> str:
        """A card picked uniformly from the cards left, as ``ShoeSource.draw`` picks it with
        ``rng.randrange``."""
        n = self._left
        if n == 0:
            raise ShoeExhausted("the shoe is empty", rule="draw_without_replacement")
        # rng.randrange(n) for n > 0 is Random._randbelow_with_getrandbits(n) (CPython
        # 3.11-3.13), here inline: getrandbits of n's bit length until the number is below n.
        # tests/unit/math/test_seeded_shoe.py checks it against a ShoeSource on randrange.
        getrandbits = self._getrandbits
        k = self._bits[n]
        i = getrandbits(k)
        while i >= n:
            i = getrandbits(k)
        cards = self._cards
        card = cards[i]
        n -= 1
        cards[i] = cards[n]  # the last card left takes its place (nothing reads past the last)
        self._left = n
        self._picked.append(i)
        return card
