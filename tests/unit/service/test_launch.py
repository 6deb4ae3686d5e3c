"""Launch codes and demo play over the real bootstrap with in-memory stores (issue 28): a code
redeems once (concurrent redeems: exactly one wins), not after its time, not altered; a demo
session's rounds move demo money and never call the wallet; the platform file's demo settings
are checked."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest
from service_fakes import DEV_KEY, harness

from rgs.engine import Action, BoxBet
from rgs.platform_file import DEFAULT_PLATFORM_FILE, PlatformError, load_platform
from rgs.service.errors import PermissionDenied
from rgs.service.launch import Launch, LaunchRequest
from rgs.service.model import ActCommand, DealCommand

pytestmark = pytest.mark.asyncio


async def test_a_code_redeems_once_even_when_redeemed_concurrently() -> None:
    h = await harness()
    assert h.app.launch is not None
    launches = h.app.launch.launches
    operator = await h.app.office.authenticate(DEV_KEY)
    url, _, _ = await launches.create(operator, LaunchRequest(
        brand_id="demo-casino", player_id="alice", variant_id="power", language="es"))
    code = url.partition("#launch=")[2]
    results = await asyncio.gather(*(launches.redeem(code) for _ in range(5)),
                                   return_exceptions=True)
    won = [r for r in results if not isinstance(r, BaseException)]
    assert len(won) == 1 and won[0][0].language == "es"
    assert {getattr(r, "reason", "") for r in results if isinstance(r, BaseException)} == {
        "LAUNCH_CODE_USED"}


async def test_a_refusing_check_leaves_the_code_unspent() -> None:
    h = await harness()
    assert h.app.launch is not None
    launches = h.app.launch.launches
    operator = await h.app.office.authenticate(DEV_KEY)
    url, _, _ = await launches.create(operator, LaunchRequest(
        brand_id="demo-casino", player_id="alice", variant_id="power"))
    code = url.partition("#launch=")[2]

    def wrong_origin(_: Launch) -> None:
        raise PermissionDenied("not this page", reason="ORIGIN_NOT_ALLOWED")

    with pytest.raises(PermissionDenied) as err:
        await launches.redeem(code, wrong_origin)
    assert err.value.reason == "ORIGIN_NOT_ALLOWED"
    launch, _ = await launches.redeem(code, lambda _: None)
    assert launch.player_id == "alice"
    with pytest.raises(PermissionDenied) as err:
        await launches.redeem(code, lambda _: None)
    assert err.value.reason == "LAUNCH_CODE_USED"


async def test_an_expired_or_altered_code_is_refused() -> None:
    h = await harness()
    assert h.app.launch is not None
    launches = h.app.launch.launches
    operator = await h.app.office.authenticate(DEV_KEY)
    url, expires, _ = await launches.create(operator, LaunchRequest(
        brand_id="demo-casino", player_id="alice", variant_id="power"))
    code = url.partition("#launch=")[2]
    with pytest.raises(PermissionDenied) as err:
        await launches.redeem(code[:-2] + "zz" if not code.endswith("zz") else code[:-2] + "yy")
    assert err.value.reason == "LAUNCH_CODE_INVALID"
    h.clock.now = expires + timedelta(seconds=1)
    with pytest.raises(PermissionDenied) as err:
        await launches.redeem(code)
    assert err.value.reason == "LAUNCH_CODE_EXPIRED"
    assert "open the game again" in str(err.value)


async def test_a_demo_session_plays_demo_money_and_never_calls_the_wallet() -> None:
    h = await harness()
    assert h.app.launch is not None
    operator = await h.app.office.authenticate(DEV_KEY)
    url, _, _ = await h.app.launch.launches.create(operator, LaunchRequest(
        brand_id="demo-casino", variant_id="classic-resplit", demo=True))
    _, new = await h.app.launch.launches.redeem(url.partition("#launch=")[2])
    assert new.balance == 100_000  # the sandbox's demo balance for demo-casino in EUR
    session = await h.app.game.authenticate(new.token)
    assert session.demo and session.player_id.startswith("demo~")
    dealt = await h.app.game.deal(session, DealCommand(
        request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=1000),),
        forced_cards=("TS", "7H", "9D", "TC")))
    done = await h.app.game.act(session, ActCommand(
        request_id="a1", round_id=dealt.round_id, expected_seq=dealt.view.seq, seat=1,
        hand=0, action=Action.STAND))
    assert done.view.total_staked == 1000 and done.view.total_paid == 2000
    assert await h.app.game.balance(session) == 101_000
    assert h.wallet.calls == []  # the operator's wallet never saw demo money
    assert await h.app.launch.top_up(session) is not None


async def test_demo_balances_must_be_in_the_brands_currencies(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    raw["operators"][0]["brands"][0]["demo"] = {"balances": {"USD": 1000}}
    path = tmp_path / "platform.json"
    for op in raw["operators"]:
        key = op["wallet"]["api_key"]
        key["file"] = str(DEFAULT_PLATFORM_FILE.parent / key["file"])
    path.write_text(json.dumps(raw), "utf-8")
    with pytest.raises(PlatformError, match=r"demo\.balances"):
        load_platform(path)
