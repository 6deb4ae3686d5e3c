"""The journal's errors: driver errors are translated into these once, in the adapter."""

from __future__ import annotations


class JournalError(Exception):
    """Root of the journal's errors."""


class JournalBusy(JournalError):
    """The player's journal stayed held by another call past the wait limit: retry shortly."""


class JournalUnavailable(JournalError):
    """The database did not answer or refused the statement: retry with the same request id."""
