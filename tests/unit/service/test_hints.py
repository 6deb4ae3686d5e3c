"""A brand with hints on shows the exact value of each open decision of the hand to act; a brand
without shows none; the values survive an idempotent replay and reach the gRPC message."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from service_fakes import Harness, harness

from rgs.api.converters import round_view_to_proto
from rgs.engine import Action, BoxBet, Phase
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.math.hints import HintTables
from rgs.service.model import ActCommand, DealCommand, Hint, PlayResult, Session
from rgs.variants import find_variant

#: This module's own analysis caches (an app owns its own).
TABLES = HintTables()
cash_out_fair_return = TABLES.cash_out_fair_return
decision_values = TABLES.decision_values
insurance_values = TABLES.insurance_values
power_choice_values = TABLES.power_choice_values
split_hand_values = TABLES.split_hand_values


def _deal(variant: str, cards: tuple[str, ...], request_id: str = "d") -> DealCommand:
    return DealCommand(request_id=request_id, variant_id=variant,
                       boxes=(BoxBet(seat=1, stake=1000),), forced_cards=cards)


async def test_hints_on_value_every_open_decision_and_mark_the_best() -> None:
    h = await harness()
    brands = h.app.game.context.brands
    h.app.game.context.brands = {**brands, "demo-casino": dataclasses.replace(
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


def _assert_every_open_decision_valued(r: PlayResult) -> int:
    """Every legal action in ``r`` (each box's insurance, the hand to act) carries a value, in
    the service's answer and in the gRPC message, and the highest of each decision is marked.
    Returns how many decisions were checked."""
    msg = round_view_to_proto(r)
    decisions: list[tuple[list[Hint], list[bj.AllowedAction]]] = []
    for box, pbox in zip(r.view.boxes, msg.boxes, strict=True):
        if box.insurance_allowed:
            shown = [x for x in r.hints if x.seat == box.seat
                     and x.action in (Action.INSURE, Action.DECLINE_INSURANCE)]
            assert {x.action for x in shown} == {a.action for a in box.insurance_allowed}
            decisions.append((shown, list(pbox.insurance_allowed)))
    if r.view.to_act is not None:
        seat, index = r.view.to_act
        box = next(b for b in r.view.boxes if b.seat == seat)
        pbox = next(b for b in msg.boxes if b.seat == seat)
        shown = [x for x in r.hints if (x.seat, x.hand) == (seat, index)
                 and x.action not in (Action.INSURE, Action.DECLINE_INSURANCE)]
        assert {x.action for x in shown} == {a.action for a in box.hands[index].allowed}
        decisions.append((shown, list(pbox.hands[index].allowed)))
    for shown, allowed in decisions:
        top = max(x.expected_value for x in shown)
        assert [x.best for x in shown] == [x.expected_value == top for x in shown]
        assert all(a.HasField("expected_value") for a in allowed)
        assert sum(a.best for a in allowed) >= 1
    return len(decisions)


async def _hints_harness() -> tuple[Harness, Session]:
    h = await harness()
    brands = h.app.game.context.brands
    h.app.game.context.brands = {**brands, "demo-casino": dataclasses.replace(
        brands["demo-casino"], hints=True)}
    return h, await h.session()


async def _play(h: Harness, s: Session, variant: str, cards: tuple[str, ...],
                actions: list[Action]) -> list[PlayResult]:
    """Deal ``cards``, take ``actions`` on whatever is open (insurance first), then stand (or
    decline insurance) to the end of the round, collecting every answer."""
    r = await h.app.game.deal(s, _deal(variant, cards, request_id=f"d-{''.join(cards)}"))
    out = [r]
    todo = list(actions)
    i = 0
    while r.view.phase not in (Phase.SETTLED, Phase.VOIDED):
        i += 1
        hand = 0 if r.view.to_act is None else r.view.to_act[1]
        allowed = {a.action for a in r.view.boxes[0].insurance_allowed} if \
            r.view.to_act is None else {a.action for a in r.view.boxes[0].hands[hand].allowed}
        action = todo.pop(0) if todo else next(
            a for a in (Action.STAND, Action.POWER_KEEP, Action.DECLINE_INSURANCE)
            if a in allowed)
        r = await h.app.game.act(s, ActCommand(
            request_id=f"a{i}-{''.join(cards)}", round_id=r.round_id, expected_seq=r.view.seq,
            seat=1, hand=hand, action=action))
        out.append(r)
    return out


async def test_an_act_carries_a_value_for_every_legal_action_in_every_kind_of_decision() -> None:
    """Split hands (resplit open), a Power Split hand, Power Double's keep/replace, insurance
    and even money: each answer values every open decision and marks the best."""
    h, s = await _hints_harness()
    rounds = [
        # classic-resplit 8-8 v 6: split, the first hand pairs again (resplit open), resplit,
        # then the split hands' stand/hit/double.
        ("classic-resplit", ("8S", "6H", "8D", "9C", "8H", "3D"),
         [Action.SPLIT, Action.SPLIT, Action.DOUBLE]),
        # power 9-6 v 5: Power Split, the first hand's 9-2 doubles normally.
        ("power", ("9S", "5H", "6D", "2C", "TD"), [Action.POWER_SPLIT, Action.STAND]),
        # power 6-4 v T: Power Double shows a 2: keep or replace.
        ("power", ("6S", "TH", "4D", "2C"), [Action.POWER_DOUBLE]),
        # vip-platinum T-7 v A: insurance, then the hand (peeked: no blackjack).
        ("vip-platinum", ("TS", "AH", "7D", "9C"), [Action.DECLINE_INSURANCE]),
        # electronic-h17 blackjack v A: even money.
        ("electronic-h17", ("AS", "AH", "TD", "9C"), []),
        # vegas-20-plus A-A v 7: split aces played like any hand (double on any cards).
        ("vegas-20-plus", ("AS", "7H", "AD", "9C", "5D"), [Action.SPLIT, Action.HIT]),
    ]
    checked = 0
    kinds: set[Action] = set()
    for variant, cards, actions in rounds:
        for r in await _play(h, s, variant, cards, actions):
            checked += _assert_every_open_decision_valued(r)
            kinds |= {x.action for x in r.hints}
    assert checked >= 12
    assert {Action.SPLIT, Action.POWER_SPLIT, Action.POWER_KEEP, Action.POWER_REPLACE,
            Action.INSURE, Action.DECLINE_INSURANCE, Action.DOUBLE} <= kinds


async def test_split_hand_insurance_and_power_choice_values_are_the_math_modules() -> None:
    h, s = await _hints_harness()
    rules = find_variant("classic-resplit")
    split = (await _play(h, s, "classic-resplit", ("8S", "6H", "8D", "9C", "3H"),
                         [Action.SPLIT]))[1]
    want = split_hand_values(rules, "6H", ("8S", "3H"), ("8D",), power=False)
    assert {x.action: float(x.expected_value) for x in split.hints} == dict(want)
    ins = (await _play(h, s, "vip-platinum", ("TS", "AH", "7D", "9C"), []))[0]
    got = {x.action: float(x.expected_value) for x in ins.hints}
    want = insurance_values(find_variant("vip-platinum"), "AH", ("TS", "7D"), Fraction(1, 2))
    assert got == dict(want) and got[Action.DECLINE_INSURANCE] > got[Action.INSURE]
    even = (await _play(h, s, "electronic-h17", ("AS", "AH", "TD", "9C"), []))[0]
    assert float(next(x.expected_value for x in even.hints if x.action is Action.INSURE)) \
        == pytest.approx(1.0, abs=1e-12)  # even money: exactly the stake, whatever the hole
    choice = (await _play(h, s, "power", ("6S", "TH", "4D", "2C"), [Action.POWER_DOUBLE]))[1]
    shown = {x.action: x for x in choice.hints}
    assert shown[Action.POWER_REPLACE].best and not shown[Action.POWER_KEEP].best  # 12 v T
    want = power_choice_values(find_variant("power"), "TH", ("6S", "4D", "2C"))
    assert {a: float(x.expected_value) for a, x in shown.items()} == dict(want)
