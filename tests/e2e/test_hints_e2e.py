"""Exact decision values over gRPC against real server processes, at the sandbox's hints brand
(demo-casino-hints): every legal action of every answer carries its value, the best is marked,
split hands, insurance and Power Double's keep/replace included; the brand without hints shows
none."""

from __future__ import annotations

import pytest
from e2e_clients import Clients
from test_play_e2e import OPERATOR, new_player

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.terminal import render
from rgs.terminal.play import Player

pytestmark = pytest.mark.asyncio(loop_scope="session")

HINTS_BRAND = "demo-casino-hints"


async def _session(c: Clients, pid: str, brand: str) -> tuple[tuple[str, str], ...]:
    resp = await c.operators[0].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}-{brand}", brand_id=brand, player_id=pid), metadata=OPERATOR)
    return (("authorization", f"Bearer {resp.session_token}"),)


def _open_decisions(view: bj.RoundView) -> list[list[bj.AllowedAction]]:
    """Each box's insurance decision and the hand to act's decision, as lists of actions."""
    out = [list(b.insurance_allowed) for b in view.boxes if b.insurance_allowed]
    if view.HasField("to_act"):
        box = next(b for b in view.boxes if b.seat == view.to_act.seat)
        out.append(list(box.hands[view.to_act.hand].allowed))
    return out


async def _play(c: Clients, md: tuple[tuple[str, str], ...], variant: str,
                cards: list[str], actions: list[int]) -> list[bj.RoundView]:
    """Deal ``cards``, take ``actions``, then stand / keep / decline to the end."""
    game = c.games[0]
    rid = "".join(cards)
    view = (await game.Deal(bj.DealRequest(
        request_id=f"d-{rid}", variant_id=variant, boxes=[bj.BoxBet(seat=1, stake=1000)],
        forced_cards=cards), metadata=md)).round
    views = [view]
    todo = list(actions)
    while open_now := _open_decisions(view):
        (allowed,) = open_now
        kinds = {a.action for a in allowed}
        action = todo.pop(0) if todo else next(
            a for a in (bj.ACTION_STAND, bj.ACTION_POWER_KEEP, bj.ACTION_DECLINE_INSURANCE)
            if a in kinds)
        hand = view.to_act.hand if view.HasField("to_act") else 0
        view = (await game.Act(bj.ActRequest(
            request_id=f"a{len(views)}-{rid}", round_id=view.round_id, expected_seq=view.seq,
            seat=1, hand=hand, action=action), metadata=md)).round
        views.append(view)
    return views


async def test_every_legal_action_carries_its_value_at_a_hints_brand(e2e: Clients) -> None:
    pid = await new_player(e2e)
    md = await _session(e2e, pid, HINTS_BRAND)
    rounds = [
        ("classic-resplit", ["8S", "6H", "8D", "9C", "8H", "3D"],
         [bj.ACTION_SPLIT, bj.ACTION_SPLIT]),
        ("power", ["9S", "5H", "6D", "2C", "TD"], [bj.ACTION_POWER_SPLIT]),
        ("power", ["6S", "TH", "4D", "2C"], [bj.ACTION_POWER_DOUBLE]),
        ("vip-platinum", ["TS", "AH", "7D", "9C"], []),
        ("electronic-h17", ["AS", "AH", "TD", "9C"], []),
    ]
    seen: set[int] = set()
    decisions = 0
    for variant, cards, actions in rounds:
        for view in await _play(e2e, md, variant, cards, actions):
            for allowed in _open_decisions(view):
                decisions += 1
                assert all(a.HasField("expected_value") for a in allowed), (variant, allowed)
                top = max(a.expected_value for a in allowed)
                assert [a.best for a in allowed] == [a.expected_value == top for a in allowed]
                seen |= {a.action for a in allowed}
    assert decisions >= 8
    assert {bj.ACTION_SPLIT, bj.ACTION_POWER_SPLIT, bj.ACTION_POWER_KEEP,
            bj.ACTION_POWER_REPLACE, bj.ACTION_INSURE, bj.ACTION_DECLINE_INSURANCE} <= seen


async def test_even_money_is_worth_the_stake_and_the_plain_brand_shows_no_values(
        e2e: Clients) -> None:
    pid = await new_player(e2e)
    view = (await _play(e2e, await _session(e2e, pid, HINTS_BRAND), "vegas-20-plus",
                        ["AS", "AH", "TD", "9C"], []))[0]
    insure = next(a for a in view.boxes[0].insurance_allowed if a.action == bj.ACTION_INSURE)
    assert insure.expected_value == pytest.approx(1.0, abs=1e-12) and not insure.best
    plain = (await _play(e2e, await _session(e2e, pid, "demo-casino"), "classic-resplit",
                         ["8S", "6H", "8D", "9C", "3H"], [bj.ACTION_SPLIT]))
    for view in plain:
        for allowed in _open_decisions(view):
            assert not any(a.HasField("expected_value") or a.best for a in allowed)


async def test_rgs_play_shows_the_values_of_the_pair_and_each_split_hand(e2e: Clients) -> None:
    """``rgs play`` at the hints brand: the legend once, then an EV on every choice (the pair's
    split, each split hand's decisions) and the best marked on each prompt (``*``: this player
    is on an ASCII-only terminal)."""
    pid = await new_player(e2e, balance=50_000)
    md = await _session(e2e, pid, HINTS_BRAND)
    listed = await e2e.games[0].ListVariants(bj.ListVariantsRequest(), metadata=md)
    feed = iter(["2.00", "p", "d", "s", "q"])
    out: list[str] = []

    def ask(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    variant = next(v for v in listed.variants if v.id == "classic-resplit")
    player = Player(stub=e2e.games[0], token=md[0][1].removeprefix("Bearer "), variant=variant,
                    currency=listed.currency, ask=ask, say=out.append, ascii_only=True,
                    forced_cards=("8S", "6H", "8D", "TC", "3C", "TH", "TD", "7D"))
    assert await player.run() == 0
    prompts = [line for line in out if line.endswith("> ") and "[s] stand" in line]
    assert len(prompts) == 3  # the pair, then each split hand
    assert all(p.count(" EV ") == p.count("[") and p.count(" *") >= 1 and p.isascii()
               for p in prompts)
    assert "[p] split (2.00 EUR) EV +" in prompts[0]
    assert sum(line == render.hints_legend(ascii_only=True) for line in out) == 1
