"""Brand settings a real operator asks for (issue 12): deck count where the variant allows a
choice, which variants and side bets are offered, limits per currency, Cash Out offered or not.

Rules pinned: a brand's effective rules for a variant are the variant's rule set with the
brand's options applied; ListVariants shows them; a Deal is checked and dealt with them; a round
replays with the options it was dealt with even after the brand changes them.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest
from service_fakes import OTHER_KEY, harness

from rgs.engine import BoxBet, SideBetKind
from rgs.service.errors import InvalidRequest
from rgs.service.model import CreateSessionCommand, DealCommand
from rgs.variants.options import VariantOptions

pytestmark = pytest.mark.asyncio


async def test_list_variants_shows_the_brands_effective_rules_and_currency_limits() -> None:
    h = await harness()
    usd = await h.session(brand_id="demo-casino-usd")
    rules = {r.id: r for r, _ in h.app.game.variants(usd)}
    assert rules["electronic-h17"].decks == 2  # the brand's choice; the variant's own is 6
    eur = await h.session(brand_id="demo-casino")
    assert {r.id: r for r, _ in h.app.game.variants(eur)}["electronic-h17"].decks == 6
    other = await h.session(brand_id="other-casino", key=OTHER_KEY)
    vip = {r.id: r for r, _ in h.app.game.variants(other)}["vip-platinum"]
    assert vip.cash_out is None and vip.side_bets == {SideBetKind.PERFECT_PAIRS}
    limits = {r.id: lim for r, lim in h.app.game.variants(eur)}
    assert limits["vip-platinum"].main_min == 1000


async def test_a_deal_follows_the_brands_options() -> None:
    h = await harness()
    other = await h.session(brand_id="other-casino", key=OTHER_KEY)
    with pytest.raises(InvalidRequest) as err:  # 21+3 is not offered by this brand
        await h.app.game.deal(other, DealCommand(
            request_id="d1", variant_id="vip-platinum",
            boxes=(BoxBet(seat=1, stake=1000, twenty_one_plus_three=100),)))
    assert err.value.reason == "INVALID_BET"
    dealt = await h.app.game.deal(other, DealCommand(
        request_id="d2", variant_id="vip-platinum",
        boxes=(BoxBet(seat=1, stake=1000, perfect_pairs=100),),
        forced_cards=("8H", "8S", "8D", "9C")))
    allowed = {a.action.value for a in dealt.view.boxes[0].hands[0].allowed}
    assert "cash_out" not in allowed  # Cash Out is off at this brand
    # Two decks at demo-casino-usd: a third ace of spades cannot be in the shoe.
    usd = await h.session(brand_id="demo-casino-usd")
    with pytest.raises(InvalidRequest) as err:
        await h.app.game.deal(usd, DealCommand(
            request_id="d3", variant_id="electronic-h17", boxes=(BoxBet(seat=1, stake=100),),
            forced_cards=("AS", "AS", "AS", "TC")))
    assert err.value.reason == "FORCED_CARDS_INVALID"


async def test_a_round_replays_with_its_own_options_after_the_brand_changes_them() -> None:
    h = await harness()
    usd = await h.session(brand_id="demo-casino-usd")
    dealt = await h.app.game.deal(usd, DealCommand(
        request_id="d1", variant_id="electronic-h17", boxes=(BoxBet(seat=1, stake=100),),
        forced_cards=("TS", "6H", "9D", "7C")))
    stored = h.journal.tables.rounds[(usd.player_key, dealt.round_id)]
    assert stored.options == VariantOptions(decks=2)
    brands = h.app.game.context.brands  # the platform file changes: 8 decks from now on
    brand = brands["demo-casino-usd"]
    changed = dataclasses.replace(brand, options=MappingProxyType({
        **brand.options, "electronic-h17": VariantOptions(decks=8)}))
    h.app.game.context.brands = {**brands, "demo-casino-usd": changed}
    again = await h.app.game.get_round(usd, dealt.round_id)
    assert again.view == dealt.view  # rebuilt with the two decks it was dealt with


async def test_a_brand_in_two_currencies_opens_sessions_in_either_and_refuses_others() -> None:
    h = await harness()
    operator = await h.app.office.authenticate(OTHER_KEY)
    with pytest.raises(InvalidRequest) as err:
        await h.app.office.create_session(operator, CreateSessionCommand(
            request_id="s", brand_id="other-casino", player_id="alice", currency="GBP"))
    assert err.value.reason == "WRONG_CURRENCY"
    new = await h.app.office.create_session(operator, CreateSessionCommand(
        request_id="s2", brand_id="other-casino", player_id="alice"))
    assert new.session.currency == "EUR"  # the brand's first
