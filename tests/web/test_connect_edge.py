"""The browser edge over real HTTP (httpx): every player RPC in the Connect protocol, the same
codes and ErrorInfo as native gRPC for the same failure, gRPC-Web framing, and CORS."""

from __future__ import annotations

import base64
import struct
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2, status_pb2
from web_stack import OTHER_ORIGIN, START, STUDIO_ORIGIN, Web

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj

pytestmark = pytest.mark.asyncio(loop_scope="session")

SERVICE = "rgs.blackjack.v1.BlackjackService"


async def call(web: Web, method: str, body: dict[str, Any], token: str | None = None,
               origin: str | None = None) -> httpx.Response:
    """One unary call in the Connect protocol with JSON, as connect-web sends it."""
    headers = {"content-type": "application/json", "connect-protocol-version": "1"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    if origin is not None:
        headers["origin"] = origin
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        return await client.post(f"/{SERVICE}/{method}", json=body, headers=headers)


def connect_error(resp: httpx.Response) -> tuple[str, error_details_pb2.ErrorInfo]:
    """(code, ErrorInfo) of a Connect error response (fails when there is no ErrorInfo)."""
    body = resp.json()
    for detail in body.get("details", []):
        if detail["type"] == "google.rpc.ErrorInfo":
            raw = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
            return body["code"], error_details_pb2.ErrorInfo.FromString(raw)
    raise AssertionError(f"no ErrorInfo in {body}")


def grpc_error(err: grpc.aio.AioRpcError) -> tuple[str, error_details_pb2.ErrorInfo]:
    """(code in Connect's spelling, ErrorInfo) of a native gRPC refusal."""
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    return err.code().name.lower(), info
    raise AssertionError(f"no ErrorInfo on {err.code()}")


async def test_every_player_rpc_plays_a_round_to_the_cent(web: Web) -> None:
    pid = await web.new_player()
    token = await web.session_token(pid)
    listed = await call(web, "ListVariants", {}, token)
    assert listed.status_code == 200, listed.text
    body = listed.json()
    assert body["currency"] == "EUR" and int(body["balance"]) == START
    assert {v["id"] for v in body["variants"]} >= {"classic-resplit", "power", "vip-platinum"}
    dealt = await call(web, "Deal", {
        "requestId": "d1", "variantId": "classic-resplit",
        "boxes": [{"seat": 1, "stake": "1000"}],
        "forcedCards": ["TS", "7H", "9D", "TC"]}, token)
    assert dealt.status_code == 200, dealt.text
    view = dealt.json()["round"]
    assert int(view["balance"]) == START - 1000
    assert view["boxes"][0]["hands"][0]["cards"] == ["TS", "9D"]
    acted = await call(web, "Act", {
        "requestId": "a1", "roundId": view["roundId"], "expectedSeq": view["seq"],
        "seat": 1, "hand": 0, "action": "ACTION_STAND"}, token)
    assert acted.status_code == 200, acted.text
    after = acted.json()["round"]
    # 19 against the dealer's 17: paid 2000 for 1000.
    assert after["status"] == "ROUND_STATUS_SETTLED"
    assert (int(after["totalStaked"]), int(after["totalPaid"])) == (1000, 2000)
    settled = await call(web, "Settle", {"requestId": "s1", "roundId": view["roundId"]}, token)
    assert settled.status_code == 200, settled.text
    got = await call(web, "GetRound", {"roundId": view["roundId"]}, token)
    assert got.json()["round"]["seq"] == after["seq"]
    balance = await call(web, "GetBalance", {}, token)
    assert int(balance.json()["balance"]) == START + 1000
    assert await web.wallet_balance(pid) == START + 1000


async def test_binary_protobuf_and_grpc_web_are_served_too(web: Web) -> None:
    token = await web.session_token(await web.new_player())
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        resp = await client.post(f"/{SERVICE}/GetBalance", content=b"", headers={
            "content-type": "application/proto", "authorization": f"Bearer {token}"})
        assert resp.status_code == 200
        assert bj.GetBalanceResponse.FromString(resp.content).balance == START
        framed = b"\x00" + struct.pack(">I", 0)
        resp = await client.post(f"/{SERVICE}/GetBalance", content=framed, headers={
            "content-type": "application/grpc-web+proto", "x-grpc-web": "1",
            "authorization": f"Bearer {token}"})
    assert resp.status_code == 200
    data = resp.content
    flags, length = data[0], struct.unpack(">I", data[1:5])[0]
    assert flags == 0
    assert bj.GetBalanceResponse.FromString(data[5:5 + length]).balance == START
    trailer = data[5 + length:]
    assert trailer[0] == 0x80
    assert b"grpc-status: 0" in trailer.lower() or b"grpc-status:0" in trailer.lower()


@pytest.mark.parametrize("failure", ["no_token", "stale_seq", "long_variant", "bad_token"])
async def test_a_failure_has_the_same_code_and_error_info_as_native_grpc(
        web: Web, failure: str) -> None:
    token = await web.session_token(await web.new_player())
    md = (("authorization", f"Bearer {token}"),)
    if failure == "stale_seq":
        dealt = (await web.game.Deal(bj.DealRequest(
            request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=100)],
            forced_cards=["TS", "6H", "9D", "7C", "9S"]), metadata=md)).round
        request = bj.ActRequest(request_id="a", round_id=dealt.round_id,
                                expected_seq=dealt.seq + 5, seat=1, action=bj.ACTION_STAND)
        body: dict[str, Any] = {"requestId": "a", "roundId": dealt.round_id,
                                "expectedSeq": str(dealt.seq + 5), "seat": 1,
                                "action": "ACTION_STAND"}
        method, native, use = "Act", web.game.Act, token
    elif failure == "long_variant":
        request = bj.DealRequest(request_id="d2", variant_id="x" * 500)
        body = {"requestId": "d2", "variantId": "x" * 500}
        method, native, use = "Deal", web.game.Deal, token
    else:
        request = bj.GetBalanceRequest()
        body = {}
        method, native = "GetBalance", web.game.GetBalance
        use = None if failure == "no_token" else "not-a-token"
        md = () if use is None else (("authorization", f"Bearer {use}"),)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await native(request, metadata=md)
    resp = await call(web, method, body, use)
    assert resp.status_code >= 400
    assert connect_error(resp) == grpc_error(err.value)
    assert resp.json()["message"] == err.value.details()


async def test_cors_preflight_answers_allowed_origins_only(web: Web) -> None:
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        ok = await client.options(f"/{SERVICE}/Deal", headers={
            "origin": STUDIO_ORIGIN, "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type, "
                                              "connect-protocol-version"})
        refused = await client.options(f"/{SERVICE}/Deal", headers={
            "origin": "http://evil.localhost:1", "access-control-request-method": "POST"})
    assert ok.status_code == 204
    assert ok.headers["access-control-allow-origin"] == STUDIO_ORIGIN
    assert "authorization" in ok.headers["access-control-allow-headers"]
    assert refused.status_code == 403
    assert "access-control-allow-origin" not in refused.headers


async def test_a_token_is_refused_from_an_origin_only_another_brand_allows(web: Web) -> None:
    token = await web.session_token(await web.new_player())  # demo-casino
    allowed = await call(web, "GetBalance", {}, token, origin=STUDIO_ORIGIN)
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == STUDIO_ORIGIN
    refused = await call(web, "GetBalance", {}, token, origin=OTHER_ORIGIN)
    code, info = connect_error(refused)
    assert (code, info.reason, info.domain) == ("permission_denied", "ORIGIN_NOT_ALLOWED", "rgs")
    unknown = await call(web, "GetBalance", {}, token, origin="http://evil.localhost:1")
    assert unknown.status_code == 403 and "access-control-allow-origin" not in unknown.headers


async def test_the_web_table_is_served_at_the_root(web: Web) -> None:
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        page = await client.get("/")
        script = await client.get("/app.js")
        missing = await client.get("/../etc/passwd")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert script.status_code == 200
    assert missing.status_code == 404


async def test_an_undecodable_request_is_malformed_request_as_on_native_grpc(web: Web) -> None:
    token = await web.session_token(await web.new_player())
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        binary = await client.post(f"/{SERVICE}/Deal", content=b"\xff\xff\xff", headers={
            "content-type": "application/proto", "authorization": f"Bearer {token}"})
        text = await client.post(f"/{SERVICE}/Deal", content=b"{not json", headers={
            "content-type": "application/json", "authorization": f"Bearer {token}"})
    for resp in (binary, text):
        assert resp.status_code == 400, resp.text
    assert binary.headers["content-type"].startswith("application/json")
    code, info = connect_error(binary)
    assert (code, info.reason) == ("invalid_argument", "MALFORMED_REQUEST")
    assert binary.json()["message"] == "the request is not a valid protobuf message"
    assert connect_error(text)[1].reason == "MALFORMED_REQUEST"
