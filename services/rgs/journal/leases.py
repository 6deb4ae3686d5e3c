"""How a player's journal is held: a lease row with a fencing epoch, and in session pool mode
also the previous release's advisory lock (ops/database.md has the design and its safety
argument). The PostgreSQL journal (:mod:`rgs.journal.postgres`) takes and releases them around
a call, and fences every write with :func:`fence`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import random
import secrets
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import asyncpg

from rgs.journal.translate import DRIVER_ERRORS, translated
from rgs.service.ports import JournalBusy

log = logging.getLogger(__name__)

PLAYER_LEASE = "player"
"""The ``leases.kind`` of a player's journal."""

#: First key of the two-key advisory lock the previous release took for a player (held in
#: session mode only, for replicas of that release during a rolling upgrade).
_PLAYER_LOCK_CLASS = 0x52_47
#: Longest pause between two tries for a busy lease (transaction mode polls).
_LEASE_POLL_MAX_S = 0.05

# Take a lease when it is free or expired (or unconditionally with $5: session mode, where the
# advisory lock already excludes every live holder); the new epoch, or no row when it is held.
def _take_lease(kind: str, key: str, holder: int, ttl: int, force: int, *,
                source: str = "") -> str:
    return f"""
INSERT INTO leases AS l (kind, key, holder, epoch, expires_at)
SELECT {kind}, {key}, ${holder}, 1, clock_timestamp() + ${ttl}::interval {source}
ON CONFLICT (kind, key) DO UPDATE
   SET holder = EXCLUDED.holder, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at,
       acquired_at = clock_timestamp()
 WHERE l.holder IS NULL OR l.expires_at <= clock_timestamp() OR ${force}::boolean
RETURNING epoch"""


def _lock(key: str, lock_class: int, timeout: int) -> str:
    return (f"SELECT set_config('lock_timeout', ${timeout}, false), "
            f"pg_advisory_lock(${lock_class}, hashtext({key}))")


Q_TAKE_LEASE = _take_lease("$1", "$2", 3, 4, 5)
# Session mode, one round trip: set the wait limit, wait for the previous release's advisory
# lock (the CTE runs first: the insert reads from it), then take the lease ($6: the lock's
# first key, $7: the wait limit).
Q_LOCK_AND_TAKE_LEASE = (f"WITH locked AS ({_lock('$2', 6, 7)})"
                         + _take_lease("$1", "$2", 3, 4, 5, source="FROM locked"))


def take_player_then(query: str, first: int, *, advisory: bool) -> str:
    """SQL: take the player's lease (key ``$1``; in session mode its advisory lock first) and
    run ``query`` (a SELECT of one row on the player's rows, its parameters before ``$first``)
    in the same statement; the row gains ``lease_epoch`` (NULL: the lease is held by another
    call) and ``lease_fresh``. The parameters from ``$first`` on: holder, time to live, force,
    and in session mode the lock's first key and the wait limit.

    The statement reads with the snapshot of its start, so ``query``'s row is the player's
    state once the lease is taken only when nobody held or took the lease in between: when the
    lease row, as of that snapshot, was free (or absent) with the epoch just before the new one.
    Every write of a player's rows is fenced by the lease (:func:`fence`) and the last of a
    call's writes gives it back, so then no write can have committed after the snapshot:
    ``lease_fresh`` is true and the row may be used. Otherwise (a holder was still at work, or
    gave the lease up to another in between) the caller reads again."""
    h, t, f, c, w = range(first, first + 5)
    locked = f"locked AS ({_lock('$1', c, w)}), " if advisory else ""
    took = _take_lease(f"'{PLAYER_LEASE}'", "$1", h, t, f,
                       source="FROM locked" if advisory else "")
    head = (f"WITH prev AS (SELECT epoch, holder FROM leases "
            f"WHERE kind = '{PLAYER_LEASE}' AND key = $1), {locked}took AS ({took})")
    lease = ("(SELECT epoch FROM took) AS lease_epoch, "
             "(SELECT epoch FROM took) = CASE WHEN NOT EXISTS (SELECT FROM prev) THEN 1 "
             "ELSE (SELECT epoch + 1 FROM prev WHERE holder IS NULL) END AS lease_fresh, ")
    body = query.lstrip()
    assert body.startswith("SELECT ")
    return f"{head}\nSELECT {lease}{body[len('SELECT '):]}"
_RELEASE_LEASE = """
UPDATE leases SET holder = NULL, expires_at = clock_timestamp()
WHERE kind = $1 AND key = $2 AND epoch = $3"""
Q_RELEASE_LEASE = _RELEASE_LEASE
Q_RELEASE_LEASE_HELD_BY = _RELEASE_LEASE + " AND holder = $4"
# Session mode, one round trip: release the lease, then the advisory lock ($4: its first key).
Q_RELEASE_AND_UNLOCK = (f"WITH released AS ({_RELEASE_LEASE} RETURNING 1) "
                        "SELECT (SELECT count(*) FROM released), "
                        "pg_advisory_unlock($4, hashtext($2))")
Q_UNLOCK_PLAYER = "SELECT pg_advisory_unlock($1, hashtext($2))"
Q_LEASE_HOLDER = "SELECT holder FROM leases WHERE kind = $1 AND key = $2"
#: What a pooled connection runs before another call may have it, when a call could not give
#: back its advisory lock (see :func:`reset_connection`).
Q_UNLOCK_ALL = "SELECT pg_advisory_unlock_all()"


def fence(epoch: int, ttl: int, *, release: bool = False) -> str:
    """SQL: the player's lease (key ``$1``) pushed on by ``$ttl`` if it still has the epoch
    ``$epoch`` (with ``release``: given back instead, for a call's last write); one row when it
    does, none when another call took it over. Its row lock lasts until the statement's
    transaction ends, so a taker waits for the write and then finds the lease renewed (or
    free)."""
    change = ("holder = NULL, expires_at = clock_timestamp()" if release
              else f"expires_at = clock_timestamp() + ${ttl}::interval")
    return (f"UPDATE leases SET {change} "
            f"WHERE kind = '{PLAYER_LEASE}' AND key = $1 AND epoch = ${epoch} "
            "AND holder IS NOT NULL RETURNING epoch")


# The first statement of every transaction that commits a step.
Q_FENCE = fence(2, 3)

# Many players' leases at once ($1: keys), each tried once: a lease free or expired is taken
# ($2: holder, $3: time to live), a player never held gets a first lease; the keys taken with
# their new epochs. One held, or whose row another statement has locked, is skipped (never
# waited for, so two bulk takers or a bulk taker and a command cannot deadlock).
Q_TAKE_LEASES = f"""
WITH free AS (SELECT kind, key FROM leases
               WHERE kind = '{PLAYER_LEASE}' AND key = ANY($1::text[])
                 AND (holder IS NULL OR expires_at <= clock_timestamp())
               ORDER BY key FOR UPDATE SKIP LOCKED),
     taken AS (UPDATE leases l SET holder = $2, epoch = l.epoch + 1,
                                   acquired_at = clock_timestamp(),
                                   expires_at = clock_timestamp() + $3::interval
                 FROM free WHERE l.kind = free.kind AND l.key = free.key
               RETURNING l.key, l.epoch),
     fresh AS (INSERT INTO leases (kind, key, holder, epoch, expires_at)
               SELECT '{PLAYER_LEASE}', k, $2, 1, clock_timestamp() + $3::interval
                 FROM unnest($1::text[]) AS k
                WHERE NOT EXISTS (SELECT FROM leases WHERE kind = '{PLAYER_LEASE}' AND key = k)
               ON CONFLICT DO NOTHING
               RETURNING key, epoch)
SELECT key, epoch FROM taken UNION ALL SELECT key, epoch FROM fresh"""
# Session mode: the previous release's advisory locks of the players just leased ($2: the
# lock's first key), tried once; the keys whose lock was taken.
Q_TRY_LOCKS = """
SELECT key FROM unnest($1::text[]) AS key WHERE pg_try_advisory_lock($2, hashtext(key))"""
# Many leases given back ($1: keys, $2: their epochs); one taken over meanwhile is left.
Q_RELEASE_LEASES = f"""
UPDATE leases l SET holder = NULL, expires_at = clock_timestamp()
  FROM unnest($1::text[], $2::bigint[]) AS h(key, epoch)
 WHERE l.kind = '{PLAYER_LEASE}' AND l.key = h.key AND l.epoch = h.epoch"""
Q_UNLOCK_PLAYERS = "SELECT pg_advisory_unlock($2, hashtext(key)) FROM unnest($1::text[]) AS key"


def resume(epoch: int, ttl: int, holder: int, request_id: int, scope: int, *,
           release: bool = False) -> str:
    """SQL: take the player's lease (key ``$1``) back where this replica gave it back at epoch
    ``$epoch``, only if nobody took it since (it is still free with that epoch) and the
    request id ``$request_id`` (scope ``$scope``) has no record yet; the new epoch, or no row.
    With ``release`` it is given back in the same statement (a call whose only write this is).

    A call that starts from what this replica's last call of the player left
    (:class:`~rgs.journal.postgres.PostgresJournal`) reads nothing: its first write carries
    this instead of :func:`fence`. Every write of a player's rows is fenced by the lease and
    every call's last write gives it back, so a lease still free at the epoch it was given
    back at means no write has committed since: what the replica remembers is the player's
    state. The previous release (which takes only the advisory lock) writes without the
    lease, so this is used only without it (``PlayerHolds.advisory`` false)."""
    change = ("holder = NULL, expires_at = clock_timestamp()" if release
              else f"holder = ${holder}, expires_at = clock_timestamp() + ${ttl}::interval")
    return (f"UPDATE leases SET {change}, epoch = epoch + 1, acquired_at = clock_timestamp() "
            f"WHERE kind = '{PLAYER_LEASE}' AND key = $1 AND epoch = ${epoch} "
            "AND holder IS NULL AND NOT EXISTS (SELECT FROM idempotency_records r "
            f"WHERE r.player_key = $1 AND r.scope = ${scope}::text "
            f"AND r.request_id = ${request_id}::text) RETURNING epoch")


@dataclass(slots=True, kw_only=True)
class Lease:
    """A player's lease as its holder knows it: the fencing epoch, how far each write pushes
    the expiry on, whether the advisory lock is held with it (session mode), and whether the
    call's last write gave it back already."""

    epoch: int
    ttl: timedelta
    advisory: bool = False
    #: The first key of the advisory lock (for a last write that gives it back too).
    lock_class: int = _PLAYER_LOCK_CLASS
    released: bool = False
    #: The row of the read taken with the lease (:func:`take_player_then`), when it may be used.
    first_read: asyncpg.Record | None = None
    #: Not taken yet: the call's first write takes it back at ``epoch`` (:func:`resume`).
    resuming: bool = False
    #: The holder name such a write was sent with while its answer never came: it may have
    #: taken the lease.
    in_doubt: str = ""


def request_tag(request_id: str) -> str:
    """A short tag of a request id in a lease's holder (the id itself is the client's)."""
    return hashlib.sha256(request_id.encode()).hexdigest()[:12]


def holder_name() -> str:
    """A lease holder's name: host (the pod in Kubernetes), process and a random suffix, so an
    operator reading ``leases`` sees which replica holds a player."""
    return f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(3)}"


class PlayerHolds:
    """Takes and releases players' journals for one replica: its holder name, how long a call
    waits for a busy player, how long a lease lasts, and whether the previous release's advisory
    lock is taken too (session pool mode)."""

    def __init__(self, *, wait_s: float, lease_s: float, advisory_lock: bool,
                 holder: str | None = None) -> None:
        self._wait_s = wait_s
        self._lock_timeout = f"{int(wait_s * 1000)}ms"
        self._ttl = timedelta(seconds=lease_s)
        self._advisory = advisory_lock
        #: Whether the previous release's advisory lock is taken too (session pool mode).
        self.advisory = advisory_lock
        self.holder = holder or holder_name()
        #: Server process ids of connections that may still hold a player's advisory lock.
        self.may_hold_lock: set[int] = set()

    @property
    def ttl(self) -> timedelta:
        """How far each write of a holder pushes its lease's expiry on."""
        return self._ttl

    def holder_of(self, request: str) -> str:
        """The holder a call writes into the lease: this replica's name and, for a player's
        request, a tag of its id (so a call that finds the player busy can tell its own
        duplicate from another request)."""
        return f"{self.holder} {request_tag(request)}" if request else self.holder

    @asynccontextmanager
    async def hold(self, conn: asyncpg.Connection, player_key: str,
                   first: tuple[str, tuple[Any, ...]] | None = None, *,
                   wait_s: float | None = None, request: str = "") -> AsyncIterator[Lease]:
        """Hold ``player_key`` on ``conn`` for the block; JournalBusy after the wait limit
        (``wait_s``, else the replica's; 0: one try), saying whether the call holding it is
        ``request`` (a duplicate) or another. In session mode the advisory lock and the lease
        are taken in one round trip and given back in one. ``first``: a read (SQL and arguments,
        see :func:`take_player_then`) made in the same round trip as the take; its row is the
        lease's ``first_read`` when it may be used."""
        if self._advisory:
            # Marked first: should the lock be taken and its answer lost, the connection is
            # cleaned before its next use (reset_connection).
            self.may_hold_lock.add(conn.get_server_pid())
        holder = self.holder_of(request)
        try:
            row = (None if first is None
                   else await self._take_with(conn, player_key, *first, holder=holder))
            if row is not None and row["lease_epoch"] is not None:
                epoch = int(row["lease_epoch"])
            else:  # busy (or no read asked for): poll as usual
                row = None
                epoch = await self._take(conn, player_key, force=self._advisory,
                                         wait_s=wait_s, holder=holder)
        except JournalBusy as exc:
            raise await self._busy(conn, player_key, request) from exc
        lease = Lease(epoch=epoch, ttl=self._ttl, advisory=self._advisory,
                      first_read=row if row is not None and row["lease_fresh"] else None)
        try:
            yield lease
        finally:
            if lease.released:  # by the call's last write, with the advisory lock
                self.may_hold_lock.discard(conn.get_server_pid())
            else:
                await self._release(conn, player_key, epoch)

    @asynccontextmanager
    async def hold_many(self, conn: asyncpg.Connection, keys: list[str]
                        ) -> AsyncIterator[dict[str, int]]:
        """Hold the players of ``keys`` nobody else holds on ``conn``, in two statements at
        most (the leases, and in session mode the advisory locks), given back in as many; the
        players held with their epochs. Players held by another call are left out, never
        waited for."""
        rows = await conn.fetch(Q_TAKE_LEASES, sorted(set(keys)), self.holder, self._ttl)
        held = {r["key"]: int(r["epoch"]) for r in rows}
        locked: list[str] = []
        try:
            if self._advisory and held:
                self.may_hold_lock.add(conn.get_server_pid())
                locked = [r["key"] for r in await conn.fetch(Q_TRY_LOCKS, sorted(held),
                                                             _PLAYER_LOCK_CLASS)]
                for key in set(held) - set(locked):
                    del held[key]  # a previous release's call has them (lease given back below)
            yield held
        finally:
            await self._release_many(conn, rows, locked)

    async def _release_many(self, conn: asyncpg.Connection, rows: list[asyncpg.Record],
                            locked: list[str]) -> None:
        try:
            if conn.is_in_transaction():  # a failed statement left it open; leases expire
                return
            if rows:
                await conn.execute(Q_RELEASE_LEASES, [r["key"] for r in rows],
                                   [r["epoch"] for r in rows])
            if locked:
                await conn.execute(Q_UNLOCK_PLAYERS, locked, _PLAYER_LOCK_CLASS)
                self.may_hold_lock.discard(conn.get_server_pid())
        except DRIVER_ERRORS as exc:
            log.warning("%d leases not released (they expire): %s", len(rows), exc)

    @asynccontextmanager
    async def resumed(self, conn: asyncpg.Connection, player_key: str,
                      epoch: int) -> AsyncIterator[Lease]:
        """Hold ``player_key`` from where this replica gave its lease back at ``epoch``: taken
        by the call's first write (:func:`resume`), given back by its last, or here when the
        call ends between the two."""
        assert not self._advisory, "the previous release's lock is not taken back by a write"
        lease = Lease(epoch=epoch, ttl=self._ttl, resuming=True)
        try:
            yield lease
        finally:
            if lease.resuming and lease.in_doubt:
                await self._release(conn, player_key, lease.epoch + 1, holder=lease.in_doubt)
            elif not lease.resuming and not lease.released:
                await self._release(conn, player_key, lease.epoch)

    async def reset_connection(self, conn: asyncpg.Connection) -> None:
        """The pool's reset of a connection given back (instead of asyncpg's four statements on
        every release): nothing, unless a call may have left its advisory lock held (a failed
        commit, a lost answer); then every advisory lock of the connection is released."""
        pid = conn.get_server_pid()
        if pid in self.may_hold_lock:
            await conn.execute(Q_UNLOCK_ALL)
            self.may_hold_lock.discard(pid)

    def lease_args(self, holder: str | None = None) -> tuple[Any, ...]:
        """The arguments :func:`take_player_then` appends after a read's own."""
        force = self._advisory
        holder = holder or self.holder
        return ((holder, self._ttl, force, _PLAYER_LOCK_CLASS, self._lock_timeout)
                if self._advisory else (holder, self._ttl, force))

    async def _busy(self, conn: asyncpg.Connection, player_key: str,
                    request: str) -> JournalBusy:
        """The refusal of a call that found its player held past the wait: whether the holder
        is the same request (a duplicate still running) or another call of the player."""
        try:
            holder = await conn.fetchval(Q_LEASE_HOLDER, PLAYER_LEASE, player_key)
        except DRIVER_ERRORS:
            holder = None
        same = None if not request or holder is None else (
            str(holder).endswith(f" {request_tag(request)}"))
        what = ("this request is still being handled" if same
                else "another call of this player is still being handled")
        return JournalBusy(f"the player's journal is held: {what}", same_request=same)

    @translated
    async def _take_with(self, conn: asyncpg.Connection, player_key: str, query: str,
                         args: tuple[Any, ...], *, holder: str) -> asyncpg.Record | None:
        """One try at the lease with a read in the same statement (its row)."""
        assert args and args[0] == player_key
        return await conn.fetchrow(query, *args, *self.lease_args(holder))

    @translated
    async def _take(self, conn: asyncpg.Connection, player_key: str, *, force: bool,
                    wait_s: float | None = None, holder: str | None = None) -> int:
        """The new epoch of the player's lease; polls while another call holds it (at most
        ``wait_s``, else the replica's wait limit)."""
        wait = self._wait_s if wait_s is None else wait_s
        # lock_timeout 0 would wait for ever: one try waits a millisecond.
        lock_timeout = self._lock_timeout if wait_s is None else f"{max(1, int(wait * 1000))}ms"
        deadline = time.monotonic() + wait
        pause = 0.002
        while True:
            if self._advisory:
                epoch = await conn.fetchval(Q_LOCK_AND_TAKE_LEASE, PLAYER_LEASE, player_key,
                                            holder or self.holder, self._ttl, force,
                                            _PLAYER_LOCK_CLASS, lock_timeout)
            else:
                epoch = await conn.fetchval(Q_TAKE_LEASE, PLAYER_LEASE, player_key,
                                            holder or self.holder, self._ttl, force)
            if epoch is not None:
                return int(epoch)
            left = deadline - time.monotonic()
            if left <= 0:
                raise JournalBusy("the player's journal is held by another call")
            # Jittered, so two waiters on one player do not poll in step.
            await asyncio.sleep(min(left, pause * random.uniform(0.5, 1.0)))
            pause = min(pause * 2, _LEASE_POLL_MAX_S)

    async def _release(self, conn: asyncpg.Connection, player_key: str, epoch: int, *,
                       holder: str = "") -> None:
        try:
            if conn.is_in_transaction():  # a failed commit left it open; the lease expires
                return
            if holder:  # only if it is still as the write whose answer was lost left it
                await conn.execute(Q_RELEASE_LEASE_HELD_BY, PLAYER_LEASE, player_key, epoch,
                                   holder)
            elif self._advisory:
                await conn.execute(Q_RELEASE_AND_UNLOCK, PLAYER_LEASE, player_key, epoch,
                                   _PLAYER_LOCK_CLASS)
                self.may_hold_lock.discard(conn.get_server_pid())
            else:
                await conn.execute(Q_RELEASE_LEASE, PLAYER_LEASE, player_key, epoch)
        except DRIVER_ERRORS as exc:
            # (InterfaceError also when the connection died and the pool took it back.) The
            # call's own outcome stands; the lease expires on its own (or, in session mode, the
            # next call takes it anyway).
            log.warning("lease on %s not released (it expires): %s", player_key, exc)
