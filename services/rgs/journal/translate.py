"""The one place the PostgreSQL journal turns driver errors into the journal port's own."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

import asyncpg

from rgs.service.ports import JournalBusy, JournalRejected, JournalUnavailable

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
        except asyncpg.DataError as exc:
            # Class 22 (a NUL byte, an untranslatable character, a value out of range), raised
            # by the server or by the driver encoding an argument: the request's own values are
            # at fault, a retry cannot help. The driver's text is not passed on (it may quote
            # the value).
            raise JournalRejected(f"the database refused a value of the request "
                                  f"({type(exc).__name__})") from exc
        except TimeoutError as exc:
            # No pooled connection came free in time (or a command timed out): the journal is
            # overloaded or gone for now, which a retry may find otherwise.
            raise JournalUnavailable("journal: timed out waiting for the database") from exc
        except DRIVER_ERRORS as exc:
            raise JournalUnavailable(f"journal: {type(exc).__name__}: {exc}") from exc

    return wrapper
