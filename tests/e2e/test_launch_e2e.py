"""Launch URLs and demo play against real processes (two RGS replicas, both operators' sandbox
wallets, PostgreSQL):

- CreateLaunch's URL carries a one-time launch code in its fragment, never a session token; the
  code redeems on the other replica (hashed in the journal's database), once: two concurrent
  redeems, exactly one wins; a second use, an expired code and an altered code are refused
  with a reason and what to do;
- a browser page on an origin the brand does not allow is refused before the code is spent:
  the same code then redeems from the right origin (the browser edge);
- the launch's language is kept with the session: ListVariants, ListTables and GetBalance
  answer it on any replica;
- lobby and cashier URLs must be on the brand's allowed origins, the language one of en, de,
  es; a brand's launch_url points launches at its studio's client;
- a demo launch plays with virtual money: its rounds move the demo balance, the sandbox wallets
  record nothing (balances and ledgers), the journal marks them demo, the movements listing
  (reconciliation, GGR) leaves them out, a shared table refuses the demo session.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import grpc
import httpx
import pytest
import pytest_asyncio
from e2e_servers import Stack, free_port, start_stack
from google.protobuf.timestamp_pb2 import Timestamp
from google.rpc import error_details_pb2

from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates
from support.errors import error_reason

pytestmark = pytest.mark.asyncio(loop_scope="session")

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET = (("authorization", "Bearer sandbox-wallet-dev-key"),)
CASINO = "https://casino.example"
OTHER_CASINO = "https://other-casino.example"  # another brand's page
STUDIO = "https://studio.example/blackjack/"
DEMO_START = 50_000
START = 100_000
TTL_S = 10


@dataclass
class Launching:
    stack: Stack
    games: list[blackjack_pb2_grpc.BlackjackServiceAsyncStub]
    operator: operator_pb2_grpc.OperatorServiceAsyncStub
    tables: table_pb2_grpc.TableServiceAsyncStub
    wallet: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    rgs_db: str
    web: str


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def launching(database_templates: DatabaseTemplates, tmp_path_factory: Any
                    ) -> AsyncIterator[Launching]:
    rgs_name, rgs_db = await database_templates.fresh(RGS_TEMPLATE)
    dev_name, dev_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    other_name, other_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    web_port = free_port()
    stack = await start_stack(
        rgs_db=rgs_db, wallet_dbs={"dev-operator": dev_db, "other-operator": other_db},
        replicas=2, logs=Path(tmp_path_factory.mktemp("launch")),
        env={"RGS_LAUNCH_TTL_S": str(TTL_S), "RGS_LAUNCH_URL": "https://play.example/"},
        brand_fields={"demo-casino": {"web_origins": [CASINO],
                                      "demo": {"balances": {"EUR": DEMO_START}}},
                      "demo-casino-usd": {"launch_url": STUDIO,
                                          "web_origins": [OTHER_CASINO]}},
        each_env=[{"RGS_WEB_LISTEN": f"127.0.0.1:{web_port}"}])
    channels = [grpc.aio.insecure_channel(r.target) for r in stack.replicas]
    wallet_channel = grpc.aio.insecure_channel(stack.wallets["dev-operator"].target)
    try:
        yield Launching(stack=stack,
                        games=[blackjack_pb2_grpc.BlackjackServiceStub(c) for c in channels],
                        operator=operator_pb2_grpc.OperatorServiceStub(channels[0]),
                        tables=table_pb2_grpc.TableServiceStub(channels[1]),
                        wallet=sandbox_pb2_grpc.SandboxControlServiceStub(wallet_channel),
                        rgs_db=rgs_db, web=f"http://127.0.0.1:{web_port}")
    finally:
        for c in (*channels, wallet_channel):
            await c.close()
        stack.stop()
        for name in (rgs_name, dev_name, other_name):
            database_templates.discard(name)


_players = iter(range(1_000_000))


async def _player(lx: Launching) -> str:
    pid = f"launch-{next(_players)}"
    await lx.wallet.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
        metadata=WALLET)
    return pid


async def _launch(lx: Launching, **fields: Any) -> op.CreateLaunchResponse:
    fields.setdefault("brand_id", "demo-casino")
    if "table_id" not in fields:
        fields.setdefault("variant_id", "vip-platinum")
    resp: op.CreateLaunchResponse = await lx.operator.CreateLaunch(
        op.CreateLaunchRequest(**fields), metadata=OPERATOR)
    return resp


def _code(url: str) -> str:
    base, _, fragment = url.partition("#")
    assert fragment.startswith("launch=l1.") and "token" not in base
    return fragment.removeprefix("launch=")


async def _refused(call: Any) -> tuple[grpc.StatusCode, str, str]:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value.code(), error_reason(err.value), err.value.details() or ""


async def _wallet_rows(lx: Launching) -> tuple[int, int]:
    """Every sandbox wallet's transactions and players (all of the ledger)."""
    totals = [0, 0]
    for db in lx.stack.wallet_dbs.values():
        conn = await asyncpg.connect(db)
        try:
            totals[0] += await conn.fetchval("SELECT count(*) FROM sandbox_wallet.transactions")
            totals[1] += await conn.fetchval("SELECT count(*) FROM sandbox_wallet.players")
        finally:
            await conn.close()
    return totals[0], totals[1]


async def test_a_launch_redeems_once_on_any_replica_with_what_the_operator_asked(
        launching: Launching) -> None:
    pid = await _player(launching)
    resp = await _launch(launching, player_id=pid, language="de", device="mobile",
                         lobby_url=f"{CASINO}/lobby", cashier_url=f"{CASINO}/cashier?x=1")
    assert resp.url.startswith("https://play.example/#launch=l1.")
    expires = resp.expires_at.ToDatetime(UTC)
    assert timedelta(0) < expires - datetime.now(UTC) <= timedelta(seconds=TTL_S + 1)
    code = _code(resp.url)
    got = await launching.games[1].RedeemLaunch(bj.RedeemLaunchRequest(launch_code=code))
    assert (got.brand_id, got.variant_id, got.table_id, got.language, got.device, got.demo) == (
        "demo-casino", "vip-platinum", "", "de", "mobile", False)
    assert (got.lobby_url, got.cashier_url) == (f"{CASINO}/lobby", f"{CASINO}/cashier?x=1")
    assert got.balance == START and got.currency == "EUR"
    assert got.session_token.startswith("s1.") and got.session_token not in resp.url
    auth = (("authorization", f"Bearer {got.session_token}"),)
    balance = await launching.games[0].GetBalance(bj.GetBalanceRequest(), metadata=auth)
    assert (balance.balance, balance.demo, balance.language) == (START, False, "de")
    # The language is kept with the session: what a reloaded page (or `rgs play`) reads at
    # start says it, on either replica.
    for game in launching.games:
        listed = await game.ListVariants(bj.ListVariantsRequest(), metadata=auth)
        assert listed.language == "de"
    tables = await launching.tables.ListTables(tb.ListTablesRequest(), metadata=auth)
    assert tables.language == "de"
    code_, reason, message = await _refused(
        launching.games[0].RedeemLaunch(bj.RedeemLaunchRequest(launch_code=code)))
    assert (code_, reason) == (grpc.StatusCode.PERMISSION_DENIED, "LAUNCH_CODE_USED")
    assert "go back to the casino and open the game again" in message


async def test_two_concurrent_redeems_exactly_one_wins(launching: Launching) -> None:
    pid = await _player(launching)
    code = _code((await _launch(launching, player_id=pid)).url)
    results = await asyncio.gather(
        *(launching.games[i % 2].RedeemLaunch(bj.RedeemLaunchRequest(launch_code=code))
          for i in range(6)), return_exceptions=True)
    won = [r for r in results if isinstance(r, bj.RedeemLaunchResponse)]
    lost = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(won) == 1 and len(lost) == 5
    assert {error_reason(e) for e in lost} == {"LAUNCH_CODE_USED"}


async def test_an_altered_or_expired_code_is_refused_with_what_to_do(
        launching: Launching) -> None:
    pid = await _player(launching)
    code = _code((await _launch(launching, player_id=pid)).url)
    altered = code[:-1] + ("A" if code[-1] != "A" else "B")
    for bad in (altered, code + "x", "s1.token", ""):
        status, reason, message = await _refused(
            launching.games[0].RedeemLaunch(bj.RedeemLaunchRequest(launch_code=bad)))
        assert (status, reason) == (grpc.StatusCode.PERMISSION_DENIED, "LAUNCH_CODE_INVALID")
        assert "open the game again" in message
    await asyncio.sleep(TTL_S + 1)
    status, reason, message = await _refused(
        launching.games[1].RedeemLaunch(bj.RedeemLaunchRequest(launch_code=code)))
    assert (status, reason) == (grpc.StatusCode.PERMISSION_DENIED, "LAUNCH_CODE_EXPIRED")
    assert "open the game again" in message


async def _web_redeem(lx: Launching, code: str, origin: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=lx.web, timeout=10) as client:
        return await client.post("/rgs.blackjack.v1.BlackjackService/RedeemLaunch",
                                 json={"launchCode": code},
                                 headers={"origin": origin, "content-type": "application/json"})


def _web_reason(resp: httpx.Response) -> str:
    """The ErrorInfo reason of a Connect error answer."""
    for detail in resp.json().get("details", ()):
        if detail["type"] == "google.rpc.ErrorInfo":
            info = error_details_pb2.ErrorInfo()
            value = detail["value"]
            info.ParseFromString(base64.b64decode(value + "=" * (-len(value) % 4)))
            return str(info.reason)
    return ""


async def test_a_refused_origin_leaves_the_code_usable_from_the_right_one(
        launching: Launching) -> None:
    pid = await _player(launching)
    code = _code((await _launch(launching, player_id=pid)).url)
    # An origin the edge serves (another brand allows it), not the launch's brand.
    refused = await _web_redeem(launching, code, OTHER_CASINO)
    assert refused.status_code == 403, refused.text
    assert _web_reason(refused) == "ORIGIN_NOT_ALLOWED"
    got = await _web_redeem(launching, code, CASINO)
    assert got.status_code == 200, got.text
    answer = got.json()
    assert answer["sessionToken"].startswith("s1.") and int(answer["balance"]) == START
    again = await _web_redeem(launching, code, CASINO)
    assert (again.status_code, _web_reason(again)) == (403, "LAUNCH_CODE_USED")


async def test_lobby_and_cashier_must_be_on_the_brands_origins_and_the_language_known(
        launching: Launching) -> None:
    pid = await _player(launching)
    cases = [({"lobby_url": "https://evil.example/lobby"}, "ORIGIN_NOT_ALLOWED"),
             ({"cashier_url": "https://casino.example.evil.example/"}, "ORIGIN_NOT_ALLOWED"),
             ({"cashier_url": "javascript:alert(1)"}, "INVALID_URL"),
             ({"language": "fr"}, "UNSUPPORTED_LANGUAGE"),
             ({"device": "tv"}, "INVALID_DEVICE"),
             ({"variant_id": "nope"}, "UNKNOWN_VARIANT"),
             ({"table_id": "vip-1", "variant_id": "power"}, "INVALID_LAUNCH_TARGET"),
             ({"brand_id": "other-casino"}, "BRAND_NOT_FOUND")]
    for fields, want in cases:
        _, reason, _ = await _refused(_launch(launching, player_id=pid, **fields))
        assert reason == want, fields
    # A brand with its own client: the launch points there.
    studio = await _launch(launching, brand_id="demo-casino-usd", variant_id="classic-resplit",
                           player_id=pid)
    assert studio.url.startswith(f"{STUDIO}#launch=l1.")


async def test_a_table_launch_names_the_table(launching: Launching) -> None:
    pid = await _player(launching)
    got = await launching.games[0].RedeemLaunch(bj.RedeemLaunchRequest(
        launch_code=_code((await _launch(launching, player_id=pid, table_id="vip-1")).url)))
    assert (got.table_id, got.variant_id, got.demo) == ("vip-1", "", False)


async def test_demo_play_moves_virtual_money_and_no_wallet_sees_it(
        launching: Launching) -> None:
    before = await _wallet_rows(launching)
    _, reason, _ = await _refused(_launch(launching, brand_id="demo-casino-usd",
                                          variant_id="classic-resplit", demo=True))
    assert reason == "DEMO_NOT_ALLOWED"  # the brand offers no demo play
    _, reason, _ = await _refused(_launch(launching, table_id="vip-1", demo=True))
    assert reason == "DEMO_NOT_ALLOWED"  # never at a shared table
    got = await launching.games[0].RedeemLaunch(bj.RedeemLaunchRequest(
        launch_code=_code((await _launch(launching, variant_id="classic-resplit",
                                         demo=True, language="es")).url)))
    assert (got.demo, got.balance) == (True, DEMO_START)
    auth = (("authorization", f"Bearer {got.session_token}"),)
    game = launching.games[1]
    balance = DEMO_START
    demo_rounds: set[str] = set()
    for i, cards in enumerate((["TS", "7H", "9D", "TC"], ["TS", "TH", "9D", "7C", "TD"],
                               ["AS", "7H", "KD", "TC"])):
        dealt = (await game.Deal(bj.DealRequest(
            request_id=f"demo-{i}", variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=1000)], forced_cards=cards), metadata=auth)).round
        rnd = dealt
        while rnd.status != bj.ROUND_STATUS_SETTLED:
            rnd = (await game.Act(bj.ActRequest(
                request_id=f"demo-{i}-a{rnd.seq}", round_id=rnd.round_id,
                expected_seq=rnd.seq, seat=1, action=bj.ACTION_STAND), metadata=auth)).round
        assert rnd.demo and dealt.demo
        demo_rounds.add(rnd.round_id)
        balance += rnd.total_paid - rnd.total_staked
        assert rnd.balance == balance
    listed = await game.ListVariants(bj.ListVariantsRequest(), metadata=auth)
    assert listed.demo and listed.balance == balance != DEMO_START
    assert listed.language == "es"
    topped = await game.TopUpDemoBalance(bj.TopUpDemoBalanceRequest(), metadata=auth)
    assert topped.balance == max(balance, DEMO_START)
    # The sandbox wallets record nothing: no transaction, no player, in any ledger.
    assert await _wallet_rows(launching) == before
    # The journal marks every demo round and movement; the finance listing leaves them out.
    conn = await asyncpg.connect(launching.rgs_db)
    try:
        rounds = await conn.fetch("SELECT demo FROM rgs.rounds WHERE session_id = $1",
                                  got.session_id)
        moves = await conn.fetch("SELECT demo FROM rgs.wallet_transactions "
                                 "WHERE session_id = $1", got.session_id)
    finally:
        await conn.close()
    assert len(rounds) == 3 and all(r["demo"] for r in rounds)
    assert len(moves) >= 6 and all(m["demo"] for m in moves)
    listing = await launching.operator.ListMovements(op.ListMovementsRequest(
        from_time=_ts(datetime.now(UTC) - timedelta(hours=1)),
        to_time=_ts(datetime.now(UTC) + timedelta(minutes=1)), page_size=5000),
        metadata=OPERATOR)
    assert not {m.round_id for m in listing.movements} & demo_rounds
    assert all(not m.player_id.startswith("demo~") for m in listing.movements)
    # A demo session is refused at shared tables.
    _, reason, _ = await _refused(launching.tables.TakeSeat(tb.TakeSeatRequest(
        request_id="demo-seat", table_id="vip-1", seat=1), metadata=auth))
    assert reason == "DEMO_NOT_ALLOWED"
    # A real session cannot be topped up.
    pid = await _player(launching)
    real = await launching.games[0].RedeemLaunch(bj.RedeemLaunchRequest(
        launch_code=_code((await _launch(launching, player_id=pid)).url)))
    _, reason, _ = await _refused(game.TopUpDemoBalance(
        bj.TopUpDemoBalanceRequest(),
        metadata=(("authorization", f"Bearer {real.session_token}"),)))
    assert reason == "NOT_A_DEMO_SESSION"


def _ts(when: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(when)
    return ts
