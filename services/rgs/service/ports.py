"""The ports the use cases need: the journal (and its errors), the wallet (in
:mod:`rgs.wallet.port`), the card source factory and the clock. Concrete adapters are chosen in
:mod:`rgs.bootstrap` only; each translates its driver's errors into the port's, once."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from typing import Protocol

from rgs.engine import CardSource
from rgs.service.model import (
    CallRead,
    CallState,
    Movement,
    MovementStatus,
    PlayerPace,
    RequestScope,
    Session,
    SessionSeed,
    StoredRequest,
    StoredRound,
)
from rgs.service.writes import PaidAnswer, StepWrite

Clock = Callable[[], datetime]
"""Returns the current time (timezone-aware UTC)."""


class JournalError(Exception):
    """Root of the journal port's errors (adapters translate their driver's errors into these)."""


class JournalBusy(JournalError):
    """The player's journal stayed held by another call past the wait limit: retry shortly.
    ``same_request``: the holder is the same request (a duplicate still running: True), another
    call of the player (False), or not known (None)."""

    def __init__(self, message: str, *, same_request: bool | None = None) -> None:
        super().__init__(message)
        self.same_request = same_request


class JournalUnavailable(JournalError):
    """The database did not answer or refused the statement: retry with the same request id."""


class JournalLeaseLost(JournalUnavailable):
    """The call held the player's journal longer than its lease and another call has taken it
    over since: the write was refused (fencing), so the step is not committed. Retry with the
    same request id, like any unavailable journal."""


class JournalStale(JournalLeaseLost):
    """What the replica remembered of the player was out of date (another call took the
    player since): nothing was written, so the call runs again reading the journal as usual."""


class JournalRejected(JournalError):
    """The database refused a value of the request for good (a NUL byte, text it cannot store):
    the same request can never succeed, so it is not retryable."""


class CardSourceUnavailable(Exception):
    """The card randomness cannot deal (the certified RNG failed a health test): no round may
    be dealt or continued from any other source."""


class CardSourceFactory(Protocol):
    """Where rounds get their randomness: an unbiased index picker for shoe draws."""

    def picker(self) -> Callable[[int], int]:
        """A function returning an unbiased integer in ``[0, n)``; it (and the factory) raise
        :class:`CardSourceUnavailable` when the randomness must not be used."""
        ...

    def fair_source(self, server_seed_hex: str, client_seed: str, round_number: int,
                    decks: int) -> CardSource:
        """The card source of a provably fair round: its seeds' card order
        (:func:`rgs.rng.fair.card_order`), first card first; the factory may keep the orders
        of recent rounds (:class:`rgs.rng.fair.CardOrders`) so that a round's later calls
        replay its cards without drawing them again."""
        ...


class PlayerJournal(Protocol):
    """The journal of one player, held exclusively (across every process) while it is open.

    Everything a mutating call does for a player happens inside one of these, which is what
    serialises concurrent duplicates and stale clients.
    """

    async def find_request(self, request_id: str, scope: RequestScope) -> StoredRequest | None:
        """The idempotency record of ``request_id`` in ``scope``'s namespace, if any."""
        ...

    async def open_call(self, read: CallRead) -> CallState:
        """What a call reads first, consistent and in one read: :meth:`find_request`,
        :meth:`open_movements`, the round (:meth:`get_round` of ``read.round_id``, or
        :meth:`active_round` in ``read.active_in`` = (brand, currency), or none) and its
        :meth:`movements`; with ``read.seed_of`` (a session id, together with ``active_in``)
        also that session's :meth:`next_seed`."""
        ...

    async def get_round(self, round_id: str) -> StoredRound | None:
        """One of this player's rounds with its events."""
        ...

    async def active_round(self, brand_id: str, currency: str) -> StoredRound | None:
        """This player's unfinished round in a brand and currency, if any (at most one)."""
        ...

    async def movements(self, round_id: str) -> list[Movement]:
        """A round's wallet movements, oldest first."""
        ...

    async def open_movements(self) -> list[Movement]:
        """This player's outbox rows that are still open (:func:`~rgs.service.model.is_open`),
        oldest first."""
        ...

    async def record_movement(self, movement: Movement) -> None:
        """Write an outbox row (committed before the wallet is called)."""
        ...

    async def settle_movement(self, transaction_id: str, status: MovementStatus,
                              balance_after: int | None, *, error: str | None = None,
                              wallet_reference: str = "") -> None:
        """Record the outcome of a wallet call; ``error`` (``""`` when the wallet answered)
        marks it as one more attempt. Without it, only the status changes. A
        ``wallet_reference`` given (the wallet's own id) is kept; "" keeps the one stored.
        A rollback recorded APPLIED marks its debit ROLLED_BACK in the same write: no crash
        between two writes may leave a debit booked whose stake the wallet gave back."""
        ...

    async def commit_round(self, write: StepWrite) -> None:
        """Flush a step in one transaction: write the round header, append
        :attr:`~StepWrite.new_events`, store the idempotency record, insert new outbox rows,
        record the debits of :attr:`~StepWrite.bookings` the wallet applied in this call and
        mark each booked (their step is committed, so they are final), store a fair round's
        seeds and the session's next seed, and with :attr:`~StepWrite.last` give the player's
        journal back (see :class:`StepWrite`)."""
        ...

    async def answer_later(self, answer: PaidAnswer) -> None:
        """Record a win's wallet answer that came after the call's last write gave the
        player's journal back: the journal writes it a moment later (with other players'),
        only while the credit's row is still open; a call of the player that reads the
        journal on this replica before then finds it written (see :class:`PaidAnswer`)."""
        ...

    async def update_response(self, request_id: str, response: str,
                              scope: RequestScope) -> None:
        """Replace a stored response (after a payment that followed the commit)."""
        ...

    async def save_session(self, session: Session, token_hash: str,
                           request: StoredRequest | None) -> None:
        """Store a session token (hash) and the idempotency record of the call that made it."""
        ...

    async def pace(self, session_id: str, *, except_round: str = "") -> PlayerPace:
        """What a jurisdiction's rules read of the player before a new round (``except_round``:
        the table round the call bets on, which is not another game)."""
        ...

    async def acknowledge_reality_check(self, session_id: str, at: datetime) -> None:
        """Record that the player acknowledged a reality check of the session at ``at``."""
        ...

    async def next_seed(self, session_id: str) -> SessionSeed | None:
        """The server seed the session's next fair round will use, if one was committed."""
        ...

    async def save_next_seed(self, seed: SessionSeed) -> None:
        """Commit a session's first seed (kept as it is if the session already has one)."""
        ...



class Journal(Protocol):
    """The round journal: sessions, rounds, events, idempotency records and the wallet outbox."""

    def player(self, player_key: str, first: CallRead | None = None
               ) -> AbstractAsyncContextManager[PlayerJournal]:
        """Open ``player_key``'s journal exclusively; :class:`JournalBusy` if it stays taken.
        ``first``: what the call will read first with :meth:`PlayerJournal.open_call`, which
        the journal may read as it takes the player (one round trip fewer)."""
        ...

    async def operator_for_key(self, key_hash: str) -> str | None:
        """The operator id owning an API key hash, or None."""
        ...

    async def flush_answers(self) -> None:
        """Write the wallet answers owed by :meth:`PlayerJournal.answer_later` now (at
        shutdown, and where a test needs them written)."""
        ...

    async def add_operator_key(self, *, operator_id: str, key_hash: str, label: str) -> None:
        """Store an operator API key hash (replacing its label if present)."""
        ...

    async def find_session(self, player_key: str, token_hash: str) -> Session | None:
        """The session a token hash belongs to, or None."""
        ...

    async def session_money(self, player_key: str, session_id: str, *, except_round: str = ""
                            ) -> tuple[int, int]:
        """A session's stakes booked and wins owed so far, in minor units, but for the round
        ``except_round``'s (which a view adds as the engine has it)."""
        ...

    async def get_round(self, player_key: str, round_id: str) -> StoredRound | None:
        """A round with its events (read-only; no lock)."""
        ...

    async def active_round(self, player_key: str, brand_id: str, currency: str
                           ) -> StoredRound | None:
        """The player's unfinished round in a brand and currency, if any (read-only)."""
        ...

    async def next_seed(self, player_key: str, session_id: str) -> SessionSeed | None:
        """The seed a session's next fair round will use, if one was committed (read-only)."""
        ...

    async def list_rounds(self, player_key: str, brand_id: str, *,
                          before: tuple[datetime, str] | None, limit: int) -> list[StoredRound]:
        """The player's rounds in a brand, newest first, strictly before ``before``
        (created_at, round_id)."""
        ...

    async def movements(self, player_key: str, round_id: str) -> list[Movement]:
        """A round's wallet movements, oldest first (read-only)."""
        ...

    async def abandoned_rounds(self, *, before: datetime, limit: int,
                               operator_id: str | None = None) -> list[StoredRound]:
        """Unfinished rounds (of any player, or of ``operator_id``'s) last changed before
        ``before``, oldest first."""
        ...

    async def players_with_open_movements(self, *, now: datetime, min_age: timedelta,
                                          max_backoff: timedelta, limit: int) -> list[str]:
        """Player keys with an outbox row still open and due: last touched longer ago than
        ``min_age`` doubled for every attempt after the first, at most ``max_backoff``."""
        ...
