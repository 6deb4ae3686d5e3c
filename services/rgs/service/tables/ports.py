"""What the table use cases need from the journal. The PostgreSQL adapter is
:mod:`rgs.journal.tables`; errors are the journal port's (:mod:`rgs.service.ports`).

The shape follows the one rule that keeps a table from freezing when everyone bets at once
(``docs/architecture.md``, "Waiting without deadlock"): a command holds at most one pooled
connection, a :class:`TableLink`, taken before anything else it waits for; the players'
journals it needs are held through that link, and the table's transition runs on it too.
Reads outside a link take a connection for one statement and give it back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from rgs.service.model import Channel, Movement, MovementStatus, StoredRequest
from rgs.service.ports import JournalUnavailable, PlayerJournal
from rgs.service.tables.model import (
    Behind,
    InsuranceChoice,
    StoredTable,
    TableEvent,
    TableFair,
    TableState,
    Watching,
)


class NotCommitted(JournalUnavailable):
    """A transition failed before its commit was sent: nothing of it is recorded (its debits
    may be rolled back at once)."""


class TableLocked(NotCommitted):
    """The table's row stayed locked (another replica's transition) past the command's bound:
    nothing of the transition is recorded."""


class BehindRefused(NotCommitted):
    """A Bet Behind placement (or a Bet Behind's live insurance decision) on rows of its own
    that the table did not take, nothing of it recorded: ``reason`` is ``closed`` (betting, or
    insurance, is not open on the round any more), ``already_bet`` (the player has a Bet Behind
    on that seat this round), ``already_decided`` (that Bet Behind's insurance is decided),
    ``answered`` (the request was answered already) or ``lease_lost`` (the player's lease was
    taken over)."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindPlacement:
    """Bet Behinds placed on rows of their own (:mod:`rgs.service.tables.behind`): inserted
    with their debits' booking and the command's answer, in one transaction that checks the
    table is still betting on ``round_id``."""

    round_id: str
    bets: tuple[Behind, ...]
    #: The player's lease (key, epoch): the transaction checks it.
    player: tuple[str, int]
    #: (player key, debit transaction id, balance after it, wallet reference) booked.
    booked: Sequence[tuple[str, str, int | None, str]]
    #: The command's idempotency record, made from the table's newest event number.
    request: Callable[[int], StoredRequest]


@dataclass(frozen=True, slots=True, kw_only=True)
class InsuranceDecision:
    """A Bet Behind's live insurance decision on a row of its own
    (:mod:`rgs.service.tables.live_insurance`): inserted with its debit's booking and the
    command's answer, in one transaction that checks insurance is still open on ``round_id``."""

    round_id: str
    choice: InsuranceChoice
    #: The player's lease (key, epoch) when the decision takes insurance (a debit to book):
    #: the transaction checks it. None: a decline, which moves no money.
    player: tuple[str, int] | None
    #: (player key, debit transaction id, balance after it, wallet reference) booked.
    booked: Sequence[tuple[str, str, int | None, str]]
    #: The command's idempotency record, made from the table's newest event number.
    request: Callable[[int], StoredRequest]


@dataclass(frozen=True, slots=True, kw_only=True)
class Decided:
    """A live insurance decision recorded: the table's newest event number (unchanged) and
    how many of the round's Bet Behinds have decided on rows by now (counted once this one is
    committed: the last of a crowd to commit counts everyone)."""

    seq: int
    decided: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldPlayer:
    """A player's journal held for a table command, with its lease's fencing epoch (the
    table's transaction checks it, so a call that lost the lease books nothing)."""

    key: str
    journal: PlayerJournal
    epoch: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Bettor:
    """A player who bet in a table round: their brand and the edge their bets came through
    (None: not recorded)."""

    player_key: str
    brand_id: str
    channel: Channel | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundRecord:
    """A table round's row: its engine events (server side) and, once settled, each player's
    share."""

    round_id: str
    round_no: int
    variant: str
    status: str
    events: tuple[tuple[str, str], ...]
    #: The table the round was played at ("" where a writer did not say).
    table_id: str = ""
    #: (player key, operator id, staked, paid), written when the round ends.
    players: tuple[tuple[str, str, int, int], ...] = ()
    #: The round's provably fair inputs (None: dealt by a release without them); its server
    #: seed is shown only once the round is settled or voided.
    fair: TableFair | None = None
    #: (player key, display name) of every player of the round, as the table showed them
    #: (empty for a round of a release before display names: pseudonyms then).
    names: tuple[tuple[str, str], ...] = ()
    #: Everyone who bet in the round, seated and behind, with their brand and the edge their
    #: bets came through (RTP monitoring per brand and channel; empty for a round of a release
    #: before channels).
    bettors: tuple[Bettor, ...] = ()

    #: When the round's row was written first and when it ended (None while in play).
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def finished(self) -> bool:
        """True once settled, voided or closed without a deal (``not_dealt``: only Bet
        Behinds were placed, and returned)."""
        return self.status in ("settled", "voided", "not_dealt")


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandRead:
    """What a command reads once it holds its player, in one statement: the table, the
    request's record, the player's open outbox rows and their movements in the table's current
    round."""

    table: StoredTable | None
    request: StoredRequest | None
    open_movements: list[Movement]
    round_movements: list[Movement]
    #: The player's Bet Behinds of the table's current round on rows of their own.
    behind: tuple[Behind, ...] = ()
    #: The player's live insurance decisions of the table's current round on rows of their own.
    insurance: tuple[InsuranceChoice, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Guards:
    """What a transition checks before it computes anything: the leases it must still hold
    (players' (key, epoch), the table clock's epoch for a clock-driven one) and the commands
    whose answers it is to record ((player key, request id): one recorded already is not run
    again)."""

    players: Sequence[tuple[str, int]] = ()
    clock: int | None = None
    requests: Sequence[tuple[str, str]] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Found:
    """What a transition's checks found: the players' leases and whether the clock's were taken
    over, and which of its commands were answered already."""

    lost_players: frozenset[str] = frozenset()
    lost_clock: bool = False
    answered: frozenset[tuple[str, str]] = frozenset()


@dataclass(slots=True, kw_only=True)
class TableWrite:
    """What one transition of a table writes, in one transaction with its new state."""

    state: TableState
    #: (kind, payload JSON) appended as the next numbered events.
    events: list[tuple[str, str]] = field(default_factory=list)
    #: (player key, debit transaction id, the balance the wallet reported) marked booked.
    booked: list[tuple[str, str, int | None, str]] = field(default_factory=list)
    #: (player key, outbox row) inserted: credits and rollbacks sent after the commit.
    movements: list[tuple[str, Movement]] = field(default_factory=list)
    #: The round's row as the transition leaves it (written when it changed).
    round: RoundRecord | None = None
    #: (player key, idempotency record) of the commands answered by the transition.
    requests: list[tuple[str, StoredRequest]] = field(default_factory=list)


Apply = Callable[[StoredTable, "RoundRecord | None", Found], "TableWrite | None"]
"""A transition computed under the table's row lock from the table as it is (its round's row
when a round is in play) and what its guards found; None writes nothing."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """A wallet call's outcome for a player's outbox row, recorded with many others at once
    (the fields of :meth:`~rgs.service.ports.PlayerJournal.settle_movement`)."""

    key: str
    transaction_id: str
    status: MovementStatus
    balance_after: int | None = None
    #: The call's error (None: none, the attempts are not counted up).
    error: str | None = None
    wallet_reference: str = ""


class HeldMany(Protocol):
    """Many players' journals held at once on one connection, each with its lease's epoch (a
    round's payments: one statement takes them, one reads their open outbox rows, one records
    the wallet's answers, one gives them back)."""

    @property
    def epochs(self) -> Mapping[str, int]:
        """The players held (the others were held by another call), with their epochs."""
        ...

    async def open_movements(self) -> dict[str, list[Movement]]:
        """The open outbox rows of every player held, oldest first, by player key."""
        ...

    async def settle(self, outcomes: Sequence[Outcome]) -> frozenset[str]:
        """Record the outcomes of players still held; the players whose lease was taken over
        meanwhile (nothing recorded for them: their rows stay open for the reconciler)."""
        ...


class TableLink(Protocol):
    """One pooled connection a table command holds from its start to its end."""

    def hold_players(self, keys: Sequence[str], *, waiting: Collection[str],
                     wait_s: float | None = None, first: tuple[str, str] | None = None
                     ) -> AbstractAsyncContextManager[dict[str, HeldPlayer]]:
        """Hold several players' journals on this connection, in key order. A key in
        ``waiting`` is waited for (up to ``wait_s``, else the journal's wait limit; JournalBusy
        after it); any other key is tried once and left out of the result when another call
        holds it. ``first``: (table id, request id) of the :meth:`command_read` of the first
        waited key, made with its lease when it can be."""
        ...

    async def command_read(self, table_id: str, player_key: str,
                           request_id: str) -> CommandRead:
        """The command's read of a player held on this link (free when made with the
        lease)."""
        ...

    async def load(self, table_id: str) -> StoredTable | None:
        """The table's row, or None."""
        ...

    async def find_request(self, table_id: str, player_key: str,
                           request_id: str) -> StoredRequest | None:
        """A player's table command already answered, if any."""
        ...

    async def get_round(self, round_id: str) -> RoundRecord | None:
        """A table round with its events and every player's share."""
        ...

    async def place_behind(self, table_id: str, placement: BehindPlacement, *,
                           wait_s: float | None = None) -> int:
        """Insert a player's Bet Behinds as rows of their own, book their debits and record
        the command's answer, in one transaction that waits for the table's transitions (at
        most ``wait_s``: TableLocked after it) but not for other placements, and checks that
        betting is open on ``placement.round_id``, the player's lease and that the request was
        not answered: the
        table's newest event number (unchanged: nothing is announced). BehindRefused when it
        does not take them, NotCommitted / JournalUnavailable as :meth:`transition`."""
        ...

    async def decide_insurance(self, table_id: str, decision: InsuranceDecision, *,
                               wait_s: float | None = None) -> Decided:
        """Insert a Bet Behind's live insurance decision as a row of its own, book its debit
        and record the command's answer, in one transaction that waits for the table's
        transitions (at most ``wait_s``: TableLocked after it) but not for other decisions,
        and checks that insurance is open on ``decision.round_id``, the player's lease (when
        given) and that the request was not answered. BehindRefused when it does not take it
        (``closed``, ``already_decided``, ``answered``, ``lease_lost``), NotCommitted /
        JournalUnavailable as :meth:`transition`."""
        ...

    async def transition(self, table_id: str, guards: Guards, apply: Apply, *,
                         wait_s: float | None = None) -> int:
        """Lock the table's row (waiting at most ``wait_s``: TableLocked after it), check
        ``guards``, run ``apply`` on the table as it is and write what it returns, all in one
        transaction (while betting is open, the table as ``apply`` sees it has the round's
        Bet Behind rows merged in, and the write keeps them rows or deletes them:
        :mod:`rgs.service.tables.behind`; while insurance is open, the Bet Behinds' live
        decisions alike: :mod:`rgs.service.tables.live_insurance`); the table's newest event
        number after it.
        NotCommitted when it failed before its commit was sent, JournalUnavailable when its
        outcome is unknown; whatever ``apply`` raises is raised, nothing written."""
        ...


class TableJournal(Protocol):
    """Tables, their events and rounds, and the links table commands run on."""

    def link(self, wait_s: float | None = None) -> AbstractAsyncContextManager[TableLink]:
        """A pooled connection for one command (waiting for one at most ``wait_s``, else the
        pool's limit; JournalUnavailable after it)."""
        ...

    async def ensure_table(self, table_id: str, state: TableState) -> None:
        """Create the table's row if it does not exist yet."""
        ...

    async def load(self, table_id: str) -> StoredTable | None:
        """The table's row, or None."""
        ...

    async def behind_rows(self, table_id: str, round_id: str) -> tuple[Behind, ...]:
        """The round's Bet Behinds on rows of their own, in the order placed."""
        ...

    async def insurance_rows(self, table_id: str,
                             round_id: str) -> tuple[InsuranceChoice, ...]:
        """The round's live insurance decisions of Bet Behinds on rows of their own, in the
        order made."""
        ...

    async def load_with_request(self, table_id: str, player_key: str, request_id: str
                                ) -> tuple[StoredTable | None, StoredRequest | None]:
        """The table's row and a player's request's record, read together (a transition that
        recorded the request is in that row, or the record is not there)."""
        ...

    async def events_after(self, table_id: str, seq: int, limit: int) -> list[TableEvent]:
        """Events numbered above ``seq``, oldest first, at most ``limit``."""
        ...

    async def find_request(self, table_id: str, player_key: str,
                           request_id: str) -> StoredRequest | None:
        """A player's table command already answered, if any."""
        ...

    async def take_clock(self, table_id: str, holder: str, ttl_s: float) -> int | None:
        """Take or renew the table's clock lease; its epoch, or None when another holds it."""
        ...

    async def release_clock(self, table_id: str, epoch: int) -> None:
        """Give the clock lease up (another replica may take it at once)."""
        ...

    async def get_round(self, round_id: str) -> RoundRecord | None:
        """A table round with its events and every player's share."""
        ...

    async def mark_watching(self, table_id: str, watching: Sequence[Watching]) -> None:
        """Say that these players watch the table now (each replica, for its streams)."""
        ...

    async def watching(self, table_id: str) -> dict[str, Watching]:
        """Who was last seen watching the table, by player key (any replica's streams)."""
        ...

    async def round_movements(self, round_id: str, operator_id: str
                              ) -> dict[str, list[Movement]]:
        """Every wallet movement of a table round of ``operator_id``'s players (stakes,
        payments, refunds), by player key, oldest first."""
        ...

    async def player_rounds(self, player_key: str, brand_id: str, *,
                            before: tuple[datetime, str] | None, limit: int
                            ) -> list[tuple[RoundRecord, datetime]]:
        """The table rounds a player of a brand had money in, newest first (by their first
        movement, which is given beside each), before ``before`` ((time, round id))."""
        ...

    def subscribe(self, table_id: str
                  ) -> AbstractAsyncContextManager[Callable[[float], Awaitable[None]]]:
        """A wake-up for the table's feed: the function waits (at most its timeout in seconds)
        until the table may have new events since it last returned; never a guarantee, the
        caller reads the journal."""
        ...

    def hold_many(self, keys: Sequence[str]) -> AbstractAsyncContextManager[HeldMany]:
        """Hold the players of ``keys`` that no other call holds, on one pooled connection of
        their own, each tried once (never waited for)."""
        ...

    def deadlines(self) -> AbstractAsyncContextManager[Callable[[float], Awaitable[bool]]]:
        """A wake-up for the table clock: the function waits (at most its timeout in seconds)
        until a transition of any table, on any replica, brought that table's deadline
        forward (:func:`brought_forward`: a Deal Now, a last decision) since it last
        returned; True when woken so, False at its timeout (the clock then looks anyway)."""
        ...


def brought_forward(old: datetime | None, new: datetime | None) -> bool:
    """Whether a transition that moves a table's deadline from ``old`` to ``new`` wakes the
    clock: a deadline sooner than the one the clock may be waiting for (a new one where there
    was none is looked at on the clock's next pass)."""
    return new is not None and old is not None and new < old
