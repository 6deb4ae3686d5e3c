"""Reading credentials: ``authorization: Bearer …`` (gRPC metadata or an HTTP header)."""

from __future__ import annotations

import grpc

from rgs.service.errors import Unauthenticated


def authorization(context: grpc.aio.ServicerContext[object, object]) -> str | None:
    """The ``authorization`` metadata value of a native gRPC call (None when absent)."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == "authorization":
            return value.decode() if isinstance(value, bytes) else value
    return None


def bearer_secret(value: str | None) -> str:
    """The secret of an ``authorization`` value; Unauthenticated when missing or malformed.

    >>> bearer_secret("Bearer abc")
    'abc'
    """
    if value is not None:
        scheme, _, secret = value.partition(" ")
        if scheme.lower() == "bearer" and secret.strip():
            return secret.strip()
    raise Unauthenticated("send `authorization: Bearer <credential>` metadata",
                          reason="MISSING_CREDENTIALS")


def bearer(context: grpc.aio.ServicerContext[object, object]) -> str:
    """The bearer secret of a native gRPC call; Unauthenticated when missing or malformed."""
    return bearer_secret(authorization(context))
