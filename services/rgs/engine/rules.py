"""Rule sets: every difference between variants is a field here or a paytable, never a branch
on a variant's name.

A :class:`RuleSet` is a frozen, self-validating value. The five products live in
:mod:`rgs.variants` as named instances.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction

from rgs.engine.errors import InvalidRules


class Peek(enum.Enum):
    """When a hole-card dealer checks for blackjack before the players act."""

    ACE_AND_TEN = "ace_and_ten"
    ACE_ONLY = "ace_only"
    NEVER = "never"


class InsuranceOffer(enum.Enum):
    """A player's setting for when insurance is offered (on a dealer ace)."""

    ALWAYS = "always"
    ONLY_ON_PLAYER_BLACKJACK = "only_on_player_blackjack"
    NEVER = "never"


class Surrender(enum.Enum):
    """Which surrender the table allows."""

    NONE = "none"
    LATE = "late"


class TwentyPlusOutcome(enum.Enum):
    """How a qualifying two-card 20/21 fares against the dealer's final hand."""

    PLAYER_WINS = "player_wins"
    PUSH = "push"
    DEALER_WINS = "dealer_wins"


class SideBetKind(enum.Enum):
    """The side bets the engine knows how to settle."""

    TWENTY_PLUS = "twenty_plus"
    PERFECT_PAIRS = "perfect_pairs"
    TWENTY_ONE_PLUS_THREE = "twenty_one_plus_three"


@dataclass(frozen=True, slots=True, kw_only=True)
class TwentyPlusPaytable:
    """20+ Bonus: pays ``X to 1`` by the two-card 20/21's outcome against the dealer."""

    player_wins: int = 3
    push: int = 9
    dealer_wins: int = 20

    def pays(self, outcome: TwentyPlusOutcome) -> int:
        """The ``X to 1`` multiple for ``outcome``."""
        return {
            TwentyPlusOutcome.PLAYER_WINS: self.player_wins,
            TwentyPlusOutcome.PUSH: self.push,
            TwentyPlusOutcome.DEALER_WINS: self.dealer_wins,
        }[outcome]


@dataclass(frozen=True, slots=True, kw_only=True)
class PerfectPairsPaytable:
    """Perfect Pairs on the first two cards (same rank): ``X to 1`` per kind of pair."""

    perfect: int = 25
    coloured: int = 12
    mixed: int = 6


@dataclass(frozen=True, slots=True, kw_only=True)
class TwentyOnePlusThreePaytable:
    """21+3 on the first two cards plus the dealer's up card: ``X to 1`` per poker hand."""

    suited_trips: int = 100
    straight_flush: int = 40
    three_of_a_kind: int = 30
    straight: int = 10
    flush: int = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class CashOutTable:
    """Cash Out offers as multiples of the main bet in basis points (1/10,000).

    Keyed by ``(hand total, soft, dealer up-card class)`` where the class is ``"A"``, ``"2"`` …
    ``"9"`` or ``"T"``. A missing key means no offer for that situation.
    """

    offers_bp: dict[tuple[int, bool, str], int] = field(default_factory=dict)
    #: Where the table came from (e.g. the math module's generator and its scale factor).
    source: str = ""
    #: The hash, computed once: rule sets key the math's caches, and hashing a rule set hashes
    #: its Cash Out table (sorting ~200 offers each time cost ~50 µs per cached hint lookup).
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        for (total, soft, up), bp in self.offers_bp.items():
            if not (4 <= total <= 21) or up not in UP_CLASSES or not isinstance(soft, bool):
                raise InvalidRules(f"cash-out key {(total, soft, up)} is not a hand situation",
                                   rule="cash_out_table")
            if not isinstance(bp, int) or bp < 0:
                raise InvalidRules(f"cash-out offer {bp!r} must be a non-negative integer",
                                   rule="cash_out_table")
        object.__setattr__(self, "_hash",
                           hash((tuple(sorted(self.offers_bp.items())), self.source)))

    def __hash__(self) -> int:
        # The table is frozen; its offers dict is not to be changed after construction.
        return self._hash

    def offer_bp(self, total: int, soft: bool, up_class: str) -> int | None:
        """The offer in basis points of the main bet, or None when the table has none."""
        return self.offers_bp.get((total, soft, up_class))


#: Dealer up-card classes used as keys (ten-valued cards share ``"T"``).
UP_CLASSES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLimits:
    """Stake limits in minor units, per bet type. A house policy passed to each round."""

    main_min: int = 100
    main_max: int = 100_000
    side_min: int = 100
    side_max: int = 10_000

    def __post_init__(self) -> None:
        for name in ("main_min", "main_max", "side_min", "side_max"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InvalidRules(f"{name} must be a positive integer, got {v!r}",
                                   rule="table_limits")
        if self.main_min > self.main_max or self.side_min > self.side_max:
            raise InvalidRules("a minimum exceeds its maximum", rule="table_limits")


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleSet:
    """The complete, exact rules of one blackjack variant."""

    id: str
    name: str
    decks: int = 6
    max_boxes: int = 1
    # -- dealer
    dealer_hits_soft_17: bool = False
    hole_card: bool = True
    peek: Peek = Peek.ACE_AND_TEN
    #: A dealer blackjack found after the players acted takes every stake on the hand (doubles
    #: and splits too) rather than the original bet only.
    late_blackjack_takes_all: bool = True
    #: A dealer total that pushes every live hand instead of busting (power: 22).
    dealer_push_total: int | None = None
    # -- payouts
    blackjack_pays: Fraction = Fraction(3, 2)
    insurance_pays: int = 2
    # -- doubling
    double_any_cards: bool = False
    double_after_split: bool = True
    double_split_aces: bool = False
    #: Counts (aces as 1) of an original two-card hand that get Power Double instead of a double.
    power_double_counts: frozenset[int] = frozenset()
    # -- splitting
    #: How many times a hand's line may be split: 1 = one split; 2 = each split hand once more.
    max_split_depth: int = 1
    max_hands: int = 2
    split_aces_one_card: bool = True
    resplit_aces: bool = False
    #: Totals of a non-pair, ace-free original two-card hand that may be Power Split.
    power_split_totals: frozenset[int] = frozenset()
    # -- other player options
    surrender: Surrender = Surrender.NONE
    #: Cards at which a hand <= 21 stops (7- or 8-card Charlie); None for no such rule.
    charlie_cards: int | None = None
    #: True: the Charlie hand is paid at once (wins whatever the dealer has). False: it beats
    #: every dealer hand but a blackjack (which matters without a peek).
    charlie_wins_at_once: bool = False
    insurance: bool = True
    #: Which player insurance settings the product honours (ALWAYS is always available).
    insurance_offers: frozenset[InsuranceOffer] = frozenset({InsuranceOffer.ALWAYS})
    safety_net: bool = False
    cash_out: CashOutTable | None = None
    #: Other players may stake behind a seat's box and share its outcome.
    bet_behind: bool = False
    # -- side bets
    twenty_plus: TwentyPlusPaytable | None = None
    perfect_pairs: PerfectPairsPaytable | None = None
    twenty_one_plus_three: TwentyOnePlusThreePaytable | None = None
    #: Default table limits (a brand may configure its own).
    limits: TableLimits = TableLimits()

    def __post_init__(self) -> None:
        def bad(rule: str, msg: str) -> InvalidRules:
            return InvalidRules(f"{self.id}: {msg}", rule=rule)

        if not self.id or not self.id.replace("-", "").isalnum() or self.id != self.id.lower():
            raise bad("rule_set_id", "id must be lower-case letters, digits and dashes")
        if not 1 <= self.decks <= 8:
            raise bad("decks", "decks must be 1..8")
        if not 1 <= self.max_boxes <= 7:
            raise bad("max_boxes", "a table has 1..7 boxes")
        if not self.hole_card and self.peek is not Peek.NEVER:
            raise bad("peek", "a dealer without a hole card cannot peek")
        if self.dealer_push_total is not None and self.dealer_push_total <= 21:
            raise bad("dealer_push_total", "the dealer push total must be over 21")
        if self.blackjack_pays <= 0 or self.insurance_pays <= 0:
            raise bad("payouts", "payouts must be positive")
        if self.max_split_depth < 0 or self.max_hands < 1:
            raise bad("split", "split limits must be non-negative")
        if self.max_split_depth > 0 and self.max_hands < 2:
            raise bad("split", "splitting needs room for two hands")
        if self.max_hands > 2 ** self.max_split_depth:
            raise bad("split", "max_hands exceeds what max_split_depth can reach")
        if self.resplit_aces and self.max_split_depth < 2:
            raise bad("resplit_aces", "resplitting aces needs a split depth of 2 or more")
        if self.double_split_aces and (self.split_aces_one_card or not self.double_after_split):
            raise bad("double_split_aces",
                      "doubling split aces needs double after split and more than one card")
        if not self.power_double_counts <= frozenset(range(2, 21)):
            raise bad("power_double_counts", "power double counts must be hand counts")
        if not self.power_split_totals <= frozenset(range(4, 21)):
            raise bad("power_split_totals", "power split totals must be hand totals")
        if self.charlie_cards is not None and not 5 <= self.charlie_cards <= 11:
            raise bad("charlie_cards", "a card-count rule needs 5..11 cards")
        if InsuranceOffer.ALWAYS not in self.insurance_offers:
            raise bad("insurance_offers", "ALWAYS must be an available insurance setting")
        if not self.insurance and len(self.insurance_offers) > 1:
            raise bad("insurance_offers", "insurance settings without insurance")
        if self.limits.side_min > self.limits.side_max:  # pragma: no cover - TableLimits checks
            raise bad("table_limits", "bad limits")

    @property
    def side_bets(self) -> frozenset[SideBetKind]:
        """The side bets this variant offers."""
        kinds = set()
        if self.twenty_plus is not None:
            kinds.add(SideBetKind.TWENTY_PLUS)
        if self.perfect_pairs is not None:
            kinds.add(SideBetKind.PERFECT_PAIRS)
        if self.twenty_one_plus_three is not None:
            kinds.add(SideBetKind.TWENTY_ONE_PLUS_THREE)
        return frozenset(kinds)


def up_class(card: str) -> str:
    """The dealer up-card class of a card code: ``"A"``, ``"2"`` … ``"9"`` or ``"T"``."""
    r = card[0]
    return "T" if r in "TJQK" else r
