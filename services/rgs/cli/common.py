"""Small helpers shared by the command-line modules: user errors and terminal progress."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class UserError(Exception):
    """A mistake in the command line; the message says what to do instead."""


class Progress:
    """A one-line progress meter on a terminal; silent when the stream is not a terminal or
    when ``quiet`` (``--json``)."""

    def __init__(self, total: int, label: str, *, quiet: bool = False,
                 stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self.started = time.perf_counter()
        self._last = 0.0

    def __call__(self, done: int) -> None:
        """Report ``done`` units of work (redrawn at most ten times a second)."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < 0.1 and done < self.total:
            return
        self._last = now
        rate = done / max(now - self.started, 1e-9)
        left = (self.total - done) / rate if rate else 0.0
        pct = 100.0 * done / self.total
        self.stream.write(f"\r{self.label}: {done:,}/{self.total:,} ({pct:5.1f}%) "
                          f"{rate:,.0f}/s, {left:,.0f}s left ")
        self.stream.flush()

    def close(self) -> None:
        """Finish the line."""
        if self.enabled:
            self(self.total)
            self.stream.write("\n")
            self.stream.flush()
