"""The order of play: what a round does by itself between the players' decisions.

After the deal: the naturals stand, the deal's side bets settle and insurance is offered
against an ace. Once insurance is decided: the dealer peeks where the rules say so. After each
hand that is done: the turn moves to the next hand that needs a decision (a split hand gets
its second card as it comes into play). With none left: the dealer's turn, then the
settlement.

These are the round's own steps, split from :mod:`~rgs.engine.round` (the round's commands
and queries) because they change with the game's sequence, not with what a caller asks. They
work on the round's state directly, like its methods: they are called only by the round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rgs.engine import dealer, insurance
from rgs.engine.builders import round_settled
from rgs.engine.cards import CARD_VALUE, hand_total
from rgs.engine.decisions import check_hand_end
from rgs.engine.money import money_totals
from rgs.engine.settlement import settle_deal_side_bets, settle_hands, settle_insurance
from rgs.engine.state import PEEK_EVENTS, REVEAL_EVENTS
from rgs.engine.vocabulary import BLACKJACK, INSURANCE, PLAYER_TURN, ROUND_SETTLED

if TYPE_CHECKING:
    from rgs.engine.round import Round


def after_deal(rnd: Round) -> None:
    """The naturals and the deal's side bets; then the insurance phase, or play."""
    up = rnd._dealer[0]
    emit = rnd._events.append
    for box in rnd._boxes:
        hd = box.hands[0]
        if hd.total == 21:  # two cards, not from a split: a natural
            hd.done, hd.status = True, BLACKJACK
        if box.bet.perfect_pairs or box.bet.twenty_one_plus_three:
            settle_deal_side_bets(rnd.rules, box, up, emit)
    if CARD_VALUE[up] == 1 and rnd.rules.insurance and insurance.offer(rnd._boxes, emit):
        rnd.phase = INSURANCE
        return
    after_insurance(rnd)


def after_insurance(rnd: Round) -> None:
    """Insurance decided (or never offered): the dealer peeks where the rules say so, and a
    dealer blackjack ends the round; else the first hand's turn."""
    up = rnd._dealer[0]
    rnd.phase = PLAYER_TURN
    if dealer.peeks(rnd.rules, up):
        bj = dealer.is_natural(rnd._dealer)
        rnd._events.append(PEEK_EVENTS[bj])
        rnd._dealer_bj = bj
        if CARD_VALUE[up] == 1:  # only an ace offers insurance: else there is none to settle
            settle_insurance(rnd.rules, rnd._boxes, bj, rnd._events.append)
        if bj:
            reveal_hole(rnd)
            settle(rnd)
            return
    elif not dealer.can_blackjack(up):
        rnd._dealer_bj = False
    rnd._active = (0, -1)
    advance(rnd)


def advance(rnd: Round) -> None:
    """Move to the next hand that needs a decision; dealing split hands their second card
    as they come into play. With none left, the dealer plays and the round settles."""
    assert rnd._active is not None
    b, h = rnd._active
    h += 1
    boxes = rnd._boxes
    while b < len(boxes):
        box = boxes[b]
        while h < len(box.hands):
            hd = box.hands[h]
            if not hd.done:
                if len(hd.cards) < 2:
                    rnd._deal_to(box, h)
                    check_hand_end(rnd.rules, hd)
                if not hd.done:
                    rnd._active = (b, h)
                    return
            h += 1
        b, h = b + 1, 0
    rnd._active = None
    dealer_turn(rnd)


def reveal_hole(rnd: Round) -> None:
    """Turn the hole card over, if it is still face down."""
    if rnd._hole_hidden:
        rnd._hole_hidden = False
        rnd._events.append(REVEAL_EVENTS[rnd._dealer[1]])


def dealer_turn(rnd: Round) -> None:
    """Every hand is done: the dealer's hand is completed as far as the hands still in play
    need it (in games without a hole card its second card decides insurance), then the round
    settles."""
    rules, boxes, cards = rnd.rules, rnd._boxes, rnd._dealer
    # only a dealer ace offers insurance (to the boxes and Bet Behind alike)
    insured = CARD_VALUE[cards[0]] == 1 and insurance.any_insured(boxes)
    live, check = dealer.must_play(rules, boxes, cards[0],
                                   blackjack_known=rnd._dealer_bj is not None, insured=insured)
    if rules.hole_card:
        if rnd._hole_hidden:  # reveal_hole inline
            rnd._hole_hidden = False
            rnd._events.append(REVEAL_EVENTS[cards[1]])
        if rnd._dealer_bj is None:
            rnd._dealer_bj = dealer.is_natural(cards)
    elif live or check:
        rnd._deal_dealer()
        rnd._dealer_bj = dealer.is_natural(cards)
        if insured:
            settle_insurance(rules, boxes, rnd._dealer_bj, rnd._events.append)
    if live and not rnd._dealer_bj:
        settle(rnd, dealer.draw_out(rules, cards, rnd._deal_dealer))
    else:
        settle(rnd)


def settle(rnd: Round, d_total: int | None = None) -> None:
    """Settle every hand against the dealer's, whose final total is ``d_total`` when the
    dealer's draw just counted it, and close the round with its totals."""
    if d_total is None:
        d_total = hand_total(rnd._dealer)[0]
    emit = rnd._events.append
    settle_hands(rnd.rules, rnd._boxes, d_total, bool(rnd._dealer_bj), emit)
    rnd.phase = ROUND_SETTLED
    rnd._active = None
    staked, paid = money_totals(rnd._boxes)
    emit(round_settled(total_staked=staked, total_paid=paid))
