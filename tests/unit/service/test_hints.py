"""A brand with hints on shows the exact value of each open decision of the hand to act; a brand
without shows none; the values survive an idempotent replay and reach the gRPC message."""

from __future__ import annotations

import dataclasses

from service_fakes import harness

from rgs.api.converters import round_view_to_proto
from rgs.engine import Action, BoxBet
from rgs.math.hints import cash_out_fair_return, decision_values
from rgs.service.model import ActCommand, DealCommand
from rgs.variants import find_variant


def _deal(variant: str, cards: tuple[str, ...], request_id: str = "d") -> DealCommand:
    return DealCommand(request_id=request_id, variant_id=variant,
                       boxes=(BoxBet(seat=1, stake=1000),), forced_cards=cards)


async def test_hints_on_value_every_open_decision_and_mark_the_best() -> None:
    h = await harness()
    brands = h.app.game._brands
    h.app.game._brands = {**brands, "demo-casino": dataclasses.replace(  # type: ignore[misc]
        brands["demo-casino"], hints=True)}
    s = await h.session()
    # 16 (T, 6) against a dealer 10 in vip-platinum: stand, hit, double, Cash Out open.
    dealt = await h.app.game.deal(s, _deal("vip-platinum", ("TS", "TH", "6D", "7C", "5S")))
    values = decision_values(find_variant("vip-platinum"), "TH", ("TS", "6D"), first=True)
    shown = {x.action: x for x in dealt.hints}
    allowed = {a.action for a in dealt.view.boxes[0].hands[0].allowed}
    assert set(shown) == allowed & set(values)
    assert {a: float(x.expected_value) for a, x in shown.items()} == {a: values[a]
                                                                       for a in shown}
    best = max(shown.values(), key=lambda x: x.expected_value)
    assert [x.action for x in shown.values() if x.best] == [best.action]
    cash = shown[Action.CASH_OUT]
    fair = cash_out_fair_return(find_variant("vip-platinum"), "TH", ("TS", "6D"))
    assert fair is not None and cash.fair_value == round(1000 * fair)
    msg = round_view_to_proto(dealt)
    by_action = {a.action: a for a in msg.boxes[0].hands[0].allowed}
    assert any(a.best for a in by_action.values())
    assert all(a.HasField("expected_value") for a in by_action.values())
    # After a hit the later decision is valued too (16 + 5 = 21 stands... or the round ends).
    again = await h.app.game.deal(s, _deal("vip-platinum", ("TS", "TH", "6D", "7C", "5S")))
    assert again == dealt  # replayed: the same values from the stored answer
    hit = await h.app.game.act(s, ActCommand(request_id="a", round_id=dealt.round_id,
                                             expected_seq=dealt.view.seq, seat=1, hand=0,
                                             action=Action.HIT))
    if hit.view.to_act is not None:
        assert hit.hints and all(x.action is not Action.SPLIT for x in hit.hints)


async def test_hints_off_shows_no_values() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, _deal("classic-resplit", ("TS", "TH", "6D", "7C")))
    assert dealt.hints == ()
    msg = round_view_to_proto(dealt)
    assert not any(a.HasField("expected_value") for a in msg.boxes[0].hands[0].allowed)
