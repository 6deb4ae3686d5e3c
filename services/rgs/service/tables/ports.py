"""What the table use cases need from the journal. The PostgreSQL adapter is
:mod:`rgs.journal.tables`; errors are the journal port's (:mod:`rgs.service.ports`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from rgs.service.model import Movement, StoredRequest
from rgs.service.ports import JournalError, PlayerJournal
from rgs.service.tables.model import StoredTable, TableEvent, TableFair, TableState


class TableConflict(JournalError):
    """The table moved on since it was read (its version changed): read it again and retry."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldPlayer:
    """A player's journal held for a table command, with its lease's fencing epoch (the
    table's transaction checks it, so a call that lost the lease books nothing)."""

    key: str
    journal: PlayerJournal
    epoch: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundRecord:
    """A table round's row: its engine events (server side) and, once settled, each player's
    share."""

    round_id: str
    round_no: int
    variant: str
    status: str
    events: tuple[tuple[str, str], ...]
    #: (player key, operator id, staked, paid), written when the round ends.
    players: tuple[tuple[str, str, int, int], ...] = ()
    #: The round's provably fair inputs (None: dealt by a release without them); its server
    #: seed is shown only once the round is settled or voided.
    fair: TableFair | None = None

    @property
    def finished(self) -> bool:
        """True once settled or voided."""
        return self.status in ("settled", "voided")


@dataclass(frozen=True, slots=True, kw_only=True)
class TableCommit:
    """One transition of a table, committed in one transaction or not at all."""

    table_id: str
    expected_version: int
    state: TableState
    #: (kind, payload JSON) appended as the next numbered events.
    events: Sequence[tuple[str, str]] = ()
    #: The table clock's epoch for clock-driven transitions (fenced in the same transaction).
    clock_epoch: int | None = None
    #: Players' leases the transaction checks (their debits are booked by it).
    players: Sequence[HeldPlayer] = ()
    #: (player key, debit transaction id) marked booked.
    booked: Sequence[tuple[str, str]] = ()
    #: (player key, outbox row) inserted: credits and rollbacks sent after the commit.
    movements: Sequence[tuple[str, Movement]] = ()
    round: RoundRecord | None = None
    #: (player key, idempotency record) of the command.
    request: tuple[str, StoredRequest] | None = None


class TableJournal(Protocol):
    """Tables, their events and rounds, and the players' journals a table command holds."""

    async def ensure_table(self, table_id: str, state: TableState) -> None:
        """Create the table's row if it does not exist yet."""
        ...

    async def load(self, table_id: str) -> StoredTable | None:
        """The table's row, or None."""
        ...

    async def events_after(self, table_id: str, seq: int, limit: int) -> list[TableEvent]:
        """Events numbered above ``seq``, oldest first, at most ``limit``."""
        ...

    def hold_players(self, keys: Sequence[str]
                     ) -> AbstractAsyncContextManager[dict[str, HeldPlayer]]:
        """Hold several players' journals (in key order, so two commands never wait on each
        other crosswise); JournalBusy when one stays taken."""
        ...

    async def commit(self, c: TableCommit) -> int:
        """Apply a transition; the newest event number. TableConflict when the version moved,
        JournalLeaseLost when the clock's or a player's lease was taken over."""
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

    def subscribe(self, table_id: str
                  ) -> AbstractAsyncContextManager[Callable[[float], Awaitable[None]]]:
        """A watcher's wake-up: the function waits (at most its timeout in seconds) until the
        table may have new events since it last returned; never a guarantee, the caller reads
        the journal."""
        ...
