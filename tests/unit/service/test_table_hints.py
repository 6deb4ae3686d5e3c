"""Exact decision values at a shared table (rgs.service.tables.public and the snapshot a
player receives): a view made for a player whose brand shows hints carries, on every allowed
action of every open decision, the values rgs.service.advice computes for the same engine round,
the best marked; one made for any other player carries none."""

from __future__ import annotations

from typing import Any

from rgs.api.converters import ACTION_NUMBERS
from rgs.api.table_messages import view_to_proto
from rgs.engine import Action, BoxBet, Round, SequenceSource
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.math.hints import HintTables
from rgs.service import advice
from rgs.service.tables import public
from rgs.service.tables.model import Seat, TablePhase, TableState, Who
from rgs.variants import VARIANTS

#: The analysis caches (an app owns its own).
TABLES = HintTables()

_NAMES = {n: a.value for a, n in ACTION_NUMBERS.items()}


def _state(phase: TablePhase) -> TableState:
    who = [Who(player_key=f"op/{p}", operator_id="op", brand_id="b", player_id=p,
               session_id=f"s-{p}") for p in ("ann", "bob")]
    return TableState(phase=phase, round_id="r1", round_no=1,
                      seats=(Seat(seat=1, who=who[0]), Seat(seat=2, who=who[1])))


def _deal(variant: str, cards: list[str]) -> Round:
    """Seats 1 and 2 (1 000 each); the deal order is seat 1, seat 2, up card, seat 1, seat 2,
    hole card."""
    return Round.deal(VARIANTS[variant], SequenceSource(cards),
                      [BoxBet(seat=1, stake=1000, player="op/ann"),
                       BoxBet(seat=2, stake=1000, player="op/bob")])


def _decisions(snap: tb.TableSnapshot) -> list[tuple[int, int, dict[str, Any]]]:
    """(seat, hand, allowed action) of every allowed action in a snapshot's round (hand 0 for
    insurance), each as a dict of what it carries."""
    def d(a: bj.AllowedAction) -> dict[str, Any]:
        out: dict[str, Any] = {"action": _NAMES[a.action], "offer": a.offer, "best": a.best}
        if a.HasField("expected_value"):
            out["expected_value"] = a.expected_value
        if a.fair_value:
            out["fair_value"] = a.fair_value
        return out
    out = []
    for box in snap.round.boxes:
        out += [(box.seat, 0, d(a)) for a in box.insurance_allowed]
        out += [(box.seat, h.index, d(a)) for h in box.hands for a in h.allowed]
    return out


def _check(rnd: Round, phase: TablePhase) -> list[tuple[int, int, dict[str, Any]]]:
    """The snapshot with hints against advice.hints; the one without has no value at all."""
    state = _state(phase)
    plain = view_to_proto(public.view("t1", 5, state, rnd), "op/ann")
    shown = view_to_proto(public.view("t1", 5, state, rnd, hints=TABLES), "op/ann")
    assert not any(a.get("expected_value") is not None or a["best"]
                   for _, _, a in _decisions(plain))
    expected = {(h.seat, h.hand, h.action.value): h
                for h in advice.hints(TABLES, rnd.rules, rnd.view())}
    got = _decisions(shown)
    assert expected and len(got) == len(expected)
    for seat, hand, a in got:
        h = expected[(seat, hand, a["action"])]
        assert a["expected_value"] == float(h.expected_value)
        assert a["best"] is h.best
        assert ("fair_value" in a) is (h.action is Action.CASH_OUT)
    # Apart from the values, both snapshots are the same.
    for box in shown.round.boxes:
        for allowed in (box.insurance_allowed, *(h.allowed for h in box.hands)):
            for a in allowed:
                a.ClearField("expected_value")
                a.best, a.fair_value = False, 0
    assert shown == plain
    return got


def test_the_hand_to_act_has_a_value_on_every_legal_action_and_one_best() -> None:
    # Seat 1: 9 2 (hard 11) against a 6; seat 2: T 7 waits its turn.
    rnd = _deal("electronic-h17", ["9S", "TH", "6D", "2C", "7S", "KD"])
    assert rnd.to_act == (1, 0)
    got = _check(rnd, TablePhase.PLAYING)
    assert {seat for seat, _, _ in got} == {1}
    assert {a["action"] for _, _, a in got} >= {"hit", "stand", "double"}
    best = [a["action"] for _, _, a in got if a["best"]]
    assert best == ["double"]
    assert all(isinstance(a["expected_value"], float) for _, _, a in got)


def test_every_boxs_insurance_has_values() -> None:
    # An ace up: both boxes are offered insurance.
    rnd = _deal("electronic-h17", ["TS", "9H", "AD", "TC", "7S", "5D"])
    got = _check(rnd, TablePhase.INSURANCE)
    assert {(seat, a["action"]) for seat, _, a in got} == {
        (s, x) for s in (1, 2) for x in ("insure", "decline_insurance")}
    for s in (1, 2):
        assert sum(a["best"] for seat, _, a in got if seat == s) == 1
    # Insuring a 20 (seat 1) or a 17 (seat 2) against an ace from a full shoe loses: decline.
    assert all(a["best"] is (a["action"] == "decline_insurance") for _, _, a in got)


def test_cash_out_shows_the_fair_value_it_was_priced_from() -> None:
    rnd = _deal("vip-platinum", ["TS", "9H", "TD", "6C", "7S", "5D"])
    got = _check(rnd, TablePhase.PLAYING)
    cash = [a for _, _, a in got if a["action"] == "cash_out"]
    assert len(cash) == 1 and cash[0]["fair_value"] > 0 and cash[0]["offer"] > 0


def test_no_round_no_values() -> None:
    state = _state(TablePhase.BETTING)
    assert view_to_proto(public.view("t1", 5, state, None, hints=TABLES), "op/ann") == \
        view_to_proto(public.view("t1", 5, state, None), "op/ann")
