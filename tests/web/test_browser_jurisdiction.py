"""The reference web table under a jurisdiction profile, in a real browser (issue 23): at
demo-casino-uk (ukgc) a push shows the stake returned without any celebration (RTS 14C: the
server's result class decides), a win is celebrated, the session's time and net position are on
the screen after every round (RTS 13C / 2E), a Deal sooner than 5 s after the last round's start
is refused in words with the wait left; a reality check due shows the session's time and is
acknowledged only by the player's click. At demo-casino (none) there is no position line, and a
push is not celebrated either."""

from __future__ import annotations

import asyncio
import time

import pytest
from playwright.async_api import Browser, Page, expect
from test_browser import artifacts, browser, open_table  # noqa: F401 - fixtures
from web_stack import OPERATOR, START, WALLET_AUTH, Web

from rgs.generated.operator.v1 import operator_pb2 as op
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")

PUSH = ("TS", "TH", "9D", "9C")  # 19 v 19: the stake comes back
WIN = ("TS", "6H", "9D", "7C", "9S")  # 19 v 6+7, the dealer draws 9 and busts


async def _uk_token(web: Web, pid: str, brand: str = "demo-casino-uk", currency: str = "GBP",
                    reality_check_s: int = 0) -> str:
    await web.controls["dev-operator"].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id=pid, currency=currency, balance=START)),
        metadata=WALLET_AUTH["dev-operator"])
    resp = await web.operator.CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id=brand, player_id=pid, currency=currency,
        reality_check_interval_s=reality_check_s), metadata=OPERATOR)
    return str(resp.session_token)


async def _round(page: Page, cards: tuple[str, ...] = ()) -> None:
    await page.get_by_label("Game", exact=True).select_option("classic-resplit")
    await page.get_by_label("Main bet").fill("10.00")
    await page.get_by_role("button", name="Deal").click()
    stand = page.locator("#actions button[data-action='STAND']")
    await expect(stand).to_be_visible()
    await stand.click()


async def test_a_push_is_not_celebrated_a_win_is_and_the_position_is_shown(
        web: Web, browser: Browser) -> None:  # noqa: F811 - the fixture
    token = await _uk_token(web, "web-uk-1")
    page = await open_table(browser, web, token, PUSH)
    try:
        started = time.monotonic()
        await _round(page)
        result = page.locator("#result")
        await expect(result).to_contain_text("Your stake is returned")
        await expect(result).to_have_attribute("data-result", "return_equal")
        await expect(result).not_to_have_class("result celebrate")
        assert "won" not in (await result.inner_text()).lower()
        assert "celebrate" not in (await result.get_attribute("class") or "")
        position = page.locator("#session-position")
        await expect(position).to_be_visible()
        await expect(position).to_contain_text(
            "staked £10.00 · paid £10.00 · net £0.00")
        await expect(position).to_contain_text("Session 0:00:")
        # Dealt again at once: refused in words, the wait left said; nothing deals by itself.
        await page.get_by_role("button", name="Deal").click()
        await expect(page.get_by_role("alert")).to_contain_text("The next round can start in")
        assert await web.wallet_balance("web-uk-1") == START
        await asyncio.sleep(max(0.0, 5.5 - (time.monotonic() - started)))
        await page.close()
        page = await open_table(browser, web, token, WIN)  # the next round, the player's own
        await _round(page)
        result, position = page.locator("#result"), page.locator("#session-position")
        await expect(result).to_contain_text("You won £10.00")
        await expect(result).to_have_attribute("data-result", "win")
        await expect(result).to_have_class("result celebrate")
        await expect(position).to_contain_text(
            "staked £20.00 · paid £30.00 · net +£10.00")
        assert await web.wallet_balance("web-uk-1") == START + 1000
    finally:
        await page.close()


async def test_a_brand_under_none_shows_no_position_and_celebrates_no_push(
        web: Web, browser: Browser) -> None:  # noqa: F811 - the fixture
    token = await _uk_token(web, "web-none-1", brand="demo-casino", currency="EUR")
    page = await open_table(browser, web, token, PUSH)
    try:
        await _round(page)
        result = page.locator("#result")
        await expect(result).to_contain_text("Your stake is returned")
        assert "celebrate" not in (await result.get_attribute("class") or "")
        await expect(page.locator("#session-position")).to_be_hidden()
    finally:
        await page.close()


async def test_a_reality_check_blocks_the_next_round_until_the_player_goes_on(
        web: Web, browser: Browser) -> None:  # noqa: F811 - the fixture
    token = await _uk_token(web, "web-rc-1", brand="demo-casino", currency="EUR",
                            reality_check_s=1)
    page = await open_table(browser, web, token, WIN)
    try:
        await asyncio.sleep(1.1)
        await page.get_by_label("Game", exact=True).select_option("classic-resplit")
        await page.get_by_label("Main bet").fill("10.00")
        await page.get_by_role("button", name="Deal").click()
        check = page.get_by_role("alertdialog", name="Reality check")
        await expect(check).to_be_visible()
        await expect(check).to_contain_text("You have been playing for 0 minutes")
        assert await web.wallet_balance("web-rc-1") == START
        await page.get_by_role("button", name="Continue playing").click()
        await expect(check).to_be_hidden()
        await _round(page)
        await expect(page.locator("#result")).to_contain_text("You won €10.00")
        assert await web.wallet_balance("web-rc-1") == START + 1000
    finally:
        await page.close()
