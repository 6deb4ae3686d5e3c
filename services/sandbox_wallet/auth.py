"""Shared-secret authentication: every wallet and control call carries ``authorization: Bearer``.

Operators' real wallets use mTLS or signed requests; the sandbox checks one configured key (and
can additionally require client certificates, see ``server.py``). Health checks and reflection
need no key, so orchestrators can probe the server.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import grpc

from sandbox_wallet import status
from sandbox_wallet.errors import Reason, WalletRefusal

OPEN_SERVICES = ("/grpc.health.v1.Health/", "/grpc.reflection.")
"""Method prefixes served without credentials."""

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"


class BearerAuth(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Refuses calls without ``authorization: Bearer <api_key>`` with UNAUTHENTICATED."""

    def __init__(self, api_key: str) -> None:
        self._expected = f"Bearer {api_key}".encode()
        self._deny = grpc.unary_unary_rpc_method_handler(_deny)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        """Pass the call on when its credentials match; otherwise answer it with a refusal."""
        method: str = handler_call_details.method
        if method.startswith(OPEN_SERVICES):
            return await continuation(handler_call_details)
        presented = b""
        for key, value in handler_call_details.invocation_metadata or ():
            if key == "authorization":
                presented = value.encode() if isinstance(value, str) else value
        # Constant-time comparison: the key is a secret.
        if hmac.compare_digest(presented, self._expected):
            return await continuation(handler_call_details)
        return self._deny


async def _deny(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    encoded = status.encode(
        WalletRefusal(Reason.BAD_SIGNATURE, "missing or wrong authorization bearer key")
    )
    await context.abort(encoded.code, encoded.message, trailing_metadata=encoded.trailing_metadata)
