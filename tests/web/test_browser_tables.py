"""A shared table in a real browser: two pages (two players of two operators, each with their
own wallet) at one vip-platinum table play a round through the reference web table, clicking as
people would; each page shows the other's seat and Bet Behind live (the WatchTable stream), and
each player's wallet moves to the cent of their results."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect
from test_browser import artifacts, browser, major  # noqa: F401 - fixtures
from web_stack import START, Web

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = "vip-browser"
#: seat 1: 6 5 (doubles onto T); seat 3: T 9; dealer 9, hole 7, then draws T and busts.
CARDS = ("6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC")


async def join(browser: Browser, web: Web, token: str, seat: int,  # noqa: F811
               cards: tuple[str, ...] = ()) -> Page:
    page = await browser.new_page(viewport={"width": 1000, "height": 1100})
    fragment = f"token={token}" + (f"&cards={','.join(cards)}" if cards else "")
    await page.goto(f"{web.base_url}/#{fragment}")
    await page.get_by_role("button", name=f"Watch {TABLE}").click()
    await page.get_by_role("button", name=f"Sit at seat {seat}", exact=True).click()
    await expect(page.locator(f'[data-seat="{seat}"] h4')).to_contain_text("(you)")
    return page


async def test_two_players_of_two_operators_play_a_table_round_in_two_pages(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811
    a = await web.new_player()
    b = await web.new_player(operator="other-operator")
    page_a = await join(browser, web, await web.session_token(a), 1, CARDS)
    page_b = await join(browser, web, await web.session_token(b, brand="other-casino"), 3)
    try:
        await page_a.fill("#table-stake", "10.00")
        await page_a.get_by_role("button", name="Place bet", exact=True).click()
        await page_b.fill("#table-stake", "10.00")
        await page_b.get_by_role("button", name="Place bet", exact=True).click()
        await page_b.select_option("#behind-seat", "1")
        await page_b.fill("#behind-stake", "10.00")
        await page_b.get_by_label("Follow doubles").check()
        await page_b.get_by_role("button", name="Place Bet Behind").click()
        # Each page shows the other's seat, bet and Bet Behind, live.
        await expect(page_a.locator('[data-seat="3"]')).to_contain_text(b)
        await expect(page_a.locator('[data-seat="3"]')).to_contain_text(f"Bet {major(1000)}")
        await expect(page_a.locator('[data-seat="1"]')).to_contain_text(
            f"Behind: {b} {major(1000)}")
        await expect(page_b.locator('[data-seat="1"]')).to_contain_text(a)
        assert await web.wallet_balance(a) == START - 1000
        assert await web.wallet_balance(b, "other-operator") == START - 2000
        await page_a.get_by_role("button", name="Deal Now").click()
        await page_b.get_by_role("button", name="Deal Now").click()
        await page_a.get_by_role("button", name=f"Double ({major(1000)})").click()
        await page_b.get_by_role("button", name="Stand", exact=True).click()
        for page in (page_a, page_b):
            await expect(page.locator("#table-events")).to_contain_text("round finished",
                                                                        timeout=20_000)
        await expect(page_b.locator('[data-seat="1"]')).to_contain_text("Hot streak: 1")
        await page_a.screenshot(path=str(artifacts / "table-vip-browser-a.png"), full_page=True)
        await page_b.screenshot(path=str(artifacts / "table-vip-browser-b.png"), full_page=True)
        # A: 2000 (doubled) paid 4000; B: seat 3 1000 paid 2000, behind 1000 doubled paid 4000.
        for _ in range(50):
            if (await web.wallet_balance(a), await web.wallet_balance(b, "other-operator")) == (
                    START + 2000, START + 3000):
                break
            await asyncio.sleep(0.2)
        assert await web.wallet_balance(a) == START + 2000
        assert await web.wallet_balance(b, "other-operator") == START + 3000
        await expect(page_a.locator("#balance")).to_have_text(major(START + 2000))
        await expect(page_b.locator("#balance")).to_have_text(major(START + 3000))
    finally:
        await page_a.close()
        await page_b.close()
