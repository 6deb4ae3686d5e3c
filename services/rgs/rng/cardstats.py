"""Chi-square tests of cards as the game deals them: through the real engine and shoe.

Three questions a lab asks of scaled outcomes, each answered by a Pearson chi-square test:

* **Rank, suit, card** — is every rank / suit / card code dealt equally often?
* **Position** — is every card equally likely at every position of the deal order (each draw from
  the shoe is one position of a lazily shuffled shoe), and of a full Fisher–Yates shuffle?
* **Pairs** — are consecutive cards independent, given that they come from one shoe without
  replacement? (A repeat of the same rank is slightly less likely than another rank; the expected
  counts use the exact without-replacement probabilities.)

Only the cards dealt at :meth:`Round.deal` time are counted: their number is fixed by the table,
whereas later cards depend on the totals (a dealer on 12 draws more), and tallying them would
measure the game's stopping rule, not the RNG.

Exactness. Rounds are independent (a fresh shoe each), so any table with one count per round is
an exact multinomial and Pearson's statistic is chi-square distributed: the position table (one
card per position per round) and the pair table (the round's first two cards). The per-rank,
per-suit and per-card tallies count ``k`` cards drawn without replacement from one shoe of ``N``
cards in each round; their statistic is ``(N − k)/(N − 1)`` times a chi-square (the finite
population correction of the multivariate hypergeometric), so it is divided by that factor.
"""

from __future__ import annotations

from collections.abc import Callable, MutableSequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.stats import chi2

from rgs.engine import BoxBet, CardDealt, CardSource, Round, RuleSet, Shoe, VerifiedBets
from rgs.engine.cards import DECK, RANKS, SUITS

CARD_INDEX = {c: i for i, c in enumerate(DECK)}
#: Index of a card's rank / suit, by card index in :data:`DECK` order (suit-major).
RANK_OF = np.array([RANKS.index(c[0]) for c in DECK], dtype=np.int64)
SUIT_OF = np.array([SUITS.index(c[1]) for c in DECK], dtype=np.int64)

CardMatrix = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True, kw_only=True)
class ChiSquare:
    """One Pearson chi-square test: statistic, degrees of freedom, P-value, sample size."""

    name: str
    statistic: float
    dof: int
    p_value: float
    samples: int

    def passed(self, alpha: float = 0.01) -> bool:
        """True when the P-value is at least ``alpha``."""
        return self.p_value >= alpha


def chi_square(name: str, observed: npt.ArrayLike, expected: npt.ArrayLike,
               dof: int | None = None, scale: float = 1.0) -> ChiSquare:
    """Pearson's test of ``observed`` counts against ``expected`` counts (cells − 1 dof).

    ``scale`` divides the statistic (the finite population correction, see the module docstring).
    """
    obs = np.asarray(observed, dtype=np.float64).ravel()
    exp = np.asarray(expected, dtype=np.float64).ravel()
    stat = float(((obs - exp) ** 2 / exp).sum()) / scale
    df = len(obs) - 1 if dof is None else dof
    return ChiSquare(name=name, statistic=stat, dof=df, p_value=float(chi2.sf(stat, df)),
                     samples=int(obs.sum()))


def deal_cards_per_round(rules: RuleSet) -> int:
    """Cards every deal draws, whatever they are: two per box, the up card, the hole card."""
    return 2 * rules.max_boxes + (2 if rules.hole_card else 1)


def deal_rounds(rules: RuleSet, source_for: Callable[[Shoe], CardSource], rounds: int,
                progress: Callable[[int], None] | None = None) -> CardMatrix:
    """Deal ``rounds`` rounds with every box played; the deal-time cards, one row per round.

    Each round gets a fresh full shoe of the variant's decks via ``source_for`` (the service's
    card-source factory), exactly as production deals. Cards are indexes into :data:`DECK`.
    """
    k = deal_cards_per_round(rules)
    bets = VerifiedBets(rules=rules, boxes=tuple(
        BoxBet(seat=s, stake=rules.limits.main_min) for s in range(1, rules.max_boxes + 1)))
    out = np.empty((rounds, k), dtype=np.int64)
    for r in range(rounds):
        rnd = Round.deal(rules, source_for(Shoe.of_decks(rules.decks)), bets)
        dealt = [CARD_INDEX[e.card] for e in rnd.events if isinstance(e, CardDealt)]
        out[r] = dealt[:k]
        if progress is not None and r % 1000 == 0:
            progress(r)
    return out


def rank_suit_card_tests(cards: CardMatrix, decks: int) -> list[ChiSquare]:
    """Uniformity of dealt ranks (12 dof), suits (3 dof) and card codes (51 dof)."""
    flat = cards.ravel()
    n = len(flat)
    shoe = 52 * decks
    fpc = (shoe - cards.shape[1]) / (shoe - 1)
    return [
        chi_square("dealt rank", np.bincount(RANK_OF[flat], minlength=13), np.full(13, n / 13),
                   scale=fpc),
        chi_square("dealt suit", np.bincount(SUIT_OF[flat], minlength=4), np.full(4, n / 4),
                   scale=fpc),
        chi_square("dealt card", np.bincount(flat, minlength=52), np.full(52, n / 52),
                   scale=fpc),
    ]


def position_test(cards: CardMatrix, name: str = "deal position × card") -> ChiSquare:
    """Every card code equally likely at every position (each position: 51 dof).

    Each position's row is an exact multinomial over rounds. Positions of one round share a
    shoe, which leaves the statistic's mean at exactly k·51 and changes its variance by under
    0.01 % for 16 cards from 416, so the plain chi-square reference is kept.
    """
    rows, k = cards.shape
    table = np.zeros((k, 52), dtype=np.int64)
    for pos in range(k):
        table[pos] = np.bincount(cards[:, pos], minlength=52)
    return chi_square(name, table, np.full(table.shape, rows / 52), dof=k * 51)


def pair_tests(cards: CardMatrix, decks: int) -> list[ChiSquare]:
    """The first two cards of each round: rank pairs (168 dof) and suit pairs (15 dof).

    Expected counts are exact for draws without replacement from a full ``decks``-deck shoe:
    P(r, r') = 1/13 · (4·decks − [r = r']) / (52·decks − 1), and likewise for suits. One pair per
    round keeps the counts multinomial (overlapping pairs would not be).
    """
    first, second = cards[:, 0], cards[:, 1]
    n = len(first)
    total = 52 * decks - 1
    out = []
    for name, of, kinds, per_kind in (("consecutive rank pair", RANK_OF, 13, 4 * decks),
                                      ("consecutive suit pair", SUIT_OF, 4, 13 * decks)):
        observed = np.bincount(of[first] * kinds + of[second], minlength=kinds * kinds)
        same = np.eye(kinds)
        expected = n / kinds * (per_kind - same) / total
        out.append(chi_square(name, observed, expected))
    return out


def shuffle_position_test(shuffle: Callable[[MutableSequence[str]], None], shuffles: int,
                          *, decks: int = 1, name: str = "shuffle position × card",
                          progress: Callable[[int], None] | None = None) -> ChiSquare:
    """Full-shoe shuffles: every card code equally likely at every position.

    The table (N = 52·decks positions × 52 card codes) sums shuffles whose rows each hold one
    card and whose columns each hold ``decks`` cards, so its counts are not a plain multinomial:
    the count vector's covariance is N/(N − 1) times a projection of rank (N − 1)·51. Pearson's
    statistic is therefore N/(N − 1) times a chi-square with (N − 1)·51 dof, and is divided by
    that factor (without it a perfect shuffle would show P-values skewed towards 0).
    """
    size = 52 * decks
    table = np.zeros((size, 52), dtype=np.int64)
    positions = np.arange(size)
    for s in range(shuffles):
        cards = list(Shoe.of_decks(decks).cards())
        shuffle(cards)
        np.add.at(table, (positions, np.array([CARD_INDEX[c] for c in cards])), 1)
        if progress is not None and s % 1000 == 0:
            progress(s)
    return chi_square(name, table, np.full(table.shape, shuffles / 52), dof=(size - 1) * 51,
                      scale=size / (size - 1))


def engine_draw_shuffle(source_for: Callable[[Shoe], CardSource]) -> Callable[
        [MutableSequence[str]], None]:
    """A "shuffle" that empties the shoe through the engine's card source, one draw at a time.

    This is how the game orders a shoe: position ``k`` is the ``k``-th draw.
    """

    def shuffle(cards: MutableSequence[str]) -> None:
        source = source_for(Shoe(cards))
        cards[:] = [source.draw() for _ in range(len(cards))]

    return shuffle
