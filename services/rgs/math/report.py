"""A variant's complete math: the figures of its PAR sheet, computed from its rule set."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from rgs.engine.rules import RuleSet
from rgs.math.analysis import CASH_OUT, MainGame, analyse_main
from rgs.math.cashout import CashOutDesign, as_table, design_cash_out
from rgs.math.outcomes import Dist, free_bet_kept, game_distribution
from rgs.math.sidebets import insurance_rtp, side_bet_rtps
from rgs.math.strategy_tables import (
    PowerDoubleKey,
    StrategyKey,
    TwoCardKey,
    derive_after_split,
    derive_power_double,
    derive_strategy,
    derive_two_card,
    table_rtp,
)

#: How the figures are obtained, printed on every PAR sheet.
METHOD = (
    "Composition-dependent combinatorial analysis from the exact shoe, shuffled every round: "
    "the dealer's final-hand probabilities are exact given every card removed; the original "
    "hand is played optimally for its exact composition against each up card. Split hands are "
    "played optimally for their own cards with the other split card removed; resplits use a "
    "constant pairing probability (the standard resplit approximation). The outcome "
    "distribution (and so the hit frequency and standard deviation) settles every hand of a "
    "box against one dealer hand distributed as given the first three cards. The 20+ Bonus "
    "assumes the bettor stands on every qualifying two-card 20/21."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class VariantReport:
    """Everything the PAR sheet of one variant states."""

    rules: RuleSet
    game: MainGame
    distribution: Dist
    side_bets: dict[str, float]
    insurance_rtp: float
    cash_out: CashOutDesign | None
    #: Main-game RTP (percent) when the player also takes Cash Out wherever it pays more.
    cash_out_optimal_rtp: float | None
    #: Probability that optimal play takes Cash Out at the first decision.
    cash_out_first_decision: float | None
    strategy: dict[StrategyKey, str]
    power_double: dict[PowerDoubleKey, str]
    two_card: dict[TwoCardKey, str]
    #: RTP (percent) when the first decision follows the total table alone.
    total_table_rtp: float
    seconds: float

    @property
    def rtp(self) -> float:
        """Main-game return to player, percent."""
        return self.game.rtp

    @property
    def hit_frequency(self) -> float:
        """Probability that a round's net result is a win."""
        return sum(p for k, p in self.distribution.items() if k > 0)

    @property
    def push_frequency(self) -> float:
        """Probability that a round's net result is zero."""
        return self.distribution.get(0, 0.0)

    @property
    def standard_deviation(self) -> float:
        """Standard deviation of a round's net result, in main bets."""
        mean = sum(k / 2 * p for k, p in self.distribution.items())
        m2 = sum((k / 2) ** 2 * p for k, p in self.distribution.items())
        return math.sqrt(m2 - mean * mean)


def analyse_variant(rules: RuleSet,
                    progress: Callable[[str], None] | None = None) -> VariantReport:
    """Run every analysis of a rule set (a few seconds per variant)."""
    say = progress or (lambda _m: None)
    start = time.perf_counter()
    say(f"{rules.id}: main game")
    game = analyse_main(rules)
    say(f"{rules.id}: outcome distribution")
    dist = game_distribution(game)
    say(f"{rules.id}: side bets")
    sides = side_bet_rtps(game)
    design = design_cash_out(game) if rules.cash_out is not None else None
    table = as_table(design, rules.id) if design is not None else None
    with_offers = first = None
    if table is not None:
        say(f"{rules.id}: main game with Cash Out")
        offered = analyse_main(rules, table)
        with_offers = offered.rtp
        first = sum(r.weight for r in offered.roots if r.best == CASH_OUT)
    say(f"{rules.id}: strategy")
    strategy = derive_strategy(game, table)
    pd = derive_power_double(game)
    two = derive_two_card(game, strategy)
    strategy |= derive_after_split(game, strategy, two)
    return VariantReport(rules=rules, game=game, distribution=dist, side_bets=sides,
                         insurance_rtp=insurance_rtp(game), cash_out=design,
                         cash_out_optimal_rtp=with_offers, cash_out_first_decision=first,
                         strategy=strategy, two_card=two,
                         total_table_rtp=table_rtp(game, strategy), power_double=pd,
                         seconds=time.perf_counter() - start)


@cache
def cached_report(rules: RuleSet) -> VariantReport:
    """:func:`analyse_variant`, once per rule set per process (tests and tools share it)."""
    return analyse_variant(rules)


def _r(x: float) -> float:
    return round(float(x), 6)


def free_bet_value(report: VariantReport) -> float:
    """What a free bet returns to the player, in free bets, under the main game's optimal
    strategy (docs/freebets.md: the credit is the payout less the free stake, taken from what
    the box's first hand returns; the player's own doubles and splits are paid as staked).

    A round's gain on a free bet is its paid net plus the free stake not debited, less what
    the credit keeps back: ``net + 1 - min(1, first hand's return)``. Its expectation is the
    analysis's exact RTP (in main bets) less the expected ``min(1, first hand's return)``
    (:func:`rgs.math.outcomes.free_bet_kept`: 1 when the free hand wins or pushes, 0.5 for a
    surrender, 0 for a loss), which comes from the outcome model (see its approximation).
    """
    return report.rtp / 100.0 - free_bet_kept(report.game)


def figures(report: VariantReport) -> dict[str, object]:
    """The PAR sheet's figures as one JSON-ready object (percentages in percent)."""
    r = report.rules
    out: dict[str, object] = {
        "variant": r.id,
        "name": r.name,
        "decks": r.decks,
        "rtp": _r(report.rtp),
        "house_edge": _r(100.0 - report.rtp),
        "hit_frequency": _r(100.0 * report.hit_frequency),
        "push_frequency": _r(100.0 * report.push_frequency),
        "standard_deviation": _r(report.standard_deviation),
        "outcome_distribution": [{"net": k / 2, "probability": _r(p)}
                                 for k, p in report.distribution.items() if p >= 5e-7],
        "insurance_rtp": _r(report.insurance_rtp) if r.insurance else None,
        "side_bets": {k: _r(v) for k, v in report.side_bets.items()},
        "rtp_total_dependent_first_decision": _r(report.total_table_rtp),
        "free_bet_value": _r(100.0 * free_bet_value(report)),
    }
    if report.cash_out is not None:
        out["cash_out_rtp"] = _r(report.cash_out.rtp)
        out["cash_out_scale"] = _r(report.cash_out.scale)
        out["cash_out_offer_range"] = [report.cash_out.low, report.cash_out.high]
        out["cash_out_optimal_rtp"] = _r(report.cash_out_optimal_rtp or 0.0)
    out["method"] = METHOD
    return out
