"""The service's errors: one root, each subclass a category the API maps to a gRPC code.

``reason`` is the UPPER_SNAKE_CASE name a client sees in ``google.rpc.ErrorInfo``. The service
knows nothing about transport codes: :mod:`rgs.api.errors` holds the one table.
"""

from __future__ import annotations

from collections.abc import Mapping

from rgs.engine import (
    ActionNotAllowed,
    EngineError,
    InvalidBet,
    InvalidCard,
    ReplayMismatch,
    ShoeExhausted,
    StakeOutOfLimits,
    WrongHand,
    WrongPhase,
)


class ServiceError(Exception):
    """Root of the service's errors. ``metadata``: facts a client acts on, sent in ErrorInfo's
    metadata (e.g. ``refund``: whether a stake taken for a refused bet went back)."""

    default_reason = "ERROR"

    def __init__(self, message: str, *, reason: str | None = None,
                 metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.reason = reason or self.default_reason
        self.metadata: dict[str, str] = dict(metadata or {})


class InvalidRequest(ServiceError):
    """The request is malformed (an empty id, an unknown enum, a bad card code); ``field`` names
    the request field at fault when there is one (it goes into ErrorInfo's metadata)."""

    default_reason = "INVALID_REQUEST"

    def __init__(self, message: str, *, reason: str | None = None, field: str = "") -> None:
        super().__init__(message, reason=reason, metadata={"field": field} if field else None)
        self.field = field


class Unauthenticated(ServiceError):
    """No valid credentials (unknown API key, unknown or expired session token)."""

    default_reason = "UNAUTHENTICATED"


class PermissionDenied(ServiceError):
    """The caller is known but may not do this (forced cards outside test mode)."""

    default_reason = "PERMISSION_DENIED"


class NotFound(ServiceError):
    """No such thing the caller can see (another tenant's round is not found either)."""

    default_reason = "NOT_FOUND"


class RequestConflict(ServiceError):
    """The request id was already used with a different request."""

    default_reason = "REQUEST_ID_REUSED"


class NotAllowedNow(ServiceError):
    """The request is well formed but not allowed in the current state (the reason names why:
    ACTION_NOT_ALLOWED, INSUFFICIENT_FUNDS, STAKE_OUT_OF_LIMITS, STALE_SEQ, ...)."""

    default_reason = "FAILED_PRECONDITION"


class Busy(ServiceError):
    """Another call for the same player is running (a concurrent duplicate): retry shortly."""

    default_reason = "REQUEST_IN_PROGRESS"


class TableBusy(ServiceError):
    """The table could not take the command within the server's limit (its commit turn, a
    pooled connection): nothing of it stands (any stake is returned); retry shortly."""

    default_reason = "TABLE_BUSY"


class Unavailable(ServiceError):
    """A dependency (wallet, database) did not answer: retry with the same request id."""

    default_reason = "UNAVAILABLE"


class NotSent(Unavailable):
    """A wallet call refused before it was sent (the operator's wallet is overloaded or its
    circuit is open): nothing moved; retry later."""


class ResourceExhausted(ServiceError):
    """The replica sheds the call before it does anything (too many calls in flight, or the
    operator past its rate): nothing happened, retry after ``retry_after_ms`` (sent in
    ErrorInfo's metadata and as google.rpc.RetryInfo)."""

    default_reason = "OVERLOADED"

    def __init__(self, message: str, *, reason: str | None = None,
                 retry_after_ms: int = 100) -> None:
        super().__init__(message, reason=reason,
                         metadata={"retry_after_ms": str(max(1, retry_after_ms))})
        self.retry_after_ms = max(1, retry_after_ms)


#: Characters of an input an error message may quote.
PREVIEW_CHARS = 24


def preview(value: str, limit: int = PREVIEW_CHARS) -> str:
    r"""How an error message quotes an input: at most ``limit`` characters of it, escaped, and
    its length when it was cut, so a hostile 1 MB value never travels back in a status or into
    a log line.

    >>> preview("classic-resplit")
    "'classic-resplit'"
    >>> preview("x" * 10_000)
    "'xxxxxxxxxxxxxxxxxxxxxxxx'... (10000 characters)"
    >>> preview("a\x00b")
    "'a\\x00b'"
    """
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value)} characters)"


_REASONS: tuple[tuple[type[EngineError], type[ServiceError], str], ...] = (
    (StakeOutOfLimits, NotAllowedNow, "STAKE_OUT_OF_LIMITS"),
    (ActionNotAllowed, NotAllowedNow, "ACTION_NOT_ALLOWED"),
    (WrongPhase, NotAllowedNow, "WRONG_PHASE"),
    (WrongHand, NotAllowedNow, "NOT_THIS_HAND"),
    (InvalidBet, InvalidRequest, "INVALID_BET"),
    (InvalidCard, InvalidRequest, "INVALID_CARD"),
    (ShoeExhausted, InvalidRequest, "FORCED_CARDS_INVALID"),
    (ReplayMismatch, Unavailable, "ROUND_UNRECOVERABLE"),
)


def translate_engine(exc: EngineError) -> ServiceError:
    """The service error for an engine refusal (the engine's rule name stays in the message)."""
    for engine_cls, service_cls, reason in _REASONS:
        if isinstance(exc, engine_cls):
            return service_cls(f"{exc} (rule: {exc.rule})", reason=reason)
    return InvalidRequest(f"{exc} (rule: {exc.rule})", reason=exc.rule.upper())
