"""The :class:`~rgs.service.ports.Journal` port on PostgreSQL (asyncpg).

A player's journal is held with a lease row whose epoch fences every write
(:mod:`rgs.journal.leases`): a call that paused past its lease while another took the player
over writes nothing more and fails with :class:`~rgs.service.ports.JournalLeaseLost`. No
session state is used, so the journal works through a transaction-mode pooler such as PgBouncer
(``pool_mode="transaction"``); with ``pool_mode="session"`` the previous release's advisory lock
is taken too. Writes outside a transaction carry the fence in the same statement; transactions
that commit a step start with it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Literal

import asyncpg

from rgs.codec import encode_event, encode_value, event_kind
from rgs.journal.late_answers import LateAnswer, LateAnswers, write_late
from rgs.journal.leases import Q_FENCE, Lease, PlayerHolds
from rgs.journal.migrate import SCHEMA
from rgs.journal.resume import Memory, Trail
from rgs.journal.rows import movements_json, row_movement, row_round, row_seed, row_session
from rgs.journal.statements import (
    Q_ABANDONED_ROUNDS,
    Q_ACK_REALITY_CHECK,
    Q_ACTIVE_ROUND,
    Q_ACTIVE_SESSIONS,
    Q_ADD_OPERATOR_KEY,
    Q_COMMIT_LAST_STEP,
    Q_COMMIT_LAST_STEP_RESUMED,
    Q_COMMIT_LAST_STEP_UNLOCK,
    Q_COMMIT_STEP,
    Q_COMMIT_STEP_RESUMED,
    Q_FIND_REQUEST,
    Q_FIND_SESSION,
    Q_GET_ROUND,
    Q_INSERT_REQUEST,
    Q_INSERT_SESSION,
    Q_LIST_ROUNDS,
    Q_NEXT_SEED,
    Q_OPEN_MOVEMENTS,
    Q_OPERATOR_FOR_KEY,
    Q_OUTBOX_BACKLOG,
    Q_PLAYER_PACE,
    Q_PLAYERS_WITH_OPEN,
    Q_RECORD_MOVEMENT,
    Q_RECORD_MOVEMENT_RESUMED,
    Q_RESUME,
    Q_ROUND_MOVEMENTS,
    Q_SAVE_NEXT_SEED,
    Q_SESSION_POSITION,
    Q_SETTLE_MOVEMENT,
    Q_UPDATE_RESPONSE,
    call_query,
)
from rgs.journal.translate import DRIVER_ERRORS, translated
from rgs.service.model import (
    CallRead,
    CallState,
    Movement,
    MovementStatus,
    OutboxBacklog,
    PlayerPace,
    RequestScope,
    Session,
    SessionSeed,
    StoredRequest,
    StoredRound,
)
from rgs.service.ports import JournalError, JournalLeaseLost, JournalStale, JournalUnavailable
from rgs.service.writes import PaidAnswer, StepWrite

PoolMode = Literal["session", "transaction"]
"""How the database URL hands out server connections: ``session`` (PostgreSQL itself or a
session-mode pooler: one server connection per client connection) or ``transaction`` (a
transaction-mode pooler such as PgBouncer: any statement outside a transaction may run on
another server connection, so no session state, no named prepared statements, and the role's
own ``search_path`` must find the journal's schema)."""

log = logging.getLogger(__name__)



class PostgresPlayerJournal:
    """One player's journal under a lease, on one pooled connection. Every write is fenced by
    the lease's epoch (:class:`~rgs.service.ports.JournalLeaseLost` once it was taken over)."""

    def __init__(self, conn: asyncpg.Connection, player_key: str, lease: Lease,
                 first: CallRead | None = None, *, known: CallState | None = None,
                 trail: Trail | None = None, holder: str = "",
                 late: LateAnswers | None = None) -> None:
        self._conn = conn
        self._key = player_key
        self._lease = lease
        self._first = first
        #: What the replica remembers for ``first`` (the lease is then taken back by the first
        #: write: :mod:`rgs.journal.resume`), and what this call reads and writes.
        self._known = known
        self.trail = trail if trail is not None else Trail(None)
        self._holder = holder
        #: Where a win's wallet answer after the call's last write waits to be written.
        self._late = late

    def _resume_args(self) -> tuple[str, str, str]:
        """The lease's holder and the call's request id and scope, for a first write that
        takes the lease back (:func:`~rgs.journal.leases.resume`)."""
        assert self._first is not None
        return self._holder, self._first.request_id, self._first.scope.value

    def _resume_sent(self) -> None:
        self._lease.in_doubt = self._holder  # until the answer comes

    def _taken_back(self, lease_rows: int) -> None:
        self._lease.in_doubt = ""
        if lease_rows != 1:
            raise JournalStale(f"{self._key}'s journal changed since this replica's last call "
                               "of the player (or the request id has a record): read again")
        self._lease.epoch += 1
        self._lease.resuming = False

    async def _held(self) -> None:
        """Before a write that takes no lease back itself: take it back if the call has not."""
        if self._lease.resuming:
            self._resume_sent()
            self._taken_back(await self._conn.fetchval(Q_RESUME, self._key, self._lease.epoch,
                                                       self._lease.ttl, *self._resume_args()))

    def _first_read(self, read: CallRead) -> asyncpg.Record | None:
        """The row read with the lease, once, if it is this read's."""
        row, self._lease.first_read = self._lease.first_read, None
        return row if row is not None and self._is_first(read) else None

    def _is_first(self, read: CallRead) -> bool:
        return self._first is not None and replace(self._first, resumable=False) == read

    def _check(self, lease_rows: int) -> None:
        if lease_rows != 1:
            raise JournalLeaseLost(f"the lease on {self._key}'s journal (epoch "
                                   f"{self._lease.epoch}) was taken over by another call")

    async def _fence(self) -> None:
        """First statement of a transaction that commits a step."""
        await self._held()
        epoch = await self._conn.fetchval(Q_FENCE, self._key, self._lease.epoch, self._lease.ttl)
        self._check(0 if epoch is None else 1)

    @translated
    async def find_request(self, request_id: str, scope: RequestScope) -> StoredRequest | None:
        """The idempotency record of ``request_id`` in ``scope``, if any."""
        r = await self._conn.fetchrow(Q_FIND_REQUEST, self._key, request_id, scope.value)
        if r is None:
            return None
        return StoredRequest(request_id=r["request_id"], method=r["method"],
                             request_hash=r["request_hash"], response=r["response"],
                             scope=RequestScope(r["scope"]))

    @translated
    async def open_call(self, read: CallRead) -> CallState:
        """The request's record, the open outbox rows, the round and its movements (and with
        ``seed_of`` that session's next seed): one statement (:data:`Q_CALL_STATE_BY_ID` and
        its siblings), or none when the same read was made with the lease
        (``PostgresJournal.player(first=...)``) and is still the player's state."""
        read = replace(read, resumable=False)
        known, self._known = self._known, None
        if known is not None and self._is_first(read):
            self.trail.read(read, known)
            return known
        r = self._first_read(read)
        if r is None:
            query, args = call_query(self._key, read)
            r = await self._conn.fetchrow(query[None], *args)
        assert r is not None  # a select of one row joined with left joins
        request = None if r["rq_method"] is None else StoredRequest(
            request_id=read.request_id, method=r["rq_method"], request_hash=r["rq_hash"],
            response=r["rq_response"], scope=read.scope)
        found = r["round_id"] is not None
        seed = (None if read.seed_of is None or r["ns_server_seed"] is None else SessionSeed(
            session_id=read.seed_of, server_seed=r["ns_server_seed"],
            commitment=r["ns_commitment"], round_number=r["ns_round_number"]))
        state = CallState(request=request, open_movements=movements_json(r["open_rows"]),
                          round=row_round(r) if found else None,
                          round_movements=movements_json(r["round_rows"]) if found else [],
                          next_seed=seed)
        self.trail.read(read, state)
        return state

    @translated
    async def get_round(self, round_id: str) -> StoredRound | None:
        """One of this player's rounds with its events."""
        return row_round(await self._conn.fetchrow(Q_GET_ROUND, self._key, round_id))

    @translated
    async def active_round(self, brand_id: str, currency: str) -> StoredRound | None:
        """This player's unfinished round in a brand and currency, if any."""
        return row_round(await self._conn.fetchrow(Q_ACTIVE_ROUND, self._key, brand_id, currency))

    @translated
    async def movements(self, round_id: str) -> list[Movement]:
        """A round's wallet movements, oldest first."""
        return [row_movement(r) for r in await self._conn.fetch(Q_ROUND_MOVEMENTS, self._key,
                                                             round_id)]

    @translated
    async def open_movements(self) -> list[Movement]:
        """Outbox rows not final yet, oldest first."""
        return [row_movement(r) for r in await self._conn.fetch(Q_OPEN_MOVEMENTS, self._key)]

    @translated
    async def record_movement(self, movement: Movement) -> None:
        """Write an outbox row (autocommitted: it must exist before the wallet call)."""
        m = movement
        resuming = self._lease.resuming
        if resuming:
            self._resume_sent()
        rows = await self._conn.fetchval(
            Q_RECORD_MOVEMENT_RESUMED if resuming else Q_RECORD_MOVEMENT, self._key,
            m.transaction_id, m.round_id, m.kind.value, m.amount, m.status.value,
            m.balance_after, m.debit_transaction_id, m.session_id, m.currency, m.brand_id,
            self._lease.epoch, self._lease.ttl, *(self._resume_args() if resuming else ()))
        if resuming:
            self._taken_back(rows)
        else:
            self._check(rows)
        self.trail.movement(m)

    @translated
    async def settle_movement(self, transaction_id: str, status: MovementStatus,
                              balance_after: int | None, *, error: str | None = None,
                              wallet_reference: str = "") -> None:
        """Record a wallet call's outcome."""
        await self._held()
        self.trail.spoil()
        self._check(await self._conn.fetchval(
            Q_SETTLE_MOVEMENT, self._key, transaction_id, status.value, balance_after, error,
            self._lease.epoch, self._lease.ttl, wallet_reference))

    @translated
    async def commit_round(self, write: StepWrite) -> None:
        """Header, new events, idempotency record, outbox rows, booked debits and a fair
        round's seeds in one statement (:data:`Q_COMMIT_STEP`): one round trip, atomic, fenced
        by the lease; with ``last``, the lease (and in session mode the advisory lock) given
        back by the same statement (:data:`Q_COMMIT_LAST_STEP`)."""
        w = write
        r, f, req, ms, ns, new = w.round, w.seeds, w.request, w.movements, w.next_seed, w.new_events
        lease = self._lease
        resuming = lease.resuming
        if resuming:
            self._resume_sent()
        query, extra = ((Q_COMMIT_LAST_STEP_RESUMED if w.last else Q_COMMIT_STEP_RESUMED,
                         (self._holder,)) if resuming
                        else (Q_COMMIT_STEP, ()) if not w.last
                        else (Q_COMMIT_LAST_STEP_UNLOCK, (lease.lock_class,)) if lease.advisory
                        else (Q_COMMIT_LAST_STEP, ()))
        rows = await self._conn.fetchval(
            query, self._key, r.round_id, r.session_id, r.operator_id, r.brand_id,
            r.player_id, r.currency, r.variant, r.seq, r.status, list(r.forced_cards),
            r.total_staked, r.total_paid, encode_value(r.options),
            w.new_events_from, [event_kind(e) for e in new], [encode_event(e) for e in new],
            None if req is None else req.request_id, None if req is None else req.method,
            None if req is None else req.request_hash, None if req is None else req.response,
            None if req is None else req.scope.value,
            [m.transaction_id for m in ms], [m.round_id for m in ms],
            [m.kind.value for m in ms], [m.amount for m in ms], [m.status.value for m in ms],
            [m.balance_after for m in ms], [m.debit_transaction_id for m in ms],
            [m.session_id for m in ms], [m.currency for m in ms], [m.brand_id for m in ms],
            list(w.booked), lease.epoch, lease.ttl,
            None if f is None else f.server_seed, None if f is None else f.commitment,
            None if f is None else f.client_seed, None if f is None else f.round_number,
            None if f is None else f.decks, None if f is None else f.next_commitment,
            None if ns is None else ns.server_seed, None if ns is None else ns.round_number,
            [b.balance for b in w.bookings], [b.wallet_reference for b in w.bookings],
            None if r.channel is None else r.channel.value, *extra)
        if resuming:
            self._taken_back(rows)
        else:
            self._check(rows)
        lease.released = w.last
        self.trail.commit(w)

    async def answer_later(self, answer: PaidAnswer) -> None:
        """A win's wallet answer after the call's last write: written a moment later with
        other players' (:mod:`rgs.journal.late_answers`), not in a statement of its own."""
        if self._late is None:
            raise JournalUnavailable("this journal cannot record an answer after the call")
        self._late.add(self._key, answer)
        self.trail.answered(answer)

    @translated
    async def update_response(self, request_id: str, response: str,
                              scope: RequestScope) -> None:
        """Replace a stored response."""
        await self._held()
        self.trail.spoil()
        self._check(await self._conn.fetchval(Q_UPDATE_RESPONSE, self._key, request_id,
                                              response, scope.value, self._lease.epoch,
                                              self._lease.ttl))

    @translated
    async def save_session(self, session: Session, token_hash: str,
                           request: StoredRequest | None) -> None:
        """A new session and its idempotency record, in one transaction."""
        self.trail.spoil()
        s = session
        async with self._conn.transaction():
            await self._fence()
            await self._conn.execute(Q_INSERT_SESSION, self._key, token_hash, s.session_id,
                                     s.operator_id, s.brand_id, s.player_id, s.currency,
                                     s.expires_at, s.nickname, s.reality_check_s,
                                     s.started_at, s.language)
            if request is not None:
                await self._conn.execute(Q_INSERT_REQUEST, self._key, request.request_id,
                                         request.method, request.request_hash,
                                         request.response, request.scope.value)

    @translated
    async def pace(self, session_id: str, *, except_round: str = "") -> PlayerPace:
        """What a jurisdiction's rules read before a new round (:class:`PlayerPace`)."""
        r = await self._conn.fetchrow(Q_PLAYER_PACE, self._key, session_id, except_round)
        assert r is not None  # a SELECT without FROM answers one row
        return PlayerPace(last_round_start=r["last_round_start"], open_rounds=r["open_rounds"],
                          last_table_start=r["last_table_start"],
                          last_play=r["last_play"], reality_checked_at=r["reality_checked_at"])

    @translated
    async def acknowledge_reality_check(self, session_id: str, at: datetime) -> None:
        """Record that the player acknowledged a reality check at ``at``."""
        self.trail.spoil()
        async with self._conn.transaction():
            await self._fence()
            await self._conn.execute(Q_ACK_REALITY_CHECK, self._key, session_id, at)

    @translated
    async def next_seed(self, session_id: str) -> SessionSeed | None:
        """The session's next seed, if committed."""
        return row_seed(await self._conn.fetchrow(Q_NEXT_SEED, self._key, session_id))

    @translated
    async def save_next_seed(self, seed: SessionSeed) -> None:
        """A session's first seed (an existing one is kept)."""
        await self._held()
        self.trail.spoil()
        self._check(await self._conn.fetchval(
            Q_SAVE_NEXT_SEED, self._key, seed.session_id, seed.server_seed, seed.commitment,
            seed.round_number, self._lease.epoch, self._lease.ttl))



@dataclass(frozen=True, slots=True, kw_only=True)
class PoolStats:
    """The journal's connection pool at one moment."""

    #: Connections open to the database (or the pooler).
    open: int
    #: Of those, held by a call right now.
    in_use: int
    #: The most the pool opens.
    max: int


class PostgresJournal:
    """The journal on a PostgreSQL connection pool."""

    def __init__(self, pool: asyncpg.Pool, *, lock_wait_s: float = 5.0,
                 lease_s: float = 30.0, pool_mode: PoolMode = "session",
                 holder: str | None = None, holds: PlayerHolds | None = None,
                 on_wait: Callable[[float], None] | None = None) -> None:
        self._pool = pool
        #: Told how long each wait for a pooled connection of a call took (a metric).
        self._on_wait = on_wait
        # The previous release's advisory lock too, in session mode (ops/database.md).
        self._holds = holds or PlayerHolds(wait_s=lock_wait_s, lease_s=lease_s,
                                           advisory_lock=pool_mode == "session", holder=holder)
        #: How long a call waits for a pooled connection before JournalUnavailable.
        self._acquire_timeout_s = 10.0
        #: What each player's last call on this replica left (:mod:`rgs.journal.resume`).
        self._memory = Memory()
        #: Wins' wallet answers owed to the journal (:mod:`rgs.journal.late_answers`).
        self._late = LateAnswers(self._write_late)

    @classmethod
    async def connect(cls, database_url: str, *, min_size: int = 2, max_size: int = 10,
                      lock_wait_s: float = 5.0, lease_s: float = 30.0,
                      pool_mode: PoolMode = "session", advisory_lock: bool | None = None,
                      command_timeout: float | None = None,
                      on_wait: Callable[[float], None] | None = None) -> PostgresJournal:
        """Open a pool on ``database_url``: in session mode with the journal's schema first on
        the search path; in transaction mode without prepared statements kept on the server,
        and (when it opens connections at once, ``min_size`` > 0) only once the role's own
        search path finds the journal's schema. A pool opened empty (the operations sampler's)
        connects on first use, so a database down at start reads as down instead of failing."""
        options: dict[str, Any] = (
            {"server_settings": {"search_path": SCHEMA}} if pool_mode == "session"
            # A pooler hands each statement to any server connection: a statement prepared
            # on one is unknown on the next (asyncpg then re-prepares unnamed ones in place).
            else {"statement_cache_size": 0})
        holds = PlayerHolds(wait_s=lock_wait_s, lease_s=lease_s,
                            advisory_lock=pool_mode == "session" if advisory_lock is None
                            else advisory_lock and pool_mode == "session")
        try:
            # A connection given back is not reset (asyncpg's default is one more round trip on
            # every release): the journal keeps no session state but the player's advisory
            # lock, which it gives back itself (or the reset does, when it could not).
            pool = await asyncpg.create_pool(database_url, min_size=min_size, max_size=max_size,
                                             command_timeout=command_timeout,
                                             reset=holds.reset_connection, **options)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            raise JournalUnavailable(f"cannot connect to the journal database: {exc}") from exc
        if pool_mode == "transaction" and min_size > 0:
            await cls._check_search_path(pool)
        return cls(pool, pool_mode=pool_mode, holds=holds, on_wait=on_wait)

    @staticmethod
    async def _check_search_path(pool: asyncpg.Pool) -> None:
        # A pooler forwards no search_path of ours (PgBouncer refuses the start-up parameter);
        # the role's or the database's default has to name the journal's schema.
        try:
            found = await pool.fetchval("SELECT current_schema()")
        except DRIVER_ERRORS as exc:
            await pool.close()
            raise JournalUnavailable(f"cannot reach the journal database: {exc}") from exc
        if found != SCHEMA:
            await pool.close()
            raise JournalUnavailable(
                f"with a transaction-mode pooler the database role's search_path must start "
                f"with the journal's schema (it starts with {found!r}): run ALTER ROLE <role> "
                f"SET search_path = {SCHEMA}, public (ops/database.md)")

    async def close(self) -> None:
        """Write the wallet answers owed, then close the pool."""
        try:
            await self.flush_answers()
        except JournalError as exc:  # their credits are sent again by the next call
            log.warning("wallet answers not recorded at shutdown: %s", exc)
        await self._pool.close()

    async def flush_answers(self) -> None:
        """Write the wallet answers owed now (:mod:`rgs.journal.late_answers`)."""
        await self._late.flush()

    @translated
    async def _write_late(self, batch: list[LateAnswer]) -> None:
        conn = await self._acquire()
        try:
            await write_late(conn, batch)
        finally:
            await self._pool.release(conn)

    def pool_stats(self) -> PoolStats:
        """How many connections are open, in use, and at most."""
        size = self._pool.get_size()
        return PoolStats(open=size, in_use=size - self._pool.get_idle_size(),
                         max=self._pool.get_max_size())

    @asynccontextmanager
    async def player(self, player_key: str, first: CallRead | None = None
                     ) -> AsyncIterator[PostgresPlayerJournal]:
        """Hold ``player_key``'s journal exclusively; JournalBusy after the wait limit.
        ``first``: the call's first read, made in the same statement as the player is taken
        (:func:`~rgs.journal.leases.take_player_then`); its ``open_call`` then costs no round
        trip."""
        left = None if self._holds.advisory else self._memory.take(player_key)
        known = None if left is None or first is None else left.state_for(first)
        if known is None:  # the call reads the journal: its wins' answers are written first
            await self._late.before_read(player_key)
        conn = await self._acquire()
        try:
            if known is not None and first is not None and left is not None:
                async with self._holds.resumed(conn, player_key, left.epoch) as lease:
                    pj = PostgresPlayerJournal(conn, player_key, lease, first, known=known,
                                               trail=Trail(left),
                                               holder=self._holds.holder_of(first.request_id),
                                               late=self._late)
                    try:
                        yield pj
                    except Exception as exc:
                        if lease.resuming and not isinstance(exc, JournalStale):
                            # Answered from memory, nothing written: the answer may be the
                            # memory's, so the call runs again on what the journal holds.
                            raise JournalStale(f"a call answered from memory failed: {exc}"
                                               ) from exc
                        raise
                    if lease.resuming:
                        raise JournalStale("a call answered from memory wrote nothing")
            else:
                read = None
                if first is not None:
                    query, args = call_query(player_key, first)
                    read = (query[self._holds.advisory], args)
                async with self._holds.hold(conn, player_key, read,
                                            request=first.request_id if first else "") as lease:
                    pj = PostgresPlayerJournal(conn, player_key, lease, first, late=self._late)
                    yield pj
            if lease.released and not self._holds.advisory:
                remembered = pj.trail.left(lease.epoch)
                if remembered is not None:
                    self._memory.keep(player_key, remembered)
        finally:
            await self._pool.release(conn)

    @translated
    async def _acquire(self) -> Any:
        start = time.perf_counter()
        try:
            return await self._pool.acquire(timeout=self._acquire_timeout_s)
        finally:
            if self._on_wait is not None:
                self._on_wait(time.perf_counter() - start)

    @translated
    async def operator_for_key(self, key_hash: str) -> str | None:
        """The operator owning an API key hash."""
        v = await self._pool.fetchval(Q_OPERATOR_FOR_KEY, key_hash)
        return None if v is None else str(v)

    @translated
    async def add_operator_key(self, *, operator_id: str, key_hash: str, label: str) -> None:
        """Store an API key hash."""
        await self._pool.execute(Q_ADD_OPERATOR_KEY, key_hash, operator_id, label)

    @translated
    async def find_session(self, player_key: str, token_hash: str) -> Session | None:
        """The session of a token hash."""
        r = await self._pool.fetchrow(Q_FIND_SESSION, player_key, token_hash)
        return None if r is None else row_session(r)

    @translated
    async def next_seed(self, player_key: str, session_id: str) -> SessionSeed | None:
        """A session's next seed, if committed (read-only)."""
        return row_seed(await self._pool.fetchrow(Q_NEXT_SEED, player_key, session_id))

    @translated
    async def session_money(self, player_key: str, session_id: str, *, except_round: str = ""
                            ) -> tuple[int, int]:
        """A session's stakes booked and wins owed so far, but for one round's."""
        r = await self._pool.fetchrow(Q_SESSION_POSITION, player_key, session_id, except_round)
        assert r is not None  # an aggregate answers one row
        return int(r["staked"]), int(r["paid"])

    @translated
    async def get_round(self, player_key: str, round_id: str) -> StoredRound | None:
        """A round with its events."""
        return row_round(await self._pool.fetchrow(Q_GET_ROUND, player_key, round_id))

    @translated
    async def active_round(self, player_key: str, brand_id: str, currency: str
                           ) -> StoredRound | None:
        """The player's unfinished round in a brand and currency."""
        return row_round(await self._pool.fetchrow(Q_ACTIVE_ROUND, player_key, brand_id, currency))

    @translated
    async def list_rounds(self, player_key: str, brand_id: str, *,
                          before: tuple[datetime, str] | None, limit: int) -> list[StoredRound]:
        """The player's rounds in a brand, newest first."""
        at, rid = before if before else (None, "")
        rows = await self._pool.fetch(Q_LIST_ROUNDS, player_key, brand_id, at, rid, limit)
        return [r for r in map(row_round, rows) if r is not None]

    @translated
    async def movements(self, player_key: str, round_id: str) -> list[Movement]:
        """A round's wallet movements (the player's wins' answers owed written first)."""
        await self._late.before_read(player_key)
        rows = await self._pool.fetch(Q_ROUND_MOVEMENTS, player_key, round_id)
        return [row_movement(r) for r in rows]

    @translated
    async def abandoned_rounds(self, *, before: datetime, limit: int,
                               operator_id: str | None = None) -> list[StoredRound]:
        """Unfinished rounds untouched since before ``before`` (of ``operator_id``'s players
        when given)."""
        rows = await self._pool.fetch(Q_ABANDONED_ROUNDS, before, limit, operator_id)
        return [r for r in map(row_round, rows) if r is not None]

    @translated
    async def players_with_open_movements(self, *, now: datetime, min_age: timedelta,
                                          max_backoff: timedelta, limit: int) -> list[str]:
        """Players with an outbox row open and due (exponential backoff per row)."""
        rows = await self._pool.fetch(Q_PLAYERS_WITH_OPEN, now, min_age, max_backoff, limit)
        return [str(r["player_key"]) for r in rows]

    @translated
    async def outbox_backlog(self) -> OutboxBacklog:
        """The open outbox rows of every player, and the age of the oldest."""
        r = await self._pool.fetchrow(Q_OUTBOX_BACKLOG)
        assert r is not None  # an aggregate always returns one row
        return OutboxBacklog(open_rows=int(r["open_rows"]), oldest_age_s=float(r["oldest_age_s"]))

    @translated
    async def active_sessions(self) -> int:
        """Sessions not yet expired, of every player."""
        return int(await self._pool.fetchval(Q_ACTIVE_SESSIONS))
