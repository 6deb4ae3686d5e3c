"""Proof that the RTP monitoring tells an engine fault from players' choices (issue 25).

A deliberately wrong engine is made here, in the test only: the engine plays a copy of the rule
set that pays a blackjack 6:5, or whose dealer hits soft 17, while the monitor values the rounds
under the variant's declared rules (3:2, stands on soft 17). The product never plays such rules.

* The per-hand check flags the first round each fault touches (CI).
* The decision-adjusted z-score passes the alert's band within the rounds bench/rtp.py states
  (slow tier: 250,000 rounds for 6:5; the plain observed-vs-PAR check needs 238,000 even with
  perfect players and cannot flag it at all among players who play below PAR).
* Players who always stand or never double lower the return by points and stay in the band,
  while the plain check would flag them.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from rgs.engine import CardDealt, HandSettled, Outcome
from rgs.math.hints import HintTables
from rgs.rtp.expected import RoundFigures, round_figures
from rgs.rtp.play import play_rounds
from rgs.rtp.sheets import par_figures
from rgs.rtp.stats import Tally, summarise
from rgs.variants import VARIANTS

#: The analysis caches the rounds are valued from.
TABLES = HintTables()

RULES = VARIANTS["classic-resplit"]  # 6 decks, 3:2, dealer stands on soft 17
PAR = par_figures(RULES)
SIX_FIVE = replace(RULES, blackjack_pays=Fraction(6, 5))
H17 = replace(RULES, dealer_hits_soft_17=True)
#: The alert's band (ops/prometheus/rtp_rules.yml).
BAND = 4.5


def _figures(player: str, rounds: int, *, seed: int, engine: object = None
             ) -> list[tuple[tuple[object, ...], RoundFigures]]:
    out = []
    for p in play_rounds(RULES, player, rounds, seed=seed,
                         engine_rules=engine):  # type: ignore[arg-type]
        f = round_figures(RULES, p.events, PAR, tables=TABLES)
        assert f is not None
        out.append((p.events, f))
    return out


def _paid_blackjack(events: tuple[object, ...]) -> bool:
    return any(isinstance(e, HandSettled) and e.outcome is Outcome.BLACKJACK for e in events)


def _dealer_hit_soft_17(events: tuple[object, ...]) -> bool:
    dealer = [e.card for e in events if isinstance(e, CardDealt) and e.seat is None]
    for k in range(2, len(dealer)):
        values = [min(int(c[0]) if c[0].isdigit() else (1 if c[0] == "A" else 10), 10)
                  for c in dealer[:k]]
        if 1 in values and sum(values) + 10 == 17:
            return True
    return False


def test_a_correct_engine_passes_the_per_hand_check() -> None:
    for player in ("basic", "stand"):
        assert [f.faults for _, f in _figures(player, 250, seed=3) if f.faults] == []


def test_a_blackjack_paid_6_to_5_is_flagged_in_the_first_round_it_touches() -> None:
    rounds = _figures("basic", 400, seed=11, engine=SIX_FIVE)
    touched = [i for i, (ev, _) in enumerate(rounds) if _paid_blackjack(ev)]
    flagged = [i for i, (_, f) in enumerate(rounds) if f.faults]
    assert touched and flagged == touched
    first = rounds[flagged[0]][1]
    assert first.faults == ("seat 1 hand 0: blackjack of 1000 paid 2200, the rules pay 2500",)


def test_a_dealer_hitting_soft_17_is_flagged_in_the_first_round_it_touches() -> None:
    rounds = _figures("basic", 400, seed=12, engine=H17)
    touched = [i for i, (ev, _) in enumerate(rounds) if _dealer_hit_soft_17(ev)]
    flagged = [i for i, (_, f) in enumerate(rounds) if f.faults]
    assert touched and flagged == touched
    assert "where the rules stand" in rounds[flagged[0]][1].faults[0]


@pytest.mark.parametrize(("player", "points"), [("stand", 10.0), ("no-double", 0.5)])
def test_bad_players_lower_the_return_by_points_and_stay_in_the_band(
        player: str, points: float) -> None:
    s = summarise(Tally.of(f for _, f in _figures(player, 1500, seed=5)))
    assert 100 * s.regret > points  # what their decisions gave up, per unit staked
    if player == "stand":
        assert 100 * (s.par - s.observed) > points
    assert abs(s.z) < BAND
    assert s.hand_check_failures == 0
    if player == "stand":
        assert s.plain_z < -BAND  # the plain check would have raised a false alarm


@pytest.mark.slow
def test_6_to_5_is_flagged_by_the_statistics_within_250000_rounds() -> None:
    s = summarise(Tally.of(f for _, f in _figures("basic", 250_000, seed=25,
                                                  engine=SIX_FIVE)))
    assert s.z < -BAND
    assert s.hand_check_failures > 10_000


@pytest.mark.slow
@pytest.mark.parametrize("player", ["stand", "no-double", "basic"])
def test_players_never_move_the_decision_adjusted_z_score_out_of_band(player: str) -> None:
    s = summarise(Tally.of(f for _, f in _figures(player, 100_000, seed=26)))
    assert abs(s.z) < BAND
    if player != "basic":
        assert 100 * (s.par - s.observed) > 1.0
    assert s.hand_check_failures == 0


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_every_variant_passes_the_per_hand_check_with_side_bets_and_insurance(
        variant_id: str) -> None:
    rules = VARIANTS[variant_id]
    par = par_figures(rules)
    for p in play_rounds(rules, "stand", 120, seed=8, side=500, insure=True):
        f = round_figures(rules, p.events, par, tables=TABLES)
        assert f is not None and f.faults == (), f
        assert f.regret >= 0.0
