"""The monitoring's Prometheus series, set by ``rgs rtp worker`` after each pass (in its own
registry and ``/metrics``: the worker is its own process, off every player's path).

Every figure is a gauge per ``brand, variant, table, stake_band, channel`` and ``window``
(``rolling``: the rounds settled in the last :data:`ROLLING`; ``start``: every round valued).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge

from rgs.rtp.stats import DIMENSIONS, Summary

#: The rolling window of the ``rolling`` series (and of the alert, ops/prometheus/rtp_rules.yml).
ROLLING: Final = timedelta(days=1)

REGISTRY: Final = CollectorRegistry(auto_describe=True)
_LABELS: Final = [*DIMENSIONS, "window"]


def _gauge(name: str, doc: str) -> Gauge:
    return Gauge(name, doc, _LABELS, registry=REGISTRY)


ROUNDS: Final = _gauge("rgs_rtp_rounds", "Settled rounds valued in the window.")
OBSERVED: Final = _gauge("rgs_rtp_observed_ratio", "Observed return per base stake.")
PAR: Final = _gauge("rgs_rtp_par_ratio", "The PAR sheets' return for the same bets.")
EXPECTED: Final = _gauge("rgs_rtp_expected_ratio",
                         "Decision-adjusted expected return: given the decisions taken.")
DIFFERENCE: Final = _gauge("rgs_rtp_difference_ratio",
                           "Observed less decision-adjusted expected return.")
STANDARD_ERROR: Final = _gauge("rgs_rtp_difference_standard_error_ratio",
                               "Standard error of the difference.")
Z_SCORE: Final = _gauge("rgs_rtp_z_score", "The difference over its standard error.")
PLAIN_Z_SCORE: Final = _gauge("rgs_rtp_plain_z_score",
                              "Observed less PAR over its standard error (moves with play).")
HAND_CHECK_FAILURES: Final = _gauge(
    "rgs_rtp_hand_check_failures", "Rounds whose payouts or dealer draws broke the rules.")
VALUED: Final = Counter("rgs_rtp_rounds_valued", "Rounds the worker has valued.", ["source"],
                        registry=REGISTRY)
LAG: Final = Gauge("rgs_rtp_worker_lag_seconds",
                   "Age of the oldest of the worker's cursors (how far behind it reads).",
                   registry=REGISTRY)


def publish(window: str, summaries: Iterable[Summary]) -> None:
    """Set every gauge of ``window`` from these summaries."""
    for s in summaries:
        labels = {**{d: s.labels.get(d, "") for d in DIMENSIONS}, "window": window}
        for gauge, value in ((ROUNDS, s.rounds), (OBSERVED, s.observed), (PAR, s.par),
                             (EXPECTED, s.expected), (DIFFERENCE, s.difference),
                             (STANDARD_ERROR, s.standard_error), (Z_SCORE, s.z),
                             (PLAIN_Z_SCORE, s.plain_z),
                             (HAND_CHECK_FAILURES, s.hand_check_failures)):
            gauge.labels(**labels).set(value)
