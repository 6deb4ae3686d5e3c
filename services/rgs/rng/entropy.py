"""The entropy source: the operating system's CSPRNG behind SP 800-90B continuous health tests.

Every byte of entropy input that reaches the DRBG (instantiate, reseed, prediction-resistance
reseeds) first passes the two approved continuous health tests of SP 800-90B §4.4, applied to
8-bit samples:

* the **repetition count test** (§4.4.1) fails when one sample value repeats ``C`` times in a row;
* the **adaptive proportion test** (§4.4.2) fails when, within a window of ``W = 512`` samples,
  the window's first value occurs ``C`` or more times.

Both cutoffs are derived from the claimed min-entropy per sample ``H`` and the false-positive
probability ``α`` (SP 800-90B recommends 2^-20 ≤ α ≤ 2^-40). The OS source is a conditioned
full-entropy source; the defaults claim ``H = 8`` bits per byte with ``α = 2^-40``, so a healthy
source raises a false alarm about once per 2^40 samples. At start-up the source is also put
through the start-up test (§4.3 item 9): 1,024 samples through both tests, discarded.

A failure is sticky: the source refuses every later request, the shared :class:`RngHealth`
switches to failed and its listeners are told once, with the failed test (``repetition_count``
or ``adaptive_proportion``, or ``source_read`` when the OS itself fails to deliver bytes, which
stops dealing the same way). This package registers no metrics: observability subscribes a
listener that counts ``rgs_rng_health_failures_total{test=...}`` (``bootstrap`` wires it).
Recovery is a process restart (the
new process runs the start-up test again), which is what Kubernetes does to a pod that stays
NOT_SERVING.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from rgs.rng.errors import EntropySourceFailure

REPETITION_COUNT = "repetition_count"
ADAPTIVE_PROPORTION = "adaptive_proportion"
#: Not a statistical test: the OS refused to deliver (getrandom error, short read).
SOURCE_READ = "source_read"

#: SP 800-90B §4.4.2: window size for non-binary samples.
APT_WINDOW = 512
#: SP 800-90B §4.3 item 9: samples run through the health tests at start-up.
STARTUP_SAMPLES = 1024


def repetition_count_cutoff(*, min_entropy: float, alpha_log2: int) -> int:
    """SP 800-90B §4.4.1: ``C = 1 + ceil(-log2(α) / H)``."""
    return 1 + math.ceil(alpha_log2 / min_entropy)


def adaptive_proportion_cutoff(*, min_entropy: float, alpha_log2: int,
                               window: int = APT_WINDOW) -> int:
    """SP 800-90B §4.4.2: ``C = 1 + CRITBINOM(W, 2^-H, 1 - α)``.

    CRITBINOM(W, p, 1-α) is the smallest ``k`` with ``P(X ≤ k) ≥ 1 - α`` for X ~ Binomial(W, p),
    i.e. the smallest ``k`` whose upper tail ``P(X > k)`` is at most α. The tail is summed from
    the top in log space, so it stays accurate far below double precision's 1 − α. As in the
    standard, X covers all W samples although the first is counted in B by construction, which
    makes the cutoff slightly conservative (fewer false alarms).
    """
    p = 2.0 ** -min_entropy
    alpha = 2.0 ** -alpha_log2
    n = window
    log_p, log_q = math.log(p), math.log1p(-p)
    tail = 0.0  # P(X > k) for the current k
    for k in range(n, -1, -1):
        if tail > alpha:
            return 1 + (k + 1)
        tail += math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                         + k * log_p + (n - k) * log_q)
    return 1


@dataclass(frozen=True, slots=True, kw_only=True)
class HealthTestConfig:
    """Parameters of the continuous health tests: claimed min-entropy per byte and α = 2^-n."""

    min_entropy_per_sample: float = 8.0
    alpha_log2: int = 40

    @property
    def repetition_cutoff(self) -> int:
        """Repetitions of one value that fail the repetition count test."""
        return repetition_count_cutoff(min_entropy=self.min_entropy_per_sample,
                                       alpha_log2=self.alpha_log2)

    @property
    def proportion_cutoff(self) -> int:
        """Occurrences in a 512-sample window that fail the adaptive proportion test."""
        return adaptive_proportion_cutoff(min_entropy=self.min_entropy_per_sample,
                                          alpha_log2=self.alpha_log2)


class HealthTests:
    """The two continuous tests as a state machine over 8-bit samples.

    State carries across calls: the tests watch the source's whole output stream, not each
    request separately. Raises :class:`EntropySourceFailure` on the first failing sample.
    """

    __slots__ = ("_a", "_apt_b", "_apt_i", "_apt_value", "_b", "apt_cutoff", "rct_cutoff")

    def __init__(self, config: HealthTestConfig | None = None) -> None:
        config = config or HealthTestConfig()
        self.rct_cutoff = config.repetition_cutoff
        self.apt_cutoff = config.proportion_cutoff
        self._a = -1  # repetition count: last sample and its run length
        self._b = 0
        self._apt_value = -1  # adaptive proportion: window's first sample, count, position
        self._apt_b = 0
        self._apt_i = APT_WINDOW

    def feed(self, samples: bytes) -> None:
        """Run ``samples`` through both tests, in order."""
        a, b = self._a, self._b
        av, ab, ai = self._apt_value, self._apt_b, self._apt_i
        for x in samples:
            if x == a:
                b += 1
                if b >= self.rct_cutoff:
                    self._a, self._b = a, b
                    raise EntropySourceFailure(
                        f"repetition count test failed: value {x:#04x} repeated {b} times "
                        f"(cutoff {self.rct_cutoff})", test=REPETITION_COUNT)
            else:
                a, b = x, 1
            if ai >= APT_WINDOW:
                av, ab, ai = x, 1, 1
                continue
            if x == av:
                ab += 1
                if ab >= self.apt_cutoff:
                    self._apt_value, self._apt_b, self._apt_i = av, ab, ai
                    raise EntropySourceFailure(
                        f"adaptive proportion test failed: value {x:#04x} seen {ab} times in a "
                        f"{APT_WINDOW}-sample window (cutoff {self.apt_cutoff})",
                        test=ADAPTIVE_PROPORTION)
            ai += 1
        self._a, self._b = a, b
        self._apt_value, self._apt_b, self._apt_i = av, ab, ai


class RngHealth:
    """Process-wide health of the RNG: serving until a health test fails, then failed for good.

    The service subscribes with :meth:`add_listener` (e.g. to set its gRPC health to
    NOT_SERVING); card-source factories consult :attr:`healthy` before dealing.
    """

    __slots__ = ("_failure", "_listeners", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failure: EntropySourceFailure | None = None
        self._listeners: list[Callable[[EntropySourceFailure], None]] = []

    @property
    def healthy(self) -> bool:
        """True until a health test has failed in this process."""
        return self._failure is None

    @property
    def failure(self) -> EntropySourceFailure | None:
        """The first failure, if any."""
        return self._failure

    def add_listener(self, listener: Callable[[EntropySourceFailure], None]) -> None:
        """Call ``listener(failure)`` once when the RNG fails (immediately if it already has)."""
        with self._lock:
            failure = self._failure
            if failure is None:
                self._listeners.append(listener)
        if failure is not None:
            listener(failure)

    def report_failure(self, failure: EntropySourceFailure) -> None:
        """Record a failure: switch to failed, tell the listeners (first time only)."""
        with self._lock:
            first = self._failure is None
            if first:
                self._failure = failure
            listeners = list(self._listeners) if first else []
        for listener in listeners:
            listener(failure)


class OsEntropySource:
    """Entropy input from the OS (``os.urandom``: getrandom(2) on Linux) behind the health tests.

    ``read`` is injectable so tests can drive a stuck or biased source through the real checks.
    """

    __slots__ = ("_failure", "_health", "_lock", "_read", "_tests")

    def __init__(self, *, health: RngHealth, read: Callable[[int], bytes] = os.urandom,
                 config: HealthTestConfig | None = None) -> None:
        self._read = read
        self._health = health
        self._tests = HealthTests(config)
        self._lock = threading.Lock()
        self._failure: EntropySourceFailure | None = None
        self.get_entropy(STARTUP_SAMPLES)  # start-up test; the samples are discarded

    def get_entropy(self, nbytes: int) -> bytes:
        """``nbytes`` health-tested bytes; raises :class:`EntropySourceFailure` once unhealthy."""
        with self._lock:
            if self._failure is not None:
                raise self._failure
            try:
                try:
                    data = self._read(nbytes)
                except OSError as err:
                    raise EntropySourceFailure(f"the entropy source could not be read: {err}",
                                               test=SOURCE_READ) from err
                if len(data) != nbytes:
                    raise EntropySourceFailure(
                        f"the entropy source returned {len(data)} of {nbytes} bytes",
                        test=SOURCE_READ)
                self._tests.feed(data)
            except EntropySourceFailure as failure:
                self._failure = failure
                self._health.report_failure(failure)
                raise
            return data
