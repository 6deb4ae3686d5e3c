"""Exact decision values for every decision open to a player, when a brand turns ``hints`` on.

Every legal action of the hand to act (an unsplit hand, a split or Power Split hand, a Power
Double's keep/replace choice) and every box's insurance (even money on a blackjack) gets its
expected result in main bets from the composition-dependent analysis (:mod:`rgs.math.hints`,
cached in the app's :class:`~rgs.math.hints.HintTables`; what each value means is documented
there), the best one of each decision is marked, and
a Cash Out decision also shows the fair value its offer was priced from: what the hand is worth
played on, averaged over the two-card hands of its total as the Cash Out table is designed
(:meth:`rgs.math.hints.HintTables.cash_out_fair_return`), times its stake, in minor units.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from rgs.engine import Action, BoxView, HandStatus, LegalAction, RoundView, RuleSet
from rgs.engine.cards import CARD_VALUE
from rgs.math.hints import HintTables
from rgs.service.model import Hint


def hints(tables: HintTables, rules: RuleSet, view: RoundView) -> tuple[Hint, ...]:
    """The hints of every open decision in ``view``: each box's insurance, the hand to act
    (valued from ``tables``)."""
    if not view.dealer_cards:
        return ()
    up = view.dealer_cards[0]
    out: list[Hint] = []
    for box in view.boxes:
        if box.insurance_allowed and box.hands:
            cards = box.hands[0].cards
            cost = next((a.cost for a in box.insurance_allowed if a.action is Action.INSURE), 0)
            values = tables.insurance_values(rules, up, cards, Fraction(cost, box.stake))
            out += _marked(tables, rules, up, (box.seat, 0, box.stake), cards,
                           offered=box.insurance_allowed, values=values)
    if view.to_act is None:
        return tuple(out)
    seat, index = view.to_act
    acting = next((b for b in view.boxes if b.seat == seat), None)
    if acting is None or index >= len(acting.hands):
        return tuple(out)
    hand = acting.hands[index]
    out += _marked(tables, rules, up, (seat, index, hand.stake), hand.cards,
                   offered=hand.allowed, values=_hand_values(tables, rules, up, acting, index))
    return tuple(out)


def _hand_values(tables: HintTables, rules: RuleSet, up: str, box: BoxView, index: int
                 ) -> Mapping[Action, float]:
    hand = box.hands[index]
    if hand.status is HandStatus.POWER_CHOICE:
        return tables.power_choice_values(rules, up, hand.cards)
    if hand.from_split or len(box.hands) > 1:
        others = tuple(c for h in box.hands if h.index != index for c in h.cards)
        power = len({CARD_VALUE[h.cards[0]] for h in box.hands if h.cards}) > 1
        can_split = any(a.action is Action.SPLIT for a in hand.allowed)
        return tables.split_hand_values(rules, up, hand.cards, others, power=power,
                                        resplit_hands=len(box.hands) if can_split else 0)
    return tables.decision_values(rules, up, hand.cards, first=len(hand.cards) == 2)


def _marked(tables: HintTables, rules: RuleSet, up: str, at: tuple[int, int, int],
            cards: tuple[str, ...], *, offered: Sequence[LegalAction],
            values: Mapping[Action, float]) -> list[Hint]:
    """One decision's hints (``at``: seat, hand, stake): each offered action that has a
    value, the highest marked."""
    seat, index, stake = at
    valued = [(a, values[a.action]) for a in offered if a.action in values]
    if not valued:
        return []
    best = max(v for _, v in valued)
    out = []
    for a, v in valued:
        fair = 0
        if a.action is Action.CASH_OUT:
            ret = tables.cash_out_fair_return(rules, up, cards)
            fair = round(stake * ret) if ret is not None else 0
        out.append(Hint(seat=seat, hand=index, action=a.action, expected_value=Fraction(v),
                        best=v == best, fair_value=fair))
    return out
