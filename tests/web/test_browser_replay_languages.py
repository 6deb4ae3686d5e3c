"""The support replay page speaks the language it is opened in (issue 28), in a real Chromium
against a real RGS: a CreateRoundReplay link for German opens the split-and-double round in
German words with German amounts and times (``30,00 €``, ``02.12.2026, 14:03:05 UTC``) in an
English browser; the page's choice of language switches it to Spanish where it stands and
keeps ``?lang=es`` in the address; a link without a language follows the browser's (es-ES); a
refusal is said in the page's language; CreateRoundReplay refuses a language no catalogue
speaks. Every figure is the operator's recall's.

The German page's screenshot goes to ``$RGS_WEB_ARTIFACTS`` (default: pytest's temporary
folder) as ``round-replay-de.png``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest
from playwright.async_api import Browser, Page, expect
from replay_rounds import SPLIT_DOUBLE_PAID, SPLIT_DOUBLE_STAKED, play_split_double, replay_link
from test_browser import artifacts, browser  # noqa: F401 - fixtures
from web_stack import OPERATOR, Web

from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.locales import catalogue

pytestmark = pytest.mark.asyncio(loop_scope="session")

NBSP = "\u00a0"
DE, ES = catalogue("de")["web"], catalogue("es")["web"]


def euros(minor: int) -> str:
    """Minor units as Intl writes euros in German, and in Spanish from 10.000 (``1.050,00 €``);
    Spanish leaves four-digit amounts ungrouped, which these rounds never reach."""
    return f"{minor // 100:,}".replace(",", ".") + f",{minor % 100:02d}{NBSP}€"


def german_time(when: datetime) -> str:
    """Intl's de-DE medium date and long time in UTC: ``02.12.2026, 14:03:05 UTC``."""
    return f"{when:%d.%m.%Y}, {when:%H:%M:%S} UTC"


SPANISH_MONTHS = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov",
                  "dic")


def spanish_time(when: datetime) -> str:
    """Intl's es-ES medium date and long time in UTC: ``5 dic 2026, 1:02:41 UTC``.

    Spanish writes the day and the hour without a leading zero (the run that
    expected ``01:02`` failed only between midnight and ten in the morning).
    """
    return (f"{when.day} {SPANISH_MONTHS[when.month - 1]} {when.year}, "
            f"{when.hour}:{when:%M:%S} UTC")


async def _open(browser: Browser, url: str, locale: str = "en-US") -> Page:  # noqa: F811
    context = await browser.new_context(locale=locale, viewport={"width": 1000, "height": 1000})
    page = await context.new_page()
    await page.goto(url)
    return page


async def test_a_german_link_opens_in_german_and_the_page_switches_to_spanish_in_place(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811
    played = await play_split_double(web)
    recall = (await web.operator.GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=played.player_id, round_id=played.round_id),
        metadata=OPERATOR)).round
    assert (recall.total_staked, recall.total_paid) == (SPLIT_DOUBLE_STAKED, SPLIT_DOUBLE_PAID)
    link = await replay_link(web, played, language="de")
    assert "/replay?lang=de#r1." in link.url
    page = await _open(browser, link.url)  # an English browser: the link decides
    try:
        await expect(page.locator("#summary")).to_be_visible()
        assert page.url.endswith("/replay?lang=de")  # the capability left, the language stays
        assert await page.evaluate("document.documentElement.lang") == "de"
        assert await page.title() == "RGS Blackjack — Rundenwiedergabe"
        await expect(page.locator("h1")).to_have_text("Rundenwiedergabe")
        await expect(page.locator("#language")).to_have_value("de")
        await expect(page.locator("#bet")).to_have_text(euros(recall.total_staked))
        await expect(page.locator("#won")).to_have_text(euros(recall.total_paid))
        await expect(page.locator("#status")).to_have_text("abgerechnet")
        await expect(page.locator("#started time")).to_have_text(
            german_time(recall.started_at.ToDatetime(UTC)))
        await expect(page.locator("#ended time")).to_have_text(
            german_time(recall.finished_at.ToDatetime(UTC)))
        await expect(page.locator("#rules")).to_contain_text("Regeln: ")
        await expect(page.locator("#rules")).to_contain_text("Verdoppeln nach Teilen")
        await expect(page.locator("#fair-summary")).to_contain_text(
            "Mit vorgegebenen Karten gegeben (Testmodus)")
        steps = list(recall.steps)
        await expect(page.locator("#position")).to_have_text(f"Schritt 0 von {len(steps)}")
        await page.get_by_role("button", name="Ende").click()
        await expect(page.locator("#position")).to_have_text(
            f"Schritt {len(steps)} von {len(steps)}")
        told = page.locator("#steps li")
        await expect(told).to_have_count(len(steps))
        for i, step in enumerate(steps):
            if step.kind == "player_acted" and step.amount:  # the split and the double
                await expect(told.nth(i)).to_have_text(
                    f"Platz 1, Hand {step.hand + 1}: {DE[f'acted.{step.action.upper()}']} — "
                    f"kostet {euros(step.amount)}.")
            if step.kind == "hand_settled":
                await expect(told.nth(i)).to_have_text(
                    f"Platz 1, Hand {step.hand + 1}: gewonnen, zahlt {euros(step.amount)}.")
        await expect(page.locator("#narration")).to_have_text(
            f"Die Runde ist abgerechnet: gesetzt {euros(recall.total_staked)}, ausgezahlt "
            f"{euros(recall.total_paid)}.")
        settled = {s.hand: s.amount for s in steps if s.kind == "hand_settled"}
        hands = page.locator("#boxes .hand-info")
        await expect(hands.nth(0)).to_have_text(
            f"Hand 1: 20 · Einsatz {euros(2000)} (verdoppelt) · gewonnen, zahlt "
            f"{euros(settled[0])}")
        await expect(page.locator("#movements")).to_contain_text(
            f"Belastung {euros(1000)} · gebucht")
        await page.screenshot(path=str(artifacts / "round-replay-de.png"), full_page=True)
        # The page's choice of language: Spanish where it stands, the address keeps it.
        await page.select_option("#language", "es")
        await expect(page.locator("h1")).to_have_text("Repetición de la ronda")
        assert page.url.endswith("/replay?lang=es")
        await expect(page.locator("#position")).to_have_text(
            f"Paso {len(steps)} de {len(steps)}")
        await expect(hands.nth(0)).to_have_text(
            f"Mano 1: 20 · apuesta {euros(2000)} (doblada) · {ES['settled.WIN']}, paga "
            f"{euros(settled[0])}")
        await expect(page.locator("#started time")).to_have_text(
            spanish_time(recall.started_at.ToDatetime(UTC)))
        await expect(page.get_by_role("button", name="Anterior")).to_be_enabled()
    finally:
        await page.context.close()


async def test_without_a_language_the_browsers_and_a_refusal_in_the_pages_language(
        web: Web, browser: Browser) -> None:  # noqa: F811
    played = await play_split_double(web)
    link = await replay_link(web, played)
    assert "?" not in link.url
    page = await _open(browser, link.url, locale="es-ES")
    try:
        await expect(page.locator("h1")).to_have_text("Repetición de la ronda")
        await expect(page.locator("#bet")).to_have_text(euros(SPLIT_DOUBLE_STAKED))
        await expect(page.locator("#language")).to_have_value("es")
    finally:
        await page.context.close()
    page = await _open(browser, f"{web.base_url}/replay?lang=de")  # no capability
    try:
        await expect(page.locator("#refused")).to_be_visible()
        await expect(page.locator("#refused-title")).to_have_text(
            "Dieser Wiedergabelink lässt sich nicht öffnen")
        await expect(page.locator("#refused-reason")).to_have_text(
            "Dieser Wiedergabelink ist ungültig. Dem Link fehlt das Wiedergabe-Token nach #.")
    finally:
        await page.context.close()
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await replay_link(web, played, language="fr")
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "language must be one of en, de, es" in str(refused.value.details())
