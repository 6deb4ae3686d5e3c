"""How a player's journal is held: a lease row with a fencing epoch, and in session pool mode
also the previous release's advisory lock (ops/database.md has the design and its safety
argument). The PostgreSQL journal (:mod:`rgs.journal.postgres`) takes and releases them around
a call, and fences every write with :func:`fence`.
"""

from __future__ import annotations

import asyncio
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

# One round trip: set the wait limit, then wait for the lock (select-list items run in order).
# Session mode only (see the module's docstring).
Q_LOCK_PLAYER = ("SELECT set_config('lock_timeout', $3, false), "
                 "pg_advisory_lock($1, hashtext($2))")
Q_UNLOCK_PLAYER = "SELECT pg_advisory_unlock($1, hashtext($2))"
# Take a lease when it is free or expired (or unconditionally with $5: session mode, where the
# advisory lock already excludes every live holder); the new epoch, or no row when it is held.
Q_TAKE_LEASE = """
INSERT INTO leases AS l (kind, key, holder, epoch, expires_at)
VALUES ($1, $2, $3, 1, clock_timestamp() + $4::interval)
ON CONFLICT (kind, key) DO UPDATE
   SET holder = EXCLUDED.holder, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at,
       acquired_at = clock_timestamp()
 WHERE l.holder IS NULL OR l.expires_at <= clock_timestamp() OR $5::boolean
RETURNING epoch"""
Q_RELEASE_LEASE = """
UPDATE leases SET holder = NULL, expires_at = clock_timestamp()
WHERE kind = $1 AND key = $2 AND epoch = $3"""


def fence(epoch: int, ttl: int) -> str:
    """SQL: the player's lease (key ``$1``) pushed on by ``$ttl`` if it still has the epoch
    ``$epoch``; one row when it does, none when another call took it over. Its row lock lasts
    until the statement's transaction ends, so a taker waits for the write and then finds the
    lease renewed."""
    return (f"UPDATE leases SET expires_at = clock_timestamp() + ${ttl}::interval "
            f"WHERE kind = '{PLAYER_LEASE}' AND key = $1 AND epoch = ${epoch} "
            "AND holder IS NOT NULL RETURNING epoch")


# The first statement of every transaction that commits a step.
Q_FENCE = fence(2, 3)


@dataclass(frozen=True, slots=True, kw_only=True)
class Lease:
    """A player's lease as its holder knows it: the fencing epoch and how far each write
    pushes the expiry on."""

    epoch: int
    ttl: timedelta


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
        self.holder = holder or holder_name()

    @asynccontextmanager
    async def hold(self, conn: asyncpg.Connection, player_key: str) -> AsyncIterator[Lease]:
        """Hold ``player_key`` on ``conn`` for the block; JournalBusy after the wait limit."""
        if self._advisory:
            await self._lock(conn, player_key)
        try:
            # Holding the advisory lock, no other live call has the player: take the lease
            # even from a holder that died.
            epoch = await self._take(conn, player_key, force=self._advisory)
            try:
                yield Lease(epoch=epoch, ttl=self._ttl)
            finally:
                await self._release(conn, player_key, epoch)
        finally:
            if self._advisory:
                await self._unlock(conn, player_key)

    @translated
    async def _lock(self, conn: asyncpg.Connection, player_key: str) -> None:
        await conn.execute(Q_LOCK_PLAYER, _PLAYER_LOCK_CLASS, player_key, self._lock_timeout)

    @translated
    async def _unlock(self, conn: asyncpg.Connection, player_key: str) -> None:
        if conn.is_in_transaction():  # a failed commit left it open; ends before unlocking
            return
        await conn.execute(Q_UNLOCK_PLAYER, _PLAYER_LOCK_CLASS, player_key)

    @translated
    async def _take(self, conn: asyncpg.Connection, player_key: str, *, force: bool) -> int:
        """The new epoch of the player's lease; polls while another call holds it."""
        deadline = time.monotonic() + self._wait_s
        pause = 0.002
        while True:
            epoch = await conn.fetchval(Q_TAKE_LEASE, PLAYER_LEASE, player_key, self.holder,
                                        self._ttl, force)
            if epoch is not None:
                return int(epoch)
            left = deadline - time.monotonic()
            if left <= 0:
                raise JournalBusy("the player's journal is held by another call")
            # Jittered, so two waiters on one player do not poll in step.
            await asyncio.sleep(min(left, pause * random.uniform(0.5, 1.0)))
            pause = min(pause * 2, _LEASE_POLL_MAX_S)

    async def _release(self, conn: asyncpg.Connection, player_key: str, epoch: int) -> None:
        try:
            if conn.is_in_transaction():  # a failed commit left it open; the lease expires
                return
            await conn.execute(Q_RELEASE_LEASE, PLAYER_LEASE, player_key, epoch)
        except DRIVER_ERRORS as exc:
            # (InterfaceError also when the connection died and the pool took it back.) The
            # call's own outcome stands; the lease expires on its own (or, in session mode, the
            # next call takes it anyway).
            log.warning("lease on %s not released (it expires): %s", player_key, exc)
