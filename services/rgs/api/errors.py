"""The one table from domain errors to gRPC status codes, and how a refusal is sent.

Every refusal carries a ``google.rpc.ErrorInfo`` (domain ``rgs``, reason UPPER_SNAKE_CASE) in the
standard ``grpc-status-details-bin`` trailer. No request ends in INTERNAL or UNKNOWN: anything
unforeseen is logged and answered UNAVAILABLE (retryable, nothing was committed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from rgs.service.errors import (
    Busy,
    InvalidRequest,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    RequestConflict,
    ResourceExhausted,
    ServiceError,
    TableBusy,
    Unauthenticated,
    Unavailable,
)
from rgs.service.ports import (
    CardSourceUnavailable,
    JournalBusy,
    JournalRejected,
    JournalUnavailable,
)

log = logging.getLogger(__name__)

DOMAIN = "rgs"
"""ErrorInfo.domain of every refusal."""

STATUS_DETAILS_KEY = "grpc-status-details-bin"

RETRY_AFTER_KEY = "retry-after-ms"
"""Trailing metadata of a shed call (RESOURCE_EXHAUSTED): milliseconds to wait before retrying,
the same delay as the status details' google.rpc.RetryInfo and ErrorInfo's ``retry_after_ms``."""

MAX_MESSAGE = 512
"""Longest status message sent: a safety net under the rule that messages quote at most a short
prefix of any input (status trailers have a size limit, and a client over it gets no ErrorInfo)."""

#: Domain error class → gRPC code (the first matching row wins).
ERROR_TABLE: tuple[tuple[type[Exception], grpc.StatusCode], ...] = (
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    (PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (RequestConflict, grpc.StatusCode.ALREADY_EXISTS),
    (NotAllowedNow, grpc.StatusCode.FAILED_PRECONDITION),
    (Busy, grpc.StatusCode.ABORTED),
    # Shed at the entry (docs/overload.md): nothing happened, retry after the delay.
    (ResourceExhausted, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (TableBusy, grpc.StatusCode.UNAVAILABLE),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
    (JournalBusy, grpc.StatusCode.ABORTED),
    # A value the database cannot store (a NUL byte that got past the edge): never retryable.
    (JournalRejected, grpc.StatusCode.INVALID_ARGUMENT),
    (JournalUnavailable, grpc.StatusCode.UNAVAILABLE),
    # The certified RNG failed a health test: retryable on another (healthy) replica.
    (CardSourceUnavailable, grpc.StatusCode.UNAVAILABLE),
)

#: Reasons of the rows whose errors are not ServiceErrors (which carry their own).
_PORT_REASONS: dict[type[Exception], str] = {
    JournalBusy: "REQUEST_IN_PROGRESS",
    JournalRejected: "INVALID_REQUEST",
    JournalUnavailable: "JOURNAL_UNAVAILABLE",
    CardSourceUnavailable: "RNG_UNAVAILABLE",
}


def classify(exc: BaseException) -> tuple[grpc.StatusCode, str, str]:
    """(code, reason, message) for an error raised while serving a call."""
    for cls, code in ERROR_TABLE:
        if isinstance(exc, cls):
            if isinstance(exc, ServiceError):
                return code, exc.reason, _bounded(str(exc))
            reason = next((r for c, r in _PORT_REASONS.items() if isinstance(exc, c)),
                          "UNAVAILABLE")
            if isinstance(exc, JournalBusy) and exc.same_request is False:
                reason = "PLAYER_BUSY"  # another request of the player, not this one again
            return code, reason, _bounded(str(exc))
    return grpc.StatusCode.UNAVAILABLE, "SERVER_ERROR", "the server could not serve the call"


def error_metadata(exc: BaseException) -> dict[str, str]:
    """ErrorInfo's metadata for a refusal: what the service error carries (the field at fault,
    whether a stake went back, ...); nothing for other errors."""
    return dict(exc.metadata) if isinstance(exc, ServiceError) else {}


def _bounded(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE - 3] + "..."


def status_trailer(code: grpc.StatusCode, reason: str, message: str,
                   metadata: Mapping[str, str] | None = None
                   ) -> tuple[tuple[str, str | bytes], ...]:
    """The ``grpc-status-details-bin`` trailer carrying a google.rpc.Status with ErrorInfo
    (``metadata`` e.g. the field at fault). A ``retry_after_ms`` in ``metadata`` (a shed call)
    also becomes a google.rpc.RetryInfo detail and a ``retry-after-ms`` trailer."""
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN,
                                            metadata=dict(metadata or {})))
    details = [detail]
    retry_ms = retry_after_ms(metadata)
    if retry_ms is not None:
        details.append(retry_info(retry_ms))
    status = status_pb2.Status(code=_rpc_code(code), message=message, details=details)
    trailer: tuple[tuple[str, str | bytes], ...] = (
        (STATUS_DETAILS_KEY, status.SerializeToString()),)
    if retry_ms is None:
        return trailer
    return (*trailer, (RETRY_AFTER_KEY, str(retry_ms)))


def retry_after_ms(metadata: Mapping[str, str] | None) -> int | None:
    """The retry delay an ErrorInfo's metadata carries (None: none)."""
    value = (metadata or {}).get("retry_after_ms")
    return int(value) if value is not None and value.isdigit() else None


def retry_info(milliseconds: int) -> any_pb2.Any:
    """A google.rpc.RetryInfo of ``milliseconds``, packed."""
    info = error_details_pb2.RetryInfo()
    info.retry_delay.FromMilliseconds(milliseconds)
    packed = any_pb2.Any()
    packed.Pack(info)
    return packed


def _rpc_code(code: grpc.StatusCode) -> int:
    value = code.value[0]
    return int(value) if isinstance(value, int) else code_pb2.UNKNOWN


async def abort(context: Any, code: grpc.StatusCode, message: str,
                trailer: tuple[tuple[str, str | bytes], ...]) -> NoReturn:
    """End the call with ``code``: the one way every native-gRPC refusal is sent.

    When the call already ended (its deadline passed, its caller cancelled) while its use case
    ran on (a table command runs to its end either way), gRPC cannot send a status any more and
    ``context.abort`` fails with a core batch error. Nobody is left to tell and nothing is wrong
    with the server: the call ends as cancelled (counted CANCELLED, logged at INFO like any
    call), not as an unexpected error with a traceback."""
    try:
        await context.abort(code, message, trailing_metadata=trailer)
    except grpc.aio.AbortError:
        raise
    except Exception as exc:  # grpc's ExecuteBatchError: the call is over
        log.debug("the call ended before its %s answer could be sent: %s", code.name, exc)
        raise asyncio.CancelledError from exc
    raise AssertionError("context.abort returned")  # pragma: no cover
