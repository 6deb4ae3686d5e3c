"""A shared table in a real browser: two pages (two players of two operators, each with their
own wallet) at one vip-platinum table play a round through the reference web table, clicking as
people would; each page shows the other's seat and Bet Behind live (the WatchTable stream), and
each player's wallet moves to the cent of their results."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
from pathlib import Path

import grpc
import pytest
from playwright.async_api import Browser, Page, expect
from playwright.async_api import Error as PlaywrightError
from test_browser import artifacts, browser, major  # noqa: F401 - fixtures
from web_stack import OPERATOR, START, Web

from rgs.generated.table.v1 import table_pb2, table_pb2_grpc

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = "vip-browser"
#: seat 1: 6 5 (doubles onto T); seat 3: T 9; dealer 9, hole 7, then draws T and busts.
CARDS = ("6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC")


async def join(browser: Browser, web: Web, token: str, seat: int,  # noqa: F811
               cards: tuple[str, ...] = (), table: str = TABLE) -> Page:
    page = await browser.new_page(viewport={"width": 1000, "height": 1100})
    fragment = f"token={token}" + (f"&cards={','.join(cards)}" if cards else "")
    await page.goto(f"{web.base_url}/#{fragment}")
    await page.get_by_role("button", name=f"Watch {table}", exact=True).click()
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
        assert await web.balances_when_paid({(a, "dev-operator"): START + 2000,
                                             (b, "other-operator"): START + 3000}) == {
            (a, "dev-operator"): START + 2000, (b, "other-operator"): START + 3000}
        await expect(page_a.locator("#balance")).to_have_text(major(START + 2000))
        await expect(page_b.locator("#balance")).to_have_text(major(START + 3000))
        # Forced cards (test mode): the round is marked and never verifies.
        await page_a.get_by_role("button", name="Verify the last round").click()
        await expect(page_a.locator("#table-verify-result")).to_contain_text(
            "NOT VERIFIED: this round cannot be verified")
    finally:
        await page_a.close()
        await page_b.close()


async def test_a_table_round_verifies_in_the_page_against_the_commitment_shown_before_the_bet(
        web: Web, browser: Browser) -> None:  # noqa: F811
    """A round dealt by the RNG at a shared table: the page shows the commitment before the
    bet, takes the player's client seed with it, and after the round recomputes the order in
    the browser from the revealed seed and says FAIR; the wallet moved by the round's result."""
    a = await web.new_player()
    page = await join(browser, web, await web.session_token(a), 1, table="vip-browser-fair")
    try:
        line = page.locator("#table-commitment-line")
        await expect(line).to_contain_text("The next round's cards are fixed")
        shown = (await page.locator("#table-commitment").text_content() or "").strip()
        assert len(shown) == 64
        await page.fill("#table-stake", "10.00")
        await page.fill("#table-seed", "lucky table seed")
        await page.get_by_role("button", name="Place bet", exact=True).click()
        await expect(line).to_contain_text("cards are fixed: commitment")
        assert (await page.locator("#table-commitment").text_content() or "").strip() == shown
        await page.get_by_role("button", name="Deal Now").click()
        events = page.locator("#table-events")
        for _ in range(120):  # stand (and decline insurance) until the round is over
            if "round finished" in (await events.text_content() or ""):
                break
            for name in ("No insurance", "Stand"):
                button = page.get_by_role("button", name=name, exact=True)
                if await button.count():
                    # redrawn away under the click (the round moved on): look again
                    with contextlib.suppress(PlaywrightError):
                        await button.first.click(timeout=2_000)
            await asyncio.sleep(0.25)
        await expect(events).to_contain_text("round finished", timeout=30_000)
        await expect(page.locator("#table-last")).to_be_visible(timeout=20_000)
        seed = (await page.locator("#table-last-seed").text_content() or "").strip()
        assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == shown
        await page.get_by_role("button", name="Verify the last round").click()
        await expect(page.locator("#table-verify-result")).to_contain_text("FAIR: round")
        lines = page.locator("#table-verify-lines")
        await expect(lines).to_contain_text("the commitment is the one shown before the bet")
        await expect(lines).to_contain_text("is SHA-256 of the seats' seeds")
        # The money, per the operator's recall: 10.00 staked (stood, insurance declined), the
        # round's payment back, and the wallet moved by exactly that.
        round_id = (await page.locator("#table-last-round").text_content() or "").strip()
        async with grpc.aio.insecure_channel(web.stack.replicas[0].target) as channel:
            recall = await table_pb2_grpc.TableServiceStub(channel).GetTableRound(
                table_pb2.GetTableRoundRequest(table_id="vip-browser-fair", round_id=round_id),
                metadata=OPERATOR)
        share, = (p for p in recall.players if p.player_id == a)
        assert share.staked == 1000 and share.paid in (0, 1000, 2000, 2500)
        assert await web.balances_when_paid({(a, "dev-operator"): START - 1000 + share.paid}) \
            == {(a, "dev-operator"): START - 1000 + share.paid}
    finally:
        await page.close()


async def test_a_hints_brands_page_shows_each_decisions_value_and_the_other_brands_none(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811
    """demo-casino-hints' player (seat 1: 9 2 against a 6) sees every decision with its EV and
    Double starred as the best decision; other-casino's (seat 3: T 7) at the same table sees
    plain buttons. A doubles onto 21, B stands, the dealer's 6 K 9 busts."""
    a = await web.new_player()
    b = await web.new_player(operator="other-operator")
    cards = ("9S", "TH", "6D", "2C", "7S", "KD", "TC", "9H")
    table = "vip-browser-hints"
    page_a = await join(browser, web, await web.session_token(a, brand="demo-casino-hints"), 1,
                        cards, table=table)
    page_b = await join(browser, web, await web.session_token(b, brand="other-casino"), 3,
                        table=table)
    try:
        for page in (page_a, page_b):
            await page.fill("#table-stake", "10.00")
            await page.get_by_role("button", name="Place bet", exact=True).click()
        await expect(page_a.locator('[data-seat="3"]')).to_contain_text(f"Bet {major(1000)}")
        for page in (page_a, page_b):
            await page.get_by_role("button", name="Deal Now").click()
        ev = r"EV [+-]\d\.\d{3}"
        best = page_a.get_by_role("button", name=re.compile(
            rf"^Double \({re.escape(major(1000))}\) · {ev}, the best decision$"))
        await expect(best).to_have_text(re.compile(rf"^★ Double .* · {ev}$"))
        await expect(page_a.get_by_role("button", name=re.compile(rf"^Stand · {ev}$"))
                     ).to_be_visible()
        await expect(page_a.get_by_role("button", name=re.compile(rf"^Hit · {ev}$"))
                     ).to_be_visible()
        actions = page_a.locator("#table-actions button[data-action]")
        assert await actions.count() >= 3
        assert await page_a.locator("#table-actions button[data-ev]").count() == \
            await actions.count()
        assert await page_a.locator("#table-actions button.best").count() == 1
        await page_a.screenshot(path=str(artifacts / "table-hints-a.png"), full_page=True)
        await best.click()
        stand = page_b.get_by_role("button", name="Stand", exact=True)
        await expect(stand).to_be_visible(timeout=10_000)
        assert await page_b.locator("#table-actions button[data-action]").count() >= 2
        assert await page_b.locator("#table-actions [data-ev], #table-actions .best").count() \
            == 0
        assert "EV" not in await page_b.locator("#table-actions").inner_text()
        await stand.click()
        for page in (page_a, page_b):
            await expect(page.locator("#table-events")).to_contain_text("round finished",
                                                                        timeout=20_000)
        # A: 2000 (doubled) paid 4000; B: 1000 paid 2000.
        assert await web.balances_when_paid({(a, "dev-operator"): START + 2000,
                                             (b, "other-operator"): START + 1000}) == {
            (a, "dev-operator"): START + 2000, (b, "other-operator"): START + 1000}
    finally:
        await page_a.close()
        await page_b.close()
