"""Reading a shared table's typed messages in tests: an event's kind, a snapshot off a stream,
how a player is named at a table, and a message as JSON (to scan every byte a client got)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from google.protobuf.json_format import MessageToJson
from google.protobuf.message import Message

from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.service.tables.public import pseudonym


def kind(e: tb.TableEvent) -> str:
    """An event's kind: the name of its field in the oneof (``bet_placed``, ``card_dealt``)."""
    return str(e.WhichOneof("event") or "")


def body(e: tb.TableEvent) -> Any:
    """An event's own message (``e.bet_placed`` for a bet)."""
    return getattr(e, kind(e))


def shown_as(table_id: str, operator: str, player_id: str) -> str:
    """How a table names a player who has no nickname."""
    return pseudonym(table_id, f"{operator}/{player_id}")


def as_json(msg: Message) -> str:
    """A message as the JSON a browser would get (every field name and value in it)."""
    return MessageToJson(msg, preserving_proto_field_name=True)


def as_dict(msg: Message) -> dict[str, Any]:
    return dict(json.loads(as_json(msg)))


def plain(snap: tb.TableSnapshot) -> dict[str, Any]:
    """A snapshot as a plain dict for a test's loop: ``phase`` as ``betting``, ``seq`` and
    ``round_no`` as ints, ``round_id``, ``seats`` and ``bets`` always there, the round's
    ``to_act`` as [seat, hand]."""
    d = as_dict(snap)
    d["phase"] = str(d.get("phase", "TABLE_PHASE_IDLE")).removeprefix("TABLE_PHASE_").lower()
    d["seq"], d["round_no"] = int(d.get("seq", 0)), int(d.get("round_no", 0))
    d.setdefault("round_id", "")
    d.setdefault("seats", [])
    d.setdefault("bets", [])
    act = (d.get("round") or {}).get("to_act")
    if act is not None:
        d["round"]["to_act"] = [act.get("seat", 0), act.get("hand", 0)]
    return d


async def snapshot(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any,
                   table_id: str) -> tb.TableSnapshot:
    """The table as the caller sees it now (the first item of a fresh stream)."""
    call = stub.WatchTable(tb.WatchTableRequest(table_id=table_id), metadata=md)
    try:
        async for item in call:
            assert item.HasField("snapshot")
            return item.snapshot
    finally:
        call.cancel()
    raise AssertionError("the stream ended without a snapshot")


async def events_until(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any, table_id: str,
                       until: str, *, from_seq: int = 0, timeout: float = 30.0
                       ) -> list[tb.TableEvent]:
    """Watch from ``from_seq`` until an event of kind ``until``; every event seen, in order."""
    out: list[tb.TableEvent] = []
    call = stub.WatchTable(tb.WatchTableRequest(table_id=table_id, from_seq=from_seq),
                           metadata=md)
    try:
        async with asyncio.timeout(timeout):
            async for item in call:
                assert item.HasField("event")
                out.append(item.event)
                if kind(item.event) == until:
                    return out
    finally:
        call.cancel()
    raise AssertionError(f"no {until} event")
