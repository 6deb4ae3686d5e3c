"""The replica authenticates its own software: at start, before it reports ready, and every
``RGS_AUTHENTICATE_INTERVAL_S`` (at most a day) while it runs (N.J.A.C. 13:69O-1.5(c), AGCO
6.1.2-6.1.4).

Every check is a pass/fail report (:class:`~rgs.authenticity.check.Authentication`) handed to
each listener (the metrics, the readiness, the new-round check). A failing one is also handed
to :attr:`SelfCheck.on_mismatch`, which the bootstrap sets (the audit trail). What counts as a
failure: a control program that differs, a manifest whose whole is not the expected release
digest, and, where a manifest is required (production), a replica without one. A development
source tree has no manifest: its checks report ``no-manifest`` and do not stop it.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from rgs.authenticity.check import PACKAGE_ROOT, Authentication, Verdict, authenticate, challenge

log = logging.getLogger(__name__)

DAY_S = 24 * 3600.0
"""The longest interval between two checks the regulations allow."""

Listener = Callable[[Authentication], None]
MismatchHook = Callable[[Authentication], Awaitable[None] | None]


class SelfCheck:
    """This replica's software authentication: its checks and its latest report."""

    def __init__(self, *, root: Path = PACKAGE_ROOT, interval_s: float = DAY_S,
                 expected_whole: str | None = None, manifest_required: bool = True) -> None:
        if not 0 < interval_s <= DAY_S:
            raise ValueError(f"the interval between checks is above 0 and at most {DAY_S:g} s")
        self.root = root
        self.interval_s = interval_s
        self.expected_whole = expected_whole
        self.manifest_required = manifest_required
        self.listeners: list[Listener] = []
        #: Called with every failing report (the lead's audit trail); may be a coroutine.
        self.on_mismatch: MismatchHook | None = None
        self.last: Authentication | None = None

    def fails(self, report: Authentication) -> bool:
        """True when ``report`` must stop this replica taking new rounds."""
        if report.verdict is Verdict.NO_MANIFEST:
            return self.manifest_required
        return not report.authentic

    async def check(self) -> Authentication:
        """Authenticate now (the hashing runs on a thread) and tell the listeners."""
        try:
            report = await asyncio.to_thread(authenticate, self.root,
                                             expected_whole=self.expected_whole)
        except OSError as exc:  # an unreadable control program cannot be shown authentic
            report = Authentication(verdict=Verdict.ALTERED, checked_at=datetime.now(UTC), whole="",
                                    detail=f"a control program cannot be read: {exc}")
        self.last = report
        failed = self.fails(report)
        if failed:
            log.error("software authentication failed: %s", report.summary(),
                      extra={"authentication": report.to_dict()})
        elif report.authentic:
            log.info("software authentication passed: %s", report.summary())
        else:
            log.warning("software authentication not possible (%s); a development copy may "
                        "serve, a production replica may not", report.detail)
        for listener in self.listeners:
            listener(report)
        if failed and self.on_mismatch is not None:
            try:
                outcome = self.on_mismatch(report)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:  # the replica has stopped new rounds whether or not it is recorded
                log.exception("the failed software authentication could not be recorded")
        return report

    async def run_forever(self) -> None:
        """Check again every :attr:`interval_s` until cancelled."""
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                await self.check()
            except Exception:  # a listener's fault must not end the checks
                log.exception("software authentication check failed to run")

    def challenge(self, seed: bytes) -> str:
        """A lab's seeded challenge answered from the files as installed now (ValueError for an
        unusable seed); blocking for a few milliseconds, so an RPC calls it on a thread."""
        return challenge(seed, self.root)

