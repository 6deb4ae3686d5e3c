"""The public picture of a round: what a client may see, built from the round's state.

Nothing secret leaves here: the dealer's cards come in as the round shows them (no hole card
before it is revealed), and decisions only for the hand or box whose turn it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rgs.engine.cards import hand_total
from rgs.engine.model import (
    BehindView,
    BoxView,
    HandStatus,
    HandView,
    LegalAction,
    Phase,
    RoundView,
    SideBetView,
)
from rgs.engine.money import box_money, money_totals
from rgs.engine.state import BoxState, HandState

#: ``legal(seat, hand)``: the decisions open to that hand (or box, for insurance) now.
Legal = Callable[[int, int], tuple[LegalAction, ...]]


def round_view(*, variant: str, phase: Phase, seq: int, dealer: tuple[str, ...],
               hole_hidden: bool, boxes: Sequence[BoxState], to_act: tuple[int, int] | None,
               legal: Legal) -> RoundView:
    """The view of a round in ``phase`` with the dealer showing ``dealer``."""
    d_total, d_soft = hand_total(dealer)
    staked, paid = money_totals(boxes)
    return RoundView(
        variant=variant, phase=phase, seq=seq, dealer_cards=dealer, dealer_total=d_total,
        dealer_soft=d_soft, dealer_hole_hidden=hole_hidden,
        boxes=tuple(_box_view(box, phase, to_act, legal) for box in boxes), to_act=to_act,
        total_staked=staked, total_paid=paid)


def _box_view(box: BoxState, phase: Phase, to_act: tuple[int, int] | None,
              legal: Legal) -> BoxView:
    seat = box.bet.seat
    hands = tuple(
        _hand_view(hi, hd, legal(seat, hi)
                   if phase is Phase.PLAYER_TURN and to_act == (seat, hi) else ())
        for hi, hd in enumerate(box.hands))
    sides = []
    for kind, stake in box.bet.side_stakes():
        res = box.side_results.get(kind)
        sides.append(SideBetView(kind=kind, stake=stake, line=res[0] if res else "",
                                 payout=res[2] if res else 0, settled=res is not None))
    _, behind = box_money(box)
    return BoxView(
        seat=seat, stake=box.bet.stake, hands=hands, side_bets=tuple(sides),
        insurance_offered=box.insurance_offered, insurance_stake=box.insurance,
        insurance_payout=box.insurance_payout,
        insurance_allowed=legal(seat, 0) if phase is Phase.INSURANCE else (),
        behind=tuple(BehindView(player=bb.player, staked=staked, paid=paid,
                                follow_double=bb.follow_double, follow_split=bb.follow_split)
                     for bb, (_, (staked, paid)) in zip(box.bet.behind, behind, strict=True)))


def _hand_view(index: int, hd: HandState, allowed: tuple[LegalAction, ...]) -> HandView:
    status = hd.status
    if status is HandStatus.ACTIVE and not hd.done and len(hd.cards) < 2 and hd.from_split:
        status = HandStatus.WAITING  # a split hand that has not come into play yet
    return HandView(
        index=index, cards=tuple(hd.cards), total=hd.total, soft=hd.soft, stake=hd.stake,
        status=status, outcome=hd.outcome, payout=hd.payout, from_split=hd.from_split,
        doubled=hd.doubled, allowed=allowed)
