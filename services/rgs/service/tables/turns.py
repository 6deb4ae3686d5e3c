"""A table's commit turn: the transitions a replica has for one table, committed together.

When everyone bets at once, the commands of one table reach its row at the same moment. Each
replica queues its commands' transitions per table; whichever command holds the table's turn
commits every transition queued so far in one transaction, on its own link (a *group commit*:
a hundred Bet Behinds sent together cost a few transactions, not a hundred), and the others
find their outcome ready when the turn reaches them. Across replicas the transaction's row lock
takes the turns (:meth:`~rgs.service.tables.ports.TableLink.transition`).

A transition is computed under the row lock from the table as it is, so nothing is retried: a
command whose transition no longer applies (betting closed meanwhile, the seat taken) is
refused on its own and the rest of the batch goes on. The holder of the turn waits for nothing
but the database: every command takes its pooled connection before it queues.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rgs.engine import Round
from rgs.service.errors import ServiceError, TableBusy
from rgs.service.model import Movement, StoredRequest
from rgs.service.ports import JournalError, JournalLeaseLost
from rgs.service.tables.model import StoredTable, TableState
from rgs.service.tables.ports import (
    Found,
    Guards,
    RoundRecord,
    TableLink,
    TableWrite,
)
from rgs.service.tables.views import TableView

log = logging.getLogger(__name__)


class Deadline:
    """How long a command may still wait (the server's bound on a table command)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._at = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left (0 when past)."""
        return max(0.0, self._at - time.monotonic())


@dataclass(frozen=True, slots=True, kw_only=True)
class View:
    """The table as a transition sees it: after the transitions before it in its batch."""

    table_id: str
    #: The newest event number so far.
    seq: int
    state: TableState
    #: The round's row while a round is in play (after the batch's earlier moves).
    round: RoundRecord | None


@dataclass(slots=True, kw_only=True)
class Step:
    """What one transition changes: the new state, its public events and its money."""

    state: TableState
    events: list[tuple[str, str]] = field(default_factory=list)
    #: (player key, debit transaction id, balance after it) the transition books.
    booked: list[tuple[str, str, int | None, str]] = field(default_factory=list)
    movements: list[tuple[str, Movement]] = field(default_factory=list)
    #: The round's row as the transition leaves it (None: the round did not move).
    round: RoundRecord | None = None
    #: The round object as the transition leaves it, when it has one at hand (the answer's
    #: snapshot is made from it instead of rebuilding the round).
    live: Round | None = None
    #: The round the transition finished, as it ended.
    ended: Round | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Applied:
    """A transition as it committed, with the command's idempotency record."""

    step: Step
    request: tuple[str, StoredRequest] | None = None


@dataclass(slots=True, kw_only=True)
class Batch:
    """What one commit left: the table's newest event number, its state and round (the
    answers of every command of the batch show the table as the batch leaves it)."""

    seq: int
    state: TableState
    round: RoundRecord | None
    #: The round object as the batch leaves it, when a transition had it at hand.
    live: Round | None = None
    #: The round a transition of the batch finished, as it ended (with its row).
    ended: Round | None = None
    ended_round: RoundRecord | None = None
    #: Views made of it, by whether they carry decision values.
    views: dict[bool, TableView] = field(default_factory=dict)
    #: Whether ``state`` holds every Bet Behind (a Bet Behind's own answer holds only the
    #: player's: its seats' totals are the ones last announced).
    whole: bool = True


class Answered(Exception):
    """The command's request was answered already (a duplicate that reached the table first):
    its stored answer is the answer."""


ApplyOne = Callable[[View], "Applied | None"]
"""One command's (or the clock's) transition; raises a ServiceError to refuse; None: nothing
to change (and nothing to answer but the table as it is)."""


@dataclass(eq=False, slots=True, kw_only=True)
class Turn:
    """One transition waiting for the table's turn, and its outcome once it had it."""

    apply: ApplyOne
    #: Players' leases (key, epoch) the transition needs, the clock's epoch if it is the clock's.
    players: Sequence[tuple[str, int]] = ()
    clock: int | None = None
    #: (player key, request id) of the command, if it records its answer.
    request: tuple[str, str] | None = None
    outcome: Applied | BaseException | None = None
    #: The batch it committed in.
    batch: Batch | None = None
    #: Set when the outcome is there, or when this turn is to commit the queue (``lead``).
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    lead: bool = False
    taken: bool = False
    done: bool = False

    def result(self) -> Applied | None:
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


@dataclass(slots=True)
class _Queue:
    #: Whether a turn is committing (or about to): then the others wait to be woken.
    running: bool = False
    pending: list[Turn] = field(default_factory=list)


class Turns:
    """The commit turns of every table on this replica."""

    def __init__(self) -> None:
        self._queues: dict[str, _Queue] = {}
        #: Transactions and transitions committed, for the benchmark and tests.
        self.batches = 0
        self.transitions = 0

    async def take(self, link: TableLink, table_id: str, turn: Turn,
                   deadline: Deadline) -> Applied | None:
        """Queue ``turn`` and wait for the table's turn; its outcome (raised when refused).
        TableBusy when the turn did not come within ``deadline`` (the transition was not
        run)."""
        q = self._queues.setdefault(table_id, _Queue())
        q.pending.append(turn)
        if not q.running:
            q.running = turn.lead = True
        try:
            if not turn.lead:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(turn.wake.wait(), max(deadline.left(), 0.001))
                if not turn.taken and not turn.lead:
                    raise TableBusy(f"table {table_id} did not take the command within "
                                    f"{deadline.seconds:g} s; nothing of it stands, retry",
                                    reason="TABLE_BUSY")
            if not turn.taken:  # this turn leads: commit everything queued, itself included
                batch, q.pending = q.pending, []
                try:
                    await self._commit(link, table_id, batch, deadline)
                finally:
                    self._hand_on(q)
        except BaseException:
            if not turn.taken:  # timed out or cancelled while queued: it leaves the queue
                q.pending.remove(turn)
                if turn.lead:
                    self._hand_on(q)
            raise
        while not turn.done:  # a batch in flight has it: its outcome is coming
            turn.wake.clear()
            await turn.wake.wait()
        return turn.result()

    @staticmethod
    def _hand_on(q: _Queue) -> None:
        """The next queued turn leads (or nobody is committing any more)."""
        if q.pending:
            nxt = q.pending[0]
            nxt.lead = True
            nxt.wake.set()
        else:
            q.running = False

    async def _commit(self, link: TableLink, table_id: str, batch: list[Turn],
                      deadline: Deadline) -> None:
        for t in batch:
            t.taken = True
        guards = Guards(players=[p for t in batch for p in t.players],
                        clock=next((t.clock for t in batch if t.clock is not None), None),
                        requests=[t.request for t in batch if t.request is not None])
        after: list[Batch] = []
        try:
            last = await link.transition(
                table_id, guards, lambda stored, rec, found: _apply(batch, stored, rec, found,
                                                                    after),
                wait_s=max(deadline.left(), 0.001))
        except (JournalError, ServiceError) as exc:
            for t in batch:
                if t.outcome is None or isinstance(t.outcome, Applied):
                    t.outcome = exc
        except BaseException as exc:
            if isinstance(exc, Exception):
                log.exception("table %s: a batch of %d transitions failed", table_id,
                              len(batch))
            for t in batch:
                if t.outcome is None or isinstance(t.outcome, Applied):
                    t.outcome = exc
            if not isinstance(exc, Exception):
                raise
        else:
            self.batches += 1
            done = after[0] if after else None
            if done is not None:
                done.seq = last
            for t in batch:
                if isinstance(t.outcome, Applied):
                    self.transitions += 1
                    t.batch = done
        finally:
            for t in batch:
                t.done = True
                t.wake.set()


def _apply(batch: Sequence[Turn], stored: StoredTable, rec: RoundRecord | None,
           found: Found, after: list[Batch]) -> TableWrite | None:
    """The batch's transitions one after the other, each on the table as the ones before it
    left it; a refused one changes nothing. ``after`` gets what the batch leaves."""
    w = TableWrite(state=stored.state)
    seq, state, rnd = stored.last_seq, stored.state, rec
    live: Round | None = None
    ended: tuple[Round, RoundRecord | None] | None = None
    written: set[tuple[str, str]] = set()
    changed = False
    for t in batch:
        if (t.clock is not None and found.lost_clock) or any(
                k in found.lost_players for k, _ in t.players):
            t.outcome = JournalLeaseLost("a lease this transition needs was taken over by "
                                         "another call")
            continue
        if t.request is not None and (t.request in found.answered or t.request in written):
            t.outcome = Answered()
            continue
        try:
            a = t.apply(View(table_id=stored.table_id, seq=seq, state=state, round=rnd))
        except ServiceError as exc:
            t.outcome = exc
            continue
        except Exception as exc:
            log.exception("table %s: a transition failed", stored.table_id)
            t.outcome = exc
            continue
        if a is None:
            t.outcome = None
            continue
        t.outcome = a
        s = a.step
        state, seq = s.state, seq + len(s.events)
        if s.round is not None:
            rnd = w.round = s.round
            live = s.live
        elif s.live is not None and live is None:
            live = s.live
        if s.ended is not None:
            ended = (s.ended, s.round)
        w.events.extend(s.events)
        w.booked.extend(s.booked)
        w.movements.extend(s.movements)
        if a.request is not None:
            w.requests.append(a.request)
            written.add((a.request[0], a.request[1].request_id))
        changed = True
    w.state = state
    after[:] = [Batch(seq=seq, state=state, round=rnd, live=live,
                      ended=ended[0] if ended else None, ended_round=ended[1] if ended else None)]
    return w if changed else None
