"""A shared table in a real browser: two pages (two players of two operators, each with their
own wallet, the same player id at both) at one vip-platinum table play a round through the
reference web table, clicking as people would. Each page marks its own seat only (the server
says which is "you"), shows the other's seat live by a pseudonym (a Bet Behind as the seat's
totals), and never receives a player id or the other operator's name: every byte each page
got is scanned. The finished round stays on the table, the history reads as a player speaks,
an error shows next to its control, and each player's wallet moves to the cent of their
results. Screenshots of betting, play and the settled round at desktop and phone width go to
the artifacts (and, with ``RGS_UPDATE_DOCS_SCREENSHOT=1``, to ``docs/images/``)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import os
import re
import shutil
from pathlib import Path

import grpc
import pytest
from playwright.async_api import Browser, Page, expect
from playwright.async_api import Error as PlaywrightError
from test_browser import ROOT, artifacts, browser, major  # noqa: F401 - fixtures
from web_stack import OPERATOR, START, Web

from rgs.generated.table.v1 import table_pb2, table_pb2_grpc
from support.tables import shown_as

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = "vip-browser"
#: seat 1: 6 5 (doubles onto T); seat 3: T 9; dealer 9, hole 7, then draws T and busts.
CARDS = ("6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC")
_dups = itertools.count()

#: Every byte the page's calls receive, kept in the page (Connect JSON is text).
RECORD_BYTES = """
(() => {
  window.__rgsBytes = [];
  const fetch0 = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const response = await fetch0(...args);
    const copy = response.clone();
    (async () => {
      const reader = copy.body?.getReader();
      if (!reader) return;
      const text = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        window.__rgsBytes.push(text.decode(value, { stream: true }));
      }
    })().catch(() => {});
    return response;
  };
})();
"""


async def join(browser: Browser, web: Web, token: str, seat: int,  # noqa: F811
               cards: tuple[str, ...] = (), table: str = TABLE, width: int = 1280,
               height: int = 1000) -> Page:
    page = await browser.new_page(viewport={"width": width, "height": height})
    page.on("pageerror", lambda exc: print(f"page error: {exc}"))
    page.on("console", lambda msg: print(f"console {msg.type}: {msg.text}")
            if msg.type in ("error", "warning") else None)
    await page.add_init_script(RECORD_BYTES)
    fragment = f"token={token}" + (f"&cards={','.join(cards)}" if cards else "")
    await page.goto(f"{web.base_url}/#{fragment}")
    await page.get_by_role("button", name=f"Watch {table}", exact=True).click()
    await page.get_by_role("button", name=f"Sit at seat {seat}", exact=True).click()
    await expect(page.locator(f'[data-seat="{seat}"] h4')).to_contain_text("(you)")
    return page


async def received(page: Page) -> str:
    """Everything the page's calls have received so far."""
    return str(await page.evaluate("window.__rgsBytes.join('')"))


def shots(artifacts: Path, name: str) -> list[Path]:  # noqa: F811
    """Where a screenshot goes: the artifacts, and docs/images when asked to refresh them."""
    out = [artifacts / f"{name}.png"]
    if os.environ.get("RGS_UPDATE_DOCS_SCREENSHOT"):
        out.append(ROOT / "docs" / "images" / f"{name}.png")
    return out


async def snap(page: Page, artifacts: Path, name: str) -> None:  # noqa: F811
    first, *more = shots(artifacts, name)
    await page.screenshot(path=str(first), full_page=True)
    for path in more:
        shutil.copy(first, path)


async def test_two_players_of_two_operators_play_a_table_round_in_two_pages(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811
    # The same player id at both operators: each page still marks only its own seat.
    pid = f"web-dup-{next(_dups)}"
    a = await web.new_player(player_id=pid)
    b = await web.new_player(operator="other-operator", player_id=pid)
    page_a = await join(browser, web, await web.session_token(a), 1, CARDS)
    page_b = await join(browser, web, await web.session_token(b, brand="other-casino"), 3,
                        width=390, height=844)  # a phone
    a_name = shown_as(TABLE, "dev-operator", pid)
    b_name = shown_as(TABLE, "other-operator", pid)
    try:
        await expect(page_a.locator('[data-seat="3"] h4')).to_have_text(f"Seat 3: {b_name}")
        await expect(page_b.locator('[data-seat="1"] h4')).to_have_text(f"Seat 1: {a_name}")
        assert await page_a.locator(".seat h4", has_text="(you)").count() == 1
        assert await page_b.locator(".seat h4", has_text="(you)").count() == 1
        # A bet without an amount: the error is next to the form, in view, and goes away with
        # the next action.
        await page_a.get_by_role("button", name="Place bet", exact=True).click()
        error = page_a.locator("#table-bet + #table-error")
        await expect(error).to_contain_text("Enter the bet as an amount")
        await expect(error).to_be_in_viewport()
        await page_a.fill("#table-stake", "10.00")
        await page_a.get_by_role("button", name="Place bet", exact=True).click()
        await expect(page_a.locator("#table-error")).to_be_hidden()
        await page_b.fill("#table-stake", "10.00")
        await page_b.get_by_role("button", name="Place bet", exact=True).click()
        await page_b.select_option("#behind-seat", "1")
        await page_b.fill("#behind-stake", "10.00")
        await page_b.get_by_label("Follow doubles").check()
        await page_b.get_by_role("button", name="Place Bet Behind").click()
        # Each page shows the other's seat and bet live, and the seat's Bet Behinds together
        # (B's own Bet Behind is B's to see one by one).
        await expect(page_a.locator('[data-seat="3"]')).to_contain_text(f"Bet {major(1000)}")
        await expect(page_a.locator('[data-seat="1"]')).to_contain_text(
            f"Behind: 1 bets, {major(1000)}")
        await expect(page_b.locator('[data-seat="1"]')).to_contain_text(
            f"Behind: you {major(1000)}")
        assert await web.wallet_balance(a) == START - 1000
        assert await web.wallet_balance(b, "other-operator") == START - 2000
        await snap(page_a, artifacts, "table-betting-desktop")
        await snap(page_b, artifacts, "table-betting-phone")
        await page_a.get_by_role("button", name="Deal Now").click()
        await page_b.get_by_role("button", name="Deal Now").click()
        double = page_a.get_by_role("button", name=f"Double ({major(1000)})")
        await expect(double).to_be_visible(timeout=10_000)
        await snap(page_a, artifacts, "table-play-desktop")
        await expect(page_b.locator('[data-seat="1"]')).to_contain_text("to act")
        await snap(page_b, artifacts, "table-play-phone")
        await double.click()
        await page_b.get_by_role("button", name="Stand", exact=True).click()
        await expect(page_a.locator("#table-events")).to_contain_text(
            f"The round is over: you won {major(2000)}", timeout=20_000)
        await expect(page_b.locator("#table-events")).to_contain_text(
            f"The round is over: you won {major(3000)}", timeout=20_000)
        # The history reads as a player speaks, newest first, the player's own lines marked.
        history = page_a.locator("#table-events li")
        await expect(history.first).to_contain_text("The round is over")
        await expect(page_a.locator("#table-events li.mine").filter(
            has_text=f"You bet {major(1000)} on seat 1")).to_have_count(1)
        await expect(page_a.locator("#table-events")).not_to_contain_text(
            f"{b_name} bets {major(1000)} behind seat 1")
        await expect(page_a.locator("#table-events")).to_contain_text(
            f"Seat 1 doubled (+{major(1000)})")
        # The finished round stays on the table: the dealer's cards and every hand's result.
        await expect(page_a.locator("#table-dealer li")).to_have_count(3)
        await expect(page_a.locator('[data-seat="1"] .hand-info')).to_contain_text(
            f"Win: paid {major(4000)}")
        await expect(page_a.locator("#table-result")).to_have_text(
            f"Your net for the round: +{major(2000)}")
        await expect(page_b.locator('[data-seat="1"]')).to_contain_text("Hot streak: 1")
        await snap(page_a, artifacts, "table-settled-desktop")
        await snap(page_b, artifacts, "table-settled-phone")
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
        # Nothing either page received names a player by id, or the other operator.
        got_a, got_b = await received(page_a), await received(page_b)
        assert len(got_a) > 1000 and len(got_b) > 1000
        assert f'"{pid}"' not in got_a and f'"{pid}"' not in got_b
        assert "other-operator" not in got_a and "dev-operator" not in got_b
        assert "playerId" not in got_a and "playerId" not in got_b
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
            if "The round is over" in (await events.text_content() or ""):
                break
            for name in ("No insurance", "Stand"):
                button = page.get_by_role("button", name=name, exact=True)
                if await button.count():
                    # redrawn away under the click (the round moved on): look again
                    with contextlib.suppress(PlaywrightError):
                        await button.first.click(timeout=2_000)
            await asyncio.sleep(0.25)
        await expect(events).to_contain_text("The round is over", timeout=30_000)
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
            await expect(page.locator("#table-events")).to_contain_text("The round is over",
                                                                        timeout=20_000)
        # A: 2000 (doubled) paid 4000; B: 1000 paid 2000.
        assert await web.balances_when_paid({(a, "dev-operator"): START + 2000,
                                             (b, "other-operator"): START + 1000}) == {
            (a, "dev-operator"): START + 2000, (b, "other-operator"): START + 1000}
    finally:
        await page_a.close()
        await page_b.close()


async def test_a_page_closed_and_reopened_gets_its_seat_back_and_an_away_seat_is_given_back(
        web: Web, browser: Browser) -> None:  # noqa: F811
    """A sits at seat 2 and closes the page; reopened (a new session, as the casino would open
    it) well within the table's 4 s, the page marks seat 2 as A's with its Leave button. B
    (another operator) bets behind A's seat; A closes the page for good: after 4 s without A
    watching, the seat is given back and B's Bet Behind returned, to the cent."""
    table = "vip-browser-seats"
    a = await web.new_player()
    b = await web.new_player(operator="other-operator")
    page_a = await join(browser, web, await web.session_token(a), 2, table=table)
    token = await web.session_token(a)
    await page_a.close()
    # Reopened at once: B joins only after, so a slow machine's page loads do not eat the 4 s.
    page_a = await browser.new_page(viewport={"width": 1280, "height": 1000})
    await page_a.goto(f"{web.base_url}/#token={token}")
    await page_a.get_by_role("button", name=f"Watch {table}", exact=True).click()
    await expect(page_a.locator('[data-seat="2"] h4')).to_contain_text("(you)")
    page_b = await join(browser, web, await web.session_token(b, brand="other-casino"), 5,
                        table=table)
    try:
        await expect(page_a.get_by_role("button", name="Leave the seat")).to_be_visible()
        await expect(page_a.locator("#table-bet")).to_be_visible()
        # B bets behind A's seat (betting opens); A goes away for good.
        await page_b.select_option("#behind-seat", "2")
        await page_b.fill("#behind-stake", "10.00")
        await page_b.get_by_role("button", name="Place Bet Behind").click()
        await expect(page_b.locator("#table-events")).to_contain_text(
            f"You bet {major(1000)} behind seat 2")
        assert await web.wallet_balance(b, "other-operator") == START - 1000
        await page_a.close()
        events = page_b.locator("#table-events")
        await expect(events).to_contain_text("seat 2 is given back: its player was away from "
                                             "the table", timeout=20_000)
        await expect(events).to_contain_text(
            f"Your Bet Behind on seat 2 is returned ({major(1000)}): the seat was given back")
        await expect(page_b.locator('[data-seat="2"] h4')).to_have_text("Seat 2: free")
        # B watches: B's own seat stays.
        await expect(page_b.locator('[data-seat="5"] h4')).to_contain_text("(you)")
        assert await web.balances_when_paid({(b, "other-operator"): START,
                                             (a, "dev-operator"): START}) == {
            (b, "other-operator"): START, (a, "dev-operator"): START}
    finally:
        await page_b.close()
        with contextlib.suppress(PlaywrightError):
            await page_a.close()
