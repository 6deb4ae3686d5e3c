"""Moving money through the wallet port with the outbox: write the row, call, record the outcome.

A debit whose outcome is unknown is rolled back (never guessed); credits and rollbacks that did
not go through (or that the wallet refused: only a stake may be refused for good) stay open in the
outbox and are driven to a final state by :func:`reconcile` on the player's next call, by
``Settle`` and by the reconciler of every replica, with backoff. Each call counts as an attempt
on its row, with its error.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from types import MappingProxyType

from rgs.service.errors import NotAllowedNow, NotSent, Unavailable
from rgs.service.model import Movement, MovementStatus
from rgs.service.ports import PlayerJournal
from rgs.service.writes import PaidAnswer
from rgs.wallet.port import (
    MoneyCall,
    MoneyKind,
    MoneyResult,
    Party,
    Wallet,
    WalletError,
    WalletNotCalled,
    WalletRefused,
    step_and_attempt,
    transaction_id,
)

log = logging.getLogger(__name__)


async def balance(wallet: Wallet, party: Party) -> int:
    """The player's balance now. Raises NotAllowedNow (the wallet's reason) when the wallet
    refuses, Unavailable when it does not answer definitely."""
    try:
        return await wallet.balance(party)
    except WalletRefused as exc:
        raise refusal(exc) from exc
    except WalletError as exc:
        raise Unavailable(str(exc), reason="WALLET_UNAVAILABLE") from exc


async def balance_or_none(wallet: Wallet, party: Party) -> int | None:
    """The player's balance, or None when the wallet does not give it (an answer that can do
    without it: the session is open, the variants are listed)."""
    try:
        return await wallet.balance(party)
    except WalletError as exc:
        log.warning("balance not available: %s", exc)
        return None

def wallet_call(m: Movement, party: Party) -> MoneyCall:
    """The wallet call that sends the outbox row ``m`` for ``party`` (a retry repeats it)."""
    # A retry must repeat the original parameters exactly, so the movement's own session and
    # currency win over the current call's.
    party = Party(operator_id=party.operator_id, brand_id=m.brand_id or party.brand_id,
                  player_id=party.player_id, session_id=m.session_id or party.session_id,
                  currency=m.currency or party.currency)
    return MoneyCall(kind=m.kind, transaction_id=m.transaction_id, round_id=m.round_id,
                     party=party, amount=m.amount, round_closed=m.kind is MoneyKind.CREDIT,
                     debit_transaction_id=m.debit_transaction_id,
                     promotional=m.kind is MoneyKind.CREDIT and m.promotional)


#: The wallet's word on the player (its refusal reason) → the reason the RGS answers, one of
#: its own: a limit reached, a self-exclusion and a reality check due each say what the client
#: must show. A reason not listed is answered as the wallet gave it.
PLAYER_REASONS: Mapping[str, str] = MappingProxyType({
    "LIMIT_EXCEEDED": "PLAYER_LIMIT_REACHED",
    "PLAYER_LIMIT_REACHED": "PLAYER_LIMIT_REACHED",
    "PLAYER_EXCLUDED": "PLAYER_EXCLUDED",
    "SELF_EXCLUDED": "PLAYER_EXCLUDED",
    "PLAYER_BLOCKED": "PLAYER_BLOCKED",
    "REALITY_CHECK_DUE": "REALITY_CHECK_DUE",
})


def refusal(exc: WalletRefused) -> NotAllowedNow:
    """The RGS's refusal for a wallet's final one (the wallet's own reason in the metadata)."""
    return NotAllowedNow(str(exc), reason=PLAYER_REASONS.get(exc.reason, exc.reason),
                         metadata={"wallet_reason": exc.reason})


async def send(pj: PlayerJournal, wallet: Wallet, party: Party, m: Movement) -> MoneyResult:
    """Call the wallet for an outbox row already written; record and return its answer (the
    balance and the wallet's own reference).

    Raises NotAllowedNow (the wallet's reason) on a final refusal, Unavailable when the outcome
    is unknown.
    """
    res = await call(pj, wallet, party, m)
    await record(pj, m, res.balance, wallet_reference=res.wallet_reference)
    return res


async def call(pj: PlayerJournal, wallet: Wallet, party: Party, m: Movement) -> MoneyResult:
    """:func:`send` without recording a success: the caller records it with its next write
    (the step's :class:`~rgs.service.writes.Booking` of a debit); until then the row stays
    pending, which every reader treats like applied (open, settled by the next call if this
    one dies). A failure is recorded here, as by :func:`send`.
    """
    async def record(status: MovementStatus, balance: int | None, error: str) -> None:
        await pj.settle_movement(m.transaction_id, status, balance, error=error)

    return await _moved(wallet, party, m, record)


async def pay_after_release(pj: PlayerJournal, wallet: Wallet, party: Party,
                            m: Movement) -> MoneyResult:
    """Send a win whose row the call's last write committed (the player's journal is given
    back): a failure is recorded by :meth:`PlayerJournal.answer_later`, as the caller records
    the success (with the call's paid answer). Raises as :func:`call`."""
    async def record(status: MovementStatus, balance: int | None, error: str) -> None:
        await pj.answer_later(PaidAnswer(transaction_id=m.transaction_id, status=status,
                                         balance_after=balance, error=error))

    return await _moved(wallet, party, m, record)


async def _moved(wallet: Wallet, party: Party, m: Movement,
                 record_failure: Callable[[MovementStatus, int | None, str], Awaitable[None]]
                 ) -> MoneyResult:
    """The wallet's answer to ``m``; a call that did not apply it is recorded by
    ``record_failure`` (:func:`failure`) and raised as :func:`raised`."""
    try:
        return await wallet.move(wallet_call(m, party))
    except WalletError as exc:
        await record_failure(*failure(m, exc))
        raise raised(exc) from exc


def raised(exc: WalletError) -> Exception:
    """What a use case raises for a wallet call that did not apply: the player's refusal,
    NotSent when it was never sent, Unavailable when its outcome is unknown."""
    if isinstance(exc, WalletRefused):
        return refusal(exc)
    if isinstance(exc, WalletNotCalled):
        return NotSent(str(exc), reason="WALLET_UNAVAILABLE")
    return Unavailable(str(exc), reason="WALLET_UNAVAILABLE")


def failure(m: Movement, exc: WalletError) -> tuple[MovementStatus, int | None, str]:
    """How a wallet call that did not apply ``m`` is recorded: (status, the balance the wallet
    reported, error)."""
    # Only a stake may be refused for good. A win or a rollback must go through (the wallet
    # contract), so a refusal leaves it open: retried with backoff, and visible as an open
    # outbox row with its error until the operator's wallet accepts it.
    final = MovementStatus.REFUSED if m.kind is MoneyKind.DEBIT else MovementStatus.UNKNOWN
    if isinstance(exc, WalletRefused):
        if final is MovementStatus.UNKNOWN:
            log.error("wallet refused %s %s: %s", m.kind.value, m.transaction_id, exc)
        return final, exc.balance, str(exc)
    if isinstance(exc, WalletNotCalled):
        # Never sent: a debit is final (nothing moved, no rollback needed); a credit or a
        # rollback stays open and is sent later. It counts as an attempt, so the reconciler
        # backs off from an operator whose wallet is down instead of hammering it.
        return final, None, f"not sent: {exc}"
    return MovementStatus.UNKNOWN, None, str(exc)


async def record(pj: PlayerJournal, m: Movement, balance: int, *,
                 wallet_reference: str | None = None) -> None:
    """Record that the wallet applied ``m`` and reported ``balance`` (and its own reference:
    by default the one ``m`` carries)."""
    ref = m.wallet_reference if wallet_reference is None else wallet_reference
    await pj.settle_movement(m.transaction_id, MovementStatus.APPLIED, balance, error="",
                             wallet_reference=ref)


async def debit(pj: PlayerJournal, wallet: Wallet, party: Party, *, round_id: str, step: int,
                amount: int, round_movements: list[Movement] | None = None
                ) -> tuple[Movement, int]:
    """Take a stake: outbox row, wallet call, outcome. Rolls back a debit of unknown outcome.

    A retry of a step whose earlier debit was refused or rolled back gets the next attempt's id
    (:func:`~rgs.wallet.port.transaction_id`); ``round_movements``, when the caller has read
    them in this call (and changed none since), spares reading them again. The wallet's answer
    is not recorded here (:func:`call`): the caller records the debit applied with the commit
    that books it (a :class:`~rgs.service.writes.Booking` of the step's write), or with
    :func:`record` before rolling it back.
    """
    if round_movements is None:
        round_movements = await pj.movements(round_id)
    earlier = [m for m in round_movements if m.kind is MoneyKind.DEBIT
               and step_and_attempt(m.transaction_id, round_id)[0] == str(step)]
    m = Movement(transaction_id=transaction_id(round_id, step, MoneyKind.DEBIT,
                                               attempt=len(earlier)),
                 round_id=round_id, kind=MoneyKind.DEBIT, amount=amount,
                 session_id=party.session_id, currency=party.currency, brand_id=party.brand_id)
    await pj.record_movement(m)
    try:
        res = await call(pj, wallet, party, m)
    except NotSent:
        raise  # never reached the wallet: nothing to roll back
    except Unavailable:
        await roll_back(pj, wallet, party, m)
        raise
    return replace(m, wallet_reference=res.wallet_reference), res.balance


def rollback_of(debit_m: Movement) -> Movement:
    """The outbox row cancelling a debit: same amount, session and currency, its own id."""
    step, attempt = step_and_attempt(debit_m.transaction_id, debit_m.round_id)
    return Movement(transaction_id=transaction_id(debit_m.round_id, step, MoneyKind.ROLLBACK,
                                                  attempt=attempt),
                    round_id=debit_m.round_id, kind=MoneyKind.ROLLBACK, amount=debit_m.amount,
                    debit_transaction_id=debit_m.transaction_id,
                    session_id=debit_m.session_id, currency=debit_m.currency,
                    brand_id=debit_m.brand_id)


async def roll_back(pj: PlayerJournal, wallet: Wallet, party: Party, debit_m: Movement) -> None:
    """Cancel a debit (best effort now; left open in the outbox for reconcile otherwise)."""
    rb = rollback_of(debit_m)
    await pj.record_movement(rb)
    try:
        await send(pj, wallet, party, rb)
    except (NotAllowedNow, Unavailable) as exc:
        log.warning("rollback of %s not confirmed: %s", debit_m.transaction_id, exc)
    # Once applied, the rollback's own outcome marked the debit rolled back (the same write).


async def reconcile(pj: PlayerJournal, wallet: Wallet, party: Party,
                    movements: list[Movement]) -> None:
    """Drive a player's open outbox rows to a final state.

    Runs while the player's journal is held, so no call of this player is in flight but one
    paying a win after its last write (:func:`pay_after_release`): an open debit belongs to a
    call that died before committing its round and is rolled back; an open credit or rollback
    is sent again (same transaction id, so the wallet applies it once, whoever sends it).
    """
    # A round's credit waits while a stake of that round (a debit or its rollback) is still
    # unresolved: a debit is never rolled back after a credit of its round (a shared table's
    # refunds and a later win of the same player could otherwise cross).
    unresolved: set[str] = set()
    for m in movements:
        if not m.is_open:
            continue
        if m.kind is MoneyKind.CREDIT and m.round_id in unresolved:
            log.warning("credit %s waits for its round's stakes", m.transaction_id)
            continue
        try:
            if m.kind is MoneyKind.DEBIT:
                await roll_back(pj, wallet, party, m)
            else:
                await send(pj, wallet, party, m)  # a rollback's outcome marks its debit too
        except (NotAllowedNow, Unavailable) as exc:
            log.warning("outbox row %s still open: %s", m.transaction_id, exc)
            if m.kind is not MoneyKind.CREDIT:
                unresolved.add(m.round_id)
