"""rgs.rng: the certified random number generator.

Layers (each module has the details):

* :mod:`rgs.rng.entropy` — the OS entropy source behind SP 800-90B continuous health tests
  (repetition count, adaptive proportion), :class:`RngHealth` and the Prometheus counter
  ``rgs_rng_health_failures_total{test="repetition_count"|"adaptive_proportion"}``.
* :mod:`rgs.rng.drbg` — SP 800-90A HMAC_DRBG (SHA-256), verified against NIST CAVP vectors.
* :mod:`rgs.rng.scaling` — unbiased integers in ``[0, n)`` by rejection, Fisher–Yates shuffles.
* :mod:`rgs.rng.certified` — :class:`CertifiedRng`, the one object a process builds.
* :mod:`rgs.rng.sp800_22`, :mod:`rgs.rng.cardstats`, :mod:`rgs.rng.report` — the statistical
  battery and the lab report; :mod:`rgs.rng.cli` — the ``rgs rng`` lab tools.

How the service wires it (done once, in ``bootstrap``)::

    from rgs.rng import CertifiedRng, RngSettings

    rng = CertifiedRng(RngSettings(reseed_interval=..., prediction_resistance=False))
    # 1. health → gRPC health: the first failed health test flips the service to NOT_SERVING.
    rng.health.add_listener(
        lambda failure: health_servicer.set("", HealthCheckResponse.NOT_SERVING))
    # 2. cards: one card source per round, over a fresh shoe of the variant's decks.
    source = rng.card_source_for_decks(variant.rules.decks)   # or rng.card_source(shoe)
    round_ = Round.deal(variant, source, bets)

``card_source*`` raise :class:`RngUnhealthy` once the RNG has failed, and a source already handed
out raises it (or :class:`EntropySourceFailure`, both :class:`RngError`) on its next draw: the
service treats any :class:`RngError` while dealing as a malfunction (void the round, do not deal
from any other source). The failure count is exported by the Prometheus counter above (it lives
in the default registry, so the service's metrics endpoint exposes it with no extra code).
Construction raises :class:`EntropySourceFailure` if the start-up health test fails: the process
must not start serving. Recovery is a restart.
"""

from rgs.rng.certified import CertifiedRng, RngSettings
from rgs.rng.entropy import HealthTestConfig, RngHealth
from rgs.rng.errors import (
    DrbgError,
    DrbgUninstantiated,
    EntropySourceFailure,
    ReseedRequired,
    RngError,
    RngUnhealthy,
)

__all__ = [
    "CertifiedRng",
    "DrbgError",
    "DrbgUninstantiated",
    "EntropySourceFailure",
    "HealthTestConfig",
    "ReseedRequired",
    "RngError",
    "RngHealth",
    "RngSettings",
    "RngUnhealthy",
]
