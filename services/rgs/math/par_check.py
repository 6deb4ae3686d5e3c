"""The PAR sheet's simulation check: the production engine plays the sheet's own strategy.

A test lab checks a PAR sheet by simulating the game's published strategy through the game;
``rgs par V --check-rounds N`` does the same (:func:`~rgs.math.simulate.simulate_parallel`,
every core, reproducible by seed) and the sheet records what it found: rounds, observed RTP,
its standard error, the difference from the sheet's RTP in points and in standard errors. The
record stays on the sheet while the RTP and the strategy it was run against are unchanged.
The strategy is total-dependent after the first decision, so it returns a few thousandths of a
point less than the composition-dependent RTP; a difference beyond :data:`PASS_SE` standard
errors means the engine plays a rule otherwise than the analysis values it (issue 11).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from rgs.engine.rules import RuleSet
from rgs.math.report import VariantReport
from rgs.math.simulate import CHUNK, simulate_parallel
from rgs.math.strategy_tables import strategy_json

#: Default seed of the check (a recorded check names its own).
CHECK_SEED = 20261129
#: Largest difference, in standard errors, that passes.
PASS_SE = 3.0


def strategy_digest(report: VariantReport) -> str:
    """A short fingerprint of the exported strategy the check played."""
    text = strategy_json(report.rules.id, report.strategy, report.power_double, report.two_card)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_check(report: VariantReport, rounds: int, *, seed: int = CHECK_SEED,
              jobs: int | None = None,
              progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Simulate the sheet's strategy through the engine and return the check's record."""
    res = simulate_parallel(report.rules, rounds, seed=seed, table=report.strategy,
                            power_choices=report.power_double, two_card=report.two_card,
                            jobs=jobs, progress=progress)
    diff = res.main.rtp - report.rtp
    z = diff / res.main.stderr if res.main.stderr else 0.0
    return {
        "rounds": rounds, "seed": seed, "chunk": CHUNK,
        "rtp": round(res.main.rtp, 4), "stderr": round(res.main.stderr, 4),
        "par_rtp": round(report.rtp, 6), "difference": round(diff, 4),
        "standard_errors": round(z, 2), "passed": abs(z) < PASS_SE,
        "strategy": strategy_digest(report),
        "command": f"rgs par {variant_args(report.rules)} --check-rounds {rounds} --seed {seed}",
    }


def variant_args(rules: RuleSet) -> str:
    """How ``rgs par`` names a rule set: the variant id, with ``--decks`` when a brand plays it
    with a deck count other than the variant's own."""
    from rgs.variants import VARIANTS

    own = VARIANTS.get(rules.id)
    return rules.id if own is None or own.decks == rules.decks else \
        f"{rules.id} --decks {rules.decks}"


def still_valid(check: object, report: VariantReport) -> bool:
    """A recorded check still describes this sheet: same RTP, same strategy."""
    if not isinstance(check, dict):
        return False
    try:
        return (abs(float(check["par_rtp"]) - report.rtp) <= 1e-6
                and check["strategy"] == strategy_digest(report))
    except (KeyError, TypeError, ValueError):
        return False


def describe(check: dict[str, Any]) -> str:
    """One sentence for the sheet and the terminal."""
    verdict = "passed" if check["passed"] else "FAILED"
    return (f"The engine, playing this sheet's strategy for {check['rounds']:,} rounds (seed "
            f"{check['seed']}), returned {check['rtp']:.4f}% ± {check['stderr']:.4f} (1 s.e.) "
            f"against {check['par_rtp']:.4f}%: difference {check['difference']:+.4f} points, "
            f"{check['standard_errors']:+.2f} s.e. ({verdict}: within {PASS_SE:g} s.e.)")
