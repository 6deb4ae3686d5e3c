"""Launch URLs in a real browser (Debian's Chromium driven by Playwright) against a real RGS
process and the sandbox wallets:

- a German player's launch URL opens vip-platinum with ``<html lang="de">``, "Lobby" and
  "Deposit" links to where the operator said (top window), and no code left in the address bar;
- a page opened with a launched session's token alone speaks the launch's language;
- a reused launch code opens the page that says to go back to the casino;
- a demo launch shows DEMO, plays three rounds with virtual money, and no sandbox wallet
  records anything (no transaction, no player in either ledger);
- a table launch opens the table's page with the player seated.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from playwright.async_api import Browser, Page, expect
from test_browser import artifacts, browser, major  # noqa: F401 - fixtures
from web_stack import OPERATOR, START, STUDIO_ORIGIN, Web

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op

pytestmark = pytest.mark.asyncio(loop_scope="session")

LOBBY = f"{STUDIO_ORIGIN}/lobby"
CASHIER = f"{STUDIO_ORIGIN}/cashier"


async def _launch(web: Web, **fields: Any) -> str:
    fields.setdefault("brand_id", "demo-casino")
    resp = await web.operator.CreateLaunch(op.CreateLaunchRequest(**fields), metadata=OPERATOR)
    assert resp.url.startswith(f"{web.base_url}/#launch=l1.")
    return str(resp.url)


async def _ledgers(web: Web) -> tuple[int, int]:
    """Transactions and players in every sandbox wallet's ledger."""
    rows, players = 0, 0
    for db in web.stack.wallet_dbs.values():
        conn = await asyncpg.connect(db)
        try:
            rows += await conn.fetchval("SELECT count(*) FROM sandbox_wallet.transactions")
            players += await conn.fetchval("SELECT count(*) FROM sandbox_wallet.players")
        finally:
            await conn.close()
    return rows, players


async def _page(browser: Browser, url: str) -> Page:  # noqa: F811 - fixture name
    page = await browser.new_page(viewport={"width": 1000, "height": 900})
    await page.goto(url)
    return page


@contextmanager
def casino_site(origin: str, game_url: str) -> Iterator[None]:
    """The casino's web server at ``origin`` (a loopback port): ``/game`` frames the launch URL
    as operators do, any other path is a plain page (the lobby, the cashier)."""
    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = (f'<!doctype html><title>casino</title><iframe id="game" src="{game_url}" '
                    'style="width:1000px;height:900px;border:0"></iframe>'
                    if self.path == "/game" else
                    f"<!doctype html><title>casino</title><h1>Casino {self.path}</h1>").encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", int(origin.rsplit(":", 1)[1])), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


async def test_a_german_launch_opens_vip_platinum_with_the_casinos_links(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811 - fixtures
    """The casino's page frames the launch URL; Deposit leaves the frame for the top window."""
    pid = await web.new_player()
    url = await _launch(web, player_id=pid, variant_id="vip-platinum", language="de",
                        lobby_url=LOBBY, cashier_url=CASHIER)
    page = await browser.new_page(viewport={"width": 1100, "height": 1000})
    try:
        with casino_site(STUDIO_ORIGIN, url):
            await page.goto(f"{STUDIO_ORIGIN}/game")
            game = page.frame_locator("#game")
            await expect(game.locator("#deal")).to_be_visible()
            frame = page.frames[1]
            assert await frame.evaluate("document.documentElement.lang") == "de"
            assert "launch" not in frame.url and "#" not in frame.url
            await expect(game.locator("#variant")).to_have_value("vip-platinum")
            lobby, deposit = game.locator("#lobby-link"), game.locator("#deposit-link")
            await expect(lobby).to_have_attribute("href", LOBBY)
            await expect(lobby).to_have_attribute("target", "_top")
            await expect(deposit).to_have_attribute("href", CASHIER)
            await expect(deposit).to_have_attribute("target", "_top")
            await expect(game.locator("#demo-badge")).to_have_count(0)
            # In German: its words and its amounts.
            await expect(deposit).to_have_text("Einzahlen")
            await expect(game.locator("#deal")).to_have_text("Geben")
            await expect(game.locator("#balance")).to_contain_text("1.000,00\u00a0€")
            await page.screenshot(path=str(artifacts / "launch-de.png"), full_page=True)
            await deposit.click()
            await page.wait_for_url(CASHIER)  # the casino's window went there, not the frame
            await expect(page.locator("h1")).to_have_text("Casino /cashier")
    finally:
        await page.close()


async def test_the_session_keeps_the_launch_language_for_a_page_with_the_token_alone(
        web: Web, browser: Browser) -> None:  # noqa: F811 - fixture name
    """A page opened with the session token only (no launch kept in its storage) speaks the
    launch's language: the session keeps it and ListVariants answers it."""
    pid = await web.new_player()
    page = await _page(browser, await _launch(web, player_id=pid, variant_id="vip-platinum",
                                              language="de"))
    try:
        await expect(page.locator("#deal")).to_have_text("Geben")
        token = await page.evaluate("sessionStorage.getItem('rgs.token')")
    finally:
        await page.close()
    fresh = await _page(browser, f"{web.base_url}/#token={token}")  # a new browser context
    try:
        await expect(fresh.locator("#deal")).to_have_text("Geben")
        assert await fresh.evaluate("document.documentElement.lang") == "de"
        assert await fresh.evaluate("sessionStorage.getItem('rgs.launch')") is None
    finally:
        await fresh.close()


async def test_a_reused_launch_code_opens_the_page_that_says_what_to_do(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811 - fixtures
    pid = await web.new_player()
    url = await _launch(web, player_id=pid, variant_id="classic-resplit")
    first = await _page(browser, url)
    try:
        await expect(first.locator("#deal")).to_be_visible()
    finally:
        await first.close()
    again = await _page(browser, url)
    try:
        refused = again.locator("#launch-refused")
        await expect(refused).to_be_visible()
        await expect(refused).to_have_attribute("data-reason", "LAUNCH_CODE_USED")
        await expect(refused).to_contain_text("already used")
        await expect(refused).to_contain_text("Go back to the casino and open the game again")
        await expect(again.locator("#bets")).to_be_hidden()
        await again.screenshot(path=str(artifacts / "launch-reused.png"), full_page=True)
    finally:
        await again.close()


async def _play_round(page: Page) -> None:
    """Deal 10.00 and stand (declining insurance) until the round is over."""
    result = page.locator("#result")
    await result.evaluate("p => { p.textContent = '' }")  # this round's words, not the last's
    await page.get_by_label("Main bet").fill("10.00")
    await page.locator("#deal").click()
    for _ in range(12):
        if "staked" in await result.inner_text():
            break
        button = page.locator("#actions button[data-action='DECLINE_INSURANCE'], "
                              "#actions button[data-action='STAND']").first
        try:
            await button.click(timeout=2000)
        except Exception:  # the round may have ended (a blackjack) meanwhile
            continue
    await expect(result).to_contain_text("staked", timeout=5000)


async def test_a_demo_launch_plays_three_rounds_and_no_wallet_records_anything(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811 - fixtures
    before = await _ledgers(web)
    url = await _launch(web, demo=True, variant_id="classic-resplit", language="en",
                        lobby_url=LOBBY)
    page = await _page(browser, url + "&cards=TS,7H,9D,TC")
    try:
        await expect(page.locator("#demo-badge")).to_have_text("DEMO")
        assert await page.evaluate("document.documentElement.lang") == "en"
        await expect(page.locator("#balance")).to_contain_text("1,000.00")
        for _ in range(3):
            await _play_round(page)
        shown = await page.locator("#balance").inner_text()
        token = await page.evaluate("sessionStorage.getItem('rgs.token')")
        auth = (("authorization", f"Bearer {token}"),)
        balance = await web.game.GetBalance(bj.GetBalanceRequest(), metadata=auth)
        assert balance.demo and shown == major(balance.balance)
        await page.screenshot(path=str(artifacts / "launch-demo.png"), full_page=True)
        await page.locator("#demo-top-up").click()
        if not shown.startswith("€1,0"):  # below the start: the top-up brings it back
            await expect(page.locator("#balance")).to_contain_text("1,000.00")
    finally:
        await page.close()
    assert await _ledgers(web) == before


async def test_a_table_launch_seats_the_player_at_the_table_page(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811 - fixtures
    pid = await web.new_player()
    url = await _launch(web, player_id=pid, table_id="vip-launch", lobby_url=LOBBY)
    page = await _page(browser, url)
    try:
        await expect(page.locator("#shared-table")).to_be_visible()
        await expect(page.locator("#shared-title")).to_contain_text("vip-launch")
        await expect(page.locator("#table-seats li.mine")).to_have_count(1, timeout=10000)
        await expect(page.locator("#lobby-link")).to_have_attribute("href", LOBBY)
        await page.screenshot(path=str(artifacts / "launch-table.png"), full_page=True)
    finally:
        await page.close()
    assert await web.wallet_balance(pid) == START
