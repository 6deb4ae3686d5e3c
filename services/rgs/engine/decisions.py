"""What a playing decision does to the hand it is taken on: hit, stand, double, split,
surrender, Cash Out and the Power moves, the Bet Behind stakes that follow a double or a split,
and when a hand stops by itself (21, a bust, the card-count rule, a one-card split ace).

Whether a decision is allowed, and at what price, is :mod:`~rgs.engine.actions`' answer; whose
turn comes next, :mod:`~rgs.engine.turns`'. Here a decision already allowed is applied: the
hand's state changes, the round deals the card it calls for and its events go to the round's
journal in order. :func:`apply` works on the round's state directly, like a method of the
round (it is one of the round's own steps, called only by ``Round.act``): every decision of
every simulated round passes here, and handing it the round's dealing and event list as
callables instead cost 1% more instructions per simulated round.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rgs.engine import actions
from rgs.engine.builders import player_acted
from rgs.engine.cards import CARD_VALUE
from rgs.engine.model import (
    Action,
    BehindFollowSkipped,
    BehindStakeAdded,
    CardBurned,
    Event,
)
from rgs.engine.rules import RuleSet
from rgs.engine.state import (
    HIT_EVENTS,
    SHARED_HANDS,
    STAND_EVENTS,
    BoxState,
    HandState,
    acted_event,
)
from rgs.engine.vocabulary import (
    BUSTED,
    CASH_OUT,
    CASHED_OUT,
    CHARLIE,
    DOUBLE,
    DOUBLED,
    HIT,
    POWER_CHOICE,
    POWER_DOUBLE,
    POWER_KEEP,
    POWER_REPLACE,
    POWER_SPLIT,
    SPLIT,
    STAND,
    STOOD,
    SURRENDER,
    SURRENDERED,
)

if TYPE_CHECKING:
    from rgs.engine.round import Round

#: Where the events go (the round's event list).
Emit = Callable[[Event], None]


def apply(rnd: Round, box: BoxState, h: int, action: Action, unfunded: frozenset[str]) -> bool:
    """Apply ``action`` to hand ``h`` of ``box`` in ``rnd``; return whether the hand is done.

    ``unfunded``: Bet Behind players whose preset would follow this double or split but whose
    added stake was not funded; they stay on the hand at their stake.
    """
    rules = rnd.rules
    hd = box.hands[h]
    seat = box.bet.seat
    if action is not STAND and h == 0 and len(box.hands) == 1:
        box.touched = True
    if action is HIT:
        # the box's seat is 1..7 (verified bets)
        rnd._events.append(HIT_EVENTS[seat][h] if h < SHARED_HANDS
                           else acted_event(seat, h, action))
        rnd._deal_to(box, h)
        check_hand_end(rules, hd)
    elif action is STAND:
        rnd._events.append(STAND_EVENTS[seat][h] if h < SHARED_HANDS
                           else acted_event(seat, h, action))
        hd.done, hd.status = True, STOOD
    elif action is DOUBLE:
        added = hd.stake
        hd.stake += added
        hd.doubled = True
        rnd._events.append(player_acted(seat=seat, hand=h, action=action, stake_added=added))
        follow(box, h, action, unfunded, rnd._events.append)
        rnd._deal_to(box, h)
        hd.done = True
        hd.status = BUSTED if hd.total > 21 else DOUBLED
        check_charlie(rules, hd)
    elif action is POWER_DOUBLE:
        added = hd.stake
        hd.stake += added
        hd.doubled = True
        rnd._events.append(player_acted(seat=seat, hand=h, action=action, stake_added=added))
        follow(box, h, action, unfunded, rnd._events.append)
        rnd._deal_to(box, h)
        hd.power_pending = True
        hd.status = POWER_CHOICE
    elif action in (POWER_KEEP, POWER_REPLACE):
        rnd._events.append(acted_event(seat, h, action))
        if action is POWER_REPLACE:
            card = hd.drop_last()
            rnd._events.append(CardBurned(card=card, seat=seat, hand=h))
            rnd._deal_to(box, h)
        hd.power_pending = False
        hd.done = True
        hd.status = BUSTED if hd.total > 21 else DOUBLED
    elif action in (SPLIT, POWER_SPLIT):
        rnd._events.append(player_acted(seat=seat, hand=h, action=action, stake_added=hd.stake))
        second = hd.cards[1]
        hd.drop_last()
        aces = action is SPLIT and CARD_VALUE[second] == 1
        power = action is POWER_SPLIT
        depth = hd.depth + 1
        hd.from_split, hd.depth, hd.split_aces, hd.power_split = True, depth, aces, power
        box.hands.insert(h + 1, HandState([second], hd.stake, from_split=True, depth=depth,
                                          split_aces=aces, power_split=power))
        follow(box, h, action, unfunded, rnd._events.append)
        rnd._deal_to(box, h)
        check_hand_end(rules, hd)
    elif action is SURRENDER:
        rnd._events.append(acted_event(seat, h, action))
        hd.done, hd.status = True, SURRENDERED
    elif action is CASH_OUT:
        hd.cash_out_bp = actions.cash_out_bp(rules, hd, rnd._dealer[0]) or 0
        hd.cash_out = hd.stake * hd.cash_out_bp // 10_000
        rnd._events.append(acted_event(seat, h, action))
        hd.done, hd.status = True, CASHED_OUT
    return hd.done


def follow(box: BoxState, h: int, action: Action, unfunded: frozenset[str], emit: Emit) -> None:
    """Bet Behind stakes on hand ``h`` follow a double, or a split onto hand ``h + 1``, as
    each bettor chose in advance (unless their added stake was ``unfunded``)."""
    hd = box.hands[h]
    for bb in box.bet.behind:
        if bb.player not in hd.behind:
            continue
        doubling = action in (DOUBLE, POWER_DOUBLE)
        if bb.player in unfunded and (bb.follow_double if doubling else bb.follow_split):
            emit(BehindFollowSkipped(seat=box.bet.seat, hand=h, player=bb.player, action=action))
            continue
        if doubling and bb.follow_double:
            added = hd.behind[bb.player]
            hd.behind[bb.player] += added
            emit(BehindStakeAdded(seat=box.bet.seat, hand=h, player=bb.player, action=action,
                                  amount=added))
        elif action in (SPLIT, POWER_SPLIT) and bb.follow_split:
            box.hands[h + 1].behind[bb.player] = bb.stake
            emit(BehindStakeAdded(seat=box.bet.seat, hand=h + 1, player=bb.player,
                                  action=action, amount=bb.stake))


def check_charlie(rules: RuleSet, hd: HandState) -> None:
    """A hand of the card-count rule's many cards that has not bust stops as a Charlie."""
    n = rules.charlie_cards
    if n is not None and len(hd.cards) >= n and hd.total <= 21:
        hd.done, hd.status = True, CHARLIE


def check_hand_end(rules: RuleSet, hd: HandState) -> None:
    """A hand stops by itself at 21, on a bust, at the card-count rule, or as a one-card
    split ace."""
    t = hd.total
    if t > 21:
        hd.done, hd.status = True, BUSTED
    elif t == 21 or (hd.split_aces and rules.split_aces_one_card and len(hd.cards) >= 2):
        hd.done, hd.status = True, STOOD
    if rules.charlie_cards is not None and (not hd.done or hd.status is STOOD):
        check_charlie(rules, hd)
