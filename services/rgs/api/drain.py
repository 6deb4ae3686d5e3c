"""The application calls a server is serving, so that a stopping server can let them finish and
fail the ones that outlast the drain time with a retryable status instead of a cancellation.

A call failed this way is answered UNAVAILABLE with the reason ``SERVER_SHUTTING_DOWN``: the
client retries it with the same request id on another replica, whose journal finds whatever
the interrupted call committed (its outbox rows are driven to a final state first, as after any
interrupted call).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from rgs.api.errors import abort, classify, error_metadata, status_trailer
from rgs.api.overload import CURRENT, Admission

R = TypeVar("R")

SHUTTING_DOWN = "SERVER_SHUTTING_DOWN"
"""ErrorInfo reason of a call cut short by the replica's shutdown."""

MESSAGE = "the server is shutting down: retry with the same request id"


@dataclass(frozen=True, slots=True, kw_only=True)
class DrainReport:
    """What a drain found and did."""

    #: Calls being served when the drain began.
    in_flight: int
    #: Of those, the ones still running at the drain time, failed as SERVER_SHUTTING_DOWN.
    cut_short: int


async def _abort_shutting_down(context: Any) -> None:
    code = grpc.StatusCode.UNAVAILABLE
    await abort(context, code, MESSAGE,
                        status_trailer(code, SHUTTING_DOWN, MESSAGE))


async def _abort_shed(context: Any, refusal: Exception) -> None:
    code, reason, message = classify(refusal)
    await abort(context, code, message, status_trailer(
        code, reason, message, metadata=error_metadata(refusal)))


class CallsInFlight:
    """The tasks serving application calls right now; with an ``admission``, a call past its
    limit of calls in flight is shed at once (:mod:`rgs.api.overload`)."""

    def __init__(self, admission: Admission | None = None) -> None:
        self.admission = admission
        self._tasks: set[asyncio.Task[Any]] = set()
        self._cut: set[asyncio.Task[Any]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    def __len__(self) -> int:
        return len(self._tasks)

    def serve(self, method: Callable[[Any, Any], Awaitable[R]],
              refuse: Callable[[Any], Awaitable[None]] | None = None,
              shed: Callable[[Any, Exception], Awaitable[None]] | None = None
              ) -> Callable[[Any, Any], Awaitable[R]]:
        """Wrap a unary handler so its call is counted, and answered UNAVAILABLE /
        SERVER_SHUTTING_DOWN if :meth:`drain` cuts it short (``refuse(context)`` raises that
        answer in the edge's protocol; default: gRPC's abort). Past the admission's limit the
        call is not run: ``shed(context, refusal)`` raises the RESOURCE_EXHAUSTED answer."""
        refuse = refuse or _abort_shutting_down
        shed = shed or _abort_shed

        async def handle(request: Any, context: Any) -> R:
            task = asyncio.current_task()
            assert task is not None
            admission = self.admission
            if admission is not None:
                refusal = admission.over_capacity(len(self._tasks))
                if refusal is not None:
                    await shed(context, refusal)
                    raise refusal  # pragma: no cover - shed raises
                CURRENT.set(admission)  # this call's task: its operator rate (admit_operator)
            self._tasks.add(task)
            self._idle.clear()
            try:
                return await method(request, context)
            except asyncio.CancelledError:
                if task not in self._cut:
                    raise  # the caller went away, or gRPC's own deadline: not ours to answer
                task.uncancel()
                await refuse(context)
                raise  # pragma: no cover - refuse raises
            finally:
                self._tasks.discard(task)
                self._cut.discard(task)
                if not self._tasks:
                    self._idle.set()
        return handle

    async def drain(self, seconds: float) -> DrainReport:
        """Wait up to ``seconds`` for the calls in flight; cut the rest short."""
        in_flight = len(self._tasks)
        if in_flight:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), timeout=seconds)
        stragglers = list(self._tasks)
        for task in stragglers:
            self._cut.add(task)
            task.cancel()
        if stragglers:
            await asyncio.gather(*stragglers, return_exceptions=True)
        return DrainReport(in_flight=in_flight, cut_short=len(stragglers))
