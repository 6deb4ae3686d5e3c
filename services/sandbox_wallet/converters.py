"""All conversion between the sandbox wallet's protobuf messages and its domain values."""

from __future__ import annotations

from google.protobuf import timestamp_pb2

from rgs.generated.wallet.v1 import wallet_pb2
from sandbox_wallet.domain import (
    BalanceQuery,
    Kind,
    MoneyCall,
    Movement,
    PlayerAccount,
    TransactionRecord,
)
from sandbox_wallet.errors import Reason, WalletRefusal
from sandbox_wallet.faults import FaultKind, FaultRule, Method
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2


def balance_query(msg: wallet_pb2.BalanceRequest) -> BalanceQuery:
    """BalanceRequest -> BalanceQuery."""
    return BalanceQuery(player_id=msg.player_id, session_id=msg.session_id, currency=msg.currency,
                        operator_id=msg.operator_id, brand_id=msg.brand_id)


def debit_call(msg: wallet_pb2.DebitRequest) -> MoneyCall:
    """DebitRequest -> MoneyCall."""
    return MoneyCall(
        kind=Kind.DEBIT,
        transaction_id=msg.transaction_id,
        round_id=msg.round_id,
        player_id=msg.player_id,
        session_id=msg.session_id,
        currency=msg.currency,
        amount=msg.amount,
        operator_id=msg.operator_id,
        brand_id=msg.brand_id,
    )


def credit_call(msg: wallet_pb2.CreditRequest) -> MoneyCall:
    """CreditRequest -> MoneyCall."""
    return MoneyCall(
        kind=Kind.CREDIT,
        transaction_id=msg.transaction_id,
        round_id=msg.round_id,
        player_id=msg.player_id,
        session_id=msg.session_id,
        currency=msg.currency,
        amount=msg.amount,
        round_closed=msg.round_closed,
        operator_id=msg.operator_id,
        brand_id=msg.brand_id,
        promotional=msg.promotional,
    )


def rollback_call(msg: wallet_pb2.RollbackRequest) -> MoneyCall:
    """RollbackRequest -> MoneyCall."""
    return MoneyCall(
        kind=Kind.ROLLBACK,
        transaction_id=msg.transaction_id,
        round_id=msg.round_id,
        player_id=msg.player_id,
        session_id=msg.session_id,
        currency=msg.currency,
        amount=msg.amount,
        debit_transaction_id=msg.debit_transaction_id,
        operator_id=msg.operator_id,
        brand_id=msg.brand_id,
    )


def balance_response(account: PlayerAccount) -> wallet_pb2.BalanceResponse:
    """PlayerAccount -> BalanceResponse."""
    return wallet_pb2.BalanceResponse(balance=account.balance, currency=account.currency)


def debit_response(m: Movement) -> wallet_pb2.DebitResponse:
    """Movement -> DebitResponse."""
    return wallet_pb2.DebitResponse(
        transaction_id=m.transaction_id,
        wallet_transaction_id=m.wallet_transaction_id,
        balance=m.balance,
        currency=m.currency,
    )


def credit_response(m: Movement) -> wallet_pb2.CreditResponse:
    """Movement -> CreditResponse."""
    return wallet_pb2.CreditResponse(
        transaction_id=m.transaction_id,
        wallet_transaction_id=m.wallet_transaction_id,
        balance=m.balance,
        currency=m.currency,
    )


def rollback_response(m: Movement) -> wallet_pb2.RollbackResponse:
    """Movement -> RollbackResponse."""
    return wallet_pb2.RollbackResponse(
        transaction_id=m.transaction_id,
        wallet_transaction_id=m.wallet_transaction_id,
        balance=m.balance,
        currency=m.currency,
        debit_reversed=m.debit_reversed,
    )


def fault_rule(msg: sandbox_pb2.Fault) -> FaultRule:
    """Fault message -> FaultRule (validated; the id is assigned by the board)."""
    try:
        kind = FaultKind(msg.kind)
    except ValueError:
        raise WalletRefusal(Reason.INVALID_REQUEST, "fault kind must be set") from None
    try:
        method = Method(msg.method)
    except ValueError:
        raise WalletRefusal(Reason.INVALID_REQUEST, f"unknown method {msg.method}") from None
    reason = Reason.WALLET_UNAVAILABLE
    if msg.error_reason:
        try:
            reason = Reason(msg.error_reason)
        except ValueError:
            raise WalletRefusal(
                Reason.INVALID_REQUEST, f"unknown error_reason {msg.error_reason!r}"
            ) from None
    return FaultRule(
        fault_id="",
        kind=kind,
        method=method,
        player_id=msg.player_id,
        probability=msg.probability if msg.probability != 0.0 else 1.0,
        remaining=msg.remaining,
        latency_ms=msg.latency_ms,
        error_reason=reason,
    )


def fault_message(rule: FaultRule) -> sandbox_pb2.Fault:
    """FaultRule -> Fault message."""
    return sandbox_pb2.Fault(
        fault_id=rule.fault_id,
        kind=sandbox_pb2.FaultKind.ValueType(rule.kind.value),
        method=sandbox_pb2.WalletMethod.ValueType(rule.method.value),
        player_id=rule.player_id,
        probability=rule.probability,
        remaining=rule.remaining,
        latency_ms=rule.latency_ms,
        error_reason=rule.error_reason.value,
    )


def player_account(msg: sandbox_pb2.Player) -> PlayerAccount:
    """Player message -> PlayerAccount."""
    return PlayerAccount(
        player_id=msg.player_id,
        currency=msg.currency,
        balance=msg.balance,
        blocked=msg.blocked,
        debit_limit=msg.debit_limit,
    )


def player_message(account: PlayerAccount) -> sandbox_pb2.Player:
    """PlayerAccount -> Player message."""
    return sandbox_pb2.Player(
        player_id=account.player_id,
        currency=account.currency,
        balance=account.balance,
        blocked=account.blocked,
        debit_limit=account.debit_limit,
    )


_KINDS = {
    Kind.DEBIT: sandbox_pb2.TRANSACTION_KIND_DEBIT,
    Kind.CREDIT: sandbox_pb2.TRANSACTION_KIND_CREDIT,
    Kind.ROLLBACK: sandbox_pb2.TRANSACTION_KIND_ROLLBACK,
}


def transaction_message(record: TransactionRecord) -> sandbox_pb2.Transaction:
    """TransactionRecord -> Transaction message."""
    created = timestamp_pb2.Timestamp()
    created.FromDatetime(record.created_at)
    return sandbox_pb2.Transaction(
        transaction_id=record.transaction_id,
        wallet_transaction_id=record.wallet_transaction_id,
        kind=_KINDS[record.kind],
        round_id=record.round_id,
        session_id=record.session_id,
        currency=record.currency,
        amount=record.amount,
        balance_change=record.balance_change,
        balance_after=record.balance_after,
        round_closed=record.round_closed,
        debit_transaction_id=record.debit_transaction_id,
        rolled_back_by=record.rolled_back_by,
        created_at=created,
        operator_id=record.operator_id,
        brand_id=record.brand_id,
        promotional=record.promotional,
    )
