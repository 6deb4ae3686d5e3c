"""Whether a list of box bets may start a round: seats, amounts, limits and player settings.

:class:`VerifiedBets` is the proof of one such check. A simulation that deals the same bets
millions of times verifies them once and hands the value to ``Round.deal``; the engine itself
remembers nothing between rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rgs.engine.errors import InvalidBet, StakeOutOfLimits
from rgs.engine.model import BehindBet, BoxBet, RoundStarted
from rgs.engine.rules import InsuranceOffer, RuleSet, TableLimits


def _is_amount(x: object) -> bool:
    # bool is an int subclass, and 100.0 == 100: neither may pass for minor units.
    return isinstance(x, int) and not isinstance(x, bool)


def verify_bets(rules: RuleSet, bets: Sequence[BoxBet], limits: TableLimits | None = None) -> None:
    """Raise the precise error if ``bets`` cannot start a round under ``rules`` and ``limits``
    (None: the rule set's own limits)."""
    lim = limits or rules.limits
    if not 1 <= len(bets) <= rules.max_boxes:
        raise InvalidBet(f"a round needs 1..{rules.max_boxes} boxes, got {len(bets)}",
                         rule="box_count")
    seats = set()
    offered = rules.side_bets
    for b in bets:
        if not isinstance(b, BoxBet):
            raise InvalidBet("each box bet must be a BoxBet", rule="box_bet")
        if type(b.seat) is not int or not 1 <= b.seat <= rules.max_boxes:
            raise InvalidBet(f"seat {b.seat!r} is not a seat of this table "
                             f"(1..{rules.max_boxes})", rule="seat")
        if b.seat in seats:
            raise InvalidBet(f"seat {b.seat} has two bets", rule="seat")
        seats.add(b.seat)
        for name, amount in (("stake", b.stake), ("twenty_plus", b.twenty_plus),
                             ("perfect_pairs", b.perfect_pairs),
                             ("twenty_one_plus_three", b.twenty_one_plus_three)):
            if not _is_amount(amount) or amount < 0:
                raise InvalidBet(f"{name} must be a non-negative integer of minor units, "
                                 f"got {amount!r}", rule="stake_integer")
        if not lim.main_min <= b.stake <= lim.main_max:
            raise StakeOutOfLimits(
                f"seat {b.seat}: main bet {b.stake} is outside the table limits "
                f"{lim.main_min}..{lim.main_max}", rule="main_bet_limits")
        for kind, amount in b.side_stakes():
            if kind not in offered:
                raise InvalidBet(f"seat {b.seat}: {rules.id} does not offer the "
                                 f"{kind.value} side bet", rule="side_bet_offered")
            if not lim.side_min <= amount <= lim.side_max:
                raise StakeOutOfLimits(
                    f"seat {b.seat}: {kind.value} bet {amount} is outside the table limits "
                    f"{lim.side_min}..{lim.side_max}", rule="side_bet_limits")
        if not isinstance(b.insurance_offer, InsuranceOffer) or (
                b.insurance_offer not in rules.insurance_offers):
            # Named as the API and the docs name the settings (ALWAYS, NEVER, ...).
            sent = (b.insurance_offer.name if isinstance(b.insurance_offer, InsuranceOffer)
                    else repr(b.insurance_offer))
            offers = ", ".join(o.name for o in InsuranceOffer if o in rules.insurance_offers)
            raise InvalidBet(f"seat {b.seat}: insurance_offer {sent} is not available in "
                             f"{rules.id} (it offers {offers})", rule="insurance_offer_setting")
        if b.safety_net and not rules.safety_net:
            raise InvalidBet(f"seat {b.seat}: {rules.id} has no Safety Net", rule="safety_net")
        if b.behind:
            _verify_behind(rules, b, lim)


def _verify_behind(rules: RuleSet, box: BoxBet, lim: TableLimits) -> None:
    if not rules.bet_behind:
        raise InvalidBet(f"{rules.id} has no Bet Behind", rule="bet_behind")
    players = set()
    for bb in box.behind:
        if not isinstance(bb, BehindBet) or not isinstance(bb.player, str) or not bb.player:
            raise InvalidBet(f"seat {box.seat}: a Bet Behind needs a player id",
                             rule="bet_behind")
        if bb.player == box.player:
            raise InvalidBet(f"seat {box.seat}: {bb.player} cannot bet behind their own box",
                             rule="bet_behind_own_box")
        if bb.player in players:
            raise InvalidBet(f"seat {box.seat}: {bb.player} already bets behind this box",
                             rule="bet_behind_once")
        players.add(bb.player)
        if not _is_amount(bb.stake) or not lim.main_min <= bb.stake <= lim.main_max:
            raise StakeOutOfLimits(
                f"seat {box.seat}: Bet Behind {bb.stake!r} of {bb.player} is outside the table "
                f"limits {lim.main_min}..{lim.main_max}", rule="bet_behind_limits")


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifiedBets:
    """Box bets that passed :func:`verify_bets` under ``rules`` and ``limits``, in seat order.

    Building one runs the full check (and raises as :func:`verify_bets` does), so no unchecked
    value of this type exists. ``Round.deal`` deals it without checking again when it gets the
    same rule set and limits, and checks ``boxes`` in full against anything else.

    >>> from rgs.variants import find_variant
    >>> rules = find_variant("electronic-h17")  # seven boxes
    >>> [b.seat for b in VerifiedBets(rules=rules, boxes=(BoxBet(seat=2, stake=100),
    ...                                                   BoxBet(seat=1, stake=100))).boxes]
    [1, 2]
    """

    rules: RuleSet
    boxes: tuple[BoxBet, ...]
    #: The table limits checked against; None means the rule set's own.
    limits: TableLimits | None = None
    #: The event every deal of these bets under ``rules`` and the checked limits starts with
    #: (an immutable value: the rounds share it rather than each building its own).
    started: RoundStarted = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        verify_bets(self.rules, self.boxes, self.limits)
        # verified: the seats are distinct ints, so the order is total
        boxes = tuple(sorted(self.boxes, key=lambda b: b.seat))
        object.__setattr__(self, "boxes", boxes)
        object.__setattr__(self, "started", RoundStarted(
            variant=self.rules.id, boxes=boxes, limits=self.limits or self.rules.limits))

    def holds_for(self, rules: RuleSet, limits: TableLimits) -> bool:
        """True when this check covers dealing under ``rules`` and ``limits``."""
        checked = self.limits or self.rules.limits
        # Identity first: dealing the same verified bets again passes the same limits object,
        # and comparing two limits field by field costs more than the rest of this check.
        return rules is self.rules and (checked is limits or checked == limits)
