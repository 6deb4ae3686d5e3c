"""RTP monitoring per channel (docs/rtp-monitoring.md): a round played over the browser edge
and one over native gRPC, solo and at a shared table, each land in their own channel, from
the journal the real server wrote, through the real worker."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import grpc
import httpx
import pytest
from test_connect_edge import call
from web_stack import Web

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.migrate import SCHEMA
from rgs.rtp.worker import RtpWorker

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE_SERVICE = "rgs.table.v1.TableService"


async def _browser_round(web: Web, token: str) -> str:
    """A solo round over the browser edge (Connect, JSON), insurance declined, stood."""
    resp = await call(web, "Deal", {"requestId": "rtp-d", "variantId": "classic-resplit",
                                    "boxes": [{"seat": 1, "stake": "1000"}]}, token)
    assert resp.status_code == 200, resp.text
    view = resp.json()["round"]
    n = 0
    while view["status"] != "ROUND_STATUS_SETTLED":
        to_act = view.get("toAct", {})
        action = ("ACTION_DECLINE_INSURANCE" if view["status"] == "ROUND_STATUS_INSURANCE"
                  else "ACTION_STAND")
        n += 1
        resp = await call(web, "Act", {
            "requestId": f"rtp-a{n}", "roundId": view["roundId"], "expectedSeq": view["seq"],
            "seat": to_act.get("seat", 1), "hand": to_act.get("hand", 0), "action": action},
            token)
        assert resp.status_code == 200, resp.text
        view = resp.json()["round"]
    return str(view["roundId"])


async def _grpc_round(web: Web, token: str) -> str:
    """The same over native gRPC."""
    md = (("authorization", f"Bearer {token}"),)
    view = (await web.game.Deal(bj.DealRequest(
        request_id="rtp-d", variant_id="classic-resplit",
        boxes=[bj.BoxBet(seat=1, stake=1000)]), metadata=md)).round
    n = 0
    while view.status != bj.ROUND_STATUS_SETTLED:
        action = (bj.ACTION_DECLINE_INSURANCE if view.status == bj.ROUND_STATUS_INSURANCE
                  else bj.ACTION_STAND)
        n += 1
        view = (await web.game.Act(bj.ActRequest(
            request_id=f"rtp-a{n}", round_id=view.round_id, expected_seq=view.seq,
            seat=view.to_act.seat or 1, hand=view.to_act.hand, action=action),
            metadata=md)).round
    return view.round_id


async def _connect_table(web: Web, method: str, body: dict[str, Any], token: str) -> None:
    headers = {"content-type": "application/json", "connect-protocol-version": "1",
               "authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        resp = await client.post(f"/{TABLE_SERVICE}/{method}", json=body, headers=headers)
    assert resp.status_code == 200, resp.text


async def _table_round(web: Web, conn: asyncpg.Connection, browser: str, native: str
                       ) -> str:
    """A round at vip-rtp: seat 1 bet over the browser edge, seat 4 and a Bet Behind on seat 1
    over native gRPC (their decisions time out: stand)."""
    table = "vip-rtp"
    await _connect_table(web, "TakeSeat", {"requestId": "s", "tableId": table, "seat": 1},
                         browser)
    await _connect_table(web, "PlaceBets", {"requestId": "b", "tableId": table,
                                            "bets": [{"seat": 1, "stake": "1000"}]}, browser)
    md = (("authorization", f"Bearer {native}"),)
    async with grpc.aio.insecure_channel(web.stack.replicas[0].target) as channel:
        tables = table_pb2_grpc.TableServiceStub(channel)
        await tables.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=table, seat=4),
                              metadata=md)
        await tables.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=table, bets=[
            tb.Bet(seat=4, stake=2000), tb.Bet(seat=1, stake=1000, behind=True)]), metadata=md)
        await tables.DealNow(tb.DealNowRequest(request_id="dn", table_id=table), metadata=md)
    await _connect_table(web, "DealNow", {"requestId": "dn", "tableId": table}, browser)
    for _ in range(300):
        row = await conn.fetchrow("SELECT round_id, status FROM table_rounds "
                                  "WHERE table_id = $1", table)
        if row is not None and row["status"] == "settled":
            return str(row["round_id"])
        await asyncio.sleep(0.1)
    raise AssertionError(f"the round at {table} did not settle within 30 s: {row}")


async def test_a_round_over_the_browser_edge_and_one_over_grpc_land_in_their_own_channel(
        web: Web) -> None:
    a, b = await web.new_player(), await web.new_player()
    ta, tb_ = await web.session_token(a), await web.session_token(b)
    browser_round = await _browser_round(web, ta)
    grpc_round = await _grpc_round(web, tb_)
    pool = await asyncpg.create_pool(web.database_url, min_size=1, max_size=2,
                                     server_settings={"search_path": SCHEMA})
    try:
        async with pool.acquire() as conn:
            table_round = await _table_round(web, conn, ta, tb_)
            journalled = dict(await conn.fetch(
                "SELECT round_id, channel FROM rounds WHERE round_id = ANY($1)",
                [browser_round, grpc_round]))
        assert journalled == {browser_round: "browser", grpc_round: "grpc"}
        worker = RtpWorker(pool)
        later = datetime.now(UTC) + timedelta(minutes=1)
        while await worker.step(later):
            pass
        async with pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT source, round_key, brand_id, table_id, channel, base_stake "
                "FROM rtp_rounds WHERE round_key LIKE ANY($1) ORDER BY round_key",
                [f"%/{browser_round}", f"%/{grpc_round}", f"vip-rtp/{table_round}/%"])
    finally:
        await pool.close()
    got = {(r["source"], r["round_key"].split("/")[-1] if r["source"] == "solo" else "",
            r["brand_id"], r["channel"], r["base_stake"]) for r in rows}
    # The browser player's seat (1000), and the gRPC player's seat and Bet Behind (3000),
    # each under their brand and their own channel; solo rounds under theirs.
    assert got == {("solo", browser_round, "demo-casino", "browser", 1000),
                   ("solo", grpc_round, "demo-casino", "grpc", 1000),
                   ("table", "", "demo-casino", "browser", 1000),
                   ("table", "", "demo-casino", "grpc", 3000)}, rows
