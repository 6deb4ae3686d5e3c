"""The round replay page in a real browser (Debian's Chromium driven by Playwright) against a
real RGS process: a round with a split and a double replays card by card, every figure on the
screen the operator's recall's (and the wallet's); a fair round verifies in the browser; an
altered or expired link opens a page that says so; the page sends the link's capability to no
one but its own origin, with no referrer, and takes it out of the address bar.

With ``RGS_UPDATE_DOCS_SCREENSHOT=1`` the replayed round becomes ``docs/images/round-replay.png``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from playwright.async_api import Browser, Page, Request, expect
from replay_rounds import (
    SPLIT_DOUBLE_CARDS,
    SPLIT_DOUBLE_PAID,
    SPLIT_DOUBLE_STAKED,
    play_split_double,
    replay_link,
)
from test_browser import artifacts, browser, major  # noqa: F401 - fixtures
from web_stack import OPERATOR, START, Web

from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.locales import catalogue
from rgs.service.replay import DEVELOPMENT_SECRET, ReplayLinks
from support.tables import events_until

pytestmark = pytest.mark.asyncio(loop_scope="session")

ROOT = Path(__file__).resolve().parents[2]
#: Seats 2 and 5 each get two tens (20), the dealer 7S KD (17): both seats win.
BOTH_WIN = ["TS", "TH", "7S", "TD", "TC", "KD"]


def english_time(when: datetime) -> str:
    """A regex of an instant as Intl writes it in en-US (dateStyle medium, timeStyle long, in
    UTC): ``Dec 2, 2026, 2:03:05 PM UTC`` (ICU puts a narrow no-break space before PM)."""
    hour = when.hour % 12 or 12
    return (f"^{when:%b} {when.day}, {when.year}, {hour}:{when:%M:%S}[ \u202f]"
            f"{'AM' if when.hour < 12 else 'PM'} UTC$")


async def _cards_on_screen(page: Page) -> Counter[str]:
    codes = await page.locator("#dealer-cards li[data-card], #boxes li[data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)")
    return Counter(codes)


async def test_a_split_and_a_double_replay_card_by_card_as_recall_has_them(
        web: Web, browser: Browser, artifacts: Path) -> None:  # noqa: F811 - fixtures
    played = await play_split_double(web)
    recall = (await web.operator.GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=played.player_id, round_id=played.round_id),
        metadata=OPERATOR)).round
    assert (recall.total_staked, recall.total_paid) == (SPLIT_DOUBLE_STAKED, SPLIT_DOUBLE_PAID)
    assert await web.wallet_balance(played.player_id) == START - SPLIT_DOUBLE_STAKED \
        + SPLIT_DOUBLE_PAID
    link = await replay_link(web, played)
    page = await browser.new_page(viewport={"width": 1000, "height": 900})
    requests: list[Request] = []

    def seen(request: Request) -> None:  # playwright takes no bound builtin as a handler
        requests.append(request)

    page.on("request", seen)
    try:
        await page.goto(link.url)
        await expect(page.locator("#summary")).to_be_visible()
        assert "#" not in page.url  # the capability left the address bar
        await expect(page.locator("#round-id")).to_have_text(played.round_id)
        await expect(page.locator("#bet")).to_have_text(major(recall.total_staked))
        await expect(page.locator("#won")).to_have_text(major(recall.total_paid))
        # Times in the locale's way (Intl, en-US here), in UTC, the instant in <time datetime>.
        for where, at in (("#started", recall.started_at), ("#ended", recall.finished_at)):
            when = at.ToDatetime(UTC)
            time = page.locator(f"{where} time")
            await expect(time).to_have_text(re.compile(english_time(when)))
            assert await time.get_attribute("datetime") == when.strftime(
                "%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
        await expect(page.locator("#rules")).to_contain_text("double after split")
        await expect(page.locator("#game")).to_contain_text("Player's Suite Blackjack")
        steps = list(recall.steps)
        await expect(page.locator("#position")).to_have_text(f"Step 0 of {len(steps)}")
        assert await _cards_on_screen(page) == Counter()
        dealt: Counter[str] = Counter()
        for i, step in enumerate(steps, start=1):
            await page.click("#next")
            await expect(page.locator("#position")).to_have_text(f"Step {i} of {len(steps)}")
            if step.kind == "card_dealt":
                dealt[step.card] += 1
                await expect(page.locator("#narration")).to_contain_text(step.card)
            if step.kind == "card_dealt" and json.loads(step.detail_json).get("face_down"):
                await expect(page.locator("#dealer-cards li.back")).to_have_count(1)
            if step.kind == "hole_card_revealed":  # face down as played until the dealer turns it
                await expect(page.locator("#dealer-cards li.back")).to_have_count(0)
                await expect(page.locator(
                    f"#dealer-cards li[data-card={step.card}]")).to_have_count(1)
            if step.kind == "player_acted" and step.amount:
                acted = catalogue("en")["web"][f"acted.{step.action.upper()}"]
                await expect(page.locator("#narration")).to_contain_text(
                    f"{acted} — costs {major(step.amount)}")
            if step.kind == "hand_settled":
                await expect(page.locator("#narration")).to_contain_text(
                    f"pays {major(step.amount)}")
            assert await _cards_on_screen(page) == dealt, (i, step.kind)
        assert list(dealt.elements()) == sorted(SPLIT_DOUBLE_CARDS, key=list(dealt).index)
        assert sum(dealt.values()) == len(SPLIT_DOUBLE_CARDS)
        await expect(page.locator("#next")).to_be_disabled()
        # The end of the round: the dealer's 5H TC KS (25), the split hands' bets and payouts.
        await expect(page.locator("#dealer-total")).to_have_text("25")
        hands = page.locator("#boxes .hand-info")
        await expect(hands).to_have_count(2)
        settled = {s.hand: s.amount for s in steps if s.kind == "hand_settled"}
        await expect(hands.nth(0)).to_have_text(
            f"Hand 1: 20 · bet {major(2000)} (doubled) · won, pays {major(settled[0])}")
        await expect(hands.nth(1)).to_have_text(
            f"Hand 2: 18 · bet {major(1000)} · won, pays {major(settled[1])}")
        assert settled[0] + settled[1] == recall.total_paid
        await expect(page.locator("#fair-summary")).to_contain_text("forced cards")
        await expect(page.locator("#verify")).to_be_hidden()
        shot = artifacts / "round-replay.png"
        await page.screenshot(path=str(shot), full_page=True)
        if os.environ.get("RGS_UPDATE_DOCS_SCREENSHOT"):
            shutil.copy(shot, ROOT / "docs" / "images" / "round-replay.png")
        # Back one step: the last card leaves the table again; Play runs to the end.
        await page.click("#previous")
        await expect(page.locator("#position")).to_have_text(
            f"Step {len(steps) - 1} of {len(steps)}")
        await page.click("#first")
        assert await _cards_on_screen(page) == Counter()
        await page.click("#play")
        await expect(page.locator("#position")).to_have_text(
            f"Step {len(steps)} of {len(steps)}", timeout=len(steps) * 1500)
        assert await _cards_on_screen(page) == dealt
        token = link.url.split("#", 1)[1]
        assert all(r.url.startswith(web.base_url) for r in requests), [r.url for r in requests]
        assert not any(token in r.url for r in requests)
        posts = [r for r in requests if r.url.endswith("/replay/round")]
        assert len(posts) == 1 and json.loads(posts[0].post_data or "{}") == {"token": token}
        assert "referer" not in await posts[0].all_headers()
    finally:
        await page.close()


async def test_a_fair_round_verifies_in_the_browser(web: Web, browser: Browser) -> None:  # noqa: F811
    played = await play_split_double(web, forced=False)
    link = await replay_link(web, played)
    page = await browser.new_page()
    try:
        await page.goto(link.url)
        await page.click("#verify")
        await expect(page.locator("#fair-result")).to_have_text(
            "Fair: the cards dealt are the committed order.")
        await expect(page.locator("#fair-lines")).to_contain_text("(the commitment)")
    finally:
        await page.close()


async def test_an_altered_or_expired_link_opens_a_page_that_says_so(
        web: Web, browser: Browser) -> None:  # noqa: F811
    played = await play_split_double(web)
    url = (await replay_link(web, played)).url
    old = ReplayLinks(DEVELOPMENT_SECRET, web.base_url,
                      clock=lambda: datetime.now(UTC) - timedelta(hours=2))
    expired, _ = old.issue("dev-operator", "demo-casino", played.player_id, played.round_id)
    cases = [(url[:-3] + ("xyz" if not url.endswith("xyz") else "abc"),
              "This replay link is not valid", "REPLAY_LINK_INVALID"),
             (f"{web.base_url}/replay", "This replay link is not valid", "REPLAY_LINK_INVALID"),
             (expired, "This replay link has expired", "REPLAY_LINK_EXPIRED")]
    for address, words, reason in cases:
        page = await browser.new_page()
        try:
            await page.goto(address)
            await expect(page.locator("#refused")).to_be_visible()
            await expect(page.locator("#refused-reason")).to_contain_text(words)
            await expect(page.locator("#refused")).to_have_attribute("data-reason", reason)
            await expect(page.locator("#summary")).to_be_hidden()
        finally:
            await page.close()


async def test_a_table_round_names_the_other_operators_player_by_display_name_only(
        web: Web, browser: Browser) -> None:  # noqa: F811
    table = "vip-replay"
    a = await web.new_player()
    c = await web.new_player(operator="other-operator")
    mds = {pid: (("authorization", f"Bearer {await web.session_token(pid, brand)}"),)
           for pid, brand in ((a, "demo-casino"), (c, "other-casino"))}
    async with grpc.aio.insecure_channel(web.stack.replicas[0].target) as channel:
        tables = table_pb2_grpc.TableServiceStub(channel)
        start = 0
        for pid, seat in ((a, 2), (c, 5)):
            await tables.TakeSeat(tb.TakeSeatRequest(request_id=f"seat-{pid}", table_id=table,
                                                     seat=seat), metadata=mds[pid])
            placed = await tables.PlaceBets(tb.PlaceBetsRequest(
                request_id=f"bet-{pid}", table_id=table, bets=[tb.Bet(seat=seat, stake=1000)]),
                metadata=mds[pid])
            start = start or int(placed.result.seq)
        await tables.DealNow(tb.DealNowRequest(request_id=f"dn-{c}", table_id=table),
                             metadata=mds[c])
        await tables.DealNow(tb.DealNowRequest(request_id=f"dn-{a}", table_id=table,
                                               forced_cards=BOTH_WIN), metadata=mds[a])
        seen = await events_until(tables, mds[a], table, "round_finished", from_seq=start)
    round_id = seen[-1].round_finished.round_id
    assert await web.balances_when_paid({(a, "dev-operator"): START + 1000,
                                         (c, "other-operator"): START + 1000}) == {
        (a, "dev-operator"): START + 1000, (c, "other-operator"): START + 1000}
    link = await web.operator.CreateRoundReplay(op.CreateRoundReplayRequest(
        brand_id="demo-casino", player_id=a, round_id=round_id), metadata=OPERATOR)
    page = await browser.new_page()
    try:
        await page.goto(link.url)
        await expect(page.locator("#game")).to_contain_text(f"at table {table}")
        await expect(page.locator("#bet")).to_have_text(major(1000))
        await expect(page.locator("#won")).to_have_text(major(2000))
        await page.click("#last")
        seats = page.locator("#boxes h3")
        await expect(seats).to_have_count(2)
        await expect(seats.nth(0)).to_contain_text(f"({a})")
        await expect(seats.nth(1)).to_have_text(re.compile(r"^Seat 5: Player [0-9A-F]{4}$"))
        await expect(page.locator("#boxes .hand-info").nth(0)).to_have_text(
            f"Hand 1: 20 · bet {major(1000)} · won, pays {major(2000)}")
        assert c not in await page.content()
        await expect(page.locator("#fair-summary")).to_contain_text("forced cards")
    finally:
        await page.close()
