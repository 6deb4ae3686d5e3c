"""Cards, ranks, shoes and card sources.

A card is its two-character code, rank then suit (``"AS"``, ``"TD"``). Codes are plain strings so
that events, journals and forced-card lists carry them unchanged.

The engine never makes randomness: a :class:`CardSource` hands it the next card. A
:class:`ShoeSource` draws without replacement from a :class:`Shoe` using an index picker supplied
by the caller (the certified RNG in production, a seeded generator in simulations), and
:class:`ForcedCards` deals a given list first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from rgs.engine.errors import InvalidCard, ShoeExhausted

RANKS = "A23456789TJQK"
SUITS = "SHDC"
#: Every card code of one deck, in a fixed order.
DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_DECK_SET = frozenset(DECK)

#: Blackjack value of a rank with the ace counted as 1.
RANK_VALUE: dict[str, int] = {r: min(i + 1, 10) for i, r in enumerate(RANKS)}
#: Blackjack value of a card code with the ace counted as 1.
CARD_VALUE: dict[str, int] = {c: RANK_VALUE[c[0]] for c in DECK}
RED_SUITS = frozenset("HD")


def check_card(code: str) -> str:
    """Return ``code`` if it is a card code, else raise :class:`InvalidCard`."""
    if code not in _DECK_SET:
        raise InvalidCard(f"{code!r} is not a card code (rank of {RANKS} + suit of {SUITS})",
                          rule="card_code")
    return code


def hard_total(cards: Iterable[str]) -> tuple[int, bool]:
    """The total of ``cards`` with every ace counted as 1, and whether one is an ace."""
    hard = 0
    ace = False
    for c in cards:
        v = CARD_VALUE[c]
        hard += v
        ace = ace or v == 1
    return hard, ace


def is_soft(hard: int, ace: bool) -> bool:
    """The soft-total rule: one ace counts as 11 when that does not bust the hand.

    The one home of the rule (with :func:`best_total`). The engine's hot paths (a card dealt
    to a player, the dealer's drawing loop, ``HandState.soft``, :func:`hand_total`) write it
    inline for speed; ``tests/unit/engine/
    test_engine_soft_total.py`` checks each of those copies against this function."""
    return ace and hard <= 11


def best_total(hard: int, ace: bool) -> int:
    """The hand's total under the soft-total rule (:func:`is_soft`)."""
    return hard + 10 if ace and hard <= 11 else hard


def hand_total(cards: Iterable[str]) -> tuple[int, bool]:
    """Best total of ``cards`` and whether it is soft (an ace counted as 11)."""
    # hard_total and the rule, inline: the strategy asks this at every decision it takes
    hard = 0
    ace = False
    for c in cards:
        v = CARD_VALUE[c]
        hard += v
        ace = ace or v == 1
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


class CardSource(Protocol):
    """Where the engine's cards come from. ``draw`` returns the next card code."""

    def draw(self) -> str:
        """Return the next card, removed from whatever the source draws from."""
        ...


class Shoe:
    """The cards left in a round's shoe (a multiset of card codes)."""

    __slots__ = ("_cards",)

    def __init__(self, cards: Iterable[str]) -> None:
        self._cards = list(cards)

    @classmethod
    def of_decks(cls, decks: int) -> Shoe:
        """A full shoe of ``decks`` standard decks."""
        if decks < 1:
            raise ValueError("a shoe needs at least one deck")
        return cls(DECK * decks)

    def __len__(self) -> int:
        return len(self._cards)

    def cards(self) -> tuple[str, ...]:
        """The remaining cards (in the shoe's internal order, which carries no meaning)."""
        return tuple(self._cards)

    def take(self, index: int) -> str:
        """Remove and return the card at ``index`` of the remaining cards (O(1))."""
        cards = self._cards
        card = cards[index]
        last = cards.pop()
        if index < len(cards):
            cards[index] = last
        return card

    def remove(self, code: str) -> None:
        """Remove one copy of ``code``; raise :class:`ShoeExhausted` if none is left."""
        try:
            i = self._cards.index(code)
        except ValueError:
            raise ShoeExhausted(f"no {code} left in the shoe",
                                rule="draw_without_replacement") from None
        self.take(i)


class ShoeSource:
    """Draws uniformly without replacement from a shoe.

    ``pick(n)`` must return an unbiased integer in ``[0, n)``; the engine does not care where it
    comes from (the certified DRBG in production, ``random.Random(seed).randrange`` in
    simulations).
    """

    __slots__ = ("_pick", "shoe")

    def __init__(self, shoe: Shoe, pick: Callable[[int], int]) -> None:
        self.shoe = shoe
        self._pick = pick

    def draw(self) -> str:
        """Draw one card at a position chosen by the picker."""
        # Shoe.take inlined: every card of every simulated round passes here.
        cards = self.shoe._cards
        n = len(cards)
        if n == 0:
            raise ShoeExhausted("the shoe is empty", rule="draw_without_replacement")
        index = self._pick(n)
        card = cards[index]
        last = cards.pop()
        if index < n - 1:
            cards[index] = last
        return card


class SequenceSource:
    """Deals exactly the given cards in order, then refuses (replay and golden tests)."""

    __slots__ = ("_cards", "_next")

    def __init__(self, cards: Sequence[str]) -> None:
        self._cards = [check_card(c) for c in cards]
        self._next = 0

    def draw(self) -> str:
        """The next listed card."""
        if self._next >= len(self._cards):
            raise ShoeExhausted("the forced card sequence is exhausted",
                                rule="draw_without_replacement")
        card = self._cards[self._next]
        self._next += 1
        return card

    @property
    def remaining(self) -> int:
        """How many listed cards have not been dealt."""
        return len(self._cards) - self._next


class ForcedCards:
    """Deals the given cards first, then continues from ``then``.

    When ``then`` is a :class:`ShoeSource` the forced cards are taken out of its shoe up front, so
    that the round still draws without replacement from the variant's decks (a forced card the
    shoe does not hold is refused).
    """

    __slots__ = ("_forced", "_then")

    def __init__(self, cards: Sequence[str], then: CardSource | None = None) -> None:
        self._forced = SequenceSource(cards)
        self._then = then
        if isinstance(then, ShoeSource):
            for c in cards:
                then.shoe.remove(c)

    def draw(self) -> str:
        """A forced card while any is left, then the next card of ``then``."""
        if self._forced.remaining:
            return self._forced.draw()
        if self._then is None:
            raise ShoeExhausted("the forced card sequence is exhausted",
                                rule="draw_without_replacement")
        return self._then.draw()
