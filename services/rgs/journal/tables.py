"""The shared tables' journal on PostgreSQL (:class:`~rgs.service.tables.ports.TableJournal`).

A table command runs on one pooled connection (:class:`PostgresTableLink`): the players'
leases it needs are taken on it, and its transition is one transaction on it. The transaction
locks the table's row first (``FOR UPDATE``: transitions of one table, from any replica, take
turns there instead of failing a compare-and-set and trying again), checks the table clock's
lease (a clock-driven transition) and the players' leases (a transition that books their
debits) by their epochs, computes the new state from the table as it is, appends its events
under the next numbers, books the debits, writes new outbox rows, the round's record and the
commands' answers, and ``NOTIFY rgs_tables`` wakes the feeds of every replica. The notification
is only a wake-up: feeds read ``seq > last`` from ``table_events``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import orjson

from rgs.codec import encode_value, from_jsonable
from rgs.journal.leases import Lease, PlayerHolds
from rgs.journal.migrate import SCHEMA
from rgs.journal.rows import movements_json
from rgs.journal.table_behind import decide_insurance, place_behind
from rgs.journal.table_payments import PostgresHeldMany
from rgs.journal.table_rows import (
    States,
    behind_rows_of,
    insurance_rows_of,
    read_round,
    request_of,
)
from rgs.journal.table_statements import (
    Q_ANSWERED,
    Q_BEHIND_DELETE,
    Q_BEHIND_ROWS,
    Q_BOOK,
    Q_COMMAND_READ,
    Q_COMMAND_READ_LEASED,
    Q_ENSURE,
    Q_EVENT,
    Q_EVENTS_AFTER,
    Q_FENCE_CLOCK,
    Q_FENCE_PLAYERS,
    Q_FIND_REQUEST,
    Q_INSURANCE_DELETE,
    Q_INSURANCE_ROWS,
    Q_LOAD_WITH_REQUEST,
    Q_LOCK,
    Q_MARK_WATCHING,
    Q_MOVEMENT,
    Q_OPERATOR_ROUND_MOVEMENTS,
    Q_PLAYER_TABLE_ROUNDS,
    Q_RELEASE_CLOCK,
    Q_REQUEST,
    Q_ROUND,
    Q_ROUND_PLAYER,
    Q_TAKE_CLOCK,
    Q_WATCHING,
    Q_WRITE,
)
from rgs.journal.table_turns import table_turn
from rgs.journal.translate import DRIVER_ERRORS, translated
from rgs.service.model import Movement, StoredRequest
from rgs.service.ports import JournalBusy, JournalUnavailable, PlayerJournal
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
    CommandRead,
    Decided,
    Found,
    Guards,
    HeldPlayer,
    InsuranceDecision,
    NotCommitted,
    RoundRecord,
    TableWrite,
    brought_forward,
)

log = logging.getLogger(__name__)

TABLE_LEASE = "table"
"""The ``leases.kind`` of a table's clock."""
#: The longest a statement of a table's transition may run.
STATEMENT_S = 10.0
CHANNEL = "rgs_tables"
"""The NOTIFY channel: the payload is ``{table_id}`` (read the journal for what is new)."""
DEADLINES = "rgs_table_deadlines"
"""The NOTIFY channel of a deadline brought forward (a Deal Now, a last decision): the payload
is ``{table_id}``; it wakes the table clock of every replica (the lease's holder fires it)."""


PlayerJournalMaker = Callable[[asyncpg.Connection, str, Lease], PlayerJournal]
"""Builds a player's journal on a held connection (the PostgreSQL journal's, handed in by
bootstrap: only bootstrap chooses adapters)."""

WaitObserver = Callable[[float], None]
"""Told how long each wait for a pooled connection took, in seconds (a metric)."""


class PostgresTableLink:
    """One pooled connection held by a table command (:class:`TableLink`)."""

    def __init__(self, conn: asyncpg.Connection, holds: PlayerHolds,
                 player_journal: PlayerJournalMaker, states: States) -> None:
        self._conn = conn
        self._holds = holds
        self._player_journal = player_journal
        self._states = states
        #: Reads made with a player's lease: (their arguments, the lease holding the row).
        self._first: dict[str, tuple[tuple[Any, ...], Lease]] = {}

    @asynccontextmanager
    async def hold_players(self, keys: Sequence[str], *, waiting: Collection[str],
                           wait_s: float | None = None, first: tuple[str, str] | None = None
                           ) -> AsyncIterator[dict[str, HeldPlayer]]:
        out: dict[str, HeldPlayer] = {}
        async with AsyncExitStack() as stack:
            for key in sorted(set(keys)):
                read = None
                request = ""
                if first is not None and key in waiting:
                    table_id, request = first
                    read = (Q_COMMAND_READ_LEASED[self._holds.advisory],
                            (key, table_id, request, self._states.newest(table_id)))
                try:
                    lease: Lease = await stack.enter_async_context(self._holds.hold(
                        self._conn, key, read, wait_s=wait_s if key in waiting else 0.0,
                        request=request))
                except JournalBusy:
                    if key in waiting:
                        raise
                    continue  # tried once: another call holds this player now
                if read is not None:
                    self._first[key] = (read[1], lease)
                out[key] = HeldPlayer(key=key, epoch=lease.epoch,
                                      journal=self._player_journal(self._conn, key, lease))
            yield out

    @translated
    async def command_read(self, table_id: str, player_key: str,
                           request_id: str) -> CommandRead:
        args = (player_key, table_id, request_id, self._states.newest(table_id))
        made = self._first.pop(player_key, None)
        r = None
        if made is not None and made[0] == args:
            r, made[1].first_read = made[1].first_read, None
        if r is None:  # not made with the lease, or the player's rows moved since
            r = await self._conn.fetchrow(Q_COMMAND_READ, *args)
        if r is None:
            return CommandRead(table=None, request=None, open_movements=[],
                               round_movements=[])
        return CommandRead(table=await self._states.of_row(self._conn, table_id, r),
                           request=request_of(r if r["request_id"] is not None else None),
                           open_movements=movements_json(r["open_rows"]),
                           round_movements=movements_json(r["round_rows"]),
                           behind=behind_rows_of(r["behind_rows"]),
                           insurance=insurance_rows_of(r["insurance_rows"]))

    @translated
    async def load(self, table_id: str) -> StoredTable | None:
        return await self._states.load(self._conn, table_id)

    @translated
    async def find_request(self, table_id: str, player_key: str,
                           request_id: str) -> StoredRequest | None:
        return request_of(await self._conn.fetchrow(Q_FIND_REQUEST, table_id, player_key,
                                                  request_id))

    @translated
    async def get_round(self, round_id: str) -> RoundRecord | None:
        return await read_round(self._conn, round_id)

    async def transition(self, table_id: str, guards: Guards, apply: Apply, *,
                         wait_s: float | None = None) -> int:
        conn = self._conn
        # The row lock is waited for at most ``wait_s`` (the command's bound), a statement at
        # most STATEMENT_S: both set with the transaction's start, in one round trip.
        async with table_turn(conn, table_id, shared=False, statement_s=STATEMENT_S,
                              lock_s=STATEMENT_S if wait_s is None else wait_s) as commit:
            stored = await self._states.load(conn, table_id, Q_LOCK)
            if stored is None:
                raise NotCommitted(f"table {table_id} has no row in the journal")
            doc = stored.state
            rows: tuple[Behind, ...] = ()
            choices: tuple[InsuranceChoice, ...] = ()
            if doc.phase is TablePhase.BETTING:
                rows = tuple(from_jsonable(Behind, orjson.loads(r["bet"])) for r in
                             await conn.fetch(Q_BEHIND_ROWS, table_id, doc.round_id))
                stored = replace(stored, state=behind.merged(doc, rows))
            elif doc.phase is TablePhase.INSURANCE:
                choices = insurance_rows_of(await conn.fetchval(Q_INSURANCE_ROWS, table_id,
                                                                doc.round_id))
                stored = replace(stored, state=live_insurance.merged(doc, choices))
            rec = None
            if stored.state.phase in (TablePhase.INSURANCE, TablePhase.PLAYING):
                rec = await read_round(conn, stored.state.round_id)
            found = await self._check(conn, table_id, guards)
            w = apply(stored, rec, found)
            if w is None:
                await conn.execute("ROLLBACK")
                return stored.last_seq
            state, gone = behind.stored(w.state, doc.round_id, rows)
            if gone:
                await conn.execute(Q_BEHIND_DELETE, table_id, doc.round_id,
                                   [k for _, k in gone], [s for s, _ in gone])
            state, closed = live_insurance.stored(state, doc.round_id, choices)
            if closed:
                await conn.execute(Q_INSURANCE_DELETE, table_id, doc.round_id)
            w.state = state
            last = await self._write(conn, table_id, w, sooner=brought_forward(
                stored.state.deadline, w.state.deadline))
            commit.sent = True
            await conn.execute("COMMIT")
            self._states.keep(table_id, stored.version + 1, w.state)
            return last

    async def place_behind(self, table_id: str, placement: BehindPlacement, *,
                           wait_s: float | None = None) -> int:
        return await place_behind(self._conn, self._holds.ttl, table_id, placement,
                                  wait_s=STATEMENT_S if wait_s is None else wait_s,
                                  statement_s=STATEMENT_S)

    async def decide_insurance(self, table_id: str, decision: InsuranceDecision, *,
                               wait_s: float | None = None) -> Decided:
        return await decide_insurance(self._conn, self._holds.ttl, table_id, decision,
                                      wait_s=STATEMENT_S if wait_s is None else wait_s,
                                      statement_s=STATEMENT_S)

    async def _check(self, conn: asyncpg.Connection, table_id: str, guards: Guards) -> Found:
        clock_lost = False
        if guards.clock is not None:
            clock_lost = await conn.fetchval(Q_FENCE_CLOCK, table_id, guards.clock,
                                             timedelta(seconds=5)) is None
        lost: frozenset[str] = frozenset()
        if guards.players:
            keys = [k for k, _ in guards.players]
            renewed = {r["key"] for r in await conn.fetch(
                Q_FENCE_PLAYERS, keys, [e for _, e in guards.players], self._holds.ttl)}
            lost = frozenset(keys) - renewed
        answered: frozenset[tuple[str, str]] = frozenset()
        if guards.requests:
            answered = frozenset((r["player_key"], r["request_id"]) for r in await conn.fetch(
                Q_ANSWERED, table_id, [k for k, _ in guards.requests],
                [i for _, i in guards.requests]))
        return Found(lost_players=lost, lost_clock=clock_lost, answered=answered)

    @staticmethod
    async def _write(conn: asyncpg.Connection, table_id: str, w: TableWrite, *,
                     sooner: bool = False) -> int:
        last = await conn.fetchval(Q_WRITE, table_id, len(w.events), encode_value(w.state),
                                   w.state.deadline)
        first = last - len(w.events) + 1
        if w.events:
            await conn.executemany(Q_EVENT, [(table_id, first + i, kind, payload)
                                             for i, (kind, payload) in enumerate(w.events)])
        if w.booked:
            booked = await conn.fetch(Q_BOOK, [k for k, _, _, _ in w.booked],
                                      [t for _, t, _, _ in w.booked],
                                      [b for _, _, b, _ in w.booked],
                                      [r for _, _, _, r in w.booked])
            if len(booked) != len(w.booked):
                missing = {t for _, t, _, _ in w.booked} - {r["transaction_id"] for r in booked}
                raise NotCommitted(f"debits {sorted(missing)} are no longer applied (rolled "
                                   "back by a call that took the player over)")
        if w.movements:
            await conn.executemany(Q_MOVEMENT, [
                (key, m.transaction_id, m.round_id, m.kind.value, m.amount,
                 m.debit_transaction_id, m.session_id, m.currency, m.brand_id)
                for key, m in w.movements])
        if w.round is not None:
            r = w.round
            await conn.execute(Q_ROUND, table_id, r.round_id, r.round_no, r.variant, r.status,
                               json.dumps([[k, json.loads(p)] for k, p in r.events]),
                               encode_value(r.fair) if r.fair is not None else None,
                               json.dumps([list(n) for n in r.names]) if r.names else None,
                               encode_value(r.bettors) if r.bettors else None)
            if r.players:
                await conn.executemany(Q_ROUND_PLAYER, [
                    (key, r.round_id, table_id, op, staked, paid)
                    for key, op, staked, paid in r.players])
        if w.requests:
            await conn.executemany(Q_REQUEST, [
                (table_id, key, req.request_id, req.method, req.request_hash, req.response)
                for key, req in w.requests])
        if sooner:  # the clocks too, in the same round trip
            await conn.execute("SELECT pg_notify($1, $3), pg_notify($2, $3)", CHANNEL,
                               DEADLINES, table_id)
        else:
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, table_id)
        return int(last)


class PostgresTables:
    """Shared tables on a PostgreSQL pool (the journal's schema), plus one listening connection
    per replica multiplexed to every table's feed."""

    def __init__(self, pool: asyncpg.Pool, holds: PlayerHolds, player_journal: PlayerJournalMaker,
                 database_url: str = "", *, acquire_s: float = 10.0,
                 on_wait: WaitObserver | None = None) -> None:
        self._pool = pool
        self._holds = holds
        self._player_journal = player_journal
        self._url = database_url
        self._acquire_s = acquire_s
        self._on_wait = on_wait
        self._listener: asyncpg.Connection | None = None
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._clocks: set[asyncio.Event] = set()
        self._listen_lock = asyncio.Lock()
        self._states = States()

    @classmethod
    async def connect(cls, database_url: str, holds: PlayerHolds,
                      player_journal: PlayerJournalMaker, *, max_size: int = 10,
                      pool_mode: str = "session",
                      on_wait: WaitObserver | None = None) -> PostgresTables:
        """A pool like the journal's (``pool_mode`` as :class:`PostgresJournal`'s). Behind a
        transaction-mode pooler there is no LISTEN (a pooler does not keep a session): feeds
        then look at the journal once a second."""
        session = pool_mode == "session"
        options: dict[str, Any] = ({"server_settings": {"search_path": SCHEMA}} if session
                                   else {"statement_cache_size": 0})
        try:
            # Given back without asyncpg's reset (a round trip per release): the tables keep no
            # session state but the players' advisory locks, which the holds give back (or
            # reset_connection does, when they could not).
            pool = await asyncpg.create_pool(database_url, min_size=1, max_size=max_size,
                                             reset=holds.reset_connection, **options)
        except DRIVER_ERRORS as exc:
            raise JournalUnavailable(f"cannot connect to the tables' database: {exc}") from exc
        return cls(pool, holds, player_journal, database_url if session else "",
                   on_wait=on_wait)

    async def close(self) -> None:
        if self._listener is not None:
            with suppress(*DRIVER_ERRORS):
                await self._listener.close()
            self._listener = None
        await self._pool.close()

    def pool_size(self) -> tuple[int, int, int]:
        """(open, in use, max) connections of the pool."""
        size = self._pool.get_size()
        return size, size - self._pool.get_idle_size(), self._pool.get_max_size()

    @translated
    async def _acquire(self, wait_s: float | None = None) -> Any:
        start = time.perf_counter()
        try:
            return await self._pool.acquire(timeout=self._acquire_s if wait_s is None
                                            else max(wait_s, 0.001))
        finally:
            if self._on_wait is not None:
                self._on_wait(time.perf_counter() - start)

    @asynccontextmanager
    async def _connection(self, wait_s: float | None = None) -> AsyncIterator[Any]:
        conn = await self._acquire(wait_s)
        try:
            yield conn
        finally:
            await self._pool.release(conn)

    @asynccontextmanager
    async def link(self, wait_s: float | None = None) -> AsyncIterator[PostgresTableLink]:
        async with self._connection(wait_s) as conn:
            yield PostgresTableLink(conn, self._holds, self._player_journal, self._states)

    # ------------------------------------------------------------------ reading

    @translated
    async def ensure_table(self, table_id: str, state: TableState) -> None:
        async with self._connection() as conn:
            await conn.execute(Q_ENSURE, table_id, encode_value(state))

    @translated
    async def load(self, table_id: str) -> StoredTable | None:
        async with self._connection() as conn:
            return await self._states.load(conn, table_id)

    @translated
    async def behind_rows(self, table_id: str, round_id: str) -> tuple[Behind, ...]:
        async with self._connection() as conn:
            rows = await conn.fetch(Q_BEHIND_ROWS, table_id, round_id)
        return tuple(from_jsonable(Behind, orjson.loads(r["bet"])) for r in rows)

    @translated
    async def insurance_rows(self, table_id: str,
                             round_id: str) -> tuple[InsuranceChoice, ...]:
        async with self._connection() as conn:
            return insurance_rows_of(await conn.fetchval(Q_INSURANCE_ROWS, table_id, round_id))

    @translated
    async def load_with_request(self, table_id: str, player_key: str, request_id: str
                                ) -> tuple[StoredTable | None, StoredRequest | None]:
        async with self._connection() as conn:
            r = await conn.fetchrow(Q_LOAD_WITH_REQUEST, table_id,
                                    self._states.newest(table_id), player_key, request_id)
            if r is None:
                return None, None
            return (await self._states.of_row(conn, table_id, r),
                    request_of(r if r["request_id"] is not None else None))

    @translated
    async def events_after(self, table_id: str, seq: int, limit: int) -> list[TableEvent]:
        async with self._connection() as conn:
            rows = await conn.fetch(Q_EVENTS_AFTER, table_id, seq, limit)
        return [TableEvent(table_id=table_id, seq=r["seq"], kind=r["kind"],
                           payload=r["payload"], at=r["created_at"]) for r in rows]

    @translated
    async def find_request(self, table_id: str, player_key: str,
                           request_id: str) -> StoredRequest | None:
        async with self._connection() as conn:
            return request_of(await conn.fetchrow(Q_FIND_REQUEST, table_id, player_key,
                                                request_id))

    @translated
    async def get_round(self, round_id: str) -> RoundRecord | None:
        async with self._connection() as conn:
            return await read_round(conn, round_id)

    @translated
    async def mark_watching(self, table_id: str, watching: Sequence[Watching]) -> None:
        async with self._connection() as conn:
            await conn.execute(Q_MARK_WATCHING, table_id,
                               [w.player_key for w in watching],
                               [w.seen_at for w in watching],
                               [w.expires_at for w in watching])

    @translated
    async def watching(self, table_id: str) -> dict[str, Watching]:
        async with self._connection() as conn:
            rows = await conn.fetch(Q_WATCHING, table_id)
        return {r["player_key"]: Watching(player_key=r["player_key"], seen_at=r["seen_at"],
                                          expires_at=r["expires_at"]) for r in rows}

    @translated
    async def round_movements(self, round_id: str, operator_id: str
                              ) -> dict[str, list[Movement]]:
        async with self._connection() as conn:
            rows = await conn.fetch(Q_OPERATOR_ROUND_MOVEMENTS, round_id, f"{operator_id}/")
        return {r["player_key"]: movements_json(r["movements"]) for r in rows}

    @translated
    async def player_rounds(self, player_key: str, brand_id: str, *,
                            before: tuple[datetime, str] | None, limit: int
                            ) -> list[tuple[RoundRecord, datetime]]:
        at, rid = before if before else (None, "")
        async with self._connection() as conn:
            rows = await conn.fetch(Q_PLAYER_TABLE_ROUNDS, player_key, brand_id, at, rid, limit)
            out = []
            for r in rows:
                rec = await read_round(conn, r["round_id"])
                if rec is not None:
                    out.append((rec, r["first_at"]))
        return out

    @asynccontextmanager
    async def hold_many(self, keys: Sequence[str]) -> AsyncIterator[PostgresHeldMany]:
        async with self._connection() as conn, self._holds.hold_many(conn,
                                                                     list(keys)) as epochs:
            yield PostgresHeldMany(conn, epochs, self._holds.ttl)

    # ------------------------------------------------------------------ the clock lease

    @translated
    async def take_clock(self, table_id: str, holder: str, ttl_s: float) -> int | None:
        async with self._connection() as conn:
            epoch = await conn.fetchval(Q_TAKE_CLOCK, table_id, holder,
                                        timedelta(seconds=ttl_s))
        return None if epoch is None else int(epoch)

    async def release_clock(self, table_id: str, epoch: int) -> None:
        try:
            async with self._connection() as conn:
                await conn.execute(Q_RELEASE_CLOCK, table_id, epoch)
        except (*DRIVER_ERRORS, JournalUnavailable) as exc:
            log.warning("clock of %s not released (it expires): %s", table_id, exc)

    # ------------------------------------------------------------------ fan-out wake-ups

    async def _ensure_listener(self) -> None:
        async with self._listen_lock:
            if self._listener is not None and not self._listener.is_closed():
                return
            try:
                conn = (await asyncpg.connect(self._url, server_settings={
                    "search_path": SCHEMA}) if self._url else None)
            except DRIVER_ERRORS as exc:
                log.warning("table listener not connected (feeds poll): %s", exc)
                return
            if conn is None:
                return
            await conn.add_listener(CHANNEL, self._notified)
            await conn.add_listener(DEADLINES, self._notified)
            self._listener = conn

    def _notified(self, _conn: object, _pid: int, channel: str, payload: object) -> None:
        for ev in (self._clocks if channel == DEADLINES else self._waiters.get(str(payload),
                                                                              ())):
            ev.set()

    async def _wait_on(self, ev: asyncio.Event, timeout_s: float) -> bool:
        if self._listener is None or self._listener.is_closed():
            # The listener went away (a restart of PostgreSQL): connect again, poll meanwhile.
            await self._ensure_listener()
        woken = False
        with suppress(TimeoutError):
            woken = await asyncio.wait_for(ev.wait(), timeout_s)
        ev.clear()
        return woken

    @asynccontextmanager
    async def deadlines(self) -> AsyncIterator[Callable[[float], Awaitable[bool]]]:
        """The table clock's wake-up (NOTIFY rgs_table_deadlines; behind a transaction pooler,
        no LISTEN: the clock's own pace)."""
        await self._ensure_listener()
        ev = asyncio.Event()
        self._clocks.add(ev)
        try:
            yield functools.partial(self._wait_on, ev)
        finally:
            self._clocks.discard(ev)

    @asynccontextmanager
    async def subscribe(self, table_id: str) -> AsyncIterator[Callable[[float], Awaitable[None]]]:
        """A wake-up for one table's feed: call it to wait (up to its timeout) for the next
        notification since the previous call returned. Registered for the whole watch, so a
        notification between a read and the wait is not lost."""
        await self._ensure_listener()
        ev = asyncio.Event()
        self._waiters.setdefault(table_id, set()).add(ev)

        async def wait(timeout_s: float) -> None:
            await self._wait_on(ev, timeout_s)

        try:
            yield wait
        finally:
            self._waiters[table_id].discard(ev)
