"""Monte Carlo simulation: basic strategy played through the production engine.

Every round is dealt from the full shoe (as every variant requires), drawn by a seeded
``random.Random`` (:class:`~rgs.math.seeded_shoe.SeededShoe`): a simulation tool needs speed and
reproducibility, not the certified RNG that deals production rounds. Long runs are cut into
chunks with seeds of their own (:data:`CHUNK_ROUNDS`, :func:`run_seed`) that several processes
can play side by side with the same result. Amounts are integer minor units; only the summary
statistics are floats.
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
from rgs.math.seeded_shoe import SeededShoe

#: Rounds per seeded chunk of :func:`simulate_parallel` (part of what makes a run reproducible;
#: the PAR sheets' recorded checks name it). :func:`simulate` has its own, :data:`CHUNK_ROUNDS`.
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


CHUNK_ROUNDS = 100_000
"""Rounds :func:`simulate` deals from one seeded stream. A run is cut into chunks of this many
rounds; chunk 0 is dealt from the run's seed itself (so runs of up to this many rounds deal
exactly what earlier versions dealt) and chunk ``k`` from :func:`run_seed` ``(seed, k)``. The
chunks, not the processes, carry the randomness: a seeded result depends on the seed and the
round count only, never on how many jobs played it."""


def run_seed(seed: int, k: int) -> int:
    """The seed of chunk ``k`` of :func:`simulate`: the run's own seed for chunk 0, else
    :func:`rgs.math.parallel.chunk_seed` ``(seed, k)``."""
    return seed if k == 0 else chunk_seed(seed, k)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Plan:
    """What every chunk of a run needs (sent to worker processes)."""

    rules: RuleSet
    table: StrategyTable | None
    power_choices: PowerChoiceTable | None
    two_card: TwoCardTable | None
    side_bets: bool


@dataclass(slots=True)
class _Tallies:
    main: _Tally
    sides: dict[SideBetKind, _Tally]

    def add(self, other: _Tallies) -> None:
        for mine, theirs in ((self.main, other.main),
                             *((self.sides[k], t) for k, t in other.sides.items())):
            mine.staked += theirs.staked
            mine.net += theirs.net
            mine.net_sq += theirs.net_sq
            mine.count += theirs.count


def _offered(plan: _Plan) -> frozenset[SideBetKind]:
    return plan.rules.side_bets if plan.side_bets else frozenset()


def _empty(plan: _Plan) -> _Tallies:
    return _Tallies(main=_Tally(),
                    sides={k: _Tally() for k in sorted(_offered(plan), key=lambda k: k.value)})


def _play_chunk(plan: _Plan, seed: int, rounds: int,
                progress: Callable[[int], None] | None = None, step: int = 0) -> _Tallies:
    """Play ``rounds`` rounds dealt from ``random.Random(seed)``."""
    rules = plan.rules
    # Every round from the full shoe, drawn as ShoeSource(Shoe(full), rng.randrange) draws.
    shoe = SeededShoe(Shoe.of_decks(rules.decks).cards(), random.Random(seed))
    player = BasicStrategyPlayer(rules, plan.table, plan.power_choices, plan.two_card)
    offered = _offered(plan)
    stake = max(UNIT, rules.limits.main_min)
    side = max(UNIT, rules.limits.side_min)
    bet = BoxBet(
        seat=1, stake=stake,
        twenty_plus=side if SideBetKind.TWENTY_PLUS in offered else 0,
        perfect_pairs=side if SideBetKind.PERFECT_PAIRS in offered else 0,
        twenty_one_plus_three=side if SideBetKind.TWENTY_ONE_PLUS_THREE in offered else 0)
    bets = VerifiedBets(rules=rules, boxes=(bet,))  # checked once, dealt `rounds` times
    tallies = _empty(plan)
    main, sides = tallies.main, tallies.sides
    # The main bet's tally is kept in locals (added to `main` at the end): the same integers.
    staked = total = total_sq = 0
    for i in range(rounds):
        shoe.next_round()
        rnd = Round.deal(rules, shoe, bets)
        player.play(rnd)
        net = 0
        if sides:
            for e in rnd.events:
                if type(e) is HandSettled:
                    net += e.payout - e.stake
                elif type(e) is SideBetSettled:
                    sides[e.kind].add(e.stake, e.payout - e.stake)
        else:
            # Without side bets (and Bet Behind, which the simulation never places) the hands
            # settle last, just before RoundSettled: only the tail needs reading.
            events = rnd.events
            j = len(events) - 2
            while j >= 0 and type(e := events[j]) is HandSettled:
                net += e.payout - e.stake
                j -= 1
        staked += stake
        total += net
        total_sq += net * net
        if progress is not None and i % step == 0:
            progress(i)
    main.staked += staked
    main.net += total
    main.net_sq += total_sq
    main.count += rounds
    return tallies


def simulate(rules: RuleSet, rounds: int, *, seed: int | None = None,
             table: StrategyTable | None = None,
             power_choices: PowerChoiceTable | None = None,
             two_card: TwoCardTable | None = None, side_bets: bool = True,
             progress: Callable[[int], None] | None = None, jobs: int = 1,
             chunk_rounds: int = CHUNK_ROUNDS) -> SimulationResult:
    """Play ``rounds`` single-box rounds of basic strategy; ``seed`` None draws fresh entropy.

    With ``side_bets`` every side bet the variant offers is placed at :data:`UNIT` each round.
    ``progress(done)`` is called about every 2% of the run (with ``jobs`` > 1, as chunks
    finish). ``jobs`` processes play the chunks of ``chunk_rounds`` rounds side by side; the
    result for a seed (and chunk size) is the same for any ``jobs``.
    """
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    if jobs < 1 or chunk_rounds < 1:
        raise ValueError("jobs and chunk_rounds must be at least 1")
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    plan = _Plan(rules=rules, table=table, power_choices=power_choices, two_card=two_card,
                 side_bets=side_bets)
    tasks = [(run_seed(seed, k), n) for k, n in enumerate(chunks(rounds, chunk_rounds))]
    total = _empty(plan)
    started = time.perf_counter()
    if jobs == 1 or len(tasks) == 1:
        step = max(1, rounds // 50)
        done = 0
        for chunk_seed_k, n in tasks:
            at = done

            def report(i: int, at: int = at) -> None:
                if progress is not None:
                    progress(at + i)
            total.add(_play_chunk(plan, chunk_seed_k, n,
                                  report if progress is not None else None, step))
            done += n
    else:
        # Integer tallies add up to the same figures whichever process played a chunk.
        done = 0
        for part in run_chunks(lambda task: _play_chunk(plan, *task), tasks, jobs=jobs):
            total.add(part)
            done += part.main.count
            if progress is not None:
                progress(done)
    elapsed = time.perf_counter() - started
    return SimulationResult(
        variant=rules.id, rounds=rounds, seed=seed, main=_result(total.main),
        side_bets={k.value: _result(t) for k, t in total.sides.items()}, seconds=elapsed)



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
        # One stream per chunk of this run (chunk_rounds=chunk): the figures recorded on the
        # PAR sheets were dealt so.
        return simulate(rules, sizes[i], seed=chunk_seed(seed, i), table=table,
                        power_choices=power_choices, two_card=two_card, side_bets=False,
                        chunk_rounds=chunk)

    started = time.perf_counter()
    parts: list[BetResult] = []
    for res in run_chunks(work, range(len(sizes)), jobs=jobs):
        parts.append(res.main)
        if progress is not None:
            progress(sum(p.rounds for p in parts))
    return SimulationResult(variant=rules.id, rounds=rounds, seed=seed,
                            main=pool_results(parts), seconds=time.perf_counter() - started)
