"""The shared tables' journal contract's helpers (tests/integration/test_table_journal*_contract.py,
test_table_behind_rows_contract.py and test_table_live_insurance_contract.py): the adapter
under test (the tables' journal and the solo journal beside it), the table and players the
cases use, and short ways to write and read money rows, requests, rounds and transitions. The
``adapter`` fixture that builds one (memory, PostgreSQL, PostgreSQL behind PgBouncer) is in
tests/integration/conftest.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import asyncpg

from rgs.journal.memory_tables import InMemoryTables
from rgs.journal.migrate import SCHEMA
from rgs.journal.table_statements import turn_lock
from rgs.service.model import Movement, MovementStatus, StoredRequest
from rgs.service.ports import Journal
from rgs.service.tables.model import (
    StoredTable,
    TablePhase,
    TableState,
)
from rgs.service.tables.ports import (
    Found,
    Guards,
    RoundRecord,
    TableJournal,
    TableWrite,
)
from rgs.wallet.port import MoneyKind

FreshDatabase = Callable[[str], Awaitable[str]]

T = "vip-1"
ANN, BOB, CY = "op/ann", "op/bob", "op/cy"
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@dataclass
class Adapter:
    """One adapter under test: the tables' journal and the solo journal beside it."""

    name: str
    tables: TableJournal
    journal: Journal
    #: The PostgreSQL database's URL ("" in memory).
    url: str = ""

    @asynccontextmanager
    async def row_locked(self, table_id: str) -> AsyncIterator[None]:
        """The table's row locked by another transaction (another replica's transition)."""
        if isinstance(self.tables, InMemoryTables):
            async with self.tables.lock(table_id):
                yield
            return
        conn = await asyncpg.connect(self.url, statement_cache_size=0)
        try:
            async with conn.transaction():
                await conn.execute(f"SELECT 1 FROM {SCHEMA}.game_tables WHERE table_id = $1 "
                                   "FOR UPDATE", table_id)
                await conn.execute(turn_lock(table_id, shared=False))
                yield
        finally:
            await conn.close()


# --------------------------------------------------------------------------- helpers


def debit_row(txn: str, round_id: str, amount: int = 1000, brand: str = "b") -> Movement:
    return Movement(transaction_id=txn, round_id=round_id, kind=MoneyKind.DEBIT, amount=amount,
                    session_id="s1", currency="EUR", brand_id=brand)


def credit_row(txn: str, round_id: str, amount: int = 2000, brand: str = "b") -> Movement:
    return replace(debit_row(txn, round_id, amount, brand), kind=MoneyKind.CREDIT)


async def record_row(a: Adapter, key: str, m: Movement,
                  status: MovementStatus | None = None, balance: int | None = None) -> None:
    """Write an outbox row as a solo call does (under the player's journal)."""
    async with a.journal.player(key) as pj:
        await pj.record_movement(m)
        if status is not None:
            await pj.settle_movement(m.transaction_id, status, balance, error="")


async def rows_of(a: Adapter, key: str, round_id: str) -> list[tuple[str, str, int, str, Any]]:
    """(transaction, kind, amount, status, balance) of a player's rows in a round, in order."""
    return [(m.transaction_id, m.kind.value, m.amount, m.status.value, m.balance_after)
            for m in await a.journal.movements(key, round_id)]


def request_of(rid: str, seq: int = 1) -> StoredRequest:
    return StoredRequest(request_id=rid, method="place_bets", request_hash=f"h-{rid}",
                         response=json.dumps({"seq": seq}))


def round_record(round_id: str, status: str = "settled", **more: Any) -> RoundRecord:
    return RoundRecord(round_id=round_id, round_no=more.pop("round_no", 1),
                       variant="vip-platinum", status=status,
                       events=more.pop("events", (("deal", json.dumps({"card": "AS"})),)),
                       **more)


def events_of(*kinds: str) -> list[tuple[str, str]]:
    return [(k, json.dumps({"n": i, "kind": k})) for i, k in enumerate(kinds)]


async def write_table(a: Adapter, w: TableWrite, guards: Guards | None = None,
                 table_id: str = T) -> int:
    """One transition writing ``w`` (on a link of its own)."""
    async with a.tables.link() as link:
        return await link.transition(table_id, guards or Guards(), lambda *_: w)


async def found_of(a: Adapter, guards: Guards, table_id: str = T) -> Found:
    """What a transition's guards find (its apply writes nothing)."""
    seen: list[Found] = []

    def apply(_t: StoredTable, _r: RoundRecord | None, found: Found) -> None:
        seen.append(found)

    async with a.tables.link() as link:
        await link.transition(table_id, guards, apply)
    return seen[0]


async def state_seen(a: Adapter, then: Callable[[TableState], TableState] | None = None
                     ) -> TableState:
    """The state a transition sees (rows of their own merged in); it writes ``then`` of it
    (None: nothing)."""
    seen: list[TableState] = []

    def apply(t: StoredTable, _r: RoundRecord | None, _f: Found) -> TableWrite | None:
        seen.append(t.state)
        return None if then is None else TableWrite(state=then(t.state))

    async with a.tables.link() as link:
        await link.transition(T, Guards(), apply)
    return seen[0]


async def table_in(a: Adapter, state: TableState) -> None:
    """The table written with ``state`` (created first if need be)."""
    await a.tables.ensure_table(T, TableState())
    async with a.tables.link() as link:
        await link.transition(T, Guards(), lambda *_: TableWrite(state=state))


BETTING = TableState(phase=TablePhase.BETTING, round_no=1, round_id="r1", next_seed="aa")


