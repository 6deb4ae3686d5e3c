"""Hundreds of Bet Behinds at one table, placed at the same instant (issue 27).

Two RGS replicas; seven seated players and three hundred Bet Behind players of two operators
send PlaceBets at one barrier. Every bet stands, each player sees their own Bet Behind and every
seat's totals, a watcher of one operator never receives the other operator's player ids, and
after the round every wallet is exact to the cent (read from the wallets).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from test_tables_burst_e2e import (
    STAKE,
    P,
    _deal,
    _ok,
    _only_rules,
    _players,
    _snapshot,
    _stand_out,
    _wallets,
    at_once,
)
from test_tables_e2e import START, Tables, _table, tables_stack

from rgs.generated.table.v1 import table_pb2 as tb
from support.databases import DatabaseTemplates

pytestmark = pytest.mark.asyncio(loop_scope="session")

BEHIND = 300
TID = "vip-many"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def many(database_templates: DatabaseTemplates, tmp_path_factory: Any
               ) -> AsyncIterator[Tables]:
    # (Admission control would turn some of 300 calls at once away as OVERLOADED: not what is
    # tested here.)
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("many")), [
            _table(TID, betting_s=60.0, decision_s=20.0)], replicas=2,
            env={"RGS_MAX_IN_FLIGHT": "1024"}) as t:
        yield t


async def _watch(t: Tables, p: P, got: list[bytes], closed: asyncio.Event) -> None:
    """Every message of one stream of ``p``'s, as bytes, until ``closed``."""
    call = t.tables[p.replica].WatchTable(tb.WatchTableRequest(table_id=TID), metadata=p.md)
    with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
        async for item in call:
            got.append(item.SerializeToString())
            if closed.is_set():
                break
    call.cancel()


async def test_three_hundred_bets_behind_at_once_stand_privately_and_to_the_cent(
        many: Tables) -> None:
    t = many
    seated = await _players(t, 7, operators=("dev-operator", "other-operator"))
    behind = await _players(t, BEHIND, operators=("dev-operator", "other-operator"))
    watcher = next(p for p in behind if p.operator == "other-operator")
    got: list[bytes] = []
    closed = asyncio.Event()
    watching = asyncio.create_task(_watch(t, watcher, got, closed))
    assert _ok(await at_once([lambda p=p, n=n: t.tables[p.replica].TakeSeat(tb.TakeSeatRequest(
        request_id="seat", table_id=TID, seat=n), metadata=p.md)
        for n, p in enumerate(seated, start=1)])) == 7
    bets = await at_once(
        [lambda p=p, n=n: t.tables[p.replica].PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=TID, bets=[tb.Bet(seat=n, stake=STAKE)]),
            metadata=p.md, timeout=60) for n, p in enumerate(seated, start=1)]
        + [lambda p=p, i=i: t.tables[p.replica].PlaceBets(tb.PlaceBetsRequest(
            request_id="bet", table_id=TID, bets=[tb.Bet(
                seat=1 + i % 7, stake=STAKE * (1 + i % 3), behind=True)]),
            metadata=p.md, timeout=60) for i, p in enumerate(behind)])
    _only_rules(bets)
    assert _ok(bets) == 7 + BEHIND
    stakes = {p.pid: STAKE * (1 + i % 3) for i, p in enumerate(behind)}
    # Each Bet Behind's answer shows its own player's Bet Behind and no one else's.
    for i, (p, o) in enumerate(zip(behind, bets[7:], strict=True)):
        own = [(b.seat, b.stake, b.player.you) for b in o.answer.result.snapshot.behind]
        assert own == [(1 + i % 7, stakes[p.pid], True)]
        assert o.answer.result.balance == START - stakes[p.pid]
    # A fresh look shows every seat's totals, exact.
    snap = await _snapshot(t, watcher, TID)
    want = dict.fromkeys(range(1, 8), (0, 0))
    for i, p in enumerate(behind):
        n, total = want[1 + i % 7]
        want[1 + i % 7] = (n + 1, total + stakes[p.pid])
    assert {int(x["seat"]): (int(x["bettors"]), int(x["staked"]))
            for x in snap["behind_totals"]} == want
    assert [b["stake"] for b in snap["behind"]] == [str(stakes[watcher.pid])]

    # Every seat 20, the dealer's 6 and 10 draw a 10 and bust: every bet wins even money.
    assert _ok(await at_once([lambda p=p, n=n: t.tables[p.replica].DealNow(tb.DealNowRequest(
        request_id="deal", table_id=TID,
        forced_cards=_deal(7, "6H", "TS", "TH", "TD", "TC") if n == 1 else []),
        metadata=p.md) for n, p in enumerate(seated, start=1)])) == 7
    await _stand_out(t, dict(enumerate(seated, start=1)), TID)
    want_wallets = {p.pid: START + STAKE for p in seated}
    want_wallets |= {p.pid: START + stakes[p.pid] for p in behind}
    await _wallets(t, want_wallets, [*seated, *behind], timeout=90)
    closed.set()
    await _snapshot(t, seated[0], TID)  # (one more event after `closed` ends the stream)
    watching.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watching
    # The other operator's watcher received the round (and totals), never a dev-operator
    # player's id; nor any other Bet Behind player's own lines.
    received = b"".join(got)
    assert len(got) > 10
    leaked = [p.pid for p in (*seated, *behind)
              if p.operator == "dev-operator" and p.pid.encode() in received]
    assert leaked == []
    items = [tb.WatchTableResponse.FromString(m) for m in got]
    finished = [i.event.round_finished for i in items
                if i.HasField("event") and i.event.HasField("round_finished")]
    # The round's results: the seven seats' and the watcher's own, not three hundred lines.
    assert len(finished) == 1 and len(finished[0].results) == 8
    assert [r.paid for r in finished[0].results if r.player.you] == [2 * stakes[watcher.pid]]
    assert any(i.HasField("event") and i.event.HasField("behind_totals") for i in items)
