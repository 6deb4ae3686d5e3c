"""Readiness of a replica that runs several worker processes: what makes one worker unready
makes them all unready.

A readiness probe reaches whichever worker the kernel hands its connection to, so a worker whose
certified RNG failed its health test must not be the only one to say NOT_SERVING: the others
would keep the replica in the load balancer. The failing worker leaves a marker file in the
replica's folder (the workers' metrics folder, ``PROMETHEUS_MULTIPROC_DIR``, which the
supervisor empties when the replica starts); every worker looks for it every
:data:`WATCH_INTERVAL_S` and turns NOT_SERVING once it is there, a worker started later at once.
A single-process replica has no such folder and needs none.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

from rgs.observability.metrics import MULTIPROCESS_ENV

RNG_FAILED: Final = "rng-failed"
"""The marker a worker leaves when its RNG failed a health test."""
SOFTWARE_NOT_AUTHENTIC: Final = "software-not-authentic"
"""The marker a worker leaves when its software failed authentication."""
WATCH_INTERVAL_S: Final = 0.5


def replica_folder() -> Path | None:
    """The folder the replica's workers share; None in a single-process replica."""
    given = os.environ.get(MULTIPROCESS_ENV)
    return Path(given) if given else None


def mark(marker: str, reason: str) -> None:
    """Leave ``marker`` (with ``reason`` in it) for every worker of the replica to see."""
    folder = replica_folder()
    if folder is not None:
        (folder / marker).write_text(reason + "\n", encoding="utf-8")


def watch(marker: str, on_marked: Callable[[], Awaitable[None]]
          ) -> Callable[[], Awaitable[None]] | None:
    """Run ``on_marked`` once ``marker`` appears in the replica's folder (a task of the running
    loop); returns its stopper, or None in a single-process replica."""
    folder = replica_folder()
    if folder is None:
        return None
    path = folder / marker

    async def look() -> None:
        while not path.exists():
            await asyncio.sleep(WATCH_INTERVAL_S)
        await on_marked()

    task = asyncio.get_running_loop().create_task(look())

    async def stop() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return stop
