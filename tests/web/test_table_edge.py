"""The shared tables on the browser edge over real HTTP (httpx): a round played in the Connect
protocol by two players of two operators, the WatchTable server stream and its resume from an
event number, the same codes and ErrorInfo as native gRPC, CORS per brand, and the operator's
recall kept off the browser edge."""

from __future__ import annotations

import asyncio
import json
import re
import struct
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
from test_connect_edge import SERVICE as PLAYER_SERVICE
from test_connect_edge import connect_error
from web_stack import OTHER_ORIGIN, START, STUDIO_ORIGIN, Web

from rgs.api.browser_edge.connect import WebError, _until
from support.tables import shown_as

pytestmark = pytest.mark.asyncio(loop_scope="session")

SERVICE = "rgs.table.v1.TableService"
WATCH_METHOD = f"{SERVICE}/WatchTable"
#: seat 1: 6 5 (doubles onto T); seat 3: T 9; dealer 9, hole 7, then draws T and busts.
CARDS = ["6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC"]


async def call(web: Web, method: str, body: dict[str, Any], token: str | None = None,
               origin: str | None = None) -> httpx.Response:
    """One unary table call in the Connect protocol with JSON, as connect-web sends it."""
    headers = {"content-type": "application/json", "connect-protocol-version": "1"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    if origin is not None:
        headers["origin"] = origin
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        return await client.post(f"/{SERVICE}/{method}", json=body, headers=headers)


async def ok(web: Web, method: str, body: dict[str, Any], token: str) -> dict[str, Any]:
    resp = await call(web, method, body, token)
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


async def watch(web: Web, table_id: str, token: str, *, from_seq: int | None = None,
                origin: str | None = None) -> AsyncIterator[dict[str, Any]]:
    """WatchTable as a Connect server stream (enveloped JSON over HTTP/1.1): each message, then
    the end-of-stream message's error (raised as AssertionError) if any."""
    body: dict[str, Any] = {"tableId": table_id}
    if from_seq is not None:
        body["fromSeq"] = str(from_seq)
    raw = json.dumps(body).encode()
    headers = {"content-type": "application/connect+json", "connect-protocol-version": "1",
               "authorization": f"Bearer {token}"}
    if origin is not None:
        headers["origin"] = origin
    async with httpx.AsyncClient(base_url=web.base_url, timeout=30) as client, client.stream(
            "POST", f"/{SERVICE}/WatchTable", headers=headers,
            content=struct.pack(">BI", 0, len(raw)) + raw) as resp:
        assert resp.status_code == 200
        buf = b""
        async for chunk in resp.aiter_bytes():
            buf += chunk
            while len(buf) >= 5:
                flags, size = struct.unpack(">BI", buf[:5])
                if len(buf) < 5 + size:
                    break
                message, buf = json.loads(buf[5:5 + size]), buf[5 + size:]
                if flags & 0x02:  # end of stream
                    if "error" in message:
                        raise StreamError(message["error"])
                    return
                yield message


class StreamError(AssertionError):
    """A stream's end with an error (Connect's end-of-stream message)."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message", ""))
        self.error = error


def kind_of(event: dict[str, Any]) -> str:
    """An event's kind as JSON carries it: its one field besides ``seq`` and ``at``
    (``roundFinished`` → ``round_finished``)."""
    name = next((k for k in event if k not in ("seq", "at")), "")
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


async def events_until(web: Web, table_id: str, token: str, kind: str, *,
                       from_seq: int | None = None) -> list[dict[str, Any]]:
    """The events of a watch (from ``from_seq``) up to the first of ``kind``."""
    out: list[dict[str, Any]] = []
    async with asyncio.timeout(30):
        async for item in watch(web, table_id, token, from_seq=from_seq):
            if "event" in item:
                out.append(item["event"])
                if kind_of(item["event"]) == kind:
                    return out
    raise AssertionError(f"no {kind} event in {[kind_of(e) for e in out]}")


async def snapshot(web: Web, table_id: str, token: str) -> tuple[int, dict[str, Any]]:
    async for item in watch(web, table_id, token):
        snap = item["snapshot"]
        return int(snap.get("seq", 0)), dict(snap)
    raise AssertionError("no snapshot")


async def test_two_operators_players_play_a_table_round_in_the_browser_protocol(
        web: Web) -> None:
    tid = "vip-edge"
    a = await web.new_player()
    b = await web.new_player(operator="other-operator")
    ta, tb_ = await web.session_token(a), await web.session_token(b, brand="other-casino")
    listed = await ok(web, "ListTables", {}, tb_)
    assert {t["tableId"] for t in listed["tables"]} >= {"vip-1", tid}
    vip = next(t for t in listed["tables"] if t["tableId"] == tid)
    assert (vip["variantId"], vip["seats"], vip["mainMin"]) == ("vip-platinum", 7, "1000")
    _, before = await snapshot(web, tid, ta)
    first_seq = int((await ok(web, "TakeSeat", {"requestId": "s", "tableId": tid, "seat": 1},
                              ta))["result"]["seq"])
    await ok(web, "TakeSeat", {"requestId": "s", "tableId": tid, "seat": 3}, tb_)
    # A watcher from before the first bet: everything of the round A may see.
    whole = asyncio.create_task(events_until(web, tid, ta, "round_finished",
                                             from_seq=first_seq))
    await ok(web, "PlaceBets", {"requestId": "b", "tableId": tid,
                                "bets": [{"seat": 1, "stake": "1000"}]}, ta)
    assert await web.wallet_balance(a) == START - 1000
    await ok(web, "PlaceBets", {"requestId": "b", "tableId": tid, "bets": [
        {"seat": 3, "stake": "1000"},
        {"seat": 1, "stake": "1000", "behind": True, "followDouble": True,
         "insurance": "BEHIND_INSURANCE_NEVER"}]}, tb_)
    assert await web.wallet_balance(b, "other-operator") == START - 2000
    await ok(web, "DealNow", {"requestId": "d", "tableId": tid, "forcedCards": CARDS}, ta)
    await ok(web, "DealNow", {"requestId": "d", "tableId": tid}, tb_)
    dealt = await events_until(web, tid, tb_, "decision_due", from_seq=first_seq)
    _, state = await snapshot(web, tid, tb_)
    rid = state["roundId"]
    assert {s["seat"] for s in state["seats"]} == {1, 3}
    # B (other-operator) sees its own seat as "you" and A by a pseudonym, never A's id.
    assert {s["seat"]: s["player"] for s in state["seats"]} == {
        1: {"displayName": shown_as(tid, "dev-operator", a)},
        3: {"displayName": shown_as(tid, "other-operator", b), "you": True}}
    await ok(web, "Act", {"requestId": "x", "tableId": tid, "roundId": rid, "seat": 1,
                          "hand": 0, "action": "double"}, ta)
    # The watcher drops its stream here and resumes from the last number it saw.
    await events_until(web, tid, tb_, "decision_due", from_seq=dealt[-1]["seq"])
    await ok(web, "Act", {"requestId": "x", "tableId": tid, "roundId": rid, "seat": 3,
                          "hand": 0, "action": "ACTION_STAND"}, tb_)
    rest = await events_until(web, tid, tb_, "round_finished", from_seq=dealt[-1]["seq"])
    seen = await whole
    # A is not sent B's Bet Behind's events: the numbers B saw, less those, and nothing else.
    b_behind = {e["seq"] for e in (*dealt, *rest)
                if any(k.startswith("behind") and k != "behindTotals" for k in e)}
    assert b_behind
    assert [e["seq"] for e in seen] == [e["seq"] for e in (*dealt, *rest)
                                        if e["seq"] not in b_behind]
    assert [e["seq"] for e in (*dealt, *rest)] == [
        str(n) for n in range(first_seq + 1, first_seq + 1 + len(dealt) + len(rest))]
    results = {(r["player"]["displayName"], r["player"].get("you", False)):
               (int(r["staked"]), int(r["paid"])) for r in seen[-1]["roundFinished"]["results"]}
    # A: 2000 (doubled) paid 4000; B: seat 3 1000 paid 2000, behind 1000 doubled paid 4000.
    assert results == {(shown_as(tid, "dev-operator", a), True): (2000, 4000),
                       (shown_as(tid, "other-operator", b), False): (3000, 6000)}
    assert not any(b in json.dumps(e) for e in seen)  # A's page never got B's id
    assert await web.wallet_balance(a) == START + 2000
    assert await web.wallet_balance(b, "other-operator") == START + 3000
    assert before.get("seats", []) == []
    # every stream above was counted when it ended, apart from the unary calls
    async with httpx.AsyncClient(timeout=10) as client:
        page = (await client.get(web.metrics_url)).text
    ended = sum(float(line.rsplit(" ", 1)[1]) for line in page.splitlines()
                if line.startswith('rgs_rpc_streams_total{') and WATCH_METHOD in line)
    assert ended >= 5
    assert f'rgs_rpc_stream_messages_sent_total{{method="{WATCH_METHOD}"}}' in page


async def test_table_refusals_carry_the_same_error_info_and_cors_is_per_brand(
        web: Web) -> None:
    tid = "vip-edge-errors"
    a = await web.new_player()
    ta = await web.session_token(a)
    await ok(web, "TakeSeat", {"requestId": "s", "tableId": tid, "seat": 2}, ta)
    own = await call(web, "PlaceBets", {"requestId": "b", "tableId": tid, "bets": [
        {"seat": 2, "stake": "1000", "behind": True}]}, ta)
    code, info = connect_error(own)
    assert (code, info.reason) == ("failed_precondition", "BET_BEHIND_OWN_SEAT")
    assert await web.wallet_balance(a) == START
    code, info = connect_error(await call(web, "TakeSeat", {
        "requestId": "t", "tableId": "no-such-table", "seat": 1}, ta))
    assert (code, info.reason) == ("not_found", "TABLE_NOT_FOUND")
    code, info = connect_error(await call(web, "ListTables", {}, "not-a-token"))
    assert code == "unauthenticated"
    # The studio's origin its brand allows gets CORS headers; the other brand's is refused.
    allowed = await call(web, "ListTables", {}, ta, origin=STUDIO_ORIGIN)
    assert allowed.headers["access-control-allow-origin"] == STUDIO_ORIGIN
    code, info = connect_error(await call(web, "ListTables", {}, ta, origin=OTHER_ORIGIN))
    assert (code, info.reason) == ("permission_denied", "ORIGIN_NOT_ALLOWED")
    with pytest.raises(StreamError) as refused:
        async for _ in watch(web, tid, ta, origin=OTHER_ORIGIN):
            pass
    assert refused.value.error["code"] == "permission_denied"
    # Recall is the operator's, over native gRPC only.
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        recall = await client.post(f"/{SERVICE}/GetTableRound", json={},
                                   headers={"content-type": "application/json"})
    assert recall.status_code == 404
    assert PLAYER_SERVICE != SERVICE


async def test_a_table_stream_ends_shutting_down_when_the_edge_stops() -> None:
    """The drain: a watcher's stream ends at once with UNAVAILABLE / SERVER_SHUTTING_DOWN (its
    client resumes elsewhere from the last number it saw) instead of holding the shutdown."""
    stopping = asyncio.Event()
    closed = asyncio.Event()

    async def table_events() -> AsyncIterator[Any]:
        try:
            yield "first"
            await asyncio.sleep(3600)
            yield "never"
        finally:
            closed.set()

    seen: list[Any] = []
    with pytest.raises(WebError) as ended:
        async with asyncio.timeout(5):
            async for item in _until(table_events(), stopping):
                seen.append(item)
                stopping.set()
    assert seen == ["first"] and closed.is_set()
    assert (ended.value.grpc_code, ended.value.reason) == (grpc.StatusCode.UNAVAILABLE,
                                                           "SERVER_SHUTTING_DOWN")
