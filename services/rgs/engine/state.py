"""The mutable state of hands and boxes inside a round; it never leaves the engine."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from rgs.engine.cards import DECK, best_total, hard_total
from rgs.engine.model import (
    Action,
    BoxBet,
    CardDealt,
    DealerPeeked,
    HoleCardRevealed,
    Outcome,
    PlayerActed,
)
from rgs.engine.rules import SideBetKind
from rgs.engine.vocabulary import ACTIVE

ZERO = Fraction(0)
#: Seats 1..7 (a table's most) and hands 0..3 (the most any shipped variant allows): the events
#: below are prebuilt for these; a rarer shape is built when it happens.
SEATS = range(1, 8)
SHARED_HANDS = 4
#: Card events are immutable values with few distinct shapes; sharing them saves building
#: thousands of identical objects per second in simulations. Built once here and never written
#: to (the engine keeps no state between rounds): the dealer's cards, and every card to a seat's
#: hand of the prebuilt table.
CARD_EVENTS: Mapping[tuple[str, int | None, int, bool], CardDealt] = {
    (card, seat, hand, face_down): CardDealt(card=card, seat=seat, hand=hand, face_down=face_down)
    for card in DECK
    for seat, hand, face_down in (
        (None, 0, False), (None, 0, True),
        *((s, h, False) for s in SEATS for h in range(SHARED_HANDS)))
}


#: The same events by card code, one mapping per receiver, for the round's dealing (a lookup by
#: card with no tuple to build): the dealer's face-up and face-down cards, and each hand of the
#: prebuilt table as ``SEAT_CARD_EVENTS[seat][hand]`` (a seat is 1..7: index 0 holds nothing).
DEALER_CARD_EVENTS: Mapping[str, CardDealt] = {c: CARD_EVENTS[c, None, 0, False] for c in DECK}
HOLE_CARD_EVENTS: Mapping[str, CardDealt] = {c: CARD_EVENTS[c, None, 0, True] for c in DECK}
SEAT_CARD_EVENTS: tuple[tuple[Mapping[str, CardDealt], ...], ...] = ((), *(
    tuple({c: CARD_EVENTS[c, seat, hand, False] for c in DECK} for hand in range(SHARED_HANDS))
    for seat in SEATS))


def card_event(card: str, seat: int | None, hand: int, face_down: bool) -> CardDealt:
    """The event of ``card`` dealt to ``seat`` (None: the dealer), shared when it can be."""
    ev = CARD_EVENTS.get((card, seat, hand, face_down))
    if ev is None:
        return CardDealt(card=card, seat=seat, hand=hand, face_down=face_down)
    return ev


#: Decisions that add no stake, shared like the card events.
ACTED_EVENTS: Mapping[tuple[int, int, Action], PlayerActed] = {
    (seat, hand, action): PlayerActed(seat=seat, hand=hand, action=action)
    for seat in SEATS for hand in range(SHARED_HANDS) for action in Action
}
#: The HIT and STAND events of the prebuilt table as ``HIT_EVENTS[seat][hand]``: the commonest
#: decisions, looked up without hashing the action (an enum member hashes in Python code).
HIT_EVENTS: tuple[tuple[PlayerActed, ...], ...] = ((), *(
    tuple(ACTED_EVENTS[seat, hand, Action.HIT] for hand in range(SHARED_HANDS))
    for seat in SEATS))
STAND_EVENTS: tuple[tuple[PlayerActed, ...], ...] = ((), *(
    tuple(ACTED_EVENTS[seat, hand, Action.STAND] for hand in range(SHARED_HANDS))
    for seat in SEATS))
#: The two outcomes of the dealer's peek.
PEEK_EVENTS: Mapping[bool, DealerPeeked] = {bj: DealerPeeked(blackjack=bj) for bj in (False, True)}
#: The hole card turned over, one per card code.
REVEAL_EVENTS: Mapping[str, HoleCardRevealed] = {c: HoleCardRevealed(card=c) for c in DECK}


def acted_event(seat: int, hand: int, action: Action) -> PlayerActed:
    """The event of a decision that adds no stake, shared when it can be."""
    ev = ACTED_EVENTS.get((seat, hand, action))
    if ev is None:
        return PlayerActed(seat=seat, hand=hand, action=action)
    return ev


class HandState:
    """A player hand inside a round (mutable; never leaves the engine)."""

    __slots__ = (
        "behind",
        "behind_paid",
        "cards",
        "cash_out",
        "cash_out_bp",
        "depth",
        "done",
        "doubled",
        "from_split",
        "hard",
        "has_ace",
        "outcome",
        "payout",
        "power_pending",
        "power_split",
        "split_aces",
        "stake",
        "status",
        "total",
    )

    def __init__(self, cards: list[str], stake: int, *, from_split: bool = False, depth: int = 0,
                 split_aces: bool = False, power_split: bool = False) -> None:
        self.cards = cards
        #: Total with aces as 1, and whether the hand holds one; the round updates both (and
        #: ``total``) with every card it deals (``Round._deal_to``).
        self.hard = 0
        self.has_ace = False
        #: Best total (an ace counted as 11 when that does not bust), kept with every card: the
        #: round reads it at each card and at settlement.
        self.total = 0
        if cards:  # a split hand's card (a box's first hand starts empty: no call for it)
            self.hard, self.has_ace = hard_total(cards)
            self.total = best_total(self.hard, self.has_ace)
        self.stake = stake
        self.from_split = from_split
        self.depth = depth
        self.split_aces = split_aces
        self.power_split = power_split
        self.doubled = False
        self.power_pending = False
        self.done = False
        self.status = ACTIVE
        self.outcome: Outcome | None = None
        self.payout = 0
        self.cash_out = 0
        self.cash_out_bp = 0
        #: Bet Behind stakes riding on this hand, by bettor.
        self.behind: dict[str, int] = {}
        #: Bet Behind payouts once settled, by bettor.
        self.behind_paid: dict[str, int] = {}

    def drop_last(self) -> str:
        card = self.cards.pop()
        self.hard, self.has_ace = hard_total(self.cards)
        self.total = best_total(self.hard, self.has_ace)
        return card

    @property
    def soft(self) -> bool:
        return self.has_ace and self.hard <= 11  # cards.is_soft, inline (checked by a test)

    @property
    def natural(self) -> bool:
        return not self.from_split and len(self.cards) == 2 and self.total == 21


class BoxState:
    """A box (seat) inside a round."""

    __slots__ = (
        "behind_insurance",
        "behind_insurance_paid",
        "bet",
        "hands",
        "insurance",
        "insurance_decided",
        "insurance_offered",
        "insurance_payout",
        "side_results",
        "touched",
    )

    def __init__(self, bet: BoxBet) -> None:
        self.bet = bet
        first = HandState([], bet.stake)
        if bet.behind:
            first.behind = {b.player: b.stake for b in bet.behind}
        self.hands: list[HandState] = [first]
        #: Bet Behind insurance stakes and payouts, by bettor.
        self.behind_insurance: dict[str, int] = {}
        self.behind_insurance_paid: dict[str, int] = {}
        self.insurance_offered = False
        self.insurance_decided = False
        self.insurance = 0
        self.insurance_payout = 0
        #: kind -> (line, pays, payout) once settled
        self.side_results: dict[SideBetKind, tuple[str, int, int]] = {}
        #: The original hand took an action other than STAND (forfeits the 20+ Bonus).
        self.touched = False
