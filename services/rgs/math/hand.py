"""Player hand values against one dealer up card, composition-dependent.

Values are *unnormalised* when the dealer's blackjack is settled apart from the hand (a peeked
up card, or a dealer blackjack that takes the original bet only): a value is then
``E[payoff * 1{dealer has no blackjack}]``. Because the hole card is exchangeable with the
player's draws, that expectation is exact with the plain draw probabilities
``(n_r - R_r) / (N - |R|)``, and comparing unnormalised values at one state compares the
conditional ones (they share the positive factor ``P(no blackjack | cards seen)``).
Otherwise (no peek, dealer blackjack takes everything staked) the blackjack is one more dealer
outcome that beats every hand but a blackjack.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rgs.math.dealer import BLACKJACK, BUST, D17, FINAL_TOTALS, NOUTCOMES, PUSH, FloatArray
from rgs.math.shoe import NRANKS, Counts, add, plus, total_soft

#: Column of the stand-value table for a hand that wins on its card count (not at once).
CHARLIE_COL = 6


def stand_weights(excluded: bool) -> FloatArray:
    """Payoff per unit staked of a standing hand: rows dealer outcomes, columns the player's
    total (<=16, 17..21) and the card-count winner."""
    w = np.zeros((NOUTCOMES, 7))
    for col, t in enumerate((16, *FINAL_TOTALS)):
        for i, d in enumerate(FINAL_TOTALS):
            w[D17 + i, col] = (t > d) - (t < d)
        w[BUST, col] = 1.0
        w[BLACKJACK, col] = 0.0 if excluded else -1.0
    w[D17:BUST, CHARLIE_COL] = 1.0
    w[BUST, CHARLIE_COL] = 1.0
    w[PUSH, CHARLIE_COL] = 1.0
    w[BLACKJACK, CHARLIE_COL] = 0.0 if excluded else -1.0
    return w


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """How a hand may be played: the original hand after its first decision, or a split hand."""

    #: Cards out of the shoe that are not in this hand (the other split card).
    extra: Counts
    #: Double allowed on this hand's first two cards.
    double_two: bool
    #: Double allowed on more than two cards.
    double_any: bool
    #: The hand gets one card and stands (split aces).
    one_card: bool
    #: Cash Out offers open to this hand, as (total, soft) -> offer minus the stake (units).
    cash_out: dict[tuple[int, bool], float] | None = None


class UpCardTable:
    """Dealer outcomes and stand values for every composition of removed cards, one up card."""

    def __init__(self, *, up: int, shoe_less_up: Counts, index: dict[Counts, int],
                 dist: FloatArray, excluded: bool, peeked: bool, charlie: int | None,
                 charlie_at_once: bool) -> None:
        self.up = up
        self.avail = shoe_less_up
        self.left = sum(shoe_less_up)
        self.index = index
        self.dist = dist
        self.excluded = excluded
        self.peeked = peeked
        self.charlie = charlie
        self.charlie_at_once = charlie_at_once
        sv = dist @ stand_weights(excluded)
        self._stand: list[list[float]] = sv.tolist()
        mass = 1.0 - dist[:, BLACKJACK] if excluded else np.ones(dist.shape[0])
        self._mass: list[float] = mass.tolist()

    def probs(self, removed: Counts) -> list[float]:
        """Draw probability of each rank with ``removed`` (and the up card) out of the shoe."""
        left = self.left - sum(removed)
        return [(a - r) / left for a, r in zip(self.avail, removed, strict=True)]

    def p_blackjack(self, removed: Counts) -> float:
        """Probability that the dealer's hand is a blackjack given the cards removed."""
        left = self.left - sum(removed)
        if self.up == 0:
            return (self.avail[9] - removed[9]) / left
        if self.up == 9:
            return (self.avail[0] - removed[0]) / left
        return 0.0

    def mass(self, removed: Counts) -> float:
        """Weight of a fixed payoff: P(no dealer blackjack) when blackjack is apart, else 1."""
        if not self.excluded:
            return 1.0
        return 1.0 - self.p_blackjack(removed)

    def stand(self, hand: Counts, removed: Counts) -> float:
        """Value per unit of a finished hand (busted, card-count winner, or standing)."""
        total, _ = total_soft(hand)
        if total > 21:
            return -self.mass(removed)
        if self.charlie is not None and sum(hand) >= self.charlie:
            if self.charlie_at_once:
                return self.mass(removed)
            return self._stand[self.index[removed]][CHARLIE_COL]
        return self._stand[self.index[removed]][max(total, 16) - 16]

    def distribution(self, removed: Counts) -> list[float]:
        """Dealer outcome probabilities (a copy) given the removed cards."""
        row: list[float] = self.dist[self.index[removed]].tolist()
        return row


class HandPlayer:
    """Optimal values of a hand in play under one context, memoised on the hand's cards."""

    def __init__(self, table: UpCardTable, ctx: Context) -> None:
        self.t = table
        self.ctx = ctx
        self._memo: dict[Counts, float] = {}
        self._dbl: dict[Counts, float] = {}
        self._hit: dict[Counts, float] = {}
        self._removed: dict[Counts, Counts] = {}

    def removed(self, hand: Counts) -> Counts:
        """Cards out of the shoe for this hand."""
        got = self._removed.get(hand)
        if got is None:
            got = plus(hand, self.ctx.extra) if any(self.ctx.extra) else hand
            self._removed[hand] = got
        return got

    def finished(self, hand: Counts) -> bool:
        """The hand takes no more decisions (bust, 21, card count reached)."""
        total, _ = total_soft(hand)
        ch = self.t.charlie
        return total >= 21 or (ch is not None and sum(hand) >= ch)

    def stand(self, hand: Counts) -> float:
        """Value of standing (or of the hand as it is when finished)."""
        return self.t.stand(hand, self.removed(hand))

    def hit(self, hand: Counts) -> float:
        """Value of taking a card and then playing on optimally."""
        got = self._hit.get(hand)
        if got is None:
            ps = self.t.probs(self.removed(hand))
            got = 0.0
            for r in range(NRANKS):
                if ps[r] > 0.0:
                    got += ps[r] * self.value(add(hand, r))
            self._hit[hand] = got
        return got

    def double(self, hand: Counts) -> float:
        """Value of doubling (per original unit: twice the one-card result)."""
        got = self._dbl.get(hand)
        if got is None:
            ps = self.t.probs(self.removed(hand))
            got = 0.0
            for r in range(NRANKS):
                if ps[r] > 0.0:
                    h2 = add(hand, r)
                    got += ps[r] * self.t.stand(h2, self.removed(h2))
            got *= 2.0
            self._dbl[hand] = got
        return got

    def can_double(self, hand: Counts) -> bool:
        """Whether this context lets ``hand`` double."""
        n = sum(hand)
        return (n == 2 and self.ctx.double_two) or (n >= 2 and self.ctx.double_any)

    def cash_out(self, hand: Counts) -> float | None:
        """Value of taking the Cash Out offer, None when the hand has none.

        After a peek the offer is only made when the dealer has no blackjack; without one the
        player keeps the offer whatever the dealer turns up: both are ``mass * (offer - 1)``.
        """
        offers = self.ctx.cash_out
        if not offers:
            return None
        net = offers.get(total_soft(hand))
        return None if net is None else self.t.mass(self.removed(hand)) * net

    def value(self, hand: Counts) -> float:
        """Optimal value of a hand in play (stand, hit, double where allowed)."""
        got = self._memo.get(hand)
        if got is not None:
            return got
        if self.finished(hand) or (self.ctx.one_card and sum(hand) >= 2):
            got = self.stand(hand)
        else:
            got = max(self.stand(hand), self.hit(hand))
            if self.can_double(hand):
                got = max(got, self.double(hand))
            co = self.cash_out(hand)
            if co is not None:
                got = max(got, co)
        self._memo[hand] = got
        return got
