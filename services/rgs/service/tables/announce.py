"""The Bet Behinds' totals per seat, announced while betting is open (issue 27).

A thousand players betting behind the seats of one table would be a thousand events for each
of a thousand watchers. Instead, a Bet Behind's own player learns of it from its answer (and
from ``behind_placed`` when it went into the state: only that player is shown it), and the
table announces ``behind_totals`` (each seat's bettors and stakes together) at most every
:data:`INTERVAL_S` per replica while they change: a transition that reads the round's Bet
Behinds (its rows merged, :mod:`~rgs.service.tables.behind`) and announces them only when
they differ from the totals last announced for the round (kept in the table's state), so
replicas announcing at the same moment do not announce twice. The transition that closes
betting announces the round's final totals when they changed (:func:`at_close`): a round's
watchers always get them. Snapshots show the totals too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace

from rgs.service.errors import ServiceError
from rgs.service.ports import JournalError
from rgs.service.tables import behind, public
from rgs.service.tables.model import Behind, TablePhase, TableState
from rgs.service.tables.ports import TableJournal
from rgs.service.tables.turns import Applied, Deadline, Step, Turn, Turns, View

log = logging.getLogger(__name__)

#: The shortest time between two announcements of a table's totals by one replica (seconds):
#: each is a transition that reads the round's Bet Behinds and a message to every watcher, so
#: four a second per replica took a crowded table's CPU from the bets while betting was open.
INTERVAL_S = 1.0


def announcement(view: View) -> Applied | None:
    """The ``behind_totals`` event of the table as it is, when betting is open and the totals
    changed since the round's last announcement (else nothing)."""
    s = view.state
    if s.phase is not TablePhase.BETTING:
        return None
    event, state = _changed(s, s.behind)
    return None if event is None else Applied(step=Step(state=state, events=[event]))


def at_close(s: TableState, kept: Sequence[Behind]) -> tuple[tuple[str, str] | None, TableState]:
    """The round's final totals as betting closes (``kept``: the Bet Behinds that follow a seat
    into the round), when they differ from the last announced, and the state that remembers
    them: announcements come at most every :data:`INTERVAL_S`, so without this a round whose
    betting closed sooner after its last Bet Behind would reach its watchers without them."""
    return _changed(s, kept) if kept else (None, s)


def _changed(s: TableState, bets: Sequence[Behind]
             ) -> tuple[tuple[str, str] | None, TableState]:
    totals = behind.totals(bets)
    if s.announced_round == s.round_id and s.announced == totals:
        return None, s
    return (public.event("behind_totals", round_id=s.round_id, seats=[
                {"seat": seat, "bettors": n, "staked": staked} for seat, n, staked in totals]),
            replace(s, announced=totals, announced_round=s.round_id))


class BehindAnnouncer:
    """Announces each table's Bet Behind totals a moment after they may have changed."""

    def __init__(self, *, tables: TableJournal, turns: Turns, limit_s: float,
                 interval_s: float = INTERVAL_S) -> None:
        self._tables = tables
        self._turns = turns
        self._limit_s = limit_s
        self._interval_s = interval_s
        #: Tables with an announcement coming.
        self._due: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def nudge(self, table_id: str) -> None:
        """The table's Bet Behinds may have changed: announce them within the interval (one
        announcement for every nudge meanwhile)."""
        if table_id in self._due:
            return
        self._due.add(table_id)
        task = asyncio.get_running_loop().create_task(self._later(table_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _later(self, table_id: str) -> None:
        await asyncio.sleep(self._interval_s)
        self._due.discard(table_id)  # a change from now on is announced next time
        try:
            await self.announce(table_id)
        except (JournalError, ServiceError) as exc:
            log.warning("table %s: Bet Behind totals not announced: %s", table_id, exc)

    async def announce(self, table_id: str) -> bool:
        """Announce the table's totals now if they changed; True when it did."""
        deadline = Deadline(self._limit_s)
        async with self._tables.link(deadline.left()) as link:
            applied = await self._turns.take(link, table_id, Turn(apply=announcement),
                                             deadline)
        return applied is not None

    async def drain(self, timeout_s: float) -> None:
        """Let the announcements under way finish (at shutdown)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout_s)
