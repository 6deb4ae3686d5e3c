"""The wallet port: how the service moves a player's money, whatever the operator's wallet is.

Every money call carries an RGS-generated transaction id that is deterministic for its step of
its round (:func:`transaction_id`), so a retry after a crash or timeout is recognised by the
wallet as the same call.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol


class MoneyKind(enum.StrEnum):
    """What a wallet movement does."""

    DEBIT = "debit"
    CREDIT = "credit"
    ROLLBACK = "rollback"


MAX_TRANSACTION_ID = 64
"""The longest transaction id every wallet must accept (docs/wallet.md)."""


def transaction_id(round_id: str, step: int | str, kind: MoneyKind, *, attempt: int = 0) -> str:
    """The deterministic transaction id of a round's money step: the only place ids are made.

    A debit or a credit is ``{round_id}:{step}:{kind}``. A debit refused or rolled back is
    retried under a new id, ``{round_id}:{step}-{attempt}:debit`` (a wallet blocks a rolled-back
    id for good). A rollback cancels one debit and is named after it, ``{debit id}:rollback``.
    Operators' wallets store these ids, so they must never change.

    >>> transaction_id("r1", 2, MoneyKind.DEBIT)
    'r1:2:debit'
    >>> transaction_id("r1", 2, MoneyKind.DEBIT, attempt=1)
    'r1:2-1:debit'
    >>> transaction_id("r1", "settle", MoneyKind.CREDIT)
    'r1:settle:credit'
    >>> transaction_id("r1", 2, MoneyKind.ROLLBACK, attempt=1)
    'r1:2-1:debit:rollback'

    A debit whose rollback would not fit in :data:`MAX_TRANSACTION_ID` characters is refused
    before any wallet sees it: a wallet would refuse that rollback for ever, and the stake could
    never be given back.

    >>> transaction_id("r" * 40, "step-name", MoneyKind.DEBIT)
    Traceback (most recent call last):
    ...
    ValueError: a transaction id of 65 characters (its rollback's): at most 64
    """
    if kind is MoneyKind.ROLLBACK:
        return f"{transaction_id(round_id, step, MoneyKind.DEBIT, attempt=attempt)}:{kind.value}"
    txn = f"{round_id}:{step}{f'-{attempt}' if attempt else ''}:{kind.value}"
    longest = len(txn) + (len(":rollback") if kind is MoneyKind.DEBIT else 0)
    if longest > MAX_TRANSACTION_ID:
        whose = " (its rollback's)" if kind is MoneyKind.DEBIT else ""
        raise ValueError(f"a transaction id of {longest} characters{whose}: "
                         f"at most {MAX_TRANSACTION_ID}")
    return txn


def step_and_attempt(txn: str, round_id: str) -> tuple[str, int]:
    """The step and attempt a transaction id of ``round_id`` was made for (the inverse of
    :func:`transaction_id`).

    >>> step_and_attempt("r1:2-1:debit", "r1")
    ('2', 1)
    >>> step_and_attempt("r1:settle:credit", "r1")
    ('settle', 0)
    """
    step, _, attempt = txn.removeprefix(f"{round_id}:").split(":")[0].partition("-")
    return step, int(attempt or 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Party:
    """Who the money belongs to, as the wallet knows them: the operator's player, in one of the
    operator's brands (every wallet call carries both ids, and goes to that operator's wallet
    only)."""

    operator_id: str
    brand_id: str
    player_id: str
    session_id: str
    currency: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MoneyCall:
    """One debit, credit or rollback."""

    kind: MoneyKind
    transaction_id: str
    round_id: str
    party: Party
    amount: int
    #: Credits only: this credit closes the round.
    round_closed: bool = False
    #: Rollbacks only: the debit being cancelled.
    debit_transaction_id: str = ""
    #: Credits only: the credit pays a free bet's win (promotional money: docs/wallet.md).
    promotional: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class MoneyResult:
    """An applied movement as the wallet reported it."""

    transaction_id: str
    balance: int
    #: The wallet's own reference for the movement (``wallet_transaction_id`` in both wallet
    #: contracts); "" when the wallet gave none.
    wallet_reference: str = ""


class WalletError(Exception):
    """Root of the wallet port's errors."""


class WalletRefused(WalletError):
    """The wallet refused the call for good (``reason`` as in the wallet contract, e.g.
    ``INSUFFICIENT_FUNDS``); nothing was applied and a retry with the same id will not help."""

    def __init__(self, message: str, *, reason: str, balance: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.balance = balance


class WalletUnavailable(WalletError):
    """The wallet did not answer definitely (timeout, transport error): the outcome is unknown."""


class WalletNotCalled(WalletError):
    """The call was refused here and never sent (the operator's wallet has too many calls in
    flight, its circuit breaker is open, or no wallet is configured for the operator): nothing
    can have moved at the wallet. A debit refused so is final without a rollback; a credit or a
    rollback stays open and is sent later."""


class Wallet(Protocol):
    """The operator's seamless wallet."""

    async def balance(self, party: Party) -> int:
        """The player's balance in minor units."""
        ...

    async def move(self, call: MoneyCall) -> MoneyResult:
        """Apply a debit, credit or rollback (idempotent by transaction id)."""
        ...
