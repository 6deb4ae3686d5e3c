"""Values that cross the engine's boundary: bets, actions, events, legal actions and views.

Commands are imperative (``Action.HIT``), events past tense (``CardDealt``). Every value is a
frozen, slotted, keyword-only dataclass, so a journal, a replay and a view can share them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from rgs.engine.rules import InsuranceOffer, SideBetKind, TableLimits


class Action(enum.Enum):
    """A player decision (the command part of ``Round.act``)."""

    INSURE = "insure"
    DECLINE_INSURANCE = "decline_insurance"
    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    POWER_SPLIT = "power_split"
    POWER_DOUBLE = "power_double"
    POWER_KEEP = "power_keep"
    POWER_REPLACE = "power_replace"
    CASH_OUT = "cash_out"


#: Actions that concern a box's insurance rather than one of its hands.
INSURANCE_ACTIONS = frozenset({Action.INSURE, Action.DECLINE_INSURANCE})


class Phase(enum.Enum):
    """Where a round is. Dealer play happens inside the call that ends the last decision."""

    INSURANCE = "insurance"
    PLAYER_TURN = "player_turn"
    SETTLED = "settled"
    VOIDED = "voided"


class HandStatus(enum.Enum):
    """A hand's state as a client draws it."""

    WAITING = "waiting"  # a split hand not yet in play
    ACTIVE = "active"  # awaiting a decision (or its turn)
    POWER_CHOICE = "power_choice"  # Power Double card shown: keep or replace
    STOOD = "stood"
    DOUBLED = "doubled"
    BUSTED = "busted"
    BLACKJACK = "blackjack"
    CHARLIE = "charlie"
    SURRENDERED = "surrendered"
    CASHED_OUT = "cashed_out"
    SETTLED = "settled"


class Outcome(enum.Enum):
    """How a settled hand ended."""

    BLACKJACK = "blackjack"
    WIN = "win"
    PUSH = "push"
    LOSE = "lose"
    BUST = "bust"
    SURRENDER = "surrender"
    CASHED_OUT = "cashed_out"
    CHARLIE = "charlie"
    VOID = "void"


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindBet:
    """A stake placed behind another player's box (Bet Behind): it shares that box's outcome.

    The bettor decides in advance whether to follow the seat player's double and split (adding
    the same stake) and whether to take insurance when the dealer shows an ace. Without a
    followed split the stake stays on the box's first hand.
    """

    player: str
    stake: int
    follow_double: bool = False
    follow_split: bool = False
    insure: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class BoxBet:
    """What a player puts on one box before the deal, with the box's player settings."""

    seat: int
    stake: int
    twenty_plus: int = 0
    perfect_pairs: int = 0
    twenty_one_plus_three: int = 0
    insurance_offer: InsuranceOffer = InsuranceOffer.ALWAYS
    safety_net: bool = False
    #: Who plays the box (optional; needed to refuse a Bet Behind on one's own box).
    player: str = ""
    #: Stakes other players placed behind this box.
    behind: tuple[BehindBet, ...] = ()

    def side_stakes(self) -> tuple[tuple[SideBetKind, int], ...]:
        """The side bets placed (non-zero), in settlement order."""
        out = []
        if self.twenty_plus:
            out.append((SideBetKind.TWENTY_PLUS, self.twenty_plus))
        if self.perfect_pairs:
            out.append((SideBetKind.PERFECT_PAIRS, self.perfect_pairs))
        if self.twenty_one_plus_three:
            out.append((SideBetKind.TWENTY_ONE_PLUS_THREE, self.twenty_one_plus_three))
        return tuple(out)

    @property
    def total_stake(self) -> int:
        """Main bet plus side bets: what the deal takes from the player for this box."""
        return self.stake + self.twenty_plus + self.perfect_pairs + self.twenty_one_plus_three


# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every journal event."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStarted(Event):
    """Bets were placed and the deal began."""

    variant: str
    boxes: tuple[BoxBet, ...]
    limits: TableLimits


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDealt(Event):
    """A card left the shoe. ``seat`` None means the dealer; ``face_down`` marks the hole card."""

    card: str
    seat: int | None
    hand: int = 0
    face_down: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class HoleCardRevealed(Event):
    """The dealer turned the hole card over."""

    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CardBurned(Event):
    """A dealt card was discarded (Power Double replace)."""

    card: str
    seat: int
    hand: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerPeeked(Event):
    """The dealer checked the hole card for blackjack."""

    blackjack: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerActed(Event):
    """A player decision was accepted; ``stake_added`` is what it took from the player."""

    seat: int
    hand: int
    action: Action
    stake_added: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class InsuranceSettled(Event):
    """A box's insurance was settled (``payout`` includes the returned stake)."""

    seat: int
    stake: int
    payout: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SideBetSettled(Event):
    """A side bet was settled. ``line`` names the paytable line (``"lose"`` when none)."""

    seat: int
    kind: SideBetKind
    stake: int
    line: str
    pays: int
    payout: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSettled(Event):
    """A hand was settled. ``payout`` includes the returned stake; ``rounded_off`` is the
    fraction of a minor unit the floor rounding kept (0 when the amount was exact)."""

    seat: int
    hand: int
    outcome: Outcome
    stake: int
    payout: int
    rounded_off: Fraction = Fraction(0)


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindStakeAdded(Event):
    """A Bet Behind followed a double or split, or took insurance (``action``)."""

    seat: int
    hand: int
    player: str
    action: Action
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindFollowSkipped(Event):
    """A Bet Behind whose preset follows this double or split did not follow it: its player's
    wallet did not fund the added stake (a shared table debits each bettor separately)."""

    seat: int
    hand: int
    player: str
    action: Action


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindSettled(Event):
    """A Bet Behind's stake on one hand was settled with that hand's outcome."""

    seat: int
    hand: int
    player: str
    outcome: Outcome
    stake: int
    payout: int
    rounded_off: Fraction = Fraction(0)


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindInsuranceSettled(Event):
    """A Bet Behind's insurance was settled."""

    seat: int
    player: str
    stake: int
    payout: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundSettled(Event):
    """Every bet of the round is settled."""

    total_staked: int
    total_paid: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVoided(Event):
    """A malfunction voided the round: every stake taken is returned, nothing is paid."""

    reason: str
    total_staked: int
    total_refunded: int


# --------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True, kw_only=True)
class LegalAction:
    """An action a hand (or a box, for insurance) may take now, with what it costs or offers."""

    action: Action
    #: Stake the action adds (double, split, insurance, power split/double), else 0.
    cost: int = 0
    #: Cash Out amount paid instead of playing on, else 0.
    offer: int = 0
    #: Safety Net: this HIT is on soft 20 or hard 17+, a client should confirm it.
    warning: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class HandView:
    """One hand as a client may see it."""

    index: int
    cards: tuple[str, ...]
    total: int
    soft: bool
    stake: int
    status: HandStatus
    outcome: Outcome | None
    payout: int
    from_split: bool
    doubled: bool
    allowed: tuple[LegalAction, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SideBetView:
    """A side bet's stake and, once settled, its result."""

    kind: SideBetKind
    stake: int
    line: str
    payout: int
    settled: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindView:
    """A Bet Behind on a box: everything it staked and was paid so far."""

    player: str
    staked: int
    paid: int
    follow_double: bool
    follow_split: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BoxView:
    """One box: its hands, side bets, insurance and the bets behind it."""

    seat: int
    stake: int
    hands: tuple[HandView, ...]
    side_bets: tuple[SideBetView, ...]
    insurance_offered: bool
    insurance_stake: int
    insurance_payout: int
    #: Insurance actions open to this box now (INSURE with its cost, DECLINE_INSURANCE).
    insurance_allowed: tuple[LegalAction, ...]
    behind: tuple[BehindView, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundView:
    """The public state of a round: nothing here is secret (no hole card, no shoe)."""

    variant: str
    phase: Phase
    seq: int
    dealer_cards: tuple[str, ...]
    dealer_total: int
    dealer_soft: bool
    dealer_hole_hidden: bool
    boxes: tuple[BoxView, ...]
    #: (seat, hand) of the hand to act, or None.
    to_act: tuple[int, int] | None
    total_staked: int
    total_paid: int
