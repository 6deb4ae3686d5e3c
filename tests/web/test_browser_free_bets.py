"""Free bets in the reference web table, in Chromium against real processes: the page shows the
free bets left, a player stakes one at Deal (solo) and on their seat's main bet (a shared
table), the stake is never debited and only the winnings are paid, to the cent per wallet."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from playwright.async_api import Browser, expect
from playwright.async_api import Error as PlaywrightError
from test_browser import browser, major, open_table  # noqa: F401 - fixtures
from test_browser_tables import join
from web_stack import OPERATOR, START, Web

from rgs.generated.operator.v1 import operator_pb2 as op

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: 19 (T, 9) against the dealer's 6 and 7, who draws a 9 and busts.
SOLO_WINS = ("TS", "6H", "9D", "7C", "9S")
#: Seat 1: T, 9 (19); the dealer 9, hole 7, draws T and busts.
TABLE_WINS = ("TS", "9D", "9H", "7S", "TC")


async def _grant(web: Web, pid: str, grant_id: str, **where: list[str]) -> None:
    expires = Timestamp()
    expires.FromDatetime(datetime.now(UTC) + timedelta(days=1))
    await web.operator.GrantFreeBets(op.GrantFreeBetsRequest(
        grant_id=grant_id, brand_id="demo-casino", player_id=pid, value=1000, count=2,
        expires_at=expires, **where), metadata=OPERATOR)


async def test_a_free_bet_staked_at_deal_pays_its_winnings_only(
        web: Web, browser: Browser) -> None:  # noqa: F811
    pid = await web.new_player()
    await _grant(web, pid, f"solo-{pid}", variant_ids=["classic-resplit"])
    page = await open_table(browser, web, await web.session_token(pid), SOLO_WINS)
    try:
        await expect(page.locator("#free-bets-left")).to_have_text(
            f"Free bets left: 2 × {major(1000)}")
        await page.get_by_label("Game", exact=True).select_option("classic-resplit")
        await page.get_by_label("Use a free bet", exact=True).select_option(f"solo-{pid}")
        await expect(page.locator("#stake")).to_have_value("10.00")
        await page.get_by_role("button", name="Deal").click()
        await page.locator("#actions button[data-action='STAND']").click()
        await expect(page.locator("#result")).to_contain_text(
            f"staked {major(1000)}, paid {major(2000)}")
        # The free 10.00 was never debited; the win of 10.00 is credited, not the stake.
        await expect(page.locator("#balance")).to_have_text(major(START + 1000))
        assert await web.wallet_balance(pid) == START + 1000
        await expect(page.locator("#free-bets-left")).to_have_text(
            f"Free bets left: 1 × {major(1000)}")
    finally:
        await page.close()


async def test_a_free_bet_on_the_seats_main_bet_at_a_table(
        web: Web, browser: Browser) -> None:  # noqa: F811
    pid = await web.new_player()
    await _grant(web, pid, f"table-{pid}", table_ids=["vip-browser-free"])
    page = await join(browser, web, await web.session_token(pid), 1, TABLE_WINS,
                      table="vip-browser-free")
    try:
        choice = page.get_by_label("Use a free bet at the table")
        await expect(choice).to_be_visible()
        await choice.select_option(f"table-{pid}")
        await page.get_by_role("button", name="Place bet", exact=True).click()
        await expect(page.locator('[data-seat="1"]')).to_contain_text(f"Bet {major(1000)}")
        assert await web.wallet_balance(pid) == START  # the free bet debits nothing
        await page.get_by_role("button", name="Deal Now").click()
        events = page.locator("#table-events")
        for _ in range(120):
            if "The round is over" in (await events.text_content() or ""):
                break
            button = page.get_by_role("button", name="Stand", exact=True)
            if await button.count():
                with contextlib.suppress(PlaywrightError):
                    await button.first.click(timeout=2_000)
            await asyncio.sleep(0.25)
        await expect(events).to_contain_text("The round is over", timeout=30_000)
        want = {(pid, "dev-operator"): START + 1000}
        assert await web.balances_when_paid(want) == want
        # One free bet left of the two.
        await expect(choice).to_contain_text("1 left")
    finally:
        await page.close()
