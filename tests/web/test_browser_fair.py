"""Provably fair rounds and hints in the reference web table, in a real Chromium against real
processes (a stack of its own whose demo-casino turns hints on): the commitment shown before
the bet is the SHA-256 of the seed revealed after it, Verify recomputes the card order in the
page and says FAIR; a round whose view was changed on its way to the page (its seed, or one of
its cards) is reported as not verified, naming what differs; the decisions show their exact
values, the best marked, and Cash Out its fair value, as the RGS computed them."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, Route, expect
from test_browser import artifacts, browser, open_table  # noqa: F401 - fixtures
from web_stack import Web, running_web

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from support.databases import DatabaseTemplates

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def hints_web(database_templates: DatabaseTemplates, tmp_path_factory: pytest.TempPathFactory
                    ) -> AsyncIterator[Web]:
    async with running_web(database_templates, Path(tmp_path_factory.mktemp("web-fair")),
                           {"demo-casino": {"hints": True}}) as running:
        yield running


async def play_out(page: Page) -> None:
    """Stand on every hand (declining insurance) until the round is settled."""
    result = page.locator("#result")
    for _ in range(12):
        if await result.inner_text():
            return
        buttons = page.locator("#actions button[data-action='STAND'], "
                               "#actions button[data-action='DECLINE_INSURANCE']")
        try:
            await buttons.first.click(timeout=5_000)
        except Exception:  # the round settled meanwhile (no decision left)
            continue
    await expect(result).not_to_be_empty()


async def deal(page: Page, variant: str, client_seed: str = "") -> None:
    await page.get_by_label("Game", exact=True).select_option(variant)
    await page.get_by_label("Main bet").fill("10.00")
    await page.get_by_label("Client seed").fill(client_seed)
    await page.get_by_role("button", name="Deal").click()


async def test_a_round_verifies_fair_and_its_seed_hashes_to_the_commitment_shown_before_the_bet(
        hints_web: Web, browser: Browser) -> None:  # noqa: F811
    pid = await hints_web.new_player()
    page = await open_table(browser, hints_web, await hints_web.session_token(pid))
    try:
        for round_number, seed in ((1, "lucky 7 ~ me"), (2, "")):
            shown = page.locator("#commitment")
            await expect(shown).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
            before = await shown.inner_text()
            await deal(page, "classic-resplit", seed)
            # The round dealt is the one committed to before the bet.
            await expect(page.locator("#round-commitment")).to_have_text(before)
            await play_out(page)
            server_seed = page.locator("#server-seed")
            await expect(server_seed).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
            revealed = await server_seed.inner_text()
            assert hashlib.sha256(bytes.fromhex(revealed)).hexdigest() == before
            await expect(page.locator("#round-client-seed")).to_have_text(
                f'"{seed}"' if seed else "none")
            await expect(page.locator("#round-number")).to_have_text(
                f"{round_number} (6 decks)")
            verify = page.get_by_role("button", name="Verify")
            await verify.click()
            await expect(page.locator("#fair-result")).to_have_text(
                "FAIR: these are the cards the committed seed deals.")
            lines = page.locator("#fair-lines li")
            await expect(lines.nth(0)).to_have_text(
                f"SHA-256(server seed) = {before} (the commitment)")
            await expect(lines.nth(1)).to_have_text(
                "the commitment is the one shown before the bet")
            await expect(lines.nth(2)).to_contain_text("cards dealt are the first")
            # The next round is committed too, to another seed.
            await expect(shown).not_to_have_text(before)
    finally:
        await page.close()


async def tamper(route: Route, change: str) -> None:
    """Pass the call to the RGS and change the settled round in its answer."""
    response = await route.fetch()
    body = await response.json()
    view = body.get("round", {})
    if view.get("status") == "ROUND_STATUS_SETTLED" and view.get("fair", {}).get("serverSeed"):
        if change == "seed":
            view["fair"]["serverSeed"] = "ab" * 32
        else:
            up = view["dealerCards"][0]
            view["dealerCards"][0] = ("2" if up[0] != "2" else "3") + up[1]
    await route.fulfill(response=response, body=json.dumps(body))


@pytest.mark.parametrize("change", ["seed", "card"])
async def test_a_round_changed_on_its_way_to_the_page_does_not_verify(
        hints_web: Web, browser: Browser, change: str) -> None:  # noqa: F811
    pid = await hints_web.new_player()
    page = await open_table(browser, hints_web, await hints_web.session_token(pid))
    try:
        async def changed(route: Route) -> None:
            await tamper(route, change)

        for call in ("Deal", "Act", "Settle", "GetRound"):
            await page.route(f"**/rgs.blackjack.v1.BlackjackService/{call}", changed)
        await deal(page, "vegas-20-plus")
        await play_out(page)
        await page.get_by_role("button", name="Verify").click()
        await expect(page.locator("#fair-result")).to_have_text(
            "NOT VERIFIED: the revealed seed does not deal this round as shown.")
        lines = page.locator("#fair-lines")
        if change == "seed":
            await expect(lines).to_contain_text(
                f"SHA-256(server seed) = {hashlib.sha256(bytes.fromhex('ab' * 32)).hexdigest()}"
                ", but the commitment is")
        else:
            await expect(lines).to_contain_text("(the commitment)")  # the seed is the true one
            await expect(lines).to_contain_text(
                "card 2 dealt (the dealer's up card) was ")
    finally:
        await page.close()


async def test_hints_show_each_decisions_value_the_best_marked_and_cash_outs_fair_value(
        hints_web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811
    pid = await hints_web.new_player()
    token = await hints_web.session_token(pid)
    # vip-platinum: 7 7 against a 7 (hole 9): hit, stand, double, split and Cash Out open.
    page = await open_table(browser, hints_web, token, ("7H", "7S", "7D", "9C"))
    try:
        await deal(page, "vip-platinum")
        buttons = page.locator("#actions button")
        await expect(buttons.first).to_be_visible()
        await expect(page.locator("#hints-note")).to_be_visible()
        await page.screenshot(path=str(artifacts / "hints.png"), full_page=True)
        served = await hints_web.game.GetRound(bj.GetRoundRequest(),
                                                metadata=(("authorization", f"Bearer {token}"),))
        allowed = {bj.Action.Name(a.action).removeprefix("ACTION_"): a
                   for a in served.round.boxes[0].hands[0].allowed}
        valued = {name: a for name, a in allowed.items() if a.HasField("expected_value")}
        assert len(valued) >= 3 and any(a.best for a in valued.values()), allowed
        top = max(a.expected_value for a in valued.values())
        for name, a in valued.items():
            button = page.locator(f"#actions button[data-action='{name}']")
            text = await button.inner_text()
            assert f"EV {a.expected_value:+.3f}" in text, (name, text)
            assert float(await button.get_attribute("data-ev") or "nan") == \
                pytest.approx(a.expected_value, abs=1e-6)
            if a.best:
                assert a.expected_value == top
                assert text.startswith("★ ")
                await expect(button).to_have_attribute("data-best", "true")
                await expect(button).to_have_accessible_name(
                    f"{text.removeprefix('★ ')}, the best decision")
            else:
                assert not text.startswith("★")
        cash_out = allowed["CASH_OUT"]
        assert cash_out.fair_value > 0
        fair = f"€{cash_out.fair_value // 100}.{cash_out.fair_value % 100:02d}"
        await expect(page.locator("#actions button[data-action='CASH_OUT']")).to_contain_text(
            f"fair value {fair}")
        # Forced cards: the round says it cannot be verified.
        await page.locator("#actions button[data-action='STAND']").click()
        await expect(page.locator("#fair-summary")).to_have_text(
            "This round's cards were forced (test mode): it cannot be verified.")
        await expect(page.get_by_role("button", name="Verify")).to_be_hidden()
        await expect(page.locator("#fair-details")).to_be_hidden()
    finally:
        await page.close()


async def tab_to(page: Page, *targets: str) -> None:
    """Press Tab until one of ``targets`` (an id or a decision) has the focus."""
    focused = "document.activeElement && (document.activeElement.id || " \
              "document.activeElement.dataset.action || '')"
    for _ in range(40):
        if await page.evaluate(focused) in targets:
            return
        await page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {targets}")


async def test_the_fairness_panel_fits_a_phone_and_works_by_keyboard(
        hints_web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811
    pid = await hints_web.new_player()
    page = await open_table(browser, hints_web, await hints_web.session_token(pid),
                            width=375, height=667)
    try:
        await page.get_by_label("Game", exact=True).select_option("electronic-h17")
        await page.get_by_label("Main bet").fill("5.00")
        await page.get_by_label("Client seed").focus()
        await page.keyboard.type("typed by keyboard")
        await tab_to(page, "deal")
        await page.keyboard.press("Enter")
        for _ in range(12):
            # the page's answer to the last key: the round's result, or the next decision
            # with the focus on its first button (a slow machine takes more than 200 ms)
            for _ in range(50):
                if await page.locator("#result").inner_text() or await page.evaluate(
                        "document.activeElement === document.querySelector('#actions button')"):
                    break
                await page.wait_for_timeout(200)
            if await page.locator("#result").inner_text():
                break
            await expect(page.locator("#actions button").first).to_be_focused()
            await tab_to(page, "STAND", "DECLINE_INSURANCE")
            await page.keyboard.press("Enter")
            await page.wait_for_timeout(200)
        await expect(page.locator("#result")).not_to_be_empty()
        await expect(page.locator("#deal")).to_be_focused()
        await tab_to(page, "verify")
        await page.keyboard.press("Enter")
        await expect(page.locator("#fair-result")).to_contain_text("FAIR:")
        await expect(page.locator("#round-client-seed")).to_have_text('"typed by keyboard"')
        assert await page.evaluate("document.documentElement.scrollWidth") <= 375
        await expect(page.locator("#server-seed")).to_be_in_viewport(ratio=0.1)
        await page.screenshot(path=str(artifacts / "phone-fair.png"), full_page=True)
    finally:
        await page.close()
