"""Decorators of the journal and wallet ports that add metrics, spans and round accounting.

``bootstrap`` wraps whichever adapters it chose::

    journal = InstrumentedJournal(journal)
    wallet = InstrumentedWallet(wallet)

They change nothing the use cases see: every call is forwarded as is and every error re-raised.
Wrapping the ports rather than the adapters means a fake, an in-memory journal or an HTTP
wallet adapter is measured the same way as the PostgreSQL journal and the gRPC wallet.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from rgs.engine.model import (
    Event,
    InsuranceSettled,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    SideBetSettled,
)
from rgs.observability import metrics
from rgs.observability.tracing import journal_span, mark_error, wallet_span
from rgs.service.identifiers import is_demo_player
from rgs.service.model import (
    CallRead,
    CallState,
    Movement,
    MovementStatus,
    RequestScope,
    Session,
    SessionSeed,
    StoredRequest,
    StoredRound,
)
from rgs.service.ports import Journal, JournalStale, PlayerJournal
from rgs.service.writes import PaidAnswer, StepWrite
from rgs.wallet.port import (
    MoneyCall,
    MoneyKind,
    MoneyResult,
    Party,
    Wallet,
    WalletNotCalled,
    WalletRefused,
    WalletUnavailable,
)

T = TypeVar("T")


_LATENCY_BY_OPERATION: dict[str, Any] = {}


async def _timed(operation: str, call: Callable[[], Awaitable[T]]) -> T:
    """Run one journal operation inside its span, timing it and counting its failures."""
    latency = _LATENCY_BY_OPERATION.get(operation)
    if latency is None:  # labels() per call costs more than the rest of this wrapper
        latency = _LATENCY_BY_OPERATION[operation] = metrics.JOURNAL_TX_LATENCY.labels(
            operation=operation)
    with journal_span(operation) as span:
        started = time.perf_counter()
        try:
            return await call()
        except JournalStale:
            raise  # the replica's memory of a player was out of date: read again, no error
        except Exception as exc:
            metrics.JOURNAL_ERRORS.labels(operation=operation).inc()
            mark_error(span, type(exc).__name__)
            raise
        finally:
            latency.observe(time.perf_counter() - started)


# --------------------------------------------------------------------------- round accounting


def record_round_events(round: StoredRound, new_events: Sequence[Event]) -> None:
    """Count what the newly committed events of ``round`` did: a deal starts it; a settlement
    adds its stakes and payouts per bet kind; a void counts only the void (every stake went
    back, so it takes nothing and pays nothing). Demo play's rounds are virtual money: not
    counted, so the RTP and GGR the metrics show are real money's alone."""
    if is_demo_player(round.player_id):
        return
    labels = {"variant": round.variant, "brand": round.brand_id}
    for event in new_events:
        if isinstance(event, RoundStarted):
            metrics.ROUNDS.labels(**labels, event="started").inc()
        elif isinstance(event, RoundVoided):
            metrics.ROUNDS.labels(**labels, event="voided").inc()
        elif isinstance(event, RoundSettled):
            metrics.ROUNDS.labels(**labels, event="settled").inc()
            _count_money(round)


def _count_money(round: StoredRound) -> None:
    side_staked = side_paid = insurance_staked = insurance_paid = 0
    for event in round.events:
        if isinstance(event, SideBetSettled):
            side_staked += event.stake
            side_paid += event.payout
        elif isinstance(event, InsuranceSettled):
            insurance_staked += event.stake
            insurance_paid += event.payout
    # The round's totals are authoritative; the main bet is what is left once side bets and
    # insurance are taken out (Cash Out and Safety Net payouts are main-game money too).
    main_staked = round.total_staked - side_staked - insurance_staked
    main_paid = round.total_paid - side_paid - insurance_paid
    for bet, staked, paid in (("main", main_staked, main_paid),
                              ("side", side_staked, side_paid),
                              ("insurance", insurance_staked, insurance_paid)):
        if staked or paid or bet == "main":
            metrics.STAKES.labels(variant=round.variant, currency=round.currency,
                                  bet=bet).inc(max(staked, 0))
            metrics.WINS.labels(variant=round.variant, currency=round.currency,
                                bet=bet).inc(max(paid, 0))


# --------------------------------------------------------------------------- wins in flight


class WinsAwaitingPayment:
    """The credits (wins) this replica knows are not confirmed yet, with the time each one's
    outbox row was written, so the wallet decorator can observe how long a win waited for the
    wallet (``rgs_win_payment_delay_seconds``) when it confirms it.

    A credit enters when a round's commit writes it (now), or when the journal shows it still
    open (its row's own time: a credit left by a replica that died, paid by this one's
    reconciler, counts from the settlement, not from when it was found). Bounded: past
    ``limit`` entries the oldest is forgotten (and not observed).
    """

    def __init__(self, limit: int = 100_000) -> None:
        self._since: dict[str, float] = {}
        self._limit = limit

    def written(self, transaction_id: str, at: float | None = None) -> None:
        """A credit whose row was written at ``at`` (Unix time; None: now). The earliest time
        given wins: the row's own time, once the journal returns it, over the moment this
        replica first heard of it."""
        at = time.time() if at is None else at
        self._since[transaction_id] = min(at, self._since.get(transaction_id, at))
        if len(self._since) > self._limit:
            del self._since[next(iter(self._since))]

    def seen(self, movements: Iterable[Movement]) -> None:
        """Note the open credits among rows the journal returned."""
        for m in movements:
            if m.kind is MoneyKind.CREDIT and m.is_open:
                self.written(m.transaction_id,
                             m.created_at.timestamp() if m.created_at is not None else None)

    def paid(self, transaction_id: str) -> None:
        """The wallet confirmed the credit: observe how long it waited."""
        since = self._since.pop(transaction_id, None)
        if since is not None:
            metrics.WIN_PAYMENT_DELAY.observe(max(0.0, time.time() - since))


WINS = WinsAwaitingPayment()
"""The replica's registry, shared by the journal and wallet decorators."""


# --------------------------------------------------------------------------- journal


class InstrumentedPlayerJournal:
    """A :class:`PlayerJournal` whose every operation is timed and traced."""

    def __init__(self, inner: PlayerJournal, wins: WinsAwaitingPayment = WINS) -> None:
        self._inner = inner
        self._wins = wins

    async def find_request(self, request_id: str, scope: RequestScope) -> StoredRequest | None:
        """See :meth:`PlayerJournal.find_request`."""
        return await _timed("find_request", lambda: self._inner.find_request(request_id, scope))

    async def open_call(self, read: CallRead) -> CallState:
        """See :meth:`PlayerJournal.open_call`."""
        state = await _timed("open_call", lambda: self._inner.open_call(read))
        self._wins.seen(state.open_movements)
        self._wins.seen(state.round_movements)
        return state

    async def get_round(self, round_id: str) -> StoredRound | None:
        """See :meth:`PlayerJournal.get_round`."""
        return await _timed("get_round", lambda: self._inner.get_round(round_id))

    async def active_round(self, brand_id: str, currency: str) -> StoredRound | None:
        """See :meth:`PlayerJournal.active_round`."""
        return await _timed("active_round", lambda: self._inner.active_round(brand_id, currency))

    async def movements(self, round_id: str) -> list[Movement]:
        """See :meth:`PlayerJournal.movements`."""
        rows = await _timed("movements", lambda: self._inner.movements(round_id))
        self._wins.seen(rows)
        return rows

    async def open_movements(self) -> list[Movement]:
        """See :meth:`PlayerJournal.open_movements`."""
        rows = await _timed("open_movements", self._inner.open_movements)
        self._wins.seen(rows)
        return rows

    async def record_movement(self, movement: Movement) -> None:
        """See :meth:`PlayerJournal.record_movement`."""
        await _timed("record_movement", lambda: self._inner.record_movement(movement))

    async def settle_movement(self, transaction_id: str, status: MovementStatus,
                              balance_after: int | None, *, error: str | None = None,
                              wallet_reference: str = "") -> None:
        """See :meth:`PlayerJournal.settle_movement`."""
        await _timed("settle_movement", lambda: self._inner.settle_movement(
            transaction_id, status, balance_after, error=error,
            wallet_reference=wallet_reference))

    async def commit_round(self, write: StepWrite) -> None:
        """See :meth:`PlayerJournal.commit_round`; counts the round's events once committed."""
        await _timed("commit_round", lambda: self._inner.commit_round(write))
        record_round_events(write.round, write.new_events)
        for m in write.movements:
            if m.kind is MoneyKind.CREDIT:
                self._wins.written(m.transaction_id)

    async def answer_later(self, answer: PaidAnswer) -> None:
        """See :meth:`PlayerJournal.answer_later` (no I/O of its own: not timed)."""
        await self._inner.answer_later(answer)

    async def update_response(self, request_id: str, response: str,
                              scope: RequestScope) -> None:
        """See :meth:`PlayerJournal.update_response`."""
        await _timed("update_response", lambda: self._inner.update_response(
            request_id, response, scope))

    async def save_session(self, session: Session, token_hash: str,
                           request: StoredRequest | None) -> None:
        """See :meth:`PlayerJournal.save_session`."""
        await _timed("save_session", lambda: self._inner.save_session(
            session, token_hash, request))

    async def next_seed(self, session_id: str) -> SessionSeed | None:
        """See :meth:`PlayerJournal.next_seed`."""
        return await _timed("next_seed", lambda: self._inner.next_seed(session_id))

    async def save_next_seed(self, seed: SessionSeed) -> None:
        """See :meth:`PlayerJournal.save_next_seed`."""
        await _timed("save_next_seed", lambda: self._inner.save_next_seed(seed))

    def __getattr__(self, name: str) -> Any:
        # Anything the port grows later still reaches the adapter, only unmeasured.
        return getattr(self._inner, name)


class InstrumentedJournal:
    """A :class:`Journal` whose operations are timed and traced, and whose player journals
    count rounds and money as they commit."""

    def __init__(self, inner: Journal, wins: WinsAwaitingPayment = WINS) -> None:
        self._inner = inner
        self._wins = wins

    @asynccontextmanager
    async def player(self, player_key: str, first: CallRead | None = None
                     ) -> AsyncIterator[PlayerJournal]:
        """See :meth:`Journal.player`; the wait for the player's lock is measured."""
        async with AsyncExitStack() as stack:
            started = time.perf_counter()
            with journal_span("lock_player"):
                try:
                    pj = await stack.enter_async_context(self._inner.player(player_key,
                                                                            first))
                except Exception:
                    metrics.JOURNAL_ERRORS.labels(operation="lock_player").inc()
                    raise
                finally:
                    metrics.JOURNAL_LOCK_WAIT.observe(time.perf_counter() - started)
            yield InstrumentedPlayerJournal(pj, self._wins)

    async def flush_answers(self) -> None:
        """See :meth:`Journal.flush_answers`."""
        await _timed("flush_answers", self._inner.flush_answers)

    async def operator_for_key(self, key_hash: str) -> str | None:
        """See :meth:`Journal.operator_for_key`."""
        return await _timed("operator_for_key", lambda: self._inner.operator_for_key(key_hash))

    async def add_operator_key(self, *, operator_id: str, key_hash: str, label: str) -> None:
        """See :meth:`Journal.add_operator_key`."""
        await _timed("add_operator_key", lambda: self._inner.add_operator_key(
            operator_id=operator_id, key_hash=key_hash, label=label))

    async def find_session(self, player_key: str, token_hash: str) -> Session | None:
        """See :meth:`Journal.find_session`."""
        return await _timed("find_session", lambda: self._inner.find_session(
            player_key, token_hash))

    async def next_seed(self, player_key: str, session_id: str) -> SessionSeed | None:
        """See :meth:`Journal.next_seed`."""
        return await _timed("next_seed", lambda: self._inner.next_seed(player_key, session_id))

    async def get_round(self, player_key: str, round_id: str) -> StoredRound | None:
        """See :meth:`Journal.get_round`."""
        return await _timed("get_round", lambda: self._inner.get_round(player_key, round_id))

    async def active_round(self, player_key: str, brand_id: str, currency: str
                           ) -> StoredRound | None:
        """See :meth:`Journal.active_round`."""
        return await _timed("active_round", lambda: self._inner.active_round(
            player_key, brand_id, currency))

    async def list_rounds(self, player_key: str, brand_id: str, *,
                          before: tuple[datetime, str] | None, limit: int
                          ) -> list[StoredRound]:
        """See :meth:`Journal.list_rounds`."""
        return await _timed("list_rounds", lambda: self._inner.list_rounds(
            player_key, brand_id, before=before, limit=limit))

    async def movements(self, player_key: str, round_id: str) -> list[Movement]:
        """See :meth:`Journal.movements`."""
        return await _timed("movements", lambda: self._inner.movements(player_key, round_id))

    async def abandoned_rounds(self, *, before: datetime, limit: int,
                               operator_id: str | None = None) -> list[StoredRound]:
        """See :meth:`Journal.abandoned_rounds`."""
        return await _timed("abandoned_rounds", lambda: self._inner.abandoned_rounds(
            before=before, limit=limit, operator_id=operator_id))

    async def players_with_open_movements(self, *, now: datetime, min_age: timedelta,
                                          max_backoff: timedelta, limit: int) -> list[str]:
        """See :meth:`Journal.players_with_open_movements`."""
        return await _timed("players_with_open_movements",
                            lambda: self._inner.players_with_open_movements(
                                now=now, min_age=min_age, max_backoff=max_backoff,
                                limit=limit))

    def __getattr__(self, name: str) -> Any:
        # close() and anything else the adapter offers beyond the port.
        return getattr(self._inner, name)


# --------------------------------------------------------------------------- wallet


class InstrumentedWallet:
    """A :class:`Wallet` whose calls are counted by outcome, timed and traced (the span is the
    parent the wallet sees through the trace-context client interceptor)."""

    def __init__(self, inner: Wallet, wins: WinsAwaitingPayment = WINS) -> None:
        self._inner = inner
        self._wins = wins

    async def balance(self, party: Party) -> int:
        """See :meth:`Wallet.balance`."""
        return await self._observe(party.operator_id, "balance",
                                   lambda: self._inner.balance(party))

    async def move(self, call: MoneyCall) -> MoneyResult:
        """See :meth:`Wallet.move`; a confirmed credit ends its win's wait."""
        result = await self._observe(call.party.operator_id, call.kind.value,
                                     lambda: self._inner.move(call), amount=call.amount)
        if call.kind is MoneyKind.CREDIT:
            self._wins.paid(call.transaction_id)
        return result

    @staticmethod
    async def _observe(operator: str, operation: str, call: Callable[[], Awaitable[T]], *,
                       amount: int | None = None) -> T:
        # Operators are few and configured: a bounded label (a player id never is one).
        outcome = "ok"
        with wallet_span(operation) as span:
            span.set_attribute("rgs.operator", operator)
            if amount is not None:
                span.set_attribute("rgs.amount_minor", amount)
            started = time.perf_counter()
            try:
                return await call()
            except WalletRefused as exc:
                outcome = "refused"
                span.set_attribute("rgs.wallet.reason", exc.reason)
                raise
            except WalletNotCalled:
                outcome = "not_sent"
                mark_error(span, "wallet call not sent")
                raise
            except WalletUnavailable:
                outcome = "unavailable"
                mark_error(span, "wallet unavailable")
                raise
            except Exception as exc:
                outcome = "error"
                mark_error(span, type(exc).__name__)
                raise
            finally:
                span.set_attribute("rgs.wallet.outcome", outcome)
                metrics.WALLET_LATENCY.labels(operator=operator, operation=operation).observe(
                    time.perf_counter() - started)
                metrics.WALLET_CALLS.labels(operator=operator, operation=operation,
                                            outcome=outcome).inc()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


if TYPE_CHECKING:
    def _conforms(j: Journal, pj: PlayerJournal, w: Wallet
                  ) -> tuple[Journal, PlayerJournal, Wallet]:
        # mypy checks here that the decorators still satisfy the ports they wrap.
        return InstrumentedJournal(j), InstrumentedPlayerJournal(pj), InstrumentedWallet(w)
