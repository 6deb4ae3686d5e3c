"""Slow tier: the split rules, per situation, pinned between the engine and the analysis at
0.01 of a bet.

A split situation's card tree is too large to enumerate (``test_math_situations.py`` does the
rest), so the engine's value is sampled: the analysis' own decisions played on random shoes
after the forced first cards, enough rounds for a standard error under 0.003, spread over every
core in seeded chunks. The analysis values each split hand with only the other original card
out (and resplits by the constant-pair approximation), so engine and analysis may differ by a
few thousandths; a rule played one way and valued another differs by more than 0.01.
About 4.8 million rounds: 5 to 9 minutes on two shared cores.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from rgs.engine import Action
from rgs.math import analysis as an
from rgs.math.analysis_player import AnalysisPlayer
from rgs.math.parallel import chunk_seed, run_chunks
from rgs.math.report import cached_report
from rgs.math.situations import Estimate, pooled, sample_situation
from rgs.variants import VARIANTS

TOLERANCE = 0.01
CHUNK = 50_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Split:
    """A forced split situation: variant, the first three cards, split or Power Split, how many
    rounds give a standard error under 0.003 (measured spread of the situation)."""

    rule: str
    variant: str
    cards: tuple[str, str, str]
    power: bool
    rounds: int


SITUATIONS = (
    Split(rule="Power Split 16 v T", variant="power", cards=("TH", "TD", "6C"), power=True,
          rounds=250_000),
    Split(rule="Power Split T-5 v 2", variant="power", cards=("TH", "2D", "5C"), power=True,
          rounds=350_000),
    Split(rule="Power Split 9-7 v 8", variant="power", cards=("9H", "8D", "7C"), power=True,
          rounds=375_000),
    Split(rule="Power Split 8-7 v 6 (doubles)", variant="power", cards=("8H", "6D", "7C"),
          power=True, rounds=625_000),
    Split(rule="power resplit to 4 hands, dealer 22", variant="power", cards=("8H", "9D", "8C"),
          power=False, rounds=400_000),
    Split(rule="power split aces one card each", variant="power", cards=("AH", "6D", "AC"),
          power=False, rounds=310_000),
    Split(rule="vegas split aces played on and doubled", variant="vegas-20-plus",
          cards=("AH", "6D", "AC"), power=False, rounds=750_000),
    Split(rule="classic resplit to 4 hands", variant="classic-resplit", cards=("8H", "6D", "8C"),
          power=False, rounds=700_000),
    Split(rule="electronic one split against a peeked ten", variant="electronic-h17",
          cards=("8H", "TD", "8C"), power=False, rounds=375_000),
    Split(rule="vip no double after split", variant="vip-platinum", cards=("8H", "9D", "8C"),
          power=False, rounds=310_000),
)


def _analysis(s: Split) -> float:
    game = cached_report(VARIANTS[s.variant]).game
    root = AnalysisPlayer(game).root(s.cards[1], [s.cards[0], s.cards[2]])
    return root.actions[an.POWER_SPLIT if s.power else an.SPLIT] + root.blackjack_part


def _sample(task: tuple[int, int, int]) -> Estimate:
    index, rounds, seed = task
    s = SITUATIONS[index]
    game = cached_report(VARIANTS[s.variant]).game
    player = AnalysisPlayer(game)
    first = Action.POWER_SPLIT if s.power else Action.SPLIT
    return sample_situation(game.rules, s.cards, lambda rnd: player.play(rnd, [first]), rounds,
                            seed=seed)


@pytest.mark.slow
def test_split_rules_engine_and_analysis_agree_within_a_hundredth_of_a_bet(
        capsys: pytest.CaptureFixture[str]) -> None:
    for s in SITUATIONS:  # analyse before forking: the workers inherit the analyses
        cached_report(VARIANTS[s.variant])
    tasks = [(i, min(CHUNK, s.rounds - start), chunk_seed(i, start // CHUNK))
             for i, s in enumerate(SITUATIONS) for start in range(0, s.rounds, CHUNK)]
    parts: dict[int, list[Estimate]] = {}
    for (i, _, _), res in zip(tasks, run_chunks(_sample, tasks), strict=True):
        parts.setdefault(i, []).append(res)
    bad = []
    for i, s in enumerate(SITUATIONS):
        engine = pooled(parts[i])
        expected = _analysis(s)
        diff = engine.value - expected
        with capsys.disabled():
            print(f"\n{s.rule}: engine {engine.value:+.4f} ± {engine.stderr:.4f}, analysis "
                  f"{expected:+.4f}, difference {diff:+.4f} ({diff / engine.stderr:+.1f} s.e.)")
        if engine.stderr >= 0.003:
            bad.append(f"{s.rule}: standard error {engine.stderr:.4f}, sample more rounds")
        if abs(diff) >= TOLERANCE:
            bad.append(f"{s.rule}: engine and analysis differ by {diff:+.4f}")
    assert not bad, bad
