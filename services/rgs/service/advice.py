"""Exact decision values for the hand to act, when a brand turns ``hints`` on.

Every decision open to the hand whose turn it is gets its expected result in main bets from the
composition-dependent analysis (:mod:`rgs.math.hints`, cached), the best one is marked, and a
Cash Out decision also shows the fair value its offer was priced from: what the hand is worth
played on, averaged over the two-card hands of its total as the Cash Out table is designed
(:func:`rgs.math.hints.cash_out_fair_return`), times its stake, in minor units.
"""

from __future__ import annotations

from fractions import Fraction

from rgs.engine import Action, RoundView, RuleSet
from rgs.math.hints import VALUED, cash_out_fair_return, decision_values
from rgs.service.model import Hint


def hints(rules: RuleSet, view: RoundView) -> tuple[Hint, ...]:
    """The hints of the hand to act in ``view`` (none when no valued decision is open)."""
    if view.to_act is None or not view.dealer_cards:
        return ()
    seat, index = view.to_act
    box = next((b for b in view.boxes if b.seat == seat), None)
    if box is None or index >= len(box.hands):
        return ()
    hand = box.hands[index]
    if hand.from_split or len(box.hands) > 1:
        return ()  # split hands are not valued one at a time
    offered = [a for a in hand.allowed if a.action in VALUED]
    if not offered:
        return ()
    values = decision_values(rules, view.dealer_cards[0], hand.cards,
                             first=len(hand.cards) == 2)
    valued = [(a, values[a.action]) for a in offered if a.action in values]
    if not valued:
        return ()
    best = max(v for _, v in valued)
    out = []
    for a, v in valued:
        fair = 0
        if a.action is Action.CASH_OUT:
            ret = cash_out_fair_return(rules, view.dealer_cards[0], hand.cards)
            fair = round(hand.stake * ret) if ret is not None else 0
        out.append(Hint(seat=seat, hand=index, action=a.action, expected_value=Fraction(v),
                        best=v == best, fair_value=fair))
    return tuple(out)
