"""The events every round builds, built at half the cost of their constructors.

Events are frozen dataclasses: their generated ``__init__`` stores each field with
``object.__setattr__`` (the class's own ``__setattr__`` refuses), about 1,300 instructions a
field on CPython 3.11, where the field's slot setter, which that call ends in, costs 600. A
``HandSettled`` (six fields) cost more to build than dealing a card and playing a decision
together. Each builder here makes the very value its class's constructor makes (same class,
fields, equality and hash) from an empty instance and the slot setters of every field in order:
a field added to a class makes its builder fail at its first use (the unpacking below no longer
matches), and ``tests/unit/engine/test_builders.py`` checks each against its constructor.

Only the events a round builds per hand or per decision come from here; the rest use their
constructors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from fractions import Fraction

from rgs.engine.model import Action, HandSettled, Outcome, PlayerActed, RoundSettled

_new = object.__new__


def _slot_setters(cls: type) -> tuple[Callable[[object, object], None], ...]:
    """The ``__set__`` of each field's slot of the frozen, slotted dataclass ``cls``, in field
    order."""
    return tuple(vars(cls)[f.name].__set__ for f in fields(cls))


_HAND_SETTLED = _slot_setters(HandSettled)
_ROUND_SETTLED = _slot_setters(RoundSettled)
_PLAYER_ACTED = _slot_setters(PlayerActed)


def hand_settled(*, seat: int, hand: int, outcome: Outcome, stake: int, payout: int,
                 rounded_off: Fraction) -> HandSettled:
    """``HandSettled(seat=seat, hand=hand, ...)``."""
    ev: HandSettled = _new(HandSettled)
    set_seat, set_hand, set_outcome, set_stake, set_payout, set_rounded_off = _HAND_SETTLED
    set_seat(ev, seat)
    set_hand(ev, hand)
    set_outcome(ev, outcome)
    set_stake(ev, stake)
    set_payout(ev, payout)
    set_rounded_off(ev, rounded_off)
    return ev


def round_settled(*, total_staked: int, total_paid: int) -> RoundSettled:
    """``RoundSettled(total_staked=total_staked, total_paid=total_paid)``."""
    ev: RoundSettled = _new(RoundSettled)
    set_total_staked, set_total_paid = _ROUND_SETTLED
    set_total_staked(ev, total_staked)
    set_total_paid(ev, total_paid)
    return ev


def player_acted(*, seat: int, hand: int, action: Action, stake_added: int) -> PlayerActed:
    """``PlayerActed(seat=seat, hand=hand, action=action, stake_added=stake_added)``: a
    decision that adds a stake (the others share prebuilt events)."""
    ev: PlayerActed = _new(PlayerActed)
    set_seat, set_hand, set_action, set_stake_added = _PLAYER_ACTED
    set_seat(ev, seat)
    set_hand(ev, hand)
    set_action(ev, action)
    set_stake_added(ev, stake_added)
    return ev
