"""rgs.rng: the certified random number generator.

Layers (each module has the details):

* :mod:`rgs.rng.entropy` — the OS entropy source behind SP 800-90B continuous health tests
  (repetition count, adaptive proportion) and :class:`RngHealth`, which tells its listeners
  about the first failure.
* :mod:`rgs.rng.drbg` — SP 800-90A HMAC_DRBG (SHA-256), verified against NIST CAVP vectors.
* :mod:`rgs.rng.scaling` — unbiased integers in ``[0, n)`` by rejection, Fisher–Yates shuffles.
* :mod:`rgs.rng.certified` — :class:`CertifiedRng`, the one object a process builds.
* :mod:`rgs.rng.fair`, :mod:`rgs.rng.verify` — provably fair card orders: a round's whole
  order from its committed server seed, client seed and round number; the offline check of a
  recalled round's seeds and card order (:mod:`rgs.recall` checks the round whole).
* :mod:`rgs.rng.sp800_22`, :mod:`rgs.rng.cardstats`, :mod:`rgs.rng.report` — the statistical
  battery and the lab report (the ``rgs rng`` lab tools are in :mod:`rgs.cli.rng`).

How the service wires it (details and code in ``services/rgs/rng/README.md``):

1. ``bootstrap`` builds one :class:`CertifiedRng` per process from :class:`RngSettings`
   (construction raises :class:`EntropySourceFailure` if the start-up health test fails: do not
   serve) and hands ``rng.below`` to rounds as the picker (or ``rng.card_source(shoe)`` /
   ``rng.card_source_for_decks(decks)`` as the card source).
2. ``rng.health.add_listener(callback)``: the callback runs once, at the first failed health
   test; it sets the gRPC health status of every service to NOT_SERVING.
3. Dealing code catches :class:`RngError` (it is not an ``EngineError``): the round is a
   malfunction, its debit is rolled back, nothing is dealt from any other source.
4. Failures are counted by ``rgs_rng_health_failures_total{test=...}``: the RNG registers no
   metrics itself; ``bootstrap`` subscribes :func:`rgs.observability.metrics.count_rng_failures`
   to the health before the RNG is built (so a failed start-up test is counted too). Recovery is
   a process restart.
"""

from rgs.rng.certified import CertifiedRng, RngSettings
from rgs.rng.entropy import HealthTestConfig, RngHealth
from rgs.rng.errors import (
    DrbgError,
    DrbgSelfTestFailed,
    DrbgUninstantiated,
    EntropySourceFailure,
    ReseedRequired,
    RngError,
    RngUnhealthy,
)

__all__ = [
    "CertifiedRng",
    "DrbgError",
    "DrbgSelfTestFailed",
    "DrbgUninstantiated",
    "EntropySourceFailure",
    "HealthTestConfig",
    "ReseedRequired",
    "RngError",
    "RngHealth",
    "RngSettings",
    "RngUnhealthy",
]
