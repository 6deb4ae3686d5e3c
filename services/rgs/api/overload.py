"""Admission: what a worker sheds instead of queueing until everything times out.

Two limits, both checked before a call does anything (no journal write, no wallet call):

* **Calls in flight** (``RGS_MAX_IN_FLIGHT``, per worker): a unary call that arrives while the
  worker serves that many already is answered RESOURCE_EXHAUSTED / ``OVERLOADED`` at once. The
  count is :class:`rgs.api.drain.CallsInFlight`'s (both edges, every application service);
  health checks, reflection and table streams are not counted and never shed.
* **Operator rate** (the platform file's ``rate_limit`` of an operator: ``calls_per_s`` and
  ``burst``, for the whole installation): a token bucket per operator in each worker, taken once
  the call's credential names its operator (a player's session or an operator's API key) and
  before the use case runs; past it, RESOURCE_EXHAUSTED / ``OPERATOR_RATE_LIMITED``. Every
  worker of every replica shares the stated rate: each bucket holds the rate and burst divided
  by the number of workers serving (:meth:`Admission.share`, kept current by
  :mod:`rgs.api.rate_share`), so the installation admits what the platform file says.

The ``OVERLOADED`` retry delay grows with the crowd being shed: ``RGS_OVERLOAD_RETRY_AFTER_MS``
while the worker has shed fewer calls than its limit in the last second or two, doubled for
every further multiple of the limit shed (:meth:`Admission.retry_delay_ms`), up to
:data:`MAX_RETRY_AFTER_MS`. A thousand clients retrying a fixed 100 ms later are a storm of
their own (bench/tables.py's crowd: 62,000 shed calls in three betting windows, costing more
RGS CPU than the Bet Behinds themselves); told to wait in proportion, they come back spread.

Every shed call carries its retry delay three ways: ErrorInfo metadata ``retry_after_ms``, a
``google.rpc.RetryInfo`` in the status details, and (native gRPC) the ``retry-after-ms``
trailing metadata. It is counted in ``rgs_rpc_shed_total{reason, operator}``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar

import grpc

from rgs.api.errors import status_trailer
from rgs.observability import metrics
from rgs.platform_file import Platform, RateLimit
from rgs.service.errors import ResourceExhausted

OVERLOADED = "OVERLOADED"
"""ErrorInfo reason of a call shed because the worker serves its maximum of calls in flight."""

MAX_RETRY_AFTER_MS = 3200
"""The longest ``OVERLOADED`` retry delay a worker asks for, however many it sheds."""

OPERATOR_RATE_LIMITED = "OPERATOR_RATE_LIMITED"
"""ErrorInfo reason of a call shed because its operator is past its rate (platform file)."""

__all__ = ["CURRENT", "MAX_RETRY_AFTER_MS", "OPERATOR_RATE_LIMITED", "OVERLOADED", "Admission",
           "RateLimit", "TokenBucket", "admission_for", "admit_operator"]


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; a call takes one. ``sharers`` buckets
    (the workers serving) share the limit: each holds ``1 / sharers`` of the rate and of the
    burst, never less than one token at once."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic,
                 sharers: int = 1) -> None:
        self._limit = limit
        self._clock = clock
        self._at = clock()
        self._rate = self._burst = self._tokens = 0.0
        self.share(sharers)
        self._tokens = self._burst

    def share(self, sharers: int) -> None:
        """Hold ``1 / sharers`` of the limit from now on (the tokens held scale with it)."""
        sharers = max(1, sharers)
        burst = max(1.0, self._limit.burst / sharers)
        fill = self._tokens / self._burst if self._burst else 1.0
        self._rate = self._limit.calls_per_s / sharers
        self._burst = burst
        self._tokens = fill * burst

    def take(self) -> int:
        """Take a token: 0 when there was one, else the milliseconds until there is (nothing
        is taken then)."""
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return 0
        return max(1, math.ceil((1.0 - self._tokens) / self._rate * 1000))


class Admission:
    """One worker's limits (module docstring). ``max_in_flight`` 0 admits any number."""

    def __init__(self, *, max_in_flight: int, retry_after_ms: int = 100,
                 rates: Mapping[str, RateLimit] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_in_flight = max_in_flight
        self.retry_after_ms = retry_after_ms
        self._buckets = {op: TokenBucket(limit, clock) for op, limit in (rates or {}).items()}
        #: The workers sharing the operators' rates (this one included).
        self.sharers = 1
        self._clock = clock
        self._overloaded_shed = metrics.RPC_SHED.labels(reason=OVERLOADED, operator="")
        #: The answer of a shed call per retry delay (message, trailer), built once each.
        self._overloaded: dict[int, tuple[str, tuple[tuple[str, str | bytes], ...]]] = {}
        #: Calls shed in the current second and in the one before (the shed rate).
        self._second = math.floor(clock())
        self._shed_now = self._shed_before = 0

    @property
    def rated(self) -> bool:
        """Whether any operator has a rate (else there is nothing to share)."""
        return bool(self._buckets)

    def share(self, sharers: int) -> None:
        """``sharers`` workers serve the installation now: each operator's bucket holds its
        share of the stated rate."""
        self.sharers = max(1, sharers)
        for bucket in self._buckets.values():
            bucket.share(self.sharers)

    def over_capacity(self, in_flight: int) -> ResourceExhausted | None:
        """The refusal of a new call while ``in_flight`` calls are served (None: admitted)."""
        if self.max_in_flight <= 0 or in_flight < self.max_in_flight:
            return None
        delay = self._shed()
        return ResourceExhausted(self._message(delay), reason=OVERLOADED, retry_after_ms=delay)

    def overloaded_answer(self) -> tuple[str, tuple[tuple[str, str | bytes], ...]]:
        """A call shed at the door (rgs.api.shedding): counted, and its message and trailer
        (google.rpc.Status with ErrorInfo and RetryInfo, retry-after-ms), built once per
        retry delay."""
        delay = self._shed()
        answer = self._overloaded.get(delay)
        if answer is None:
            message = self._message(delay)
            answer = self._overloaded[delay] = (message, status_trailer(
                grpc.StatusCode.RESOURCE_EXHAUSTED, OVERLOADED, message,
                metadata={"retry_after_ms": str(delay)}))
        return answer

    def retry_delay_ms(self) -> int:
        """The retry delay to give a call shed now: the configured one while fewer calls than
        the limit were shed in the last second or two, doubled for every further multiple of
        the limit (1x-2x the limit shed: twice, 2x-4x: four times, ...), at most
        :data:`MAX_RETRY_AFTER_MS`."""
        self._tick()
        multiples = (self._shed_now + self._shed_before) // max(1, self.max_in_flight)
        if multiples <= 0:
            return self.retry_after_ms
        return min(MAX_RETRY_AFTER_MS,
                   max(self.retry_after_ms, self.retry_after_ms << multiples.bit_length()))

    def _shed(self) -> int:
        self._overloaded_shed.inc()
        delay = self.retry_delay_ms()
        self._shed_now += 1
        return delay

    def _tick(self) -> None:
        second = math.floor(self._clock())
        if second != self._second:
            self._shed_before = self._shed_now if second == self._second + 1 else 0
            self._shed_now, self._second = 0, second

    def _message(self, delay_ms: int) -> str:
        return (f"the server is at its limit of {self.max_in_flight} calls in flight: nothing "
                f"was done, retry after {delay_ms} ms")

    def admit_operator(self, operator_id: str) -> None:
        """Take the operator's token; ResourceExhausted when it is past its rate."""
        bucket = self._buckets.get(operator_id)
        if bucket is None:
            return
        wait_ms = bucket.take()
        if wait_ms:
            metrics.RPC_SHED.labels(reason=OPERATOR_RATE_LIMITED, operator=operator_id).inc()
            raise ResourceExhausted(
                f"the operator is past its rate limit: nothing was done, retry after "
                f"{wait_ms} ms", reason=OPERATOR_RATE_LIMITED, retry_after_ms=wait_ms)


def admission_for(platform: Platform, *, max_in_flight: int, retry_after_ms: int
                  ) -> Admission:
    """A worker's admission from its settings and the platform file's operator rates."""
    return Admission(max_in_flight=max_in_flight, retry_after_ms=retry_after_ms,
                     rates={op.id: op.rate_limit for op in platform.operators.values()
                            if op.rate_limit is not None})


CURRENT: ContextVar[Admission | None] = ContextVar("rgs_admission", default=None)
"""The admission of the call being served (set by :class:`rgs.api.drain.CallsInFlight`)."""


def admit_operator(operator_id: str) -> None:
    """Apply the current call's operator rate (no-op outside a served call)."""
    admission = CURRENT.get()
    if admission is not None:
        admission.admit_operator(operator_id)
