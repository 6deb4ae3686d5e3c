"""A round's payments on PostgreSQL, many players at once (:class:`~rgs.service.tables.ports.
HeldMany`): their leases taken in one statement (:meth:`rgs.journal.leases.PlayerHolds.
hold_many`), their open outbox rows read in one, the wallet's answers recorded in one (each
player's row written only while its lease still has the epoch taken), the leases given back in
one. A settlement of a thousand Bet Behinds costs a handful of statements, not four thousand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta

import asyncpg

from rgs.journal.leases import PLAYER_LEASE
from rgs.journal.rows import row_movement as _movement
from rgs.journal.statements import MOVEMENT_COLUMNS, OPEN_MOVEMENT, ROLLED_BACK_DEBIT
from rgs.journal.translate import translated
from rgs.service.model import Movement
from rgs.service.tables.ports import Outcome

# The open outbox rows of many players ($1: keys), oldest first.
Q_OPEN_ROWS = f"""
SELECT player_key, {MOVEMENT_COLUMNS} FROM wallet_transactions
WHERE player_key = ANY($1::text[]) AND {OPEN_MOVEMENT}
ORDER BY player_key, created_at, transaction_id"""

# Many wallet answers ($1-$6: key, transaction, status, balance, error, wallet reference) for
# the players whose lease still has its epoch ($7: keys, $8: epochs; each pushed on by $9, as
# a single player's write does): the keys whose lease held. An applied rollback's debit is
# marked rolled back by the same statement (ROLLED_BACK_DEBIT).
Q_SETTLE_ROWS = f"""
WITH lease AS (UPDATE leases l SET expires_at = clock_timestamp() + $9::interval
                 FROM unnest($7::text[], $8::bigint[]) AS h(key, epoch)
                WHERE l.kind = '{PLAYER_LEASE}' AND l.key = h.key AND l.epoch = h.epoch
                  AND l.holder IS NOT NULL
               RETURNING l.key),
     o AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[],
                                $6::text[]) AS o(key, txn, status, balance, error, ref)
            WHERE o.key IN (SELECT key FROM lease)),
     w AS (UPDATE wallet_transactions t
              SET status = o.status, balance_after = COALESCE(o.balance, t.balance_after),
                  wallet_reference = COALESCE(NULLIF(o.ref, ''), t.wallet_reference),
                  updated_at = clock_timestamp(),
                  attempts = t.attempts + CASE WHEN o.error IS NULL THEN 0 ELSE 1 END,
                  last_error = COALESCE(o.error, t.last_error)
             FROM o WHERE t.player_key = o.key AND t.transaction_id = o.txn
           RETURNING t.player_key, t.kind, t.debit_transaction_id, t.status),
     rb AS ({ROLLED_BACK_DEBIT})
SELECT key FROM lease"""


class PostgresHeldMany:
    """Players held on one connection by :meth:`PlayerHolds.hold_many`."""

    def __init__(self, conn: asyncpg.Connection, epochs: Mapping[str, int],
                 ttl: timedelta) -> None:
        self._conn = conn
        self._epochs = dict(epochs)
        self._ttl = ttl

    @property
    def epochs(self) -> Mapping[str, int]:
        return self._epochs

    @translated
    async def open_movements(self) -> dict[str, list[Movement]]:
        out: dict[str, list[Movement]] = {k: [] for k in self._epochs}
        if self._epochs:
            for r in await self._conn.fetch(Q_OPEN_ROWS, list(self._epochs)):
                out[r["player_key"]].append(_movement(r))
        return out

    @translated
    async def settle(self, outcomes: Sequence[Outcome]) -> frozenset[str]:
        keys = sorted({o.key for o in outcomes} & set(self._epochs))
        if not keys:
            return frozenset(o.key for o in outcomes)
        kept = {r["key"] for r in await self._conn.fetch(
            Q_SETTLE_ROWS, [o.key for o in outcomes], [o.transaction_id for o in outcomes],
            [o.status.value for o in outcomes], [o.balance_after for o in outcomes],
            [o.error for o in outcomes], [o.wallet_reference for o in outcomes],
            keys, [self._epochs[k] for k in keys], self._ttl)}
        return frozenset(o.key for o in outcomes) - kept
