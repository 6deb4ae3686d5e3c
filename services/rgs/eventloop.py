"""The event loop every server process runs on: uvloop where it is installed (libuv's loop; the
asyncpg and gRPC callbacks that make up most of a call's own CPU cost less on it, see
bench/README.md), else asyncio's own. The choice is the caller's: the RGS passes its
``event_loop`` setting (``RGS_EVENT_LOOP=asyncio`` chooses asyncio's loop even where uvloop is
installed, for a comparison or a platform where uvloop misbehaves); this module reads no
environment."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

CHOICES = ("uvloop", "asyncio")


def loop_name(choice: str | None = None) -> str:
    """``uvloop`` or ``asyncio``: the loop :func:`run` starts for ``choice`` (None: uvloop
    where it is installed).

    >>> loop_name("asyncio")
    'asyncio'
    """
    if choice is not None and choice not in CHOICES:
        raise ValueError(f"event loop {choice!r}: use one of {', '.join(CHOICES)} (or leave "
                         f"RGS_EVENT_LOOP unset for uvloop where it is installed)")
    if choice == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401
    except ImportError:
        if choice == "uvloop":
            raise ValueError("RGS_EVENT_LOOP=uvloop but uvloop is not installed: install it "
                             "(pip install uvloop) or unset RGS_EVENT_LOOP") from None
        return "asyncio"
    return "uvloop"


def running_loop_name() -> str:
    """The loop this code runs on (``uvloop`` or ``asyncio``); outside a loop, :func:`loop_name`."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return loop_name()
    return "uvloop" if type(loop).__module__.partition(".")[0] == "uvloop" else "asyncio"


def run(main: Coroutine[Any, Any, T], choice: str | None = None) -> T:
    """``asyncio.run(main)`` on the loop :func:`loop_name` names for ``choice``."""
    try:
        name = loop_name(choice)
    except ValueError:
        main.close()
        raise
    if name == "uvloop":
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(main)
    return asyncio.run(main)
