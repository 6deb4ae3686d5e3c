"""The sandbox wallet's PostgreSQL ledger: balances and the replay rules of wallet.md.

Every money call is one statement (the function ``sandbox_wallet.apply_call`` of migration 0090,
where the rules live) that first locks the player's balance row, so calls for one player are
serialised: concurrent duplicates of a transaction id find the first one's row once it commits
and return its result instead of applying again. The transaction row is the idempotency record;
a call's result is rebuilt from it on every replay.
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias

import asyncpg

from sandbox_wallet.domain import (
    DEMO_PLAYERS,
    BalanceQuery,
    Kind,
    MoneyCall,
    Movement,
    PlayerAccount,
    TransactionRecord,
)
from sandbox_wallet.errors import Reason, WalletRefusal

_ID = re.compile(r"^[\x21-\x7e]{1,64}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
# Two calls with distinct players but one transaction id race on the primary key; one retry
# finds the winner's row and answers DUPLICATE_TRANSACTION.
_PK_RETRIES = 2

Pool: TypeAlias = "asyncpg.Pool[asyncpg.Record]"

_PLAYER_COLUMNS = "player_id, currency, balance, blocked, debit_limit"
_TXN_COLUMNS = (
    "seq, transaction_id, kind, player_id, round_id, session_id, currency, amount, round_closed,"
    " debit_transaction_id, balance_change, balance_after, rolled_back_by, created_at,"
    " operator_id, brand_id, promotional"
)


def _invalid(message: str) -> WalletRefusal:
    return WalletRefusal(Reason.INVALID_REQUEST, message)


def check_id(field: str, value: str) -> None:
    """Refuse an id that is empty, longer than 64 characters or not printable ASCII."""
    if not _ID.match(value):
        raise _invalid(f"{field} must be 1-64 printable ASCII characters")


def check_currency(value: str) -> None:
    """Refuse a currency that is not three upper-case letters (ISO 4217 shape)."""
    if not _CURRENCY.match(value):
        raise _invalid("currency must be an ISO 4217 code such as EUR")


def validate(call: MoneyCall) -> None:
    """Refuse a malformed money call before touching the database."""
    check_id("transaction_id", call.transaction_id)
    check_id("round_id", call.round_id)
    check_id("player_id", call.player_id)
    check_id("session_id", call.session_id)
    check_currency(call.currency)
    if call.kind is Kind.ROLLBACK:
        check_id("debit_transaction_id", call.debit_transaction_id)
    if call.amount < 0 or (call.kind is Kind.DEBIT and call.amount == 0):
        raise _invalid("amount must be positive (a credit or rollback may be 0)")


def _wallet_ref(seq: int) -> str:
    return f"sw-{seq}"


def _player(row: asyncpg.Record) -> PlayerAccount:
    return PlayerAccount(
        player_id=row["player_id"],
        currency=row["currency"],
        balance=row["balance"],
        blocked=row["blocked"],
        debit_limit=row["debit_limit"],
    )


def _record(row: asyncpg.Record) -> TransactionRecord:
    return TransactionRecord(
        transaction_id=row["transaction_id"],
        wallet_transaction_id=_wallet_ref(row["seq"]),
        kind=Kind(row["kind"]),
        round_id=row["round_id"],
        session_id=row["session_id"],
        currency=row["currency"],
        amount=row["amount"],
        balance_change=row["balance_change"],
        balance_after=row["balance_after"],
        round_closed=row["round_closed"],
        debit_transaction_id=row["debit_transaction_id"],
        rolled_back_by=row["rolled_back_by"],
        created_at=row["created_at"],
        operator_id=row["operator_id"],
        promotional=row["promotional"],
        brand_id=row["brand_id"],
    )


def _same_call(row: asyncpg.Record, call: MoneyCall) -> bool:
    return bool(
        row["kind"] == call.kind.value
        and row["player_id"] == call.player_id
        and row["round_id"] == call.round_id
        and row["session_id"] == call.session_id
        and row["currency"] == call.currency
        and row["amount"] == call.amount
        and row["round_closed"] == call.round_closed
        and row["debit_transaction_id"] == call.debit_transaction_id
        and row["operator_id"] == call.operator_id
        and row["brand_id"] == call.brand_id
    )


def _movement(row: asyncpg.Record) -> Movement:
    return Movement(
        transaction_id=row["transaction_id"],
        wallet_transaction_id=_wallet_ref(row["seq"]),
        balance=row["balance_after"],
        currency=row["currency"],
        debit_reversed=row["kind"] == Kind.ROLLBACK.value and row["balance_change"] != 0,
    )


class PostgresLedger:
    """Balances and money movements of demo players, kept in the ``sandbox_wallet`` schema."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    # --- wallet calls -------------------------------------------------------------------------

    async def balance(self, query: BalanceQuery) -> PlayerAccount:
        """Return the player's account; refuse an unknown player or a wrong currency."""
        check_id("player_id", query.player_id)
        check_currency(query.currency)
        row = await self._pool.fetchrow(
            f"SELECT {_PLAYER_COLUMNS} FROM sandbox_wallet.players WHERE player_id = $1",
            query.player_id,
        )
        if row is None:
            raise WalletRefusal(Reason.PLAYER_NOT_FOUND, f"no player {query.player_id}")
        account = _player(row)
        if account.currency != query.currency:
            raise WalletRefusal(Reason.WRONG_CURRENCY, f"player's wallet is in {account.currency}")
        return account

    async def apply(self, call: MoneyCall) -> Movement:
        """Apply a debit, credit or rollback exactly once, or replay its original result."""
        validate(call)
        for attempt in range(_PK_RETRIES):
            try:
                return await self._in_transaction(call)
            except asyncpg.UniqueViolationError:
                if attempt + 1 == _PK_RETRIES:
                    raise
        raise AssertionError("unreachable")  # the loop either returns or raises

    async def _in_transaction(self, call: MoneyCall) -> Movement:
        # One statement: sandbox_wallet.apply_call (migration 0090) holds the rules of
        # wallet.md (lock the player, replay, refuse, apply) and answers with the row.
        row = await self._pool.fetchrow(
            "SELECT * FROM sandbox_wallet.apply_call($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,"
            " $11)",
            call.transaction_id,
            call.kind.value,
            call.player_id,
            call.round_id,
            call.session_id,
            call.currency,
            call.amount,
            call.round_closed,
            call.debit_transaction_id,
            call.operator_id,
            call.brand_id,
        )
        assert row is not None  # the function returns one row
        if row["refusal"] is not None:
            raise WalletRefusal(
                Reason(row["refusal"]),
                row["message"],
                balance=row["refusal_balance"],
                currency=row["refusal_currency"],
            )
        if row["replayed"] and not _same_call(row, call):
            raise WalletRefusal(
                Reason.DUPLICATE_TRANSACTION,
                f"transaction {call.transaction_id} was used with different parameters",
            )
        if call.promotional and not row["replayed"]:
            # The mark is recorded with the credit (apply_call, 0090, predates it).
            await self._pool.execute(
                "UPDATE sandbox_wallet.transactions SET promotional = true"
                " WHERE transaction_id = $1",
                call.transaction_id,
            )
        return _movement(row)


class PlayerAdmin:
    """Control-service operations on demo players (sandbox only)."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def seed_demo_players(self) -> None:
        """Create the demo players that do not exist yet, leaving existing balances alone."""
        for player in DEMO_PLAYERS:
            await self._pool.execute(
                "INSERT INTO sandbox_wallet.players"
                " (player_id, currency, balance, blocked, debit_limit)"
                " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (player_id) DO NOTHING",
                player.player_id,
                player.currency,
                player.balance,
                player.blocked,
                player.debit_limit,
            )

    async def create(self, player: PlayerAccount) -> PlayerAccount:
        """Create a player, or reset an existing one to these settings and balance."""
        check_id("player_id", player.player_id)
        check_currency(player.currency)
        if player.balance < 0 or player.debit_limit < 0:
            raise _invalid("balance and debit_limit must not be negative")
        row = await self._pool.fetchrow(
            "INSERT INTO sandbox_wallet.players"
            " (player_id, currency, balance, blocked, debit_limit) VALUES ($1, $2, $3, $4, $5)"
            " ON CONFLICT (player_id) DO UPDATE SET currency = excluded.currency,"
            " balance = excluded.balance, blocked = excluded.blocked,"
            f" debit_limit = excluded.debit_limit RETURNING {_PLAYER_COLUMNS}",
            player.player_id,
            player.currency,
            player.balance,
            player.blocked,
            player.debit_limit,
        )
        assert row is not None  # upsert ... RETURNING always yields the row
        return _player(row)

    async def fund(self, player_id: str, amount: int) -> PlayerAccount:
        """Add ``amount`` minor units (negative to take); the balance may not go below zero."""
        return await self._update(
            player_id, "balance = balance + $2", amount, guard="balance + $2 >= 0"
        )

    async def block(self, player_id: str, *, blocked: bool) -> PlayerAccount:
        """Block or unblock a player."""
        return await self._update(player_id, "blocked = $2", blocked)

    async def expire_session(self, session_id: str) -> None:
        """Mark a session expired: debits in it are refused from now on."""
        check_id("session_id", session_id)
        await self._pool.execute(
            "INSERT INTO sandbox_wallet.expired_sessions (session_id) VALUES ($1)"
            " ON CONFLICT DO NOTHING",
            session_id,
        )

    async def get(self, player_id: str) -> PlayerAccount:
        """Return a player's account."""
        row = await self._pool.fetchrow(
            f"SELECT {_PLAYER_COLUMNS} FROM sandbox_wallet.players WHERE player_id = $1",
            player_id,
        )
        if row is None:
            raise WalletRefusal(Reason.PLAYER_NOT_FOUND, f"no player {player_id}")
        return _player(row)

    async def transactions(self, player_id: str) -> list[TransactionRecord]:
        """Return the player's recorded transactions, oldest first."""
        rows = await self._pool.fetch(
            f"SELECT {_TXN_COLUMNS} FROM sandbox_wallet.transactions"
            " WHERE player_id = $1 ORDER BY seq",
            player_id,
        )
        return [_record(r) for r in rows]

    async def _update(
        self, player_id: str, assignment: str, value: Any, *, guard: str = "true"
    ) -> PlayerAccount:
        row = await self._pool.fetchrow(
            f"UPDATE sandbox_wallet.players SET {assignment}"
            f" WHERE player_id = $1 AND {guard} RETURNING {_PLAYER_COLUMNS}",
            player_id,
            value,
        )
        if row is None:
            await self.get(player_id)  # raises PLAYER_NOT_FOUND when that is the cause
            raise _invalid("the balance may not go below zero")
        return _player(row)
