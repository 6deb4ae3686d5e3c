"""What a play call writes to the player's journal, as one value a use case fills and the
journal adapter flushes (:meth:`PlayerJournal.commit_round
<rgs.service.ports.PlayerJournal.commit_round>` and :meth:`~rgs.service.ports.PlayerJournal.
answer_later`).

A use case says *what* the step wrote (the round, the answer, the outbox rows, the debits it
books, whether the call is done); each adapter decides *how* that is written: PostgreSQL in one
statement, the in-memory journal in its dictionaries, the instrumented journal counting it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rgs.engine import Event
from rgs.service.model import (
    FairRecord,
    Movement,
    MovementStatus,
    RequestScope,
    SessionSeed,
    StoredRequest,
    StoredRound,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Booking:
    """A debit a step's commit books: its step is committed, so it is final.

    ``balance``: the wallet applied the debit in this call and its outcome was not recorded yet
    (the row is still pending): the commit records it applied, with the balance the wallet
    reported and ``wallet_reference`` (the wallet's own id; None or "" keeps the stored one),
    and books it at once. None: the outcome was recorded already (the row is applied)."""

    transaction_id: str
    balance: int | None = None
    wallet_reference: str | None = None

    @classmethod
    def applied(cls, debit: Movement, balance: int) -> Booking:
        """A debit the wallet applied in this call (``debit`` carries its reference)."""
        return cls(transaction_id=debit.transaction_id, balance=balance,
                   wallet_reference=debit.wallet_reference)


@dataclass(frozen=True, slots=True, kw_only=True)
class StepWrite:
    """One committed step of a round, written in one transaction: the round header and its
    events from ``new_events_from`` on, the request's idempotency record, new outbox rows and
    the debits to book.

    ``last``: the call writes nothing more, so the player's journal is given back in the same
    transaction (a write after it fails with
    :class:`~rgs.service.ports.JournalLeaseLost`).

    ``next_seed``: the round is a fair round dealt from the session's next seed;
    ``round.fair`` is stored as the round's seeds and ``next_seed`` becomes the session's next
    one, in the same transaction (so a seed belongs to at most one committed round; a Deal that
    fails before its commit leaves the seed to the next Deal, whose cards nobody has seen)."""

    round: StoredRound
    new_events_from: int
    request: StoredRequest | None = None
    movements: tuple[Movement, ...] = ()
    bookings: tuple[Booking, ...] = ()
    last: bool = False
    next_seed: SessionSeed | None = None

    @property
    def new_events(self) -> tuple[Event, ...]:
        """The round's events this step appends."""
        return self.round.events[self.new_events_from:]

    @property
    def booked(self) -> tuple[str, ...]:
        """The transaction ids of the debits booked."""
        return tuple(b.transaction_id for b in self.bookings)

    @property
    def seeds(self) -> FairRecord | None:
        """The fair round's seeds to store with it (only with the session's next seed)."""
        return self.round.fair if self.next_seed is not None else None


@dataclass(frozen=True, slots=True, kw_only=True)
class PaidAnswer:
    """The wallet's answer to a win sent after the call's last write gave the player's journal
    back (:meth:`PlayerJournal.answer_later <rgs.service.ports.PlayerJournal.answer_later>`):
    the credit's outcome and, when it was paid, the call's stored answer replaced by the paid
    one. The journal records it a moment later, in one statement with other players' answers,
    and only while the credit's row is still pending: whoever settled the row first (the
    player's next call, the reconciler) wins, with the same wallet answer.

    ``error``: the wallet did not apply it ("" when it answered); the row stays open with the
    error and is retried. ``response`` None keeps the stored answer (payment pending)."""

    transaction_id: str
    balance_after: int | None
    wallet_reference: str = ""
    status: MovementStatus = MovementStatus.APPLIED
    error: str = ""
    request_id: str = ""
    response: str | None = None
    scope: RequestScope = RequestScope.PLAYER
