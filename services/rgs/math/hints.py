"""Exact decision values for a hand in play, from the composition-dependent analysis.

For the cards a player holds against the dealer's up card, the value of each decision is what
:mod:`rgs.math.analysis` computes for that exact composition (the shoe less the player's cards
and the up card), in main bets, as the player sees it at the decision: after a peek that found
no dealer blackjack, the value given that the dealer has none. The first decision of a hand is
the analysis' root hand (every action, with splits and Power Double); later decisions are the
hand player's stand, hit, double and Cash Out values. Split hands get no values (their value
depends on the other split hand; the analysis does not value them one at a time).

Everything is cached: one dealer table per (rules, up card) (a fraction of a second once), then
one entry per (rules, up card, composition, first decision).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from rgs.engine import Action, RuleSet
from rgs.math import analysis as an
from rgs.math.analysis import (
    RootHand,
    UpCardAnalysis,
    build_table,
    deal_weight,
    removed_compositions,
    two_card_hands,
)
from rgs.math.analysis_player import ROOT_ACTIONS, counts, rank
from rgs.math.cashout import fold_fair_returns
from rgs.math.hand import UpCardTable
from rgs.math.shoe import RANK_NAMES, Counts, fits, total_soft

#: Decisions that have a value (insurance and Power Double's keep/replace have none here).
VALUED = frozenset(ROOT_ACTIONS.values())


@lru_cache(maxsize=16)
def _compositions(rules: RuleSet) -> list[Counts]:
    return removed_compositions(rules)


@lru_cache(maxsize=128)
def _table(rules: RuleSet, up: int) -> UpCardTable:
    return build_table(rules, up, _compositions(rules))


@lru_cache(maxsize=256)
def up_card_analysis(rules: RuleSet, up: int, *, cash_out: bool = True) -> UpCardAnalysis:
    """The analysis of every hand against one up card (rank index), as the PAR sheet's: with
    the variant's Cash Out offers open to the player (``cash_out``), or without them (as the
    Cash Out table itself was designed)."""
    offers = None
    if cash_out and rules.cash_out is not None:
        name = RANK_NAMES[up]
        offers = {(t, soft): bp / 10_000 - 1.0
                  for (t, soft, u), bp in rules.cash_out.offers_bp.items() if u == name}
    return UpCardAnalysis(rules, _table(rules, up), offers)


@lru_cache(maxsize=8192)
def _values(rules: RuleSet, up: int, hand: Counts, first: bool
            ) -> Mapping[Action, float]:
    ua = up_card_analysis(rules, up)
    if first:
        root = ua.root(hand, 1.0)
    else:
        pl = ua.original
        acts = {an.STAND: pl.stand(hand), an.HIT: pl.hit(hand)}
        if pl.can_double(hand):
            acts[an.DOUBLE] = pl.double(hand)
        offer = pl.cash_out(hand)
        if offer is not None:
            acts[an.CASH_OUT] = offer
        t = ua.t
        root = RootHand(hand=hand, up=up, weight=1.0, p_blackjack=t.p_blackjack(hand),
                        peeked=t.peeked, excluded=t.excluded, actions=acts)
    return MappingProxyType({ROOT_ACTIONS[code]: root.decision_ev(code)
                             for code in root.actions if code in ROOT_ACTIONS})


def decision_values(rules: RuleSet, up_card: str, cards: tuple[str, ...], *,
                    first: bool) -> Mapping[Action, float]:
    """Each decision's expected result in main bets for ``cards`` against ``up_card``
    (``first``: the hand's first decision, two cards, not from a split)."""
    return _values(rules, rank(up_card), counts(cards), first)


@lru_cache(maxsize=1024)
def _fair_return(rules: RuleSet, up: int, total: int, soft: bool) -> float | None:
    ua = up_card_analysis(rules, up, cash_out=False)
    avail = ua.t.avail
    roots = [ua.root(h, deal_weight(avail, h)) for h in two_card_hands()
             if fits(h, avail) and total_soft(h) == (total, soft)]
    return fold_fair_returns(roots).get((total, soft, RANK_NAMES[up]))


def cash_out_fair_return(rules: RuleSet, up_card: str, cards: tuple[str, ...]) -> float | None:
    """The fair return (1 + expected result at the decision, per unit staked) the Cash Out
    table prices its offer for these cards from: the value of the two-card hands of the same
    total against the up card, as :func:`rgs.math.cashout.fair_returns` defines it (None when
    no two-card hand makes the total)."""
    total, soft = total_soft(counts(cards))
    return _fair_return(rules, rank(up_card), total, soft)


def warm(rules: RuleSet) -> None:
    """Build the dealer tables of every up card now (a fraction of a second each), so that no
    player's Act waits for one."""
    for up in range(len(RANK_NAMES)):
        _table(rules, up)


def cache_info() -> str:
    """How the caches are doing (for the bench)."""
    return f"tables {up_card_analysis.cache_info()}, values {_values.cache_info()}"
