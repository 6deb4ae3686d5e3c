"""Composition-dependent analysis of the main game for any :class:`RuleSet`.

For every dealer up card and every two-card starting hand the value of each allowed action is
computed from the exact shoe composition (the three cards seen removed); the best action is
taken per composition (composition-dependent play of the original hand). Hands after a split
are played optimally for their own cards plus the other split card removed, with resplits by
the constant-pair-probability approximation of :mod:`rgs.math.splits`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rgs.engine.rules import CashOutTable, Peek, RuleSet, Surrender
from rgs.math.dealer import DealerRules, dealer_distributions, dealer_finals
from rgs.math.errors import MathError
from rgs.math.hand import Context, HandPlayer, UpCardTable
from rgs.math.shoe import (
    NRANKS,
    RANK_NAMES,
    ZERO,
    Counts,
    add,
    fits,
    full_shoe,
    hands_up_to,
    hard_sum,
    plus,
    total_soft,
    unit,
)
from rgs.math.splits import expected_counts, split_hand_counts

#: Action codes of a root decision.
STAND, HIT, DOUBLE, SPLIT, SURRENDER, POWER_DOUBLE, POWER_SPLIT, BLACKJACK_PAID, CASH_OUT = (
    "S", "H", "D", "P", "R", "PD", "PS", "BJ", "C")


@dataclass(frozen=True, slots=True, kw_only=True)
class RootHand:
    """One starting hand against one up card, with the value of every allowed action."""

    hand: Counts
    up: int
    #: Probability of this (up card, hand) deal.
    weight: float
    #: Probability of a dealer blackjack given the three cards seen.
    p_blackjack: float
    #: The up card is peeked (the dealer blackjack is known before the player acts).
    peeked: bool
    #: Dealer blackjack settled apart from the actions (peeked or taking the original bet only).
    excluded: bool
    #: Action code -> value (unnormalised when ``excluded``; see :mod:`rgs.math.hand`).
    actions: dict[str, float]
    #: For Power Double: per first double card (rank index), True when replacing it is better.
    replace: tuple[bool, ...] = ()

    @property
    def best(self) -> str:
        """The optimal action code."""
        return max(self.actions, key=lambda a: self.actions[a])

    @property
    def blackjack_part(self) -> float:
        """What the separately settled dealer blackjack adds to the hand's value."""
        if not self.excluded or BLACKJACK_PAID in self.actions:
            return 0.0
        return -self.p_blackjack

    @property
    def ev(self) -> float:
        """Expected result per unit of main bet under optimal play."""
        return self.actions[self.best] + self.blackjack_part

    def decision_ev(self, action: str) -> float:
        """Value of ``action`` as the player sees it at the decision (after a peek found no
        blackjack; before a late blackjack otherwise)."""
        v = self.actions[action] + (0.0 if self.peeked else self.blackjack_part)
        return v / (1.0 - self.p_blackjack) if self.peeked else v


@dataclass(frozen=True, slots=True, kw_only=True)
class MainGame:
    """The main game's analysis: every root hand, and the tables needed to play on."""

    rules: RuleSet
    roots: tuple[RootHand, ...]
    #: Per up card (rank index), the hand players behind the root values.
    analyses: dict[int, UpCardAnalysis] = field(default_factory=dict, compare=False)

    @property
    def ev(self) -> float:
        """Expected result per unit of main bet (negative: the house edge)."""
        return sum(r.weight * r.ev for r in self.roots)

    @property
    def rtp(self) -> float:
        """Return to player in percent."""
        return 100.0 * (1.0 + self.ev)


def dealer_rules(rules: RuleSet) -> DealerRules:
    """The dealer-stopping part of a rule set."""
    return DealerRules(hits_soft_17=rules.dealer_hits_soft_17, push_total=rules.dealer_push_total)


def is_peeked(rules: RuleSet, up: int) -> bool:
    """Whether the dealer checks for blackjack before the players act with this up card."""
    if not rules.hole_card:
        return False
    if rules.peek is Peek.ACE_AND_TEN:
        return up in (0, 9)
    if rules.peek is Peek.ACE_ONLY:
        return up == 0
    return False


def removed_compositions(rules: RuleSet) -> list[Counts]:
    """Every composition of removed cards the analysis looks up: each hand of hard total up
    to 21, and such a hand with the other split card (or a replaced Power Double card) out."""
    shoe = full_shoe(rules.decks)
    base = list(hands_up_to(21))
    out = set(base)
    partners: set[tuple[int, int]] = set()  # (card in the hand, card out besides it)
    if rules.max_split_depth >= 1:
        partners.update((p, p) for p in range(NRANKS))
    for a in range(1, NRANKS):
        for b in range(1, NRANKS):
            if a != b and a + b + 2 in rules.power_split_totals:
                partners.add((a, b))
    for h in base:
        for first, other in partners:
            if h[first]:
                out.add(add(h, other))
    for h in two_card_hands():
        if hard_sum(h) in rules.power_double_counts:
            for r in range(NRANKS):
                for s in range(NRANKS):
                    if hard_sum(h) + s + 1 <= 21:
                        out.add(add(add(h, r), s))
    return sorted(c for c in out if fits(c, shoe))


def build_table(rules: RuleSet, up: int, comps: list[Counts]) -> UpCardTable:
    """Dealer distributions and stand values for one up card."""
    shoe = full_shoe(rules.decks)
    less = add(shoe, up, -1)
    usable = [c for c in comps if fits(c, less)]
    dist = dealer_distributions(dealer_finals(up, dealer_rules(rules)), shoe,
                                np.array(usable, dtype=np.int64))
    peeked = is_peeked(rules, up)
    return UpCardTable(up=up, shoe_less_up=less, index={c: i for i, c in enumerate(usable)},
                       dist=dist, excluded=peeked or not rules.late_blackjack_takes_all,
                       peeked=peeked, charlie=rules.charlie_cards,
                       charlie_at_once=rules.charlie_wins_at_once)


def split_context(rules: RuleSet, first: int, extra: Counts, *, power: bool) -> Context:
    """How a split (or Power Split) hand starting with ``first`` is played, with ``extra`` the
    cards out of the shoe that are not in it: no double after split where the rules forbid it,
    split aces one card each where they say so."""
    aces = first == 0 and not power
    das = rules.double_after_split and (not aces or rules.double_split_aces)
    return Context(extra=extra, double_two=das, double_any=das and rules.double_any_cards,
                   one_card=aces and rules.split_aces_one_card)


class UpCardAnalysis:
    """Root-hand values against one up card."""

    def __init__(self, rules: RuleSet, table: UpCardTable,
                 cash_out: dict[tuple[int, bool], float] | None = None) -> None:
        self.rules = rules
        self.t = table
        self.original = HandPlayer(table, Context(
            extra=ZERO, double_two=True, double_any=rules.double_any_cards, one_card=False,
            cash_out=cash_out))
        self.players: dict[str, HandPlayer] = {"orig": self.original}

    def split_player(self, first: int, other: int, *, power: bool) -> HandPlayer:
        """The player of a hand that starts with ``first`` while ``other`` is out too."""
        key = f"{'ps' if power else 'sp'}{first}{other}"
        got = self.players.get(key)
        if got is None:
            got = HandPlayer(self.t, split_context(self.rules, first, unit(other), power=power))
            self.players[key] = got
        return got

    def _split_hand_values(self, first: int, other: int, *, power: bool) -> list[float]:
        pl = self.split_player(first, other, power=power)
        start = add(unit(first), other)
        ps = self.t.probs(start)
        return [ps[x] * pl.value(add(unit(first), x)) if ps[x] > 0 else 0.0
                for x in range(NRANKS)]

    def split_value(self, pair: int) -> float:
        """Value of splitting a pair of rank index ``pair`` (all hands, per original unit)."""
        r = self.rules
        terms = self._split_hand_values(pair, pair, power=False)
        p = self.t.probs(add(unit(pair), pair))[pair]
        resplit = r.max_split_depth >= 2 and (pair != 0 or r.resplit_aces)
        if not resplit or p <= 0.0 or p >= 1.0:
            return 2.0 * sum(terms)
        v_pp = terms[pair] / p
        v_np = (sum(terms) - terms[pair]) / (1.0 - p)
        counts = split_hand_counts(p, max_depth=r.max_split_depth, max_hands=r.max_hands,
                                   resplit=self.resplits(pair))
        e_np, e_pp = expected_counts(counts)
        return e_np * v_np + e_pp * v_pp

    def resplits(self, pair: int) -> bool:
        """Whether a split hand that pairs again is split again (when the rules allow): a fresh
        split hand is worth more than the pair hand played on."""
        terms = self._split_hand_values(pair, pair, power=False)
        p = self.t.probs(add(unit(pair), pair))[pair]
        if p <= 0.0 or p >= 1.0:
            return False
        v_pp = terms[pair] / p
        v_np = (sum(terms) - terms[pair]) / (1.0 - p)
        return 2.0 * (p * v_pp + (1.0 - p) * v_np) > v_pp

    def power_split_value(self, a: int, b: int) -> float:
        """Value of a Power Split of the non-pair ``a``, ``b`` (both hands)."""
        return (sum(self._split_hand_values(a, b, power=True))
                + sum(self._split_hand_values(b, a, power=True)))

    def power_double(self, hand: Counts) -> tuple[float, tuple[bool, ...]]:
        """Value of Power Double and, per first double card, whether to replace it."""
        t = self.t
        ps = t.probs(hand)
        total = 0.0
        choice: list[bool] = []
        for r in range(NRANKS):
            if ps[r] <= 0.0:
                choice.append(False)
                continue
            keep, repl = self.power_choice(hand, r)
            choice.append(repl > keep)
            total += ps[r] * max(keep, repl)
        return 2.0 * total, tuple(choice)

    def power_choice(self, hand: Counts, card: int) -> tuple[float, float]:
        """Per unit of the original bet (the doubled stake is twice that), the values of keeping
        and of replacing the Power Double card ``card`` dealt to the two-card ``hand``: the
        replaced card stays out of the shoe, the next card is final."""
        t = self.t
        kept = add(hand, card)
        keep = t.stand(kept, kept)
        qs = t.probs(kept)
        repl = sum(qs[s] * t.stand(add(hand, s), add(kept, s))
                   for s in range(NRANKS) if qs[s] > 0.0)
        return keep, repl

    def root(self, hand: Counts, weight: float) -> RootHand:
        """Every allowed action's value for a two-card starting hand."""
        r, t = self.rules, self.t
        pbj = t.p_blackjack(hand)
        total, _ = total_soft(hand)

        def make(acts: dict[str, float], replace: tuple[bool, ...] = ()) -> RootHand:
            return RootHand(hand=hand, up=t.up, weight=weight, p_blackjack=pbj,
                            peeked=t.peeked, excluded=t.excluded, actions=acts, replace=replace)

        if total == 21:
            return make({BLACKJACK_PAID: float(r.blackjack_pays) * (1.0 - pbj)})
        pl = self.original
        acts = {STAND: pl.stand(hand), HIT: pl.hit(hand)}
        replace: tuple[bool, ...] = ()
        if hard_sum(hand) in r.power_double_counts:
            acts[POWER_DOUBLE], replace = self.power_double(hand)
        else:
            acts[DOUBLE] = pl.double(hand)
        co = pl.cash_out(hand)
        if co is not None:
            acts[CASH_OUT] = co
        if r.surrender is Surrender.LATE:
            acts[SURRENDER] = -0.5 * t.mass(hand)
        pair = next((i for i in range(NRANKS) if hand[i] == 2), None)
        if pair is not None and r.max_split_depth >= 1:
            acts[SPLIT] = self.split_value(pair)
        elif pair is None and hand[0] == 0 and total in r.power_split_totals:
            a, b = (i for i in range(NRANKS) if hand[i])
            acts[POWER_SPLIT] = self.power_split_value(a, b)
        return make(acts, replace)


def deal_weight(avail: Counts, hand: Counts) -> float:
    """Probability of being dealt the two-card ``hand`` from ``avail``."""
    n = sum(avail)
    ranks = [i for i in range(NRANKS) if hand[i]]
    if len(ranks) == 1:
        a = avail[ranks[0]]
        return a * (a - 1) / (n * (n - 1))
    a, b = (avail[i] for i in ranks)
    return 2.0 * a * b / (n * (n - 1))


def two_card_hands() -> list[Counts]:
    """The 55 two-card starting compositions."""
    return [plus(unit(a), unit(b)) for a in range(NRANKS) for b in range(a, NRANKS)]


def analyse_main(rules: RuleSet, cash_out: CashOutTable | None = None) -> MainGame:
    """Composition-dependent analysis of the main game of ``rules``.

    With ``cash_out`` the player may also take its offers wherever the engine makes them (an
    unsplit, undoubled hand awaiting a decision) and does when that is worth more.
    """
    if rules.decks < 1:
        raise MathError("a shoe needs at least one deck")
    shoe = full_shoe(rules.decks)
    n = sum(shoe)
    comps = removed_compositions(rules)
    roots: list[RootHand] = []
    analyses: dict[int, UpCardAnalysis] = {}
    for up in range(NRANKS):
        p_up = shoe[up] / n
        table = build_table(rules, up, comps)
        offers = None
        if cash_out is not None:
            name = RANK_NAMES[up]
            offers = {(t, soft): bp / 10_000 - 1.0
                      for (t, soft, u), bp in cash_out.offers_bp.items() if u == name}
        ua = UpCardAnalysis(rules, table, offers)
        less = table.avail
        for hand in two_card_hands():
            if not fits(hand, less):
                continue
            roots.append(ua.root(hand, p_up * deal_weight(less, hand)))
        analyses[up] = ua
    return MainGame(rules=rules, roots=tuple(roots), analyses=analyses)
