"""Brand options of a variant: what an operator may choose per brand (deck count where the
variant allows a choice, which side bets are offered, Cash Out offered or not), and the
effective rules they make.

Which choices a variant allows is data, here; a brand's choice is validated against it when the
platform file is loaded, and a round stores the options it was dealt with, so it replays with
the same rules after the brand file changes.

>>> effective_rules(VARIANTS["electronic-h17"], VariantOptions(decks=2)).decks
2
>>> effective_rules(VARIANTS["vip-platinum"], VariantOptions(cash_out=False)).cash_out is None
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from rgs.engine.rules import RuleSet, SideBetKind
from rgs.variants import VARIANTS

DECK_CHOICES: Mapping[str, tuple[int, ...]] = MappingProxyType({
    # The source of electronic-h17 calls its deck count configurable; a PAR sheet is shipped
    # for every count here (services/rgs/math/par/electronic-h17-<n>d.*).
    "electronic-h17": (1, 2, 4, 6, 8),
})
"""Deck counts a brand may choose, per variant (a variant not named plays its own count only)."""


class OptionError(ValueError):
    """A brand asks for an option its variant does not allow."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VariantOptions:
    """A brand's choices for one variant; None (or True) keeps the variant's own rule."""

    #: Decks in the shoe; None plays the variant's own count.
    decks: int | None = None
    #: The side bets offered, a subset of the variant's; None offers all of them.
    side_bets: tuple[SideBetKind, ...] | None = None
    #: Cash Out offered (where the variant has it).
    cash_out: bool = True


DEFAULT_OPTIONS = VariantOptions()
"""The variant as written."""


def check_options(rules: RuleSet, options: VariantOptions) -> None:
    """Refuse options ``rules`` does not allow (OptionError names the option)."""
    if options.decks is not None and options.decks != rules.decks and (
            options.decks not in DECK_CHOICES.get(rules.id, ())):
        allowed = DECK_CHOICES.get(rules.id, (rules.decks,))
        raise OptionError(f"decks: {rules.id} plays with {', '.join(map(str, allowed))} decks")
    if options.side_bets is not None:
        extra = set(options.side_bets) - rules.side_bets
        if extra:
            raise OptionError(f"side_bets: {rules.id} has no {sorted(k.value for k in extra)}")
    if not options.cash_out and rules.cash_out is None:
        raise OptionError(f"cash_out: {rules.id} has no Cash Out to turn off")


def effective_rules(rules: RuleSet, options: VariantOptions) -> RuleSet:
    """``rules`` with a brand's options applied (the variant itself when they change nothing)."""
    if options == DEFAULT_OPTIONS:
        return rules
    check_options(rules, options)
    offered = rules.side_bets if options.side_bets is None else frozenset(options.side_bets)
    changes: dict[str, object] = {}
    if options.decks is not None:
        changes["decks"] = options.decks
    if SideBetKind.TWENTY_PLUS not in offered:
        changes["twenty_plus"] = None
    if SideBetKind.PERFECT_PAIRS not in offered:
        changes["perfect_pairs"] = None
    if SideBetKind.TWENTY_ONE_PLUS_THREE not in offered:
        changes["twenty_one_plus_three"] = None
    if not options.cash_out:
        changes["cash_out"] = None
    return dataclasses.replace(rules, **changes)  # type: ignore[arg-type]


__all__ = ["DECK_CHOICES", "DEFAULT_OPTIONS", "VARIANTS", "OptionError", "VariantOptions",
           "check_options", "effective_rules"]
