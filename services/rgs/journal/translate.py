"""The one place the PostgreSQL journal turns driver errors into the journal port's own."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

import asyncpg

from rgs.service.ports import JournalBusy, JournalUnavailable

P = ParamSpec("P")
R = TypeVar("R")

DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError,
                 # Seen while PostgreSQL shuts down under a call in flight ("cannot switch to
                 # state ...; another operation is in progress"): the server went away.
                 asyncpg.InternalClientError)
"""What asyncpg raises when the database fails or goes away."""


def translated(fn: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Translate driver errors into the journal's own, once, at this edge."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except asyncpg.LockNotAvailableError as exc:
            raise JournalBusy("the player's journal is held by another call") from exc
        except DRIVER_ERRORS as exc:
            raise JournalUnavailable(f"journal: {type(exc).__name__}: {exc}") from exc

    return wrapper
