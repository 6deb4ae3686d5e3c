"""Errors of the sandbox wallet: one root, translated to gRPC statuses once in ``status.py``."""

from __future__ import annotations

import enum


class Reason(enum.StrEnum):
    """Refusal reasons, named as ``rgs.wallet.v1.ErrorReason`` values without their prefix."""

    INSUFFICIENT_FUNDS = "INSUFFICIENT_FUNDS"
    PLAYER_BLOCKED = "PLAYER_BLOCKED"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    WRONG_CURRENCY = "WRONG_CURRENCY"
    BAD_SIGNATURE = "BAD_SIGNATURE"
    SESSION_EXPIRED = "SESSION_EXPIRED"
    DUPLICATE_TRANSACTION = "DUPLICATE_TRANSACTION"
    TRANSACTION_ROLLED_BACK = "TRANSACTION_ROLLED_BACK"
    PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"
    INVALID_REQUEST = "INVALID_REQUEST"
    WALLET_UNAVAILABLE = "WALLET_UNAVAILABLE"
    PLAYER_EXCLUDED = "PLAYER_EXCLUDED"
    REALITY_CHECK_DUE = "REALITY_CHECK_DUE"

    @property
    def retryable(self) -> bool:
        """True when a caller may retry the same transaction (its outcome is unknown)."""
        return self is Reason.WALLET_UNAVAILABLE


class SandboxWalletError(Exception):
    """Root of every error the sandbox wallet raises on purpose."""


class WalletRefusal(SandboxWalletError):
    """The wallet refuses a call for a stated reason; nothing was applied."""

    def __init__(
        self,
        reason: Reason,
        message: str,
        *,
        balance: int | None = None,
        currency: str | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        """Why the call was refused."""
        self.message = message
        """Human-readable detail for logs and the status message."""
        self.balance = balance
        """The player's balance in minor units (sent with INSUFFICIENT_FUNDS)."""
        self.currency = currency
        """The player's currency, alongside ``balance``."""


class ConfigError(SandboxWalletError):
    """The server was started with settings it cannot honour (e.g. plaintext on a public port)."""
