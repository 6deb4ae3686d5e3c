"""The event loop every server process runs on: uvloop where it is installed (libuv's loop; the
asyncpg and gRPC callbacks that make up most of a call's own CPU cost less on it, see
bench/README.md), else asyncio's own. ``RGS_EVENT_LOOP=asyncio`` chooses asyncio's loop even
where uvloop is installed (for a comparison, or a platform where uvloop misbehaves)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

ENV = "RGS_EVENT_LOOP"
CHOICES = ("uvloop", "asyncio")


def loop_name(env: dict[str, str] | os._Environ[str] | None = None) -> str:
    """``uvloop`` or ``asyncio``: the loop :func:`run` starts in this process.

    >>> loop_name({"RGS_EVENT_LOOP": "asyncio"})
    'asyncio'
    """
    choice = (os.environ if env is None else env).get(ENV, "").strip().lower()
    if choice and choice not in CHOICES:
        raise ValueError(f"{ENV}={choice!r}: use one of {', '.join(CHOICES)} (or leave it unset "
                         f"for uvloop where it is installed)")
    if choice == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401
    except ImportError:
        if choice == "uvloop":
            raise ValueError(f"{ENV}=uvloop but uvloop is not installed: install it "
                             f"(pip install uvloop) or unset {ENV}") from None
        return "asyncio"
    return "uvloop"


def running_loop_name() -> str:
    """The loop this code runs on (``uvloop`` or ``asyncio``); outside a loop, :func:`loop_name`."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return loop_name()
    return "uvloop" if type(loop).__module__.partition(".")[0] == "uvloop" else "asyncio"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the loop :func:`loop_name` names."""
    try:
        name = loop_name()
    except ValueError:
        main.close()
        raise
    if name == "uvloop":
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(main)
    return asyncio.run(main)
