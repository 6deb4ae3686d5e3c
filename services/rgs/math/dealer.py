"""Exact dealer final-hand probabilities for many player compositions at once.

The dealer's cards after the up card (the hole card first, or the second card drawn later in a
no-hole-card game: the cards are exchangeable, so the order of the deal does not change the
joint probabilities) end as a multiset ``D``. How many draw orders of ``D`` are legal (no prefix
at which the dealer would already have stopped) depends only on the rules and the up card, not
on the shoe, so it is counted once. Given the cards ``R`` already removed, any one order of
``D`` has probability ``prod_r ff(n_r - R_r, d_r) / ff(N - |R|, |D|)`` (``ff`` the falling
factorial), hence ``P(D | R) = orders(D) * that``. The products are built along a trie of the
multisets in canonical order, one numpy multiply per trie node for *all* compositions ``R`` at
once, which is what makes a pure-Python composition-dependent analysis fast.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rgs.math.shoe import NRANKS, Counts, add, hard_sum

#: Outcome columns of a dealer distribution.
D17, D18, D19, D20, D21, BUST, PUSH, BLACKJACK = range(8)
NOUTCOMES = 8
#: Dealer final totals for columns D17..D21.
FINAL_TOTALS = (17, 18, 19, 20, 21)

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerRules:
    """The rules that decide when the dealer stops and how a final hand is classed."""

    hits_soft_17: bool
    #: A final total that pushes live hands instead of busting (None: every total over 21 busts).
    push_total: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerFinals:
    """Every final multiset of the dealer's drawn cards for one up card, with its legal orders."""

    up: int
    #: (drawn cards, number of legal draw orders, outcome column).
    finals: tuple[tuple[Counts, int, int], ...]


def _stops(hard: int, ace: bool, rules: DealerRules) -> bool:
    if hard > 21:
        return True
    if ace and hard + 10 <= 21:
        total = hard + 10
        return total > 17 or (total == 17 and not rules.hits_soft_17)
    return hard >= 17


def stops(hard: int, ace: bool, rules: DealerRules) -> bool:
    """Whether the dealer stops on a hand of ``hard`` (aces as one) holding an ace or not: the
    rule every dealer probability here is counted with (the monitoring's per-hand check,
    :mod:`rgs.rtp.check`, holds the engine's draws to it)."""
    return _stops(hard, ace, rules)


def _outcome(up: int, drawn: Counts, rules: DealerRules) -> int:
    hard = hard_sum(drawn) + up + 1
    ace = drawn[0] > 0 or up == 0
    if sum(drawn) == 1 and ace and hard == 11:
        return BLACKJACK
    total = hard + 10 if ace and hard + 10 <= 21 else hard
    if total <= 21:
        return D17 + total - 17
    if rules.push_total is not None and total == rules.push_total:
        return PUSH
    return BUST


def dealer_finals(up: int, rules: DealerRules) -> DealerFinals:
    """Enumerate the dealer's final multisets after up card ``up`` (a rank index)."""
    zero: Counts = (0,) * NRANKS
    level: dict[Counts, int] = {zero: 1}
    finals: dict[Counts, int] = {}
    while level:
        nxt: dict[Counts, int] = {}
        for drawn, ways in level.items():
            for r in range(NRANKS):
                d2 = add(drawn, r)
                hard = hard_sum(d2) + up + 1
                ace = d2[0] > 0 or up == 0
                if _stops(hard, ace, rules):
                    finals[d2] = finals.get(d2, 0) + ways
                else:
                    nxt[d2] = nxt.get(d2, 0) + ways
        level = nxt
    rows = tuple((d, w, _outcome(up, d, rules)) for d, w in sorted(finals.items()))
    return DealerFinals(up=up, finals=rows)


def dealer_distributions(finals: DealerFinals, shoe: Counts,
                         removed: npt.NDArray[np.int64]) -> FloatArray:
    """Dealer outcome probabilities (unconditional: blackjack is a column) for each row of
    ``removed`` (an ``(M, 10)`` array of cards out of the shoe besides the up card)."""
    m = removed.shape[0]
    base = np.array(shoe, dtype=np.float64)
    base[finals.up] -= 1.0
    avail = base[None, :] - removed.astype(np.float64)  # (M, 10)
    left = avail.sum(axis=1)
    max_draw = max(sum(d) for d, _, _ in finals.finals)
    # denominators ff(left, k) for k = 1..max_draw
    denom = np.ones((max_draw + 1, m))
    for k in range(1, max_draw + 1):
        denom[k] = denom[k - 1] * (left - (k - 1))
    out = np.zeros((m, NOUTCOMES))
    prefix: dict[Counts, FloatArray] = {}

    def product(d: Counts) -> FloatArray:
        # canonical order: remove one card of the highest rank present
        got = prefix.get(d)
        if got is not None:
            return got
        r = max(i for i in range(NRANKS) if d[i])
        parent = (*d[:r], d[r] - 1, *d[r + 1:])
        pp = product(parent) if any(parent) else None
        factor = avail[:, r] - (d[r] - 1)
        np.maximum(factor, 0.0, out=factor)
        val = factor if pp is None else pp * factor
        prefix[d] = val
        return val

    for d, ways, col in finals.finals:
        out[:, col] += ways * product(d) / denom[sum(d)]
    return out
