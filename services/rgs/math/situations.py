"""One situation of the game played through the production engine, exactly or by sampling.

A *situation* is a rule set, the cards forced at the start (in the engine's deal order: the
player's first card, the dealer's up card, the player's second card, the hole card in hole-card
games, then any further cards the forced actions draw; ``None`` leaves a place to the shoe, e.g.
the hole card before forced hits), the actions forced first, and a player for the rest
(:class:`~rgs.math.analysis_player.AnalysisPlayer`). Its value is the expected net result per
main bet, everything staked in the round included (doubles, splits, insurance, side bets).

:func:`enumerate_situation` walks every card sequence the engine can draw from the rest of the
shoe, weighting each by its probability (cards of one rank are interchangeable for the main game,
so one card code per rank stands for all), and so gives the engine's exact value: a stand, a
double or a Power Double against a high up card takes a second or two. :func:`sample_situation`
estimates it from random shoes when the tree is too large (splits). Comparing either with the
analysis' value of the same situation pins the engine's play of a rule and the analysis'
valuation of it to each other.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rgs.engine import BoxBet, Round, RuleSet, Shoe, ShoeSource
from rgs.engine.cards import CARD_VALUE
from rgs.math.shoe import NRANKS, full_shoe

#: Main stake of a situation's box: 3:2, half a bet and every Cash Out offer (basis points of the
#: stake) are whole minor units of it.
STAKE = 10_000
#: One card code per rank index (suits do not matter to the main game or the 20+ Bonus).
RANK_CARDS = ("AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS")

Play = Callable[[Round], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Estimate:
    """A situation's value per main bet through the engine, with its standard error (0 when
    enumerated exactly) and how many card sequences or rounds it took."""

    value: float
    stderr: float
    count: int


class _NeedCard(Exception):
    """The engine asked for a card the script leaves open: the walk branches at ``index``."""

    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


class _Script:
    __slots__ = ("_cards", "_next")

    def __init__(self, cards: Sequence[str | None]) -> None:
        self._cards = cards
        self._next = 0

    def draw(self) -> str:
        i = self._next
        card = self._cards[i] if i < len(self._cards) else None
        if card is None:
            raise _NeedCard(i)
        self._next += 1
        return card


class _Forced:
    """The forced cards in order, the open places and everything after from the shoe."""

    __slots__ = ("_cards", "_next", "_shoe")

    def __init__(self, cards: Sequence[str | None], shoe: ShoeSource) -> None:
        self._cards = cards
        self._next = 0
        self._shoe = shoe
        for c in cards:
            if c is not None:
                shoe.shoe.remove(c)

    def draw(self) -> str:
        i = self._next
        self._next += 1
        card = self._cards[i] if i < len(self._cards) else None
        return self._shoe.draw() if card is None else card


def _shoe_left(rules: RuleSet, cards: Sequence[str | None]) -> list[int]:
    shoe = list(full_shoe(rules.decks))
    for c in cards:
        if c is not None:
            shoe[CARD_VALUE[c] - 1] -= 1
    if min(shoe) < 0:
        raise ValueError(f"{list(cards)} is not a hand of {rules.decks} decks")
    return shoe


def _net(rnd: Round) -> int:
    return rnd.total_paid - rnd.total_staked


def enumerate_situation(rules: RuleSet, cards: Sequence[str | None], play: Play, *,
                        bet: BoxBet | None = None, limit: int = 2_000_000) -> Estimate:
    """The engine's exact value of a situation: every continuation of ``cards`` from the rest
    of the shoe, played by ``play``, weighted by its probability. ``limit`` bounds the number of
    card sequences (raise ValueError beyond it: sample instead)."""
    box = bet or BoxBet(seat=1, stake=STAKE)
    total = 0.0
    leaves = 0
    # depth-first over (cards so far, their probability, what is left of the shoe)
    stack: list[tuple[list[str | None], float, list[int]]] = [
        (list(cards), 1.0, _shoe_left(rules, cards))]
    while stack:
        seq, p, left = stack.pop()
        try:
            rnd = Round.deal(rules, _Script(seq), [box])
            play(rnd)
        except _NeedCard as need:
            n = sum(left)
            i = need.index
            for r in range(NRANKS):
                if left[r]:
                    rest = left.copy()
                    rest[r] -= 1
                    nxt = seq.copy() if i < len(seq) else [*seq, None]
                    nxt[i] = RANK_CARDS[r]
                    stack.append((nxt, p * left[r] / n, rest))
            continue
        leaves += 1
        if leaves > limit:
            raise ValueError(f"more than {limit} card sequences: sample this situation")
        total += p * _net(rnd)
    return Estimate(value=total / box.stake, stderr=0.0, count=leaves)


def sample_situation(rules: RuleSet, cards: Sequence[str | None], play: Play, rounds: int, *,
                     seed: int, bet: BoxBet | None = None) -> Estimate:
    """The engine's value of a situation estimated from ``rounds`` random continuations of
    ``cards`` (the forced cards are taken out of each fresh shoe)."""
    box = bet or BoxBet(seat=1, stake=STAKE)
    rng = random.Random(seed)
    full = Shoe.of_decks(rules.decks).cards()
    s1 = s2 = 0
    for _ in range(rounds):
        rnd = Round.deal(rules, _Forced(cards, ShoeSource(Shoe(full), rng.randrange)), [box])
        play(rnd)
        net = _net(rnd)
        s1 += net
        s2 += net * net
    mean = s1 / rounds
    var = max(s2 / rounds - mean * mean, 0.0)
    return Estimate(value=mean / box.stake, stderr=math.sqrt(var / rounds) / box.stake,
                    count=rounds)


def pooled(parts: Sequence[Estimate]) -> Estimate:
    """One estimate from independent samples of the same situation (their rounds pooled)."""
    n = sum(p.count for p in parts)
    mean = sum(p.value * p.count for p in parts) / n
    var = sum(p.count * (p.stderr ** 2 * p.count + (p.value - mean) ** 2) for p in parts) / n
    return Estimate(value=mean, stderr=math.sqrt(var / n), count=n)
