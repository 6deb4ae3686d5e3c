"""Exact decision values for a hand in play, from the composition-dependent analysis.

Every value is the expected result, in main bets (units of the box's main bet; a split hand's
stake is one main bet, a doubled hand's two), of taking the decision and then playing on
optimally, for the cards of the player's box against the dealer's up card: the shoe less the up
card and every card of the box (other boxes' cards are not counted, as in the PAR sheet). It is
the value as the player sees it at the decision: after a peek that found no dealer blackjack,
the value given that the dealer has none; without a peek, a dealer blackjack still to come is
in it.

* The first decision of a hand is the analysis' root hand (every action, with splits and Power
  Double); later decisions of an unsplit hand are the hand player's stand, hit, double and
  Cash Out values (:meth:`HintTables.decision_values`).
* A split (or Power Split) hand is valued alone (:meth:`HintTables.split_hand_values`): what
  THIS hand returns on its own stake, with the cards of the box's other hands out of the shoe and
  the rules of split hands (double after split only where allowed, split aces one card, no Cash
  Out, surrender or Power Double). A resplit is worth both hands it makes, each played on for
  its own cards plus the other's first card (further resplits by the analysis' constant
  pair-probability approximation, :mod:`rgs.math.splits`). The other hands' results are not
  in it: played on in a fixed way, a later hand's expected result does not depend on what this
  hand does (the cards it will draw are unseen either way: the expectation is a martingale);
  only what it then knows of this hand's cards could change its own best play, a second-order
  effect left out (as the analysis leaves it out of the split's value).
* Insurance (even money on a blackjack) is the insurance stake's exact expectation, 2 to 1 when
  the hole card is ten-valued, ``(3 × P(ten) − 1) × insurance stake``, plus the hand's value
  played on optimally from the deal (dealer blackjack included):
  :meth:`HintTables.insurance_values`.
* Power Double's keep and replace are the doubled stake's values of standing with the card
  shown or with the next one, the shown card out of the shoe:
  :meth:`HintTables.power_choice_values`.

Everything is cached in the :class:`HintTables` that asks (the app owns one and hands it to the
game and the tables): one dealer table per (rules, up card) (a fraction of a second once), one
entry per (rules, up card, composition, first decision); a split hand adds one small dealer
table per (rules, up card, first card, other cards of the box), built once for the hand.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from fractions import Fraction
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
    split_context,
    two_card_hands,
)
from rgs.math.analysis_player import ROOT_ACTIONS, counts, rank
from rgs.math.cashout import fold_fair_returns
from rgs.math.hand import HandPlayer, UpCardTable
from rgs.math.shoe import (
    NRANKS,
    RANK_NAMES,
    ZERO,
    Counts,
    add,
    fits,
    hands_up_to,
    hard_sum,
    plus,
    total_soft,
    unit,
)
from rgs.math.splits import expected_counts, split_hand_counts


class HintTables:
    """The analysis' caches, one set per owner (the app builds one and hands it to the game and
    the tables; a simulation or a bench builds its own): the dealer tables and the values
    computed from them, kept for the owner's life, and the background build of the tables a
    replica's brands need (:meth:`warm_in_background`)."""

    def __init__(self) -> None:
        self._compositions = lru_cache(maxsize=16)(removed_compositions)
        self._table = lru_cache(maxsize=128)(self._build_table)
        self._analysis = lru_cache(maxsize=256)(self._build_analysis)
        self._values = lru_cache(maxsize=8192)(self._build_values)
        self._fair_return = lru_cache(maxsize=1024)(self._build_fair_return)
        self._split_player = lru_cache(maxsize=512)(self._build_split_player)
        self._split_values = lru_cache(maxsize=8192)(self._build_split_values)
        self._insurance = lru_cache(maxsize=4096)(self._build_insurance)
        self._power_choice = lru_cache(maxsize=1024)(self._build_power_choice)
        self._warm_lock = threading.Lock()
        self._warming: set[RuleSet] = set()

    def _build_table(self, rules: RuleSet, up: int) -> UpCardTable:
        return build_table(rules, up, self._compositions(rules))

    def up_card_analysis(self, rules: RuleSet, up: int, *, cash_out: bool = True
                         ) -> UpCardAnalysis:
        """The analysis of every hand against one up card (rank index), as the PAR sheet's:
        with the variant's Cash Out offers open to the player (``cash_out``), or without them
        (as the Cash Out table itself was designed)."""
        return self._analysis(rules, up, cash_out)

    def _build_analysis(self, rules: RuleSet, up: int, cash_out: bool) -> UpCardAnalysis:
        offers = None
        if cash_out and rules.cash_out is not None:
            name = RANK_NAMES[up]
            offers = {(t, soft): bp / 10_000 - 1.0
                      for (t, soft, u), bp in rules.cash_out.offers_bp.items() if u == name}
        return UpCardAnalysis(rules, self._table(rules, up), offers)

    def _build_values(self, rules: RuleSet, up: int, hand: Counts, first: bool
                      ) -> Mapping[Action, float]:
        ua = self.up_card_analysis(rules, up)
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

    def decision_values(self, rules: RuleSet, up_card: str, cards: tuple[str, ...], *,
                        first: bool) -> Mapping[Action, float]:
        """Each decision's expected result in main bets for ``cards`` against ``up_card``
        (``first``: the hand's first decision, two cards, not from a split)."""
        return self._values(rules, rank(up_card), counts(cards), first)

    def _build_fair_return(self, rules: RuleSet, up: int, total: int, soft: bool
                           ) -> float | None:
        ua = self.up_card_analysis(rules, up, cash_out=False)
        avail = ua.t.avail
        roots = [ua.root(h, deal_weight(avail, h)) for h in two_card_hands()
                 if fits(h, avail) and total_soft(h) == (total, soft)]
        return fold_fair_returns(roots).get((total, soft, RANK_NAMES[up]))

    def cash_out_fair_return(self, rules: RuleSet, up_card: str, cards: tuple[str, ...]
                             ) -> float | None:
        """The fair return (1 + expected result at the decision, per unit staked) the Cash
        Out table prices its offer for these cards from: the value of the two-card hands of
        the same total against the up card, as :func:`rgs.math.cashout.fair_returns` defines
        it (None when no two-card hand makes the total)."""
        total, soft = total_soft(counts(cards))
        return self._fair_return(rules, rank(up_card), total, soft)

    def _build_split_player(self, rules: RuleSet, up: int, first: int, extra: Counts,
                            power: bool) -> HandPlayer:
        """The player of a split hand starting with ``first`` while ``extra`` is out too, on
        a dealer table of exactly the compositions that hand can reach."""
        base = unit(first)
        grown = (ZERO, *hands_up_to(21 - hard_sum(base)))
        table = build_table(rules, up, sorted({plus(plus(base, d), extra) for d in grown}))
        return HandPlayer(table, split_context(rules, first, extra, power=power))

    def _resplit(self, rules: RuleSet, up: int, pair: int, extra: Counts, hands: int
                 ) -> float:
        """Unnormalised value of resplitting a split pair of ``pair`` (both hands it makes,
        per unit of one hand's stake) in a box of ``hands`` hands, ``extra`` the other hands'
        cards. The hand split is taken to be at depth 1: its new hands may split again where
        the rules leave depth and hand count for it."""
        pl = self._split_player(rules, up, pair, add(extra, pair), False)
        ps = pl.t.probs(plus(add(unit(pair), pair), extra))
        terms = [ps[x] * pl.value(add(unit(pair), x)) if ps[x] > 0.0 else 0.0
                 for x in range(NRANKS)]
        p = ps[pair]
        if p <= 0.0 or p >= 1.0:
            return 2.0 * sum(terms)
        dist = split_hand_counts(p, max_depth=rules.max_split_depth - 1,
                                 max_hands=rules.max_hands - hands + 1,
                                 resplit=pair != 0 or rules.resplit_aces)
        e_np, e_pp = expected_counts(dist)
        return e_np * (sum(terms) - terms[pair]) / (1.0 - p) + e_pp * terms[pair] / p

    def _build_split_values(self, rules: RuleSet, up: int, hand: Counts, first: int,
                            extra: Counts, *, power: bool, resplit_hands: int
                            ) -> Mapping[Action, float]:
        pl = self._split_player(rules, up, first, extra, power)
        acts = {Action.STAND: pl.stand(hand), Action.HIT: pl.hit(hand)}
        if pl.can_double(hand):
            acts[Action.DOUBLE] = pl.double(hand)
        if resplit_hands:
            acts[Action.SPLIT] = self._resplit(rules, up, first, extra, resplit_hands)
        removed = plus(hand, extra)
        return MappingProxyType({a: _at_decision(pl.t, v, removed) for a, v in acts.items()})

    def split_hand_values(self, rules: RuleSet, up_card: str, cards: tuple[str, ...],
                          others: tuple[str, ...], *, power: bool, resplit_hands: int = 0
                          ) -> Mapping[Action, float]:
        """Each decision's expected result, per unit of this split hand's stake (one main
        bet), for the split hand ``cards`` (its first card the split card) with the box's
        other hands holding ``others``, against ``up_card``; ``power``: a Power Split hand;
        ``resplit_hands``: when a resplit is open, the number of hands the box holds (0: no
        resplit value)."""
        return self._split_values(rules, rank(up_card), counts(cards), rank(cards[0]),
                                  counts(others), power=power, resplit_hands=resplit_hands)

    def _build_insurance(self, rules: RuleSet, up: int, hand: Counts) -> tuple[float, float]:
        ua = self.up_card_analysis(rules, up)
        return ua.t.p_blackjack(hand), ua.root(hand, 1.0).ev

    def insurance_values(self, rules: RuleSet, up_card: str, cards: tuple[str, ...],
                         insurance_stake: Fraction) -> Mapping[Action, float]:
        """Taking and declining insurance, in main bets, for the two-card hand ``cards``
        against an ace (``insurance_stake``: the insurance stake over the main bet, half of it
        rounded down): the insurance's ``(3 × P(ten-valued hole card) − 1) × insurance_stake``
        (it pays 2 to 1, ``rules.insurance_pays``) plus, either way, the hand's value from the
        deal under optimal play (a dealer blackjack included)."""
        p_ten, hand = self._insurance(rules, rank(up_card), counts(cards))
        won = rules.insurance_pays + 1
        return MappingProxyType({
            Action.INSURE: float(insurance_stake) * (won * p_ten - 1.0) + hand,
            Action.DECLINE_INSURANCE: hand})

    def _build_power_choice(self, rules: RuleSet, up: int, hand: Counts, card: int
                            ) -> tuple[float, float]:
        ua = self.up_card_analysis(rules, up)
        keep, repl = ua.power_choice(hand, card)
        removed = add(hand, card)
        return (_at_decision(ua.t, 2.0 * keep, removed), _at_decision(ua.t, 2.0 * repl, removed))

    def power_choice_values(self, rules: RuleSet, up_card: str, cards: tuple[str, ...]
                            ) -> Mapping[Action, float]:
        """Keeping and replacing the Power Double card (the last of ``cards``), in main bets
        (the doubled stake is two): standing with it, or with the next card of the shoe, it
        out."""
        keep, repl = self._power_choice(rules, rank(up_card), counts(cards[:-1]),
                                        rank(cards[-1]))
        return MappingProxyType({Action.POWER_KEEP: keep, Action.POWER_REPLACE: repl})

    def warm(self, rules: RuleSet) -> None:
        """Build the dealer tables of every up card now (a fraction of a second each), so that
        no player's Act waits for one."""
        for up in range(len(RANK_NAMES)):
            self._table(rules, up)

    def warm_in_background(self, rules: Iterable[RuleSet]) -> threading.Thread | None:
        """:meth:`warm` each rule set on a background thread (a few seconds of CPU), once per
        rule set however often asked (an app built again over the same tables starts no second
        thread building them beside the first); the thread started, if any."""
        with self._warm_lock:
            todo = [r for r in dict.fromkeys(rules) if r not in self._warming]
            self._warming.update(todo)
        if not todo:
            return None

        def work() -> None:
            for r in todo:
                self.warm(r)

        thread = threading.Thread(target=work, name="rgs-hints-warm", daemon=True)
        thread.start()
        return thread

    def cache_info(self) -> str:
        """How the caches are doing (for the bench)."""
        return (f"tables {self._analysis.cache_info()}, values {self._values.cache_info()}, "
                f"split tables {self._split_player.cache_info()}, split values "
                f"{self._split_values.cache_info()}, insurance {self._insurance.cache_info()}, "
                f"power choices {self._power_choice.cache_info()}")


def _at_decision(t: UpCardTable, value: float, removed: Counts) -> float:
    """An analysis value as the player sees it with ``removed`` out of the shoe (the rule of
    :meth:`rgs.math.analysis.RootHand.decision_ev`)."""
    pbj = t.p_blackjack(removed)
    if t.peeked:
        return value / (1.0 - pbj)
    return value - pbj if t.excluded else value
