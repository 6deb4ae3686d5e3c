"""Monte Carlo simulation: basic strategy played through the production engine.

The shoe is shuffled for every round (as every variant requires) by a seeded
``random.Random`` — a simulation tool needs speed and reproducibility, not the certified RNG
that deals production rounds. Amounts are integer minor units; only the summary statistics
are floats.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rgs.engine import (
    BoxBet,
    HandSettled,
    Round,
    RuleSet,
    Shoe,
    ShoeSource,
    SideBetKind,
    SideBetSettled,
    VerifiedBets,
)
from rgs.math.basic_strategy import (
    BasicStrategyPlayer,
    PowerChoiceTable,
    StrategyTable,
    TwoCardTable,
)
from rgs.math.parallel import chunk_seed, chunks, run_chunks

#: Rounds per seeded chunk of :func:`simulate_parallel` (part of what makes a run reproducible).
CHUNK = 250_000

#: Main bet and side-bet stake used by the simulation (minor units).
UNIT = 100


@dataclass(slots=True)
class _Tally:
    staked: int = 0
    net: int = 0
    net_sq: int = 0
    count: int = 0

    def add(self, staked: int, net: int) -> None:
        self.staked += staked
        self.net += net
        self.net_sq += net * net
        self.count += 1


@dataclass(frozen=True, slots=True, kw_only=True)
class BetResult:
    """Observed return of one bet type."""

    rtp: float
    """Return to player in percent: 100 × (stakes + net) / initial stakes."""
    stderr: float
    """Standard error of ``rtp`` in percentage points."""
    rounds: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulationResult:
    """What a simulation observed."""

    variant: str
    rounds: int
    seed: int
    main: BetResult
    side_bets: dict[str, BetResult] = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        """A JSON-ready summary (``variant``, ``rounds``, ``rtp``, ``stderr`` …)."""
        return {
            "variant": self.variant, "rounds": self.rounds, "seed": self.seed,
            "rtp": round(self.main.rtp, 4), "stderr": round(self.main.stderr, 4),
            "side_bets": {k: {"rtp": round(v.rtp, 4), "stderr": round(v.stderr, 4)}
                          for k, v in self.side_bets.items()},
            "seconds": round(self.seconds, 3),
            "rounds_per_second": round(self.rounds / self.seconds) if self.seconds else None,
        }


def _result(t: _Tally) -> BetResult:
    if t.count == 0 or t.staked == 0:
        return BetResult(rtp=0.0, stderr=0.0, rounds=0)
    unit = t.staked / t.count
    mean = t.net / t.count / unit
    var = max(t.net_sq / t.count / (unit * unit) - mean * mean, 0.0)
    return BetResult(rtp=100.0 * (1.0 + mean), stderr=100.0 * math.sqrt(var / t.count),
                     rounds=t.count)


def simulate(rules: RuleSet, rounds: int, *, seed: int | None = None,
             table: StrategyTable | None = None,
             power_choices: PowerChoiceTable | None = None,
             two_card: TwoCardTable | None = None, side_bets: bool = True,
             progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Play ``rounds`` single-box rounds of basic strategy; ``seed`` None draws fresh entropy.

    With ``side_bets`` every side bet the variant offers is placed at :data:`UNIT` each round.
    ``progress(done)`` is called about every 2% of the run.
    """
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    rng = random.Random(seed)
    pick = rng.randrange
    player = BasicStrategyPlayer(rules, table, power_choices, two_card)
    offered = rules.side_bets if side_bets else frozenset()
    stake = max(UNIT, rules.limits.main_min)
    side = max(UNIT, rules.limits.side_min)
    bet = BoxBet(
        seat=1, stake=stake,
        twenty_plus=side if SideBetKind.TWENTY_PLUS in offered else 0,
        perfect_pairs=side if SideBetKind.PERFECT_PAIRS in offered else 0,
        twenty_one_plus_three=side if SideBetKind.TWENTY_ONE_PLUS_THREE in offered else 0)
    bets = VerifiedBets(rules=rules, boxes=(bet,))  # checked once, dealt `rounds` times
    main = _Tally()
    sides = {k: _Tally() for k in sorted(offered, key=lambda k: k.value)}
    full = Shoe.of_decks(rules.decks).cards()
    step = max(1, rounds // 50)
    started = time.perf_counter()
    for i in range(rounds):
        rnd = Round.deal(rules, ShoeSource(Shoe(full), pick), bets)
        player.play(rnd)
        net = 0
        for e in rnd.events:
            if type(e) is HandSettled:
                net += e.payout - e.stake
            elif type(e) is SideBetSettled:
                sides[e.kind].add(e.stake, e.payout - e.stake)
        main.add(stake, net)
        if progress is not None and i % step == 0:
            progress(i)
    elapsed = time.perf_counter() - started
    return SimulationResult(
        variant=rules.id, rounds=rounds, seed=seed, main=_result(main),
        side_bets={k.value: _result(t) for k, t in sides.items()}, seconds=elapsed)


def pool_results(parts: list[BetResult]) -> BetResult:
    """One bet's result over several independent runs (their rounds pooled)."""
    n = sum(p.rounds for p in parts)
    if n == 0:
        return BetResult(rtp=0.0, stderr=0.0, rounds=0)
    mean = sum(p.rtp * p.rounds for p in parts) / n
    # each part's variance per round is stderr^2 * rounds; add the spread of the part means
    var = sum(p.rounds * (p.stderr ** 2 * p.rounds + (p.rtp - mean) ** 2) for p in parts) / n
    return BetResult(rtp=mean, stderr=math.sqrt(var / n), rounds=n)


def simulate_parallel(rules: RuleSet, rounds: int, *, seed: int,
                      table: StrategyTable | None = None,
                      power_choices: PowerChoiceTable | None = None,
                      two_card: TwoCardTable | None = None, jobs: int | None = None,
                      chunk: int = CHUNK,
                      progress: Callable[[int], None] | None = None) -> SimulationResult:
    """:func:`simulate` of the main game (no side bets) over every core: chunks of ``chunk``
    rounds, chunk ``i`` seeded ``chunk_seed(seed, i)``, so the figures depend on ``seed`` and
    ``chunk`` only. ``progress(done)`` is called as chunks finish."""
    sizes = chunks(rounds, chunk)

    def work(i: int) -> SimulationResult:
        return simulate(rules, sizes[i], seed=chunk_seed(seed, i), table=table,
                        power_choices=power_choices, two_card=two_card, side_bets=False)

    started = time.perf_counter()
    parts: list[BetResult] = []
    for res in run_chunks(work, range(len(sizes)), jobs=jobs):
        parts.append(res.main)
        if progress is not None:
            progress(sum(p.rounds for p in parts))
    return SimulationResult(variant=rules.id, rounds=rounds, seed=seed,
                            main=pool_results(parts), seconds=time.perf_counter() - started)
