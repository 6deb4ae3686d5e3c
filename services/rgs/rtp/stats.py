"""Aggregates of the valued rounds: observed return, PAR, decision-adjusted expected return,
and the difference with its standard error and z-score (docs/rtp-monitoring.md).

Per round ``i`` with base stake ``b_i``, observed net ``o_i``, PAR net ``p_i`` and expected net
``e_i`` (minor units), over ``n`` rounds with ``B = sum b_i``:

* observed return ``1 + sum o_i / B``; PAR ``1 + sum p_i / B``; decision-adjusted expected
  return ``1 + sum e_i / B``;
* difference ``d = sum (o_i - e_i) / B``, standard error ``sqrt(n s^2) / B`` with ``s^2`` the
  sample variance of ``o_i - e_i``; ``z = d / se``. Under an engine that plays its rules the
  residuals have mean zero whatever the players chose, so ``z`` is close to standard normal;
* the plain check, the same with the PAR's ``p_i`` for ``e_i``: it also moves with the players'
  choices (their regret), which is why it cannot tell a fault from bad play.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from rgs.rtp.expected import RoundFigures

#: The dimensions a report and the metrics group by.
DIMENSIONS: Final = ("brand", "variant", "table", "stake_band", "channel")


@dataclass(slots=True)
class Tally:
    """Running sums of one group (every field additive)."""

    rounds: int = 0
    base: float = 0.0
    observed: float = 0.0
    par: float = 0.0
    expected: float = 0.0
    regret: float = 0.0
    adj_sq: float = 0.0
    plain_sq: float = 0.0
    faults: int = 0

    def add(self, f: RoundFigures) -> None:
        """Count one round."""
        self.rounds += 1
        self.base += f.base_stake
        self.observed += f.observed_net
        self.par += f.par_net
        self.expected += f.expected_net
        self.regret += f.regret
        self.adj_sq += (f.observed_net - f.expected_net) ** 2
        self.plain_sq += (f.observed_net - f.par_net) ** 2
        self.faults += bool(f.faults)

    @classmethod
    def of(cls, figures: Iterable[RoundFigures]) -> Tally:
        """The tally of these rounds."""
        t = cls()
        for f in figures:
            t.add(f)
        return t

    @classmethod
    def from_row(cls, r: Any) -> Tally:
        """From a row of :data:`SUMS` (a mapping)."""
        return cls(rounds=int(r["rounds"]), base=float(r["base"]), observed=float(r["observed"]),
                   par=float(r["par"]), expected=float(r["expected"]), regret=float(r["regret"]),
                   adj_sq=float(r["adj_sq"]), plain_sq=float(r["plain_sq"]),
                   faults=int(r["faults"]))


#: The SQL sums a :class:`Tally` is read from (``rtp_rounds``).
SUMS: Final = """count(*) AS rounds, COALESCE(sum(base_stake), 0) AS base,
COALESCE(sum(observed_net), 0) AS observed, COALESCE(sum(par_net), 0) AS par,
COALESCE(sum(expected_net), 0) AS expected, COALESCE(sum(regret), 0) AS regret,
COALESCE(sum((observed_net - expected_net) ^ 2), 0) AS adj_sq,
COALESCE(sum((observed_net - par_net) ^ 2), 0) AS plain_sq,
count(*) FILTER (WHERE cardinality(faults) > 0) AS faults"""


def _diff(total: float, sq: float, n: int, base: float) -> tuple[float, float, float]:
    if n < 2 or base <= 0:
        return (total / base if base else 0.0), 0.0, 0.0
    var = max((sq - total * total / n) / (n - 1), 0.0)
    se = math.sqrt(n * var) / base
    d = total / base
    return d, se, (d / se if se > 0 else 0.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """The figures of one group (returns as ratios: 0.995 is 99.5%)."""

    rounds: int
    observed: float
    par: float
    expected: float
    difference: float
    standard_error: float
    z: float
    plain_difference: float
    plain_standard_error: float
    plain_z: float
    regret: float
    hand_check_failures: int
    labels: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, ratios rounded to 1e-6."""
        out: dict[str, Any] = dict(self.labels)
        out["rounds"] = self.rounds
        for k in ("observed", "par", "expected", "difference", "standard_error",
                  "plain_difference", "plain_standard_error", "regret"):
            out[k] = round(getattr(self, k), 6)
        out["z"] = round(self.z, 3)
        out["plain_z"] = round(self.plain_z, 3)
        out["hand_check_failures"] = self.hand_check_failures
        return out


def summarise(t: Tally, labels: dict[str, str] | None = None) -> Summary:
    """A tally's figures."""
    b = t.base or 1.0
    d, se, z = _diff(t.observed - t.expected, t.adj_sq, t.rounds, t.base)
    pd, pse, pz = _diff(t.observed - t.par, t.plain_sq, t.rounds, t.base)
    return Summary(rounds=t.rounds, observed=1 + t.observed / b, par=1 + t.par / b,
                   expected=1 + t.expected / b, difference=d, standard_error=se, z=z,
                   plain_difference=pd, plain_standard_error=pse, plain_z=pz,
                   regret=t.regret / b, hand_check_failures=t.faults, labels=labels or {})


def rounds_to_flag(shift: float, sd: float, *, z: float, power_z: float = 1.2816) -> int:
    """Rounds for a mean shift of ``shift`` (per unit of base stake) to take the z-score past
    ``z`` with the probability whose normal quantile is ``power_z`` (1.2816: 90%), the
    residual's standard deviation per round being ``sd``: ``((z + power_z) sd / shift)^2``."""
    return math.ceil(((z + power_z) * sd / abs(shift)) ** 2)
