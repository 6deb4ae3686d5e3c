"""The shared tables' journal in memory (:class:`~rgs.service.tables.ports.TableJournal`), over
an :class:`~rgs.journal.memory.InMemoryJournal`: for unit tests and experiments.

It keeps the PostgreSQL adapter's contract (:mod:`rgs.journal.tables`, the same contract suite
runs on both): a table's money lives in its players' own outboxes (the solo journal's movements,
so the reconciler pays them), the players are held with the solo journal's holds (each with its
epoch, which a transition's guards check), and a transition takes the table's lock (waiting at
most its bound: :class:`TableLocked`), checks its guards, computes its write and then writes all
of it or nothing. A transition wakes the table's subscribers.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import datetime

from rgs.journal.memory import InMemoryJournal, InMemoryPlayerJournal
from rgs.service.model import Movement, MovementStatus, StoredRequest
from rgs.service.ports import JournalBusy
from rgs.service.tables import behind, live_insurance
from rgs.service.tables.model import (
    Behind,
    InsuranceChoice,
    StoredTable,
    TableEvent,
    TablePhase,
    TableState,
    Watching,
)
from rgs.service.tables.ports import (
    Apply,
    BehindPlacement,
    BehindRefused,
    CommandRead,
    Decided,
    Found,
    Guards,
    HeldPlayer,
    InsuranceDecision,
    NotCommitted,
    Outcome,
    RoundRecord,
    TableLocked,
    TableWrite,
    brought_forward,
)
from rgs.wallet.port import MoneyKind

#: How long a transition waits for the table's lock without a bound of its own (seconds).
STATEMENT_S = 10.0
#: How far a clock-driven transition pushes its clock lease on (seconds), as PostgreSQL does.
_CLOCK_FENCE_S = 5.0
_BOOKABLE = (MovementStatus.PENDING, MovementStatus.APPLIED)


@dataclass(slots=True)
class _ClockLease:
    holder: str | None
    epoch: int
    #: time.monotonic() when it expires.
    expires: float


@dataclass(slots=True)
class _Rows:
    """The tables' rows: what PostgreSQL keeps in game_tables and the tables beside it."""

    tables: dict[str, StoredTable] = field(default_factory=dict)
    events: dict[str, list[TableEvent]] = field(default_factory=dict)
    #: By round id (unique across tables), players kept apart (by player key).
    rounds: dict[str, RoundRecord] = field(default_factory=dict)
    round_players: dict[str, dict[str, tuple[str, str, int, int]]] = field(
        default_factory=dict)
    requests: dict[tuple[str, str, str], StoredRequest] = field(default_factory=dict)
    clocks: dict[str, _ClockLease] = field(default_factory=dict)
    watchers: dict[str, dict[str, Watching]] = field(default_factory=dict)
    #: Bet Behinds on rows of their own, by (table id, round id), in the order placed.
    behind: dict[tuple[str, str], dict[tuple[int, str], Behind]] = field(default_factory=dict)
    #: Bet Behinds' live insurance decisions on rows of their own, by (table id, round id), in
    #: the order made.
    insurance: dict[tuple[str, str], dict[tuple[int, str], InsuranceChoice]] = field(
        default_factory=dict)


def _greatest(a: datetime | None, b: datetime | None) -> datetime | None:
    """PostgreSQL's GREATEST: the larger, NULLs ignored."""
    if a is None or b is None:
        return a if b is None else b
    return max(a, b)


class _Reads:
    """The reads a link and the journal share."""

    def __init__(self, journal: InMemoryJournal, rows: _Rows) -> None:
        self._j = journal
        self._rows = rows

    def _movements(self, player_key: str, keep: Callable[[Movement], bool]) -> list[Movement]:
        t = self._j.tables
        return [replace(t.movements[k], created_at=t.created[k]) for k in t.order
                if k[0] == player_key and keep(t.movements[k])]

    async def load(self, table_id: str) -> StoredTable | None:
        return self._rows.tables.get(table_id)

    async def find_request(self, table_id: str, player_key: str,
                           request_id: str) -> StoredRequest | None:
        return self._rows.requests.get((table_id, player_key, request_id))

    async def get_round(self, round_id: str) -> RoundRecord | None:
        rec = self._rows.rounds.get(round_id)
        if rec is None:
            return None
        players = self._rows.round_players.get(round_id, {})
        return replace(rec, players=tuple(players[k] for k in sorted(players)))


class InMemoryTableLink(_Reads):
    """A table command's link: no connection to hold, the players held in the solo journal."""

    def __init__(self, journal: InMemoryJournal, rows: _Rows, tables: InMemoryTables) -> None:
        super().__init__(journal, rows)
        self._tables = tables

    @asynccontextmanager
    async def hold_players(self, keys: Sequence[str], *, waiting: Collection[str],
                           wait_s: float | None = None, first: tuple[str, str] | None = None
                           ) -> AsyncIterator[dict[str, HeldPlayer]]:
        out: dict[str, HeldPlayer] = {}
        async with AsyncExitStack() as stack:
            for key in sorted(set(keys)):
                request = first[1] if first is not None and key in waiting else ""
                try:
                    pj = await stack.enter_async_context(self._j.hold(
                        key, request=request, wait_s=wait_s if key in waiting else 0.0))
                except JournalBusy:
                    if key in waiting:
                        raise
                    continue  # tried once: another call holds this player now
                out[key] = HeldPlayer(key=key, journal=pj, epoch=pj.epoch)
            yield out

    async def command_read(self, table_id: str, player_key: str,
                           request_id: str) -> CommandRead:
        t = self._rows.tables.get(table_id)
        if t is None:
            return CommandRead(table=None, request=None, open_movements=[],
                               round_movements=[])
        round_id = t.state.round_id
        rows = self._rows.behind.get((table_id, round_id), {})
        choices = self._rows.insurance.get((table_id, round_id), {})
        return CommandRead(
            table=t, request=self._rows.requests.get((table_id, player_key, request_id)),
            open_movements=self._movements(player_key, lambda m: m.is_open),
            round_movements=self._movements(player_key, lambda m: m.round_id == round_id),
            behind=tuple(b for b in rows.values() if b.who.player_key == player_key),
            insurance=tuple(c for c in choices.values() if c.player == player_key))

    async def place_behind(self, table_id: str, placement: BehindPlacement, *,
                           wait_s: float | None = None) -> int:
        p = placement
        rows = self._rows.behind.setdefault((table_id, p.round_id), {})
        keys = [behind.key(b) for b in p.bets]

        def insert() -> None:
            if len(set(keys)) != len(keys) or any(k in rows for k in keys):
                raise BehindRefused("already_bet")
            self._tables.book(p.booked)
            rows.update(zip(keys, p.bets, strict=True))

        return await self._on_rows(table_id, phase=TablePhase.BETTING, round_id=p.round_id,
                                   key=p.player[0], lease=p.player, request=p.request,
                                   insert=insert, wait_s=wait_s)

    async def decide_insurance(self, table_id: str, decision: InsuranceDecision, *,
                               wait_s: float | None = None) -> Decided:
        d, c = decision, decision.choice
        rows = self._rows.insurance.setdefault((table_id, d.round_id), {})

        def insert() -> None:
            if live_insurance.key(c) in rows:
                raise BehindRefused("already_decided")
            self._tables.book(d.booked)
            rows[live_insurance.key(c)] = c

        seq = await self._on_rows(table_id, phase=TablePhase.INSURANCE, round_id=d.round_id,
                                  key=c.player, lease=d.player, request=d.request,
                                  insert=insert, wait_s=wait_s)
        return Decided(seq=seq, decided=len(rows))

    async def _on_rows(self, table_id: str, *, phase: TablePhase, round_id: str, key: str,
                       lease: tuple[str, int] | None, request: Callable[[int], StoredRequest],
                       insert: Callable[[], None], wait_s: float | None) -> int:
        """One row transaction, as PostgreSQL's (:mod:`rgs.journal.table_behind`)."""
        lock = await self._tables.acquire(table_id, wait_s)
        try:
            stored = self._rows.tables.get(table_id)
            if stored is None:
                raise NotCommitted(f"table {table_id} has no row in the journal")
            if stored.state.phase is not phase or stored.state.round_id != round_id:
                raise BehindRefused("closed")
            if lease is not None and not self._j.holds(*lease):
                raise BehindRefused("lease_lost")
            record = request(stored.last_seq)
            if (table_id, key, record.request_id) in self._rows.requests:
                raise BehindRefused("answered")
            insert()
            self._rows.requests[(table_id, key, record.request_id)] = record
            return stored.last_seq
        finally:
            lock.release()

    async def transition(self, table_id: str, guards: Guards, apply: Apply, *,
                         wait_s: float | None = None) -> int:
        lock = await self._tables.acquire(table_id, wait_s)
        try:
            stored = self._rows.tables.get(table_id)
            if stored is None:
                raise NotCommitted(f"table {table_id} has no row in the journal")
            doc = stored.state
            rows: tuple[Behind, ...] = ()
            choices: tuple[InsuranceChoice, ...] = ()
            if doc.phase is TablePhase.BETTING:
                rows = tuple(self._rows.behind.get((table_id, doc.round_id), {}).values())
                stored = replace(stored, state=behind.merged(doc, rows))
            elif doc.phase is TablePhase.INSURANCE:
                choices = tuple(self._rows.insurance.get((table_id, doc.round_id),
                                                         {}).values())
                stored = replace(stored, state=live_insurance.merged(doc, choices))
            rec = None
            if stored.state.phase in (TablePhase.INSURANCE, TablePhase.PLAYING):
                rec = await self.get_round(stored.state.round_id)
            found = self._check(table_id, guards)
            w = apply(stored, rec, found)
            if w is None:
                return stored.last_seq
            w.state, gone = behind.stored(w.state, doc.round_id, rows)
            w.state, closed = live_insurance.stored(w.state, doc.round_id, choices)
            last = self._tables.write(stored, w)
            kept = self._rows.behind.get((table_id, doc.round_id), {})
            for k in gone:
                kept.pop(k, None)
            if closed:
                self._rows.insurance.pop((table_id, doc.round_id), None)
            clock = self._rows.clocks.get(table_id)
            if guards.clock is not None and not found.lost_clock and clock is not None:
                clock.expires = time.monotonic() + _CLOCK_FENCE_S
            return last
        finally:
            lock.release()

    def _check(self, table_id: str, guards: Guards) -> Found:
        clock = self._rows.clocks.get(table_id)
        lost_clock = guards.clock is not None and (
            clock is None or clock.epoch != guards.clock or clock.holder is None)
        lost = frozenset(k for k, e in guards.players if not self._j.holds(k, e))
        answered = frozenset(r for r in guards.requests
                             if (table_id, *r) in self._rows.requests)
        return Found(lost_players=lost, lost_clock=lost_clock, answered=answered)


class _HeldMany:
    """Players held at once, each in the solo journal (its epoch checked by every write)."""

    def __init__(self, held: dict[str, InMemoryPlayerJournal]) -> None:
        self._held = held

    @property
    def epochs(self) -> dict[str, int]:
        return {k: pj.epoch for k, pj in self._held.items()}

    async def open_movements(self) -> dict[str, list[Movement]]:
        return {k: await pj.open_movements() for k, pj in self._held.items()}

    async def settle(self, outcomes: Sequence[Outcome]) -> frozenset[str]:
        lost: set[str] = set()
        for o in outcomes:
            pj = self._held.get(o.key)
            if pj is None or o.key in lost:
                lost.add(o.key)
                continue
            # (A hold in memory is a lock: never taken over while held.)
            await pj.settle_movement(o.transaction_id, o.status, o.balance_after,
                                     error=o.error, wallet_reference=o.wallet_reference)
        return frozenset(lost)


class InMemoryTables(_Reads):
    """Shared tables in dictionaries, their money in ``journal``'s outboxes."""

    def __init__(self, journal: InMemoryJournal) -> None:
        super().__init__(journal, _Rows())
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._clocks: set[asyncio.Event] = set()

    def lock(self, table_id: str) -> asyncio.Lock:
        """The table's row lock."""
        return self._locks.setdefault(table_id, asyncio.Lock())

    async def acquire(self, table_id: str, wait_s: float | None) -> asyncio.Lock:
        """The table's row lock, taken within ``wait_s`` (TableLocked after it)."""
        lock = self.lock(table_id)
        bound = STATEMENT_S if wait_s is None else wait_s
        try:
            await asyncio.wait_for(lock.acquire(), max(bound, 0.001))
        except TimeoutError as exc:
            raise TableLocked(f"table {table_id} stayed locked by another transition for "
                              f"{bound:g} s") from exc
        return lock

    @asynccontextmanager
    async def link(self, wait_s: float | None = None) -> AsyncIterator[InMemoryTableLink]:
        yield InMemoryTableLink(self._j, self._rows, self)

    # ------------------------------------------------------------------ the write

    def write(self, stored: StoredTable, w: TableWrite) -> int:
        """Write a transition's all or nothing: everything is checked before anything is
        written (NotCommitted: a debit no longer bookable, a row written twice)."""
        t, rows, table_id = self._j.tables, self._rows, stored.table_id
        self._bookable(w.booked)
        new_moves = [(k, m.transaction_id) for k, m in w.movements]
        if len(set(new_moves)) != len(new_moves) or any(p in t.movements for p in new_moves):
            raise NotCommitted(f"table {table_id}: an outbox row was written twice")
        new_requests = [(table_id, k, r.request_id) for k, r in w.requests]
        if len(set(new_requests)) != len(new_requests) or any(
                r in rows.requests for r in new_requests):
            raise NotCommitted(f"table {table_id}: a request was answered twice")
        if w.round is not None:
            old = rows.rounds.get(w.round.round_id)
            if old is not None and old.table_id != table_id:
                raise NotCommitted(f"round {w.round.round_id} belongs to another table")
            have = rows.round_players.get(w.round.round_id, {})
            keys = [p[0] for p in w.round.players]
            if len(set(keys)) != len(keys) or any(k in have for k in keys):
                raise NotCommitted(f"round {w.round.round_id}: a player's share twice")
        # Checked: now everything is written, with nothing in between.
        now = self._j.now()
        last = stored.last_seq + len(w.events)
        rows.tables[table_id] = StoredTable(table_id=table_id, version=stored.version + 1,
                                            last_seq=last, state=w.state)
        rows.events.setdefault(table_id, []).extend(
            TableEvent(table_id=table_id, seq=stored.last_seq + 1 + i, kind=kind,
                       payload=payload, at=now) for i, (kind, payload) in enumerate(w.events))
        self.book(w.booked, checked=True)
        for k, m in w.movements:
            p = (k, m.transaction_id)
            t.movements[p] = replace(m, status=MovementStatus.PENDING, balance_after=None,
                                     attempts=0, last_error="", created_at=None)
            t.order.append(p)
            t.created[p] = t.touched[p] = now
        if w.round is not None:
            self._write_round(table_id, w.round, now)
        for k, r in w.requests:
            rows.requests[(table_id, k, r.request_id)] = r
        for ev in self._waiters.get(table_id, ()):
            ev.set()
        if brought_forward(stored.state.deadline, w.state.deadline):
            for ev in self._clocks:
                ev.set()
        return last

    def _bookable(self, booked: Sequence[tuple[str, str, int | None, str]]) -> None:
        """NotCommitted unless every debit of ``booked`` may be booked."""
        t = self._j.tables
        pairs = Counter((k, txn) for k, txn, _, _ in booked)
        bookable = {p for p in pairs if (m := t.movements.get(p)) is not None
                    and m.kind is MoneyKind.DEBIT and m.status in _BOOKABLE}
        if len(bookable) != len(booked):
            missing = {txn for k, txn in pairs if (k, txn) not in bookable}
            raise NotCommitted(f"debits {sorted(missing)} are no longer applied (rolled back "
                               "by a call that took the player over)")

    def book(self, booked: Sequence[tuple[str, str, int | None, str]], *,
             checked: bool = False) -> None:
        """Book debits (checked first unless ``checked``)."""
        if not checked:
            self._bookable(booked)
        t, now = self._j.tables, self._j.now()
        for k, txn, balance, reference in booked:
            m = t.movements[(k, txn)]
            t.movements[(k, txn)] = replace(m, status=MovementStatus.BOOKED,
                                            balance_after=m.balance_after if balance is None
                                            else balance,
                                            wallet_reference=reference or m.wallet_reference)
            t.touched[(k, txn)] = now

    def _write_round(self, table_id: str, r: RoundRecord, now: datetime) -> None:
        old = self._rows.rounds.get(r.round_id)
        finished = now if r.finished else None
        if old is None:
            rec = replace(r, table_id=table_id, players=(), started_at=now,
                          finished_at=finished)
        else:  # as PostgreSQL's upsert: its number, variant and start kept
            rec = replace(old, status=r.status, events=r.events, finished_at=finished,
                          fair=r.fair if r.fair is not None else old.fair,
                          names=r.names or old.names, bettors=r.bettors or old.bettors)
        self._rows.rounds[r.round_id] = rec
        shares = self._rows.round_players.setdefault(r.round_id, {})
        for p in r.players:
            shares[p[0]] = p

    # ------------------------------------------------------------------ reading

    async def ensure_table(self, table_id: str, state: TableState) -> None:
        self._rows.tables.setdefault(table_id, StoredTable(table_id=table_id, version=0,
                                                           last_seq=0, state=state))

    async def behind_rows(self, table_id: str, round_id: str) -> tuple[Behind, ...]:
        return tuple(self._rows.behind.get((table_id, round_id), {}).values())

    async def insurance_rows(self, table_id: str,
                             round_id: str) -> tuple[InsuranceChoice, ...]:
        return tuple(self._rows.insurance.get((table_id, round_id), {}).values())

    async def load_with_request(self, table_id: str, player_key: str, request_id: str
                                ) -> tuple[StoredTable | None, StoredRequest | None]:
        t = self._rows.tables.get(table_id)
        if t is None:
            return None, None
        return t, self._rows.requests.get((table_id, player_key, request_id))

    async def events_after(self, table_id: str, seq: int, limit: int) -> list[TableEvent]:
        return [e for e in self._rows.events.get(table_id, []) if e.seq > seq][:limit]

    async def mark_watching(self, table_id: str, watching: Sequence[Watching]) -> None:
        rows = self._rows.watchers.setdefault(table_id, {})
        for w in watching:
            old = rows.get(w.player_key)
            rows[w.player_key] = w if old is None else Watching(
                player_key=w.player_key, seen_at=max(old.seen_at, w.seen_at),
                expires_at=_greatest(old.expires_at, w.expires_at))

    async def watching(self, table_id: str) -> dict[str, Watching]:
        return dict(self._rows.watchers.get(table_id, {}))

    async def round_movements(self, round_id: str, operator_id: str
                              ) -> dict[str, list[Movement]]:
        prefix = f"{operator_id}/"
        keys = sorted({k for k, _ in self._j.tables.order if k.startswith(prefix)})
        out = {k: self._movements(k, lambda m: m.round_id == round_id) for k in keys}
        return {k: moves for k, moves in out.items() if moves}

    async def player_rounds(self, player_key: str, brand_id: str, *,
                            before: tuple[datetime, str] | None, limit: int
                            ) -> list[tuple[RoundRecord, datetime]]:
        first: dict[str, datetime] = {}
        for m in self._movements(player_key, lambda m: m.brand_id == brand_id):
            rec = self._rows.rounds.get(m.round_id)
            if rec is None or rec.finished_at is None or m.created_at is None:
                continue
            at = first.get(m.round_id)
            first[m.round_id] = m.created_at if at is None else min(at, m.created_at)
        ordered = sorted(((at, rid) for rid, at in first.items()
                          if before is None or (at, rid) < before), reverse=True)
        out = []
        for at, rid in ordered[:limit]:
            rec = await self.get_round(rid)
            assert rec is not None
            out.append((rec, at))
        return out

    # ------------------------------------------------------------------ the clock lease

    async def take_clock(self, table_id: str, holder: str, ttl_s: float) -> int | None:
        now = time.monotonic()
        lease = self._rows.clocks.get(table_id)
        if lease is None:
            self._rows.clocks[table_id] = _ClockLease(holder=holder, epoch=1,
                                                      expires=now + ttl_s)
            return 1
        if lease.holder is not None and lease.holder != holder and lease.expires > now:
            return None
        if lease.holder != holder:
            lease.epoch += 1
        lease.holder, lease.expires = holder, now + ttl_s
        return lease.epoch

    async def release_clock(self, table_id: str, epoch: int) -> None:
        lease = self._rows.clocks.get(table_id)
        if lease is not None and lease.epoch == epoch:
            lease.holder, lease.expires = None, time.monotonic()

    # ------------------------------------------------------------------ wake-ups

    @asynccontextmanager
    async def subscribe(self, table_id: str) -> AsyncIterator[Callable[[float], Awaitable[None]]]:
        ev = asyncio.Event()
        self._waiters.setdefault(table_id, set()).add(ev)

        async def wait(timeout_s: float) -> None:
            with suppress(TimeoutError):
                await asyncio.wait_for(ev.wait(), timeout_s)
            ev.clear()

        try:
            yield wait
        finally:
            self._waiters[table_id].discard(ev)

    @asynccontextmanager
    async def hold_many(self, keys: Sequence[str]) -> AsyncIterator[_HeldMany]:
        async with AsyncExitStack() as stack:
            held: dict[str, InMemoryPlayerJournal] = {}
            for key in sorted(set(keys)):
                with suppress(JournalBusy):  # tried once: another call holds this player
                    held[key] = await stack.enter_async_context(self._j.hold(key, wait_s=0.0))
            yield _HeldMany(held)

    @asynccontextmanager
    async def deadlines(self) -> AsyncIterator[Callable[[float], Awaitable[bool]]]:
        ev = asyncio.Event()
        self._clocks.add(ev)

        async def wait(timeout_s: float) -> bool:
            woken = False
            with suppress(TimeoutError):
                woken = await asyncio.wait_for(ev.wait(), timeout_s)
            ev.clear()
            return woken

        try:
            yield wait
        finally:
            self._clocks.discard(ev)

    async def close(self) -> None:
        """Nothing to release (the same call as the PostgreSQL adapter's)."""
