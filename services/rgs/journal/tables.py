"""The shared tables' journal on PostgreSQL (:class:`~rgs.service.tables.ports.TableJournal`).

A transition is one transaction: the table clock's lease (a clock-driven transition) and the
players' leases (a transition that books their debits) are checked first, each by its epoch;
then the table's row moves forward with a compare-and-set on its version, its events are
appended under the next numbers, debits are booked, new outbox rows and the round's record are
written, and ``NOTIFY rgs_tables`` wakes the watchers of every replica. The notification is only
a wake-up: watchers read ``seq > last`` from ``table_events``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from datetime import timedelta
from typing import Any

import asyncpg

from rgs.codec import decode_value, encode_value
from rgs.journal.leases import Lease, PlayerHolds
from rgs.journal.migrate import SCHEMA
from rgs.journal.translate import DRIVER_ERRORS, translated
from rgs.service.model import StoredRequest
from rgs.service.ports import JournalLeaseLost, JournalUnavailable, PlayerJournal
from rgs.service.tables.model import StoredTable, TableEvent, TableFair, TableState
from rgs.service.tables.ports import HeldPlayer, RoundRecord, TableCommit, TableConflict

log = logging.getLogger(__name__)

TABLE_LEASE = "table"
"""The ``leases.kind`` of a table's clock."""
CHANNEL = "rgs_tables"
"""The NOTIFY channel: the payload is ``{table_id}`` (read the journal for what is new)."""

Q_ENSURE = """
INSERT INTO game_tables (table_id, version, state) VALUES ($1, 0, $2::jsonb)
ON CONFLICT (table_id) DO NOTHING"""
Q_LOAD = "SELECT version, last_seq, state::text AS state FROM game_tables WHERE table_id = $1"
Q_EVENTS_AFTER = """
SELECT seq, kind, payload::text AS payload, created_at FROM table_events
WHERE table_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"""
Q_FENCE_CLOCK = """
UPDATE leases SET expires_at = clock_timestamp() + $3::interval
WHERE kind = 'table' AND key = $1 AND epoch = $2 AND holder IS NOT NULL RETURNING epoch"""
Q_FENCE_PLAYER = """
UPDATE leases SET expires_at = clock_timestamp() + interval '30 seconds'
WHERE kind = 'player' AND key = $1 AND epoch = $2 AND holder IS NOT NULL RETURNING epoch"""
Q_CAS = """
UPDATE game_tables SET version = version + 1, last_seq = last_seq + $3, state = $4::jsonb,
       due_at = $5, updated_at = clock_timestamp()
WHERE table_id = $1 AND version = $2 RETURNING last_seq"""
Q_EVENT = """
INSERT INTO table_events (table_id, seq, kind, payload) VALUES ($1, $2, $3, $4::jsonb)"""
Q_BOOK = """
UPDATE wallet_transactions SET status = 'booked', updated_at = clock_timestamp()
WHERE player_key = $1 AND transaction_id = $2 AND kind = 'debit' AND status = 'applied'"""
Q_MOVEMENT = """
INSERT INTO wallet_transactions (player_key, transaction_id, round_id, kind, amount, status,
    debit_transaction_id, session_id, currency, brand_id)
VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9)"""
Q_ROUND = """
INSERT INTO table_rounds (table_id, round_id, round_no, variant, status, events, finished_at,
                          fair)
VALUES ($1, $2, $3, $4, $5, $6::jsonb,
        CASE WHEN $5 IN ('settled', 'voided') THEN clock_timestamp() END, $7::jsonb)
ON CONFLICT (table_id, round_id) DO UPDATE SET status = EXCLUDED.status,
    events = EXCLUDED.events, finished_at = EXCLUDED.finished_at,
    fair = COALESCE(EXCLUDED.fair, table_rounds.fair)"""
Q_ROUND_PLAYER = """
INSERT INTO table_round_players (player_key, round_id, table_id, operator_id, staked, paid)
VALUES ($1, $2, $3, $4, $5, $6)"""
Q_REQUEST = """
INSERT INTO table_requests (table_id, player_key, request_id, method, request_hash, response)
VALUES ($1, $2, $3, $4, $5, $6)"""
Q_FIND_REQUEST = """
SELECT request_id, method, request_hash, response FROM table_requests
WHERE table_id = $1 AND player_key = $2 AND request_id = $3"""
Q_TAKE_CLOCK = """
INSERT INTO leases AS l (kind, key, holder, epoch, expires_at)
VALUES ('table', $1, $2, 1, clock_timestamp() + $3::interval)
ON CONFLICT (kind, key) DO UPDATE
   SET holder = EXCLUDED.holder,
       epoch = CASE WHEN l.holder = EXCLUDED.holder THEN l.epoch ELSE l.epoch + 1 END,
       expires_at = EXCLUDED.expires_at,
       acquired_at = CASE WHEN l.holder = EXCLUDED.holder THEN l.acquired_at
                          ELSE clock_timestamp() END
 WHERE l.holder IS NULL OR l.holder = EXCLUDED.holder OR l.expires_at <= clock_timestamp()
RETURNING epoch"""
Q_RELEASE_CLOCK = """
UPDATE leases SET holder = NULL, expires_at = clock_timestamp()
WHERE kind = 'table' AND key = $1 AND epoch = $2"""
Q_GET_ROUND = """
SELECT round_id, round_no, variant, status, events::text AS events, fair::text AS fair
FROM table_rounds WHERE round_id = $1"""
Q_ROUND_PLAYERS = """
SELECT player_key, operator_id, staked, paid FROM table_round_players
WHERE round_id = $1 ORDER BY player_key"""


PlayerJournalMaker = Callable[[asyncpg.Connection, str, Lease], PlayerJournal]
"""Builds a player's journal on a held connection (the PostgreSQL journal's, handed in by
bootstrap: only bootstrap chooses adapters)."""


class PostgresTables:
    """Shared tables on a PostgreSQL pool (the journal's schema), plus one listening connection
    per replica multiplexed to every watcher."""

    def __init__(self, pool: asyncpg.Pool, holds: PlayerHolds, player_journal: PlayerJournalMaker,
                 database_url: str = "") -> None:
        self._pool = pool
        self._holds = holds
        self._player_journal = player_journal
        self._url = database_url
        self._listener: asyncpg.Connection | None = None
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._listen_lock = asyncio.Lock()

    @classmethod
    async def connect(cls, database_url: str, holds: PlayerHolds,
                      player_journal: PlayerJournalMaker, *, max_size: int = 10,
                      pool_mode: str = "session") -> PostgresTables:
        """A pool like the journal's (``pool_mode`` as :class:`PostgresJournal`'s). Behind a
        transaction-mode pooler there is no LISTEN (a pooler does not keep a session): watchers
        then look at the journal once a second."""
        session = pool_mode == "session"
        options: dict[str, Any] = ({"server_settings": {"search_path": SCHEMA}} if session
                                   else {"statement_cache_size": 0})
        try:
            pool = await asyncpg.create_pool(database_url, min_size=1, max_size=max_size,
                                             **options)
        except DRIVER_ERRORS as exc:
            raise JournalUnavailable(f"cannot connect to the tables' database: {exc}") from exc
        return cls(pool, holds, player_journal, database_url if session else "")

    async def close(self) -> None:
        if self._listener is not None:
            with suppress(*DRIVER_ERRORS):
                await self._listener.close()
            self._listener = None
        await self._pool.close()

    # ------------------------------------------------------------------ reading

    @translated
    async def ensure_table(self, table_id: str, state: TableState) -> None:
        await self._pool.execute(Q_ENSURE, table_id, encode_value(state))

    @translated
    async def load(self, table_id: str) -> StoredTable | None:
        r = await self._pool.fetchrow(Q_LOAD, table_id)
        if r is None:
            return None
        return StoredTable(table_id=table_id, version=r["version"], last_seq=r["last_seq"],
                           state=decode_value(TableState, r["state"]))

    @translated
    async def events_after(self, table_id: str, seq: int, limit: int) -> list[TableEvent]:
        rows = await self._pool.fetch(Q_EVENTS_AFTER, table_id, seq, limit)
        return [TableEvent(table_id=table_id, seq=r["seq"], kind=r["kind"],
                           payload=r["payload"], at=r["created_at"]) for r in rows]

    @translated
    async def find_request(self, table_id: str, player_key: str,
                           request_id: str) -> StoredRequest | None:
        r = await self._pool.fetchrow(Q_FIND_REQUEST, table_id, player_key, request_id)
        if r is None:
            return None
        return StoredRequest(request_id=r["request_id"], method=r["method"],
                             request_hash=r["request_hash"], response=r["response"])

    @translated
    async def get_round(self, round_id: str) -> RoundRecord | None:
        r = await self._pool.fetchrow(Q_GET_ROUND, round_id)
        if r is None:
            return None
        players = await self._pool.fetch(Q_ROUND_PLAYERS, round_id)
        return RoundRecord(round_id=r["round_id"], round_no=r["round_no"], variant=r["variant"],
                           status=r["status"],
                           events=tuple((k, json.dumps(p)) for k, p in json.loads(r["events"])),
                           players=tuple((p["player_key"], p["operator_id"], p["staked"],
                                          p["paid"]) for p in players),
                           fair=(decode_value(TableFair, r["fair"]) if r["fair"] is not None
                                 else None))

    # ------------------------------------------------------------------ players

    @asynccontextmanager
    async def hold_players(self, keys: Sequence[str]) -> AsyncIterator[dict[str, HeldPlayer]]:
        out: dict[str, HeldPlayer] = {}
        async with AsyncExitStack() as stack:
            for key in sorted(set(keys)):
                conn = await self._acquire()
                stack.push_async_callback(self._pool.release, conn)
                lease: Lease = await stack.enter_async_context(self._holds.hold(conn, key))
                out[key] = HeldPlayer(key=key, epoch=lease.epoch,
                                      journal=self._player_journal(conn, key, lease))
            yield out

    @translated
    async def _acquire(self) -> Any:
        return await self._pool.acquire(timeout=10.0)

    # ------------------------------------------------------------------ transitions

    @translated
    async def commit(self, c: TableCommit) -> int:
        async with self._pool.acquire() as conn, conn.transaction():
            if c.clock_epoch is not None:
                ok = await conn.fetchval(Q_FENCE_CLOCK, c.table_id, c.clock_epoch,
                                         timedelta(seconds=5))
                if ok is None:
                    raise JournalLeaseLost(f"the clock of table {c.table_id} (epoch "
                                           f"{c.clock_epoch}) was taken over")
            for p in c.players:
                if await conn.fetchval(Q_FENCE_PLAYER, p.key, p.epoch) is None:
                    raise JournalLeaseLost(f"the lease on {p.key}'s journal was taken over")
            last = await conn.fetchval(Q_CAS, c.table_id, c.expected_version, len(c.events),
                                       encode_value(c.state), c.state.deadline)
            if last is None:
                raise TableConflict(f"table {c.table_id} moved on; read it again")
            first = last - len(c.events) + 1
            if c.events:
                await conn.executemany(Q_EVENT, [(c.table_id, first + i, kind, payload)
                                                 for i, (kind, payload) in enumerate(c.events)])
            for key, txid in c.booked:
                if await conn.execute(Q_BOOK, key, txid) != "UPDATE 1":
                    raise JournalLeaseLost(f"debit {txid} is no longer applied (rolled back "
                                           "by a call that took the player over)")
            for key, m in c.movements:
                await conn.execute(Q_MOVEMENT, key, m.transaction_id, m.round_id, m.kind.value,
                                   m.amount, m.debit_transaction_id, m.session_id, m.currency,
                                   m.brand_id)
            if c.round is not None:
                r = c.round
                await conn.execute(Q_ROUND, c.table_id, r.round_id, r.round_no, r.variant,
                                   r.status, json.dumps([[k, json.loads(p)]
                                                         for k, p in r.events]),
                                   encode_value(r.fair) if r.fair is not None else None)
                if r.players:
                    await conn.executemany(Q_ROUND_PLAYER, [
                        (key, r.round_id, c.table_id, op, staked, paid)
                        for key, op, staked, paid in r.players])
            if c.request is not None:
                key, req = c.request
                await conn.execute(Q_REQUEST, c.table_id, key, req.request_id, req.method,
                                   req.request_hash, req.response)
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, c.table_id)
            return int(last)

    # ------------------------------------------------------------------ the clock lease

    @translated
    async def take_clock(self, table_id: str, holder: str, ttl_s: float) -> int | None:
        epoch = await self._pool.fetchval(Q_TAKE_CLOCK, table_id, holder,
                                          timedelta(seconds=ttl_s))
        return None if epoch is None else int(epoch)

    async def release_clock(self, table_id: str, epoch: int) -> None:
        try:
            await self._pool.execute(Q_RELEASE_CLOCK, table_id, epoch)
        except DRIVER_ERRORS as exc:
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
                log.warning("table listener not connected (watchers poll): %s", exc)
                return
            if conn is None:
                return
            await conn.add_listener(CHANNEL, self._notified)
            self._listener = conn

    def _notified(self, _conn: object, _pid: int, _channel: str, payload: object) -> None:
        for ev in self._waiters.get(str(payload), ()):
            ev.set()

    @asynccontextmanager
    async def subscribe(self, table_id: str) -> AsyncIterator[Callable[[float], Awaitable[None]]]:
        """A wake-up for one watcher of ``table_id``: call it to wait (up to its timeout) for
        the next notification since the previous call returned. Registered for the whole
        watch, so a notification between a read and the wait is not lost."""
        await self._ensure_listener()
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
