"""Rows of the table journal's statements turned into the tables' values, and the table
states this replica decoded, kept by version (split from :mod:`rgs.journal.tables`)."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import orjson

from rgs.codec import decode_value, from_jsonable
from rgs.journal.table_statements import Q_GET_ROUND, Q_LOAD, Q_ROUND_PLAYERS
from rgs.service.model import StoredRequest
from rgs.service.tables.model import (
    Behind,
    InsuranceChoice,
    StoredTable,
    TableFair,
    TableState,
)
from rgs.service.tables.ports import Bettor, RoundRecord


class States:
    """The newest states of each table this replica decoded, by version: a table with a
    hundred Bet Behinds is a document of tens of kilobytes, read by every command, and it
    changes only with its version."""

    #: Versions kept per table (commands of one replica read a few versions at once).
    KEEP = 4

    def __init__(self) -> None:
        self._by_table: dict[str, dict[int, TableState]] = {}

    def newest(self, table_id: str) -> int:
        """The newest version decoded (-1: none)."""
        kept = self._by_table.get(table_id)
        return max(kept) if kept else -1

    def keep(self, table_id: str, version: int, state: TableState) -> None:
        """A state read or written by this replica (its next read needs no decoding)."""
        kept = self._by_table.setdefault(table_id, {})
        kept[version] = state
        while len(kept) > self.KEEP:
            del kept[min(kept)]

    async def load(self, conn: Any, table_id: str, query: str = Q_LOAD) -> StoredTable | None:
        """The table's row by ``query`` (:data:`Q_LOAD` or :data:`Q_LOCK`)."""
        r = await conn.fetchrow(query, table_id, self.newest(table_id))
        return None if r is None else await self.of_row(conn, table_id, r)

    async def of_row(self, conn: Any, table_id: str, r: asyncpg.Record) -> StoredTable:
        """The table of a row with ``version``, ``last_seq`` and ``state`` (NULL when it was
        the newest version kept)."""
        version = r["version"]
        if r["state"] is not None:
            state = decode_value(TableState, r["state"])
            self.keep(table_id, version, state)
        else:
            kept = self._by_table.get(table_id, {}).get(version)
            if kept is None:  # dropped meanwhile by newer ones: read it whole
                whole = await conn.fetchrow(Q_LOAD, table_id, -1)
                assert whole is not None
                version, state = whole["version"], decode_value(TableState, whole["state"])
                self.keep(table_id, version, state)
                return StoredTable(table_id=table_id, version=version,
                                   last_seq=whole["last_seq"], state=state)
            state = kept
        return StoredTable(table_id=table_id, version=version, last_seq=r["last_seq"],
                           state=state)


def behind_rows_of(text: str | None) -> tuple[Behind, ...]:
    """Bet Behind rows from a JSON array of their ``bet`` documents."""
    return () if text is None else tuple(from_jsonable(Behind, b) for b in orjson.loads(text))


def insurance_rows_of(text: str | None) -> tuple[InsuranceChoice, ...]:
    """Live insurance decision rows from a JSON array of their ``choice`` documents."""
    return () if text is None else tuple(from_jsonable(InsuranceChoice, c)
                                         for c in orjson.loads(text))


def request_of(r: asyncpg.Record | None) -> StoredRequest | None:
    if r is None:
        return None
    return StoredRequest(request_id=r["request_id"], method=r["method"],
                         request_hash=r["request_hash"], response=r["response"])


async def read_round(conn: Any, round_id: str) -> RoundRecord | None:
    """A table round with its players' shares, read on ``conn`` (a connection or the pool)."""
    r = await conn.fetchrow(Q_GET_ROUND, round_id)
    if r is None:
        return None
    players = await conn.fetch(Q_ROUND_PLAYERS, round_id)
    return RoundRecord(round_id=r["round_id"], round_no=r["round_no"], variant=r["variant"],
                       status=r["status"], table_id=r["table_id"],
                       events=tuple((k, json.dumps(p)) for k, p in json.loads(r["events"])),
                       players=tuple((p["player_key"], p["operator_id"], p["staked"],
                                      p["paid"]) for p in players),
                       fair=(decode_value(TableFair, r["fair"]) if r["fair"] is not None
                             else None),
                       names=tuple((k, n) for k, n in json.loads(r["names"] or "[]")),
                       bettors=tuple(from_jsonable(Bettor, b)
                                     for b in json.loads(r["bettors"] or "[]")),
                       started_at=r["created_at"], finished_at=r["finished_at"])
