"""Insurance as a round takes it: offered against the dealer's ace at the deal, decided per box
before play, and taken by Bet Behind players (by their preset at the deal, or live while the
round is in its insurance phase).

Whether a box or a Bet Behind may insure, and at what price, is :mod:`~rgs.engine.actions`'
answer; how insurance settles, :mod:`~rgs.engine.settlement`'s; when the phase opens and closes,
the round's. Here the insurance is taken: the box's state changes and the events go to ``emit``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rgs.engine import actions
from rgs.engine.model import BehindStakeAdded, Event, PlayerActed
from rgs.engine.state import BoxState
from rgs.engine.vocabulary import DECLINE_INSURANCE, INSURE

#: Where the events go (the round's event list).
Emit = Callable[[Event], None]


def offer(boxes: Sequence[BoxState], emit: Emit) -> bool:
    """The dealer shows an ace at a table with insurance: offer it to each box as its player's
    setting says, and take every Bet Behind player's insurance decided in advance. Return
    whether some box has the decision to make (the round then waits in its insurance phase)."""
    for box in boxes:
        box.insurance_offered = actions.insurance_offered(box.bet, box.hands[0].natural)
        box.insurance_decided = not box.insurance_offered
        for bb in box.bet.behind:  # decided in advance by each Bet Behind player
            cost = actions.insurance_stake(bb.stake)
            if bb.insure and cost > 0:
                box.behind_insurance[bb.player] = cost
                emit(BehindStakeAdded(seat=box.bet.seat, hand=0, player=bb.player,
                                      action=INSURE, amount=cost))
    return any(b.insurance_offered for b in boxes)


def decide(box: BoxState, seat: int, take: bool, emit: Emit) -> None:
    """The player of the box on ``seat`` takes insurance (at half the main bet) or declines."""
    box.insurance_decided = True
    if take:
        box.insurance = actions.insurance_stake(box.bet.stake)
    emit(PlayerActed(seat=seat, hand=0, action=INSURE if take else DECLINE_INSURANCE,
                     stake_added=box.insurance))


def insure_behind(box: BoxState, seat: int, player: str, emit: Emit) -> BehindStakeAdded:
    """``player``'s Bet Behind on the box of ``seat`` takes insurance live, at half its stake
    (the caller checked it may)."""
    bet = next(bb for bb in box.bet.behind if bb.player == player)
    cost = actions.insurance_stake(bet.stake)
    box.behind_insurance[player] = cost
    ev = BehindStakeAdded(seat=seat, hand=0, player=player, action=INSURE, amount=cost)
    emit(ev)
    return ev


def any_insured(boxes: Sequence[BoxState]) -> bool:
    """Some box or Bet Behind holds insurance (the dealer's hand must then be known)."""
    return any(b.insurance or b.behind_insurance for b in boxes)
