"""Round replay links (OperatorService.CreateRoundReplay) and the browser edge's replay
endpoint, against a real RGS process, its sandbox wallets and PostgreSQL:

- a link opens its round as the operator's recall shows it, to the cent of the wallet; it
  carries neither the session token nor the operator key; the page is served with no referrer
  and a same-origin policy;
- a link altered anywhere, or signed with another secret, is REPLAY_LINK_INVALID; one past its
  time REPLAY_LINK_EXPIRED; a lifetime out of range INVALID_REPLAY_TTL;
- another operator cannot have a link to the round (NOT_FOUND), nor read it with its own.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import grpc
import httpx
import pytest
from google.protobuf.json_format import MessageToDict
from replay_rounds import (
    SPLIT_DOUBLE_PAID,
    SPLIT_DOUBLE_STAKED,
    play_split_double,
    read_replay,
    replay_link,
)
from web_stack import OPERATOR, OTHER_OPERATOR, START, Web

from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.service.replay import DEVELOPMENT_SECRET, ReplayLinks
from support.errors import error_reason

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _token(url: str) -> str:
    return url.split("#", 1)[1]


async def test_a_link_opens_the_round_as_recall_shows_it_with_no_token_or_key_in_it(
        web: Web) -> None:
    played = await play_split_double(web)
    before = datetime.now(UTC)
    link = await replay_link(web, played, ttl_seconds=600)
    assert link.url.startswith(f"{web.base_url}/replay#r1.")
    assert played.session_token not in link.url and "rgs-dev-operator-key" not in link.url
    assert "?" not in link.url  # the capability is in the fragment only: never sent or logged
    expires = link.expires_at.ToDatetime(UTC)
    assert before + timedelta(seconds=598) <= expires <= datetime.now(UTC) + timedelta(seconds=601)
    status, answer = await read_replay(web, _token(link.url))
    assert status == 200, answer
    recall = (await web.operator.GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=played.player_id, round_id=played.round_id),
        metadata=OPERATOR)).round
    assert answer["round"] == MessageToDict(recall)
    assert int(answer["round"]["totalStaked"]) == SPLIT_DOUBLE_STAKED
    assert int(answer["round"]["totalPaid"]) == SPLIT_DOUBLE_PAID
    assert await web.wallet_balance(played.player_id) == START - SPLIT_DOUBLE_STAKED \
        + SPLIT_DOUBLE_PAID
    assert answer["rules"]["id"] == "classic-resplit" and answer["rules"]["doubleAfterSplit"]
    assert answer["expiresAt"] == expires.isoformat().replace("+00:00", "Z")
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        page = await client.get("/replay")
        script = await client.get("/replay.js")
    assert page.status_code == 200 and "replay.js" in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert script.status_code == 200 and script.headers["content-type"].startswith(
        "text/javascript")


async def test_an_altered_or_foreign_link_is_invalid_and_an_old_one_expired(web: Web) -> None:
    played = await play_split_double(web)
    token = _token((await replay_link(web, played)).url)
    version, payload, signature = token.split(".")
    flipped = payload[:-2] + ("A" if payload[-2] != "A" else "B") + payload[-1]
    for altered in (f"{version}.{flipped}.{signature}", f"{version}.{payload}.{signature[:-1]}",
                    f"{version}.{payload}", "", "r2." + token[3:]):
        status, answer = await read_replay(web, altered)
        assert (status, answer["reason"]) == (403, "REPLAY_LINK_INVALID"), altered
    other_secret = ReplayLinks(b"another-deployment-secret", web.base_url)
    url, _ = other_secret.issue("dev-operator", "demo-casino", played.player_id,
                                played.round_id)
    status, answer = await read_replay(web, _token(url))
    assert (status, answer["reason"]) == (403, "REPLAY_LINK_INVALID")
    # A link the server itself signed an hour ago for 15 minutes (the development secret the
    # sandbox runs with): the signature holds, the time does not.
    old = ReplayLinks(DEVELOPMENT_SECRET, web.base_url,
                      clock=lambda: datetime.now(UTC) - timedelta(hours=1))
    url, _ = old.issue("dev-operator", "demo-casino", played.player_id, played.round_id, 900)
    status, answer = await read_replay(web, _token(url))
    assert (status, answer["reason"]) == (403, "REPLAY_LINK_EXPIRED")
    assert "expired" in answer["message"]
    for ttl in (59, 86401, -5):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await replay_link(web, played, ttl_seconds=ttl)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error_reason(refused.value) == "INVALID_REPLAY_TTL"
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        bad = await client.post("/replay/round", content=b"not json")
        got = await client.get("/replay/round")
    assert (bad.status_code, bad.json()["reason"]) == (400, "INVALID_REQUEST")
    assert got.status_code == 405


async def test_another_operator_gets_no_link_to_the_round(web: Web) -> None:
    played = await play_split_double(web)
    await web.new_player(operator="other-operator", player_id=played.player_id)
    for brand in ("demo-casino", "other-casino"):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await web.operator.CreateRoundReplay(op.CreateRoundReplayRequest(
                brand_id=brand, player_id=played.player_id, round_id=played.round_id),
                metadata=OTHER_OPERATOR)
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await web.operator.CreateRoundReplay(op.CreateRoundReplayRequest(
            brand_id="demo-casino", player_id="nobody", round_id=played.round_id),
            metadata=OPERATOR)
    assert error_reason(refused.value) == "ROUND_NOT_FOUND"
    # The other operator's own link naming dev-operator's round opens nothing of it.
    forged = ReplayLinks(DEVELOPMENT_SECRET, web.base_url)
    url, _ = forged.issue("other-operator", "other-casino", played.player_id, played.round_id)
    status, answer = await read_replay(web, _token(url))
    assert status == 404 and answer["reason"] == "ROUND_NOT_FOUND"
