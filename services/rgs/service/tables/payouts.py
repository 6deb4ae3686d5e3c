"""A round's payments to many players at once (a settlement of a thousand Bet Behinds).

Paid one by one, each payment took a pooled connection, its player's lease, four statements and
a wallet call in turn. Here the players are held together (:meth:`TableJournal.hold_many`: one
statement takes every free lease, on one connection), their open outbox rows are read in one
statement, the wallet is called for every row still open concurrently (at most
:data:`PER_OPERATOR` calls in flight per operator, through that operator's own wallet client
and its bulkhead), and the answers are recorded in one statement, each player's only while its
lease still has the epoch taken.

Exactly once per player: a row is sent only while its player is held and the row is still open
(a row another call settled meanwhile is not sent again), under its own transaction id (the
wallet applies a retry once). A player held by another call, or whose stakes of the round are
not resolved yet, is paid the single way (:class:`~rgs.service.tables.money.TableMoney`); what
is not confirmed stays open for the reconciler, like any outbox row.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from rgs.service import money
from rgs.service.freebets import FreeBetStore
from rgs.service.model import Movement, MovementStatus
from rgs.service.tables.ports import Outcome, TableJournal
from rgs.wallet.port import MoneyKind, Party, Wallet, WalletError

log = logging.getLogger(__name__)

#: Wallet calls in flight at once per operator, per bulk payment.
PER_OPERATOR = 16
#: Players per bulk payment (their leases last while their wallet calls run).
BULK = 250
#: Fewer players than this are paid the single way: each lease is then given back with its own
#: player's answer, so a seated player's next bet does not wait for the others' payments.
BULK_MIN = 32

Single = Callable[[Sequence[tuple[str, Movement]]], None]
"""Pays movements the single way (each under its player's journal, waited for)."""


def party_of(key: str, m: Movement) -> Party:
    """The wallet's party of a player's outbox row (the key is operator/player)."""
    operator_id, _, player_id = key.partition("/")
    return Party(operator_id=operator_id, brand_id=m.brand_id, player_id=player_id,
                 session_id=m.session_id, currency=m.currency)


def sendable(movements: Sequence[tuple[str, Movement]], held: Mapping[str, int],
             open_rows: Mapping[str, list[Movement]]
             ) -> tuple[list[tuple[str, Movement]], list[tuple[str, Movement]]]:
    """(rows to send now, as stored; movements for the single way): a player not held, or with
    a stake of the round still open (a credit waits for it), goes the single way; a row no
    longer open was settled by another call and is not sent again."""
    now: list[tuple[str, Movement]] = []
    single: list[tuple[str, Movement]] = []
    for key, m in movements:
        if key not in held:
            single.append((key, m))
            continue
        rows = open_rows.get(key, [])
        row = next((r for r in rows if r.transaction_id == m.transaction_id), None)
        if row is None:
            continue
        if m.kind is MoneyKind.CREDIT and any(
                r.round_id == m.round_id and r.kind is not MoneyKind.CREDIT for r in rows):
            single.append((key, m))
            continue
        now.append((key, row))
    return now, single


class Payouts:
    """Bulk payments of this replica's tables."""

    def __init__(self, *, wallet: Wallet, tables: TableJournal,
                 free_bets: FreeBetStore | None) -> None:
        self._wallet = wallet
        self._tables = tables
        self._free_bets = free_bets

    async def pay(self, movements: Sequence[tuple[str, Movement]], single: Single) -> None:
        """Send ``movements`` in bulks of :data:`BULK` players (fewer than :data:`BULK_MIN`:
        all to ``single``); what cannot go in bulk goes to ``single``."""
        by_key: dict[str, list[tuple[str, Movement]]] = {}
        for key, m in movements:
            by_key.setdefault(key, []).append((key, m))
        if len(by_key) < BULK_MIN:
            single(movements)
            return
        keys = sorted(by_key)
        await asyncio.gather(*(self._bulk([km for k in keys[i:i + BULK] for km in by_key[k]],
                                          single) for i in range(0, len(keys), BULK)))

    async def _bulk(self, movements: list[tuple[str, Movement]], single: Single) -> None:
        rest: list[tuple[str, Movement]] = []
        try:
            async with self._tables.hold_many([k for k, _ in movements]) as h:
                now, rest = sendable(movements, h.epochs, await h.open_movements())
                outcomes = await self._send(now)
                lost = await h.settle(outcomes)
                if lost:
                    log.warning("%d players taken over before their payments were recorded "
                                "(left for the reconciler)", len(lost))
        except Exception as exc:
            log.warning("bulk payment of %d movements left for the reconciler: %s",
                        len(movements), exc)
            return
        if rest:
            single(rest)

    async def _send(self, rows: list[tuple[str, Movement]]) -> list[Outcome]:
        """Call the wallet for every row, each operator's at most PER_OPERATOR at once."""
        gates: dict[str, asyncio.Semaphore] = {}
        calls: list[Awaitable[Outcome]] = []
        for key, m in rows:
            gate = gates.setdefault(key.partition("/")[0], asyncio.Semaphore(PER_OPERATOR))
            calls.append(self._one(gate, key, m))
        return list(await asyncio.gather(*calls))

    async def _one(self, gate: asyncio.Semaphore, key: str, m: Movement) -> Outcome:
        async with gate:
            if m.kind is MoneyKind.CREDIT and m.promotional and self._free_bets is not None:
                await self._free_bets.record_paid(m.round_id, m.amount, key)
            try:
                res = await self._wallet.move(money.wallet_call(m, party_of(key, m)))
            except WalletError as exc:
                status, balance, error = money.failure(m, exc)
                log.warning("%s %s left for the reconciler: %s", m.kind.value,
                            m.transaction_id, exc)
                return Outcome(key=key, transaction_id=m.transaction_id, status=status,
                               balance_after=balance, error=error)
        # An applied rollback's outcome marks its debit rolled back too (the journal's rule).
        return Outcome(key=key, transaction_id=m.transaction_id, status=MovementStatus.APPLIED,
                       balance_after=res.balance, error="", wallet_reference=res.wallet_reference)
