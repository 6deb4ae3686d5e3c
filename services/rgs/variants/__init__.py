"""The five blackjack variants the RGS hosts, as data, with a registry.

>>> find_variant("power").dealer_push_total
22
"""

from __future__ import annotations

import json
from importlib import resources

from rgs.engine.errors import EngineError
from rgs.engine.rules import (
    CashOutTable,
    InsuranceOffer,
    Peek,
    PerfectPairsPaytable,
    RuleSet,
    Surrender,
    TableLimits,
    TwentyOnePlusThreePaytable,
    TwentyPlusPaytable,
)

__all__ = ["VARIANTS", "UnknownVariant", "find_variant", "load_cash_out_table"]


class UnknownVariant(EngineError):
    """No variant has that id."""


def load_cash_out_table(name: str) -> CashOutTable:
    """Load a cash-out table shipped in ``rgs/variants/data`` (written by ``rgs.math``)."""
    raw = json.loads(resources.files(__package__).joinpath("data", name).read_text("utf-8"))
    offers: dict[tuple[int, bool, str], int] = {}
    for row in raw["offers"]:
        offers[(int(row["total"]), bool(row["soft"]), str(row["up"]))] = int(row["offer_bp"])
    return CashOutTable(offers_bp=offers, source=str(raw.get("source", name)))


_ALL_OFFERS = frozenset(InsuranceOffer)

VEGAS_20_PLUS = RuleSet(
    id="vegas-20-plus",
    name="Vegas Blackjack with 20+ Bonus",
    decks=6,
    peek=Peek.ACE_AND_TEN,
    double_any_cards=True,
    double_after_split=True,
    double_split_aces=True,
    max_split_depth=1,
    max_hands=2,
    split_aces_one_card=False,
    charlie_cards=8,
    charlie_wins_at_once=False,
    insurance_offers=_ALL_OFFERS,
    twenty_plus=TwentyPlusPaytable(player_wins=3, push=9, dealer_wins=20),
)

CLASSIC_RESPLIT = RuleSet(
    id="classic-resplit",
    name="Player's Suite Blackjack",
    decks=6,
    peek=Peek.ACE_AND_TEN,
    double_after_split=True,
    max_split_depth=2,
    max_hands=4,
    split_aces_one_card=True,
    resplit_aces=False,
    charlie_cards=8,
    charlie_wins_at_once=True,
    insurance_offers=_ALL_OFFERS,
    safety_net=True,
)

ELECTRONIC_H17 = RuleSet(
    id="electronic-h17",
    name="Electronic Table Blackjack (H17)",
    decks=6,
    max_boxes=7,
    dealer_hits_soft_17=True,
    peek=Peek.ACE_AND_TEN,
    double_after_split=True,
    max_split_depth=1,
    max_hands=2,
    split_aces_one_card=True,
    surrender=Surrender.LATE,
    charlie_cards=7,
    charlie_wins_at_once=True,
)

POWER = RuleSet(
    id="power",
    name="Power Blackjack",
    decks=6,
    hole_card=False,
    peek=Peek.NEVER,
    late_blackjack_takes_all=True,
    dealer_push_total=22,
    double_after_split=True,
    power_double_counts=frozenset({9, 10, 11}),
    max_split_depth=2,
    max_hands=4,
    split_aces_one_card=True,
    resplit_aces=False,
    power_split_totals=frozenset({15, 16}),
    charlie_cards=8,
    charlie_wins_at_once=False,
)

VIP_PLATINUM = RuleSet(
    id="vip-platinum",
    name="VIP Platinum Blackjack",
    decks=8,
    max_boxes=7,
    peek=Peek.ACE_ONLY,
    late_blackjack_takes_all=True,
    double_after_split=False,
    max_split_depth=1,
    max_hands=2,
    split_aces_one_card=True,
    cash_out=load_cash_out_table("vip_platinum_cash_out.json"),
    bet_behind=True,
    perfect_pairs=PerfectPairsPaytable(perfect=25, coloured=12, mixed=6),
    twenty_one_plus_three=TwentyOnePlusThreePaytable(
        suited_trips=100, straight_flush=40, three_of_a_kind=30, straight=10, flush=5),
    limits=TableLimits(main_min=100, main_max=500_000, side_min=100, side_max=50_000),
)

#: Every hosted variant by id, in the order of ``variants.md``.
VARIANTS: dict[str, RuleSet] = {
    r.id: r for r in (VEGAS_20_PLUS, CLASSIC_RESPLIT, ELECTRONIC_H17, POWER, VIP_PLATINUM)
}


def find_variant(variant_id: str) -> RuleSet:
    """The rule set of a hosted variant; raise :class:`UnknownVariant` naming the known ids."""
    try:
        return VARIANTS[variant_id]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise UnknownVariant(f"unknown variant {variant_id!r}; known variants: {known}",
                             rule="variant_id") from None
