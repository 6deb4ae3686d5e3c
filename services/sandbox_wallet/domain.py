"""Values the sandbox wallet works with: wallet calls, their results, players and records."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime


class Kind(enum.StrEnum):
    """Kind of a money movement, as stored in ``sandbox_wallet.transactions.kind``."""

    DEBIT = "debit"
    CREDIT = "credit"
    ROLLBACK = "rollback"


@dataclass(frozen=True, slots=True, kw_only=True)
class BalanceQuery:
    """Read a player's balance."""

    player_id: str
    session_id: str
    currency: str
    operator_id: str = ""
    brand_id: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class MoneyCall:
    """One debit, credit or rollback as received; the fields that replays are compared on.

    ``debit_transaction_id`` is set for rollbacks only; ``round_closed`` for credits only.
    """

    kind: Kind
    transaction_id: str
    round_id: str
    player_id: str
    session_id: str
    currency: str
    amount: int
    round_closed: bool = False
    debit_transaction_id: str = ""
    operator_id: str = ""
    brand_id: str = ""
    #: Credits only: a free bet's win (promotional money), recorded with the transaction.
    promotional: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Movement:
    """The result of an applied money call (the same value is returned on every replay)."""

    transaction_id: str
    wallet_transaction_id: str
    balance: int
    currency: str
    debit_reversed: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerAccount:
    """A demo player's wallet."""

    player_id: str
    currency: str
    balance: int
    blocked: bool = False
    debit_limit: int = 0
    """Largest single debit in minor units; 0 means no limit."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TransactionRecord:
    """One recorded money movement, as listed by the control service."""

    transaction_id: str
    wallet_transaction_id: str
    kind: Kind
    round_id: str
    session_id: str
    currency: str
    amount: int
    balance_change: int
    balance_after: int
    round_closed: bool
    debit_transaction_id: str
    rolled_back_by: str
    created_at: datetime
    operator_id: str = ""
    brand_id: str = ""
    promotional: bool = False


DEMO_PLAYERS: tuple[PlayerAccount, ...] = (
    PlayerAccount(player_id="demo-alice", currency="EUR", balance=100_000),
    PlayerAccount(player_id="demo-bob", currency="EUR", balance=25_000),
    PlayerAccount(player_id="demo-carol-usd", currency="USD", balance=50_000),
    PlayerAccount(player_id="demo-dave-blocked", currency="EUR", balance=10_000, blocked=True),
    PlayerAccount(
        player_id="demo-erin-limited", currency="EUR", balance=100_000, debit_limit=1_000
    ),
    PlayerAccount(player_id="demo-gwen-gbp", currency="GBP", balance=100_000),
)
"""Players seeded at start (only when missing, so restarts keep their balances)."""
