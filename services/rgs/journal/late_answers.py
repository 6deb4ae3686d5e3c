"""Wins' wallet answers recorded a moment after the calls that paid them (ops/database.md,
"Leases").

A call that ends a round commits the round with the credit's outbox row as its last write:
the player's journal is given back with the commit, and the win is paid after it. The
wallet's answer (and the call's answer with the new balance) is not a write of its own: this
replica keeps it here and writes every answer it holds in one statement, every
:data:`INTERVAL_S`, or at once when the player's next call on this replica is about to read
the journal, and at shutdown.

Until then the credit's row is pending, which every reader treats like applied: a call of the
player on another replica (or after this one died) finds it open and sends it again with the
same transaction id, which the wallet applies once and answers alike. The statement records
an answer only while its row is still open, so whoever recorded one first wins.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from rgs.journal.statements import Q_LATE_ANSWERS
from rgs.service.ports import JournalError
from rgs.service.writes import PaidAnswer

log = logging.getLogger(__name__)

#: Longest time an answer waits before it is written (seconds). A player who plays on at once
#: is answered from the replica's memory anyway; one whose next call goes to another replica
#: within this time has the win sent again (the wallet answers it once).
INTERVAL_S = 0.1

#: How long after a batch the journal did not take the next attempt comes (seconds): a
#: database that is down is not asked (nor logged about) ten times a second.
RETRY_S = 1.0

#: Answers kept at most while the database does not take them (the oldest are dropped: their
#: credits stay pending and are sent again by the player's next call or the reconciler).
MOST_KEPT = 100_000


@dataclass(frozen=True, slots=True)
class LateAnswer:
    """One player's answer waiting to be written."""

    player_key: str
    answer: PaidAnswer


Writer = Callable[[list[LateAnswer]], Awaitable[None]]


class LateAnswers:
    """The answers this replica owes the journal, written in batches by ``write``."""

    def __init__(self, write: Writer, *, interval_s: float = INTERVAL_S,
                 retry_s: float = RETRY_S, most_kept: int = MOST_KEPT) -> None:
        self._write = write
        self._interval_s = interval_s
        self._retry_s = retry_s
        self._most_kept = most_kept
        self._waiting: list[LateAnswer] = []
        #: How many answers each player has waiting.
        self._owed: Counter[str] = Counter()
        #: The batch being written now and its players.
        self._writing: asyncio.Task[None] | None = None
        self._writing_players: frozenset[str] = frozenset()
        self._timer: asyncio.TimerHandle | None = None
        self._background: set[asyncio.Task[None]] = set()

    def add(self, player_key: str, answer: PaidAnswer) -> None:
        """Owe ``answer``: written within the interval."""
        self._waiting.append(LateAnswer(player_key, answer))
        self._owed[player_key] += 1
        if len(self._waiting) > self._most_kept:
            dropped = self._waiting[: len(self._waiting) - self._most_kept]
            del self._waiting[: len(dropped)]
            self._owed.subtract(a.player_key for a in dropped)
            self._owed += Counter()  # drops the players owed nothing
            log.warning("%d wallet answers not recorded (the journal did not take them): "
                        "their credits are sent again later", len(dropped))
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._interval_s, self._due)

    def owes(self, player_key: str) -> bool:
        """Whether an answer of the player is waiting or being written."""
        return player_key in self._owed or player_key in self._writing_players

    async def before_read(self, player_key: str) -> None:
        """The player's journal is about to be read: write what is owed to them first (with
        everyone else's), so the read finds their wins recorded. A failure is logged: the
        read then finds the credit pending and sends it again."""
        if not self.owes(player_key):
            return
        try:
            await self.flush()
        except JournalError as exc:  # the read finds the credit pending: sent again
            log.warning("wallet answers not recorded before %s's call: %s", player_key, exc)

    async def flush(self) -> None:
        """Write every answer owed now (after the batch under way, if any)."""
        while self._writing is not None:  # a batch clears this itself once written
            await asyncio.shield(self._writing)
        if not self._waiting:
            return
        batch, self._waiting, self._owed = self._waiting, [], Counter()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._writing_players = frozenset(a.player_key for a in batch)
        self._writing = asyncio.get_running_loop().create_task(self._write_batch(batch))
        await asyncio.shield(self._writing)

    async def _write_batch(self, batch: list[LateAnswer]) -> None:
        try:
            await self._write(batch)
        except BaseException:
            # Kept for the next write (in order, before what came meanwhile).
            self._waiting[:0] = batch
            self._owed.update(a.player_key for a in batch)
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(self._retry_s, self._due)
            raise
        finally:
            self._writing, self._writing_players = None, frozenset()

    def _due(self) -> None:
        self._timer = None
        task = asyncio.get_running_loop().create_task(self._flush_logged())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _flush_logged(self) -> None:
        try:
            await self.flush()
        except JournalError as exc:  # kept, and written with the next batch
            log.warning("wallet answers not recorded yet (kept for the next write): %s", exc)

    def __len__(self) -> int:
        """Answers waiting (not counting a batch being written)."""
        return len(self._waiting)


async def write_late(conn: Any, batch: list[LateAnswer]) -> None:
    """Write a batch on a PostgreSQL connection (:data:`~rgs.journal.statements.Q_LATE_ANSWERS`:
    one statement, one element per answer)."""
    answers = [b.answer for b in batch]
    await conn.execute(
        Q_LATE_ANSWERS, [b.player_key for b in batch], [a.transaction_id for a in answers],
        [a.status.value for a in answers], [a.balance_after for a in answers],
        [a.wallet_reference for a in answers], [a.error for a in answers],
        [a.request_id for a in answers], [a.scope.value for a in answers],
        [a.response for a in answers])
