"""The reference web table speaks the page's language (issue 28), in a real Chromium against
real processes: with ``<html lang="de">`` German words and ``1.000,00 €`` amounts, a refusal's
reason in German; the page as shipped (no language of its own) in an ``es-ES`` browser: Spanish
words and CLDR's Spanish amounts (``1000,00 €``, ``12.345,00 €``). The wallet is asserted to
the cent.

Screenshots go to ``$RGS_WEB_ARTIFACTS`` (default: pytest's temporary folder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, Route, expect
from test_browser import artifacts, browser  # noqa: F401  (fixtures)
from web_stack import START, Web

from rgs.api.browser_edge.app import static_file

pytestmark = pytest.mark.asyncio(loop_scope="session")

NBSP = "\u00a0"
#: player 10+9 stands on 19; the dealer's 7+10 stands on 17: the 19 wins.
WIN = ("TS", "7H", "9D", "TC")


async def open_in(browser: Browser, web: Web, token: str, *,  # noqa: F811
                  html_lang: str | None,
                  locale: str = "en-US", cards: tuple[str, ...] = WIN) -> Page:
    """The table served with ``<html lang=html_lang>`` (None: no page language), in a browser
    whose language is ``locale``."""
    context = await browser.new_context(locale=locale, viewport={"width": 1000, "height": 900})
    page = await context.new_page()
    html = static_file("index.html").decode()
    assert "<html>" in html  # shipped without a language: the browser's counts
    html = html.replace("<html>", f'<html lang="{html_lang}">' if html_lang else "<html>")

    async def serve(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)

    await page.route(f"{web.base_url}/", serve)
    await page.goto(f"{web.base_url}/#token={token}&cards={','.join(cards)}")
    await expect(page.locator("#deal")).to_be_visible()
    return page


async def test_german_words_and_german_amounts(web: Web, browser: Browser,  # noqa: F811
                                               artifacts: Path) -> None:  # noqa: F811
    pid = await web.new_player()
    page = await open_in(browser, web, await web.session_token(pid), html_lang="de")
    try:
        await expect(page.locator("#balance")).to_have_text(f"1.000,00{NBSP}€")
        await expect(page.locator(".balance").first).to_contain_text("Guthaben:")
        await expect(page.locator("#bets-title")).to_have_text("Ihre Einsätze")
        await page.get_by_label("Spiel", exact=True).select_option("classic-resplit")
        await expect(page.locator("#variant-rules")).to_contain_text("6 Decks")
        await expect(page.locator("#stake-limits")).to_have_text(
            f"von 1,00{NBSP}€ bis 1.000,00{NBSP}€")
        await page.get_by_label("Haupteinsatz").fill("abc")
        await page.get_by_role("button", name="Geben").click()
        await expect(page.get_by_role("alert")).to_have_text(
            "Geben Sie den Haupteinsatz als Betrag ein, z. B. 10,00")
        await page.get_by_label("Haupteinsatz").fill("5,00")  # the German decimal comma
        await page.get_by_role("button", name="Geben").click()
        await expect(page.locator("#boxes")).to_contain_text(f"Ihre Box — Einsatz 5,00{NBSP}€")
        # A card's spoken name is German too (screen readers).
        await expect(page.locator('#boxes li[data-card="TS"]')).to_have_attribute(
            "aria-label", "Pik 10")
        await page.get_by_role("button", name="Stehen").click()
        await expect(page.locator("#result")).to_contain_text(
            f"Sie haben 5,00{NBSP}€ gewonnen — gesetzt 5,00{NBSP}€, ausgezahlt 10,00{NBSP}€.")
        await expect(page.locator("#balance")).to_have_text(f"1.005,00{NBSP}€")
        assert await web.wallet_balance(pid) == START + 500
        await expect(page.locator("#history-title")).to_have_text("Ihre letzte Runde jedes Spiels")
        await page.screenshot(path=str(artifacts / "table-de.png"), full_page=True)
    finally:
        await page.context.close()


async def test_a_refusal_is_said_in_german(web: Web, browser: Browser) -> None:  # noqa: F811
    pid = await web.new_player(balance=500)
    page = await open_in(browser, web, await web.session_token(pid), html_lang="de-AT")
    try:
        await page.get_by_label("Spiel", exact=True).select_option("classic-resplit")
        await page.get_by_label("Haupteinsatz").fill("10")
        await page.get_by_role("button", name="Geben").click()
        await expect(page.get_by_role("alert")).to_have_text(
            "Ihr Guthaben reicht für diesen Einsatz nicht. Setzen Sie weniger oder zahlen "
            "Sie ein.")
        await expect(page.locator("#balance")).to_have_text(f"5,00{NBSP}€")
        assert await web.wallet_balance(pid) == 500
    finally:
        await page.context.close()


async def test_without_a_page_language_the_browsers_spanish(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811
    pid = await web.new_player(balance=1_234_500)
    page = await open_in(browser, web, await web.session_token(pid), html_lang=None,
                         locale="es-ES")
    try:
        await expect(page.locator("#balance")).to_have_text(f"12.345,00{NBSP}€")
        await expect(page.locator(".balance").first).to_contain_text("Saldo:")
        await page.get_by_label("Juego", exact=True).select_option("classic-resplit")
        # CLDR: Spanish groups thousands from five digits on
        await expect(page.locator("#stake-limits")).to_have_text(
            f"de 1,00{NBSP}€ a 1000,00{NBSP}€")
        await page.get_by_label("Apuesta principal").fill("5")
        await page.get_by_role("button", name="Repartir").click()
        await page.get_by_role("button", name="Plantarse").click()
        await expect(page.locator("#result")).to_contain_text(
            f"Ha ganado 5,00{NBSP}€ — apostado 5,00{NBSP}€, pagado 10,00{NBSP}€.")
        await expect(page.locator("#balance")).to_have_text(f"12.350,00{NBSP}€")
        assert await web.wallet_balance(pid) == 1_234_500 + 500
        await page.screenshot(path=str(artifacts / "table-es.png"), full_page=True)
    finally:
        await page.context.close()


async def test_a_shared_table_in_german(web: Web, browser: Browser) -> None:  # noqa: F811
    """The table's buttons and its event lines in German, amounts the German way."""
    pid = await web.new_player()
    page = await open_in(browser, web, await web.session_token(pid), html_lang="de", cards=())
    try:
        await page.get_by_role("button", name="vip-browser-lang ansehen", exact=True).click()
        await page.get_by_role("button", name="Platz 1 nehmen", exact=True).click()
        events = page.locator("#table-events")
        await expect(events).to_contain_text("Sie haben Platz 1 genommen")
        await page.get_by_label("Einsatz auf Ihrem Platz").fill("10,00")
        await page.get_by_role("button", name="Setzen", exact=True).click()
        await expect(events).to_contain_text(f"Sie setzen 10,00{NBSP}€ auf Platz 1")
        # The table itself: its phase, each seat and its bet.
        await expect(page.locator("#table-phase")).to_contain_text("Einsätze offen")
        await expect(page.locator('[data-seat="1"] h4')).to_have_text(re.compile(
            r"^Platz 1: .+ \(Sie\)$"))
        await expect(page.locator('[data-seat="1"]')).to_contain_text(f"Einsatz 10,00{NBSP}€")
        await expect(page.locator('[data-seat="2"] h4')).to_have_text("Platz 2: frei")
        await expect(page.get_by_role("button", name="Jetzt geben")).to_be_visible()
        await expect(page.get_by_role("button", name="Nach dieser Runde gehen")).to_be_visible()
        assert await web.wallet_balance(pid) == START - 1000
    finally:
        await page.context.close()
