"""Reading credentials from call metadata (``authorization: Bearer …``)."""

from __future__ import annotations

import grpc

from rgs.service.errors import Unauthenticated


def bearer(context: grpc.aio.ServicerContext[object, object]) -> str:
    """The bearer secret of a call; Unauthenticated when missing or malformed."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, secret = text.partition(" ")
            if scheme.lower() == "bearer" and secret.strip():
                return secret.strip()
            break
    raise Unauthenticated("send `authorization: Bearer <credential>` metadata",
                          reason="MISSING_CREDENTIALS")
