"""How many hands a split ends with: the resplit approximation.

After a pair is split each new hand draws its second card; when that card pairs it again and
the rules leave room (split depth and hand count), the player resplits. The chance of pairing is
taken as constant (the probability after the first two pair cards are out), the standard
approximation of combinatorial analysers; the hands themselves are valued with their own cards
and the other split card removed. The result is the distribution of (hands that drew a
non-pair card, hands that kept a pair they could not split).
"""

from __future__ import annotations

from functools import cache


def split_hand_counts(p_pair: float, *, max_depth: int, max_hands: int,
                      resplit: bool) -> dict[tuple[int, int], float]:
    """Probability of each final (non-pair hands, unsplittable pair hands) after one split."""

    @cache
    def rec(pending: tuple[int, ...], hands: int) -> tuple[tuple[tuple[int, int], float], ...]:
        if not pending:
            return (((0, 0), 1.0),)
        depth, rest = pending[0], pending[1:]
        out: dict[tuple[int, int], float] = {}
        for (a, b), pr in rec(rest, hands):
            key = (a + 1, b)
            out[key] = out.get(key, 0.0) + (1.0 - p_pair) * pr
        if resplit and depth < max_depth and hands < max_hands:
            for key, pr in rec((depth + 1, depth + 1, *rest), hands + 1):
                out[key] = out.get(key, 0.0) + p_pair * pr
        else:
            for (a, b), pr in rec(rest, hands):
                key = (a, b + 1)
                out[key] = out.get(key, 0.0) + p_pair * pr
        return tuple(sorted(out.items()))

    return dict(rec((1, 1), 2))


def expected_counts(dist: dict[tuple[int, int], float]) -> tuple[float, float]:
    """Expected numbers of non-pair and pair hands."""
    return (sum(a * p for (a, _), p in dist.items()), sum(b * p for (_, b), p in dist.items()))
