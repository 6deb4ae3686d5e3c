"""`rgs verify` checks a round whole (issue 22): the recorded decisions are replayed through the
rules on the card order of the round's seeds, and every card's destination, every result and
payout, every side bet and the totals must be what the recall says.

The recalls are made by the servers' own converters (tests/support/recalls.py) from rounds the
engine played on the seeds' order, and saved recalls of real servers (tests/data/recalls). Each
tampering here was passed as FAIR by the release that checked only the cards' order."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rgs.cli import main
from rgs.engine import Action, BehindBet, BoxBet, Round
from rgs.recall.verify import verify_document
from support.data import DATA_DIR
from support.recalls import (
    SEED,
    SOLO_TAMPERING,
    TABLE_TAMPERING,
    set_step,
    solo_recall,
    stand_all,
    table_recall,
    table_round,
)

RECALLS = DATA_DIR / "recalls"

A, B, C = "dev-operator/ann", "dev-operator/bob", "other-operator/cat"


def bold(rnd: Round) -> None:
    """Takes every extra bet the rules offer: insurance, splits (and Power Splits), doubles (and
    Power Doubles, then a replaced card), hits below 17; a VIP box cashes out a 16."""
    prefer = (Action.SPLIT, Action.POWER_SPLIT, Action.DOUBLE, Action.POWER_DOUBLE,
              Action.POWER_REPLACE)
    while not rnd.finished:
        insurance = [b for b in rnd.view().boxes if b.insurance_allowed]
        for box in insurance:
            rnd.insure(box.seat, take=box.seat % 2 == 1)
        if insurance or rnd.to_act is None:
            continue
        seat, index = rnd.to_act
        legal = {a.action for a in rnd.legal_actions(seat, index)}
        total = rnd.view().boxes[[b.seat for b in rnd.view().boxes].index(seat)] \
            .hands[index].total
        chosen = next((a for a in prefer if a in legal), None)
        if chosen is None and Action.CASH_OUT in legal and total == 16:
            chosen = Action.CASH_OUT
        if chosen is None:
            chosen = Action.HIT if total < 17 and Action.HIT in legal else Action.STAND
        rnd.act(seat, index, chosen)


def _seed_with(make: Callable[[bytes], dict[str, Any]], wanted: set[str]) -> dict[str, Any]:
    """The first recall, over seeds 0, 1, 2 ..., whose decisions include every ``wanted``
    action."""
    for n in range(400):
        doc = make(bytes([n]) * 32)
        text = json.dumps(doc).replace('\\"', '"')  # the steps' detail_json too
        if all(w in text for w in wanted):
            return doc
    raise AssertionError(f"no seed below 400 plays {wanted}")


def _vip_table(seed: bytes = SEED) -> dict[str, Any]:
    behind = (BehindBet(player=C, stake=500, follow_double=True, follow_split=True),
              BehindBet(player=B, stake=300))
    _, rec = table_round("vip-platinum", [
        BoxBet(seat=1, stake=1000, player=A, perfect_pairs=200, twenty_one_plus_three=100,
               behind=behind),
        BoxBet(seat=3, stake=2000, player=B, perfect_pairs=100),
        BoxBet(seat=5, stake=1500, player="other-operator/dan")], bold, seed=seed,
        seat_seeds=[(1, "ann"), (3, "bob: 42")])
    return table_recall(rec)


def _insuring_table(seed: bytes = SEED) -> dict[str, Any]:
    """A dealer ace at the VIP table: seat 1 insures (bold), one Bet Behind insures live during
    the insurance phase, one is insured by its preset at the deal."""
    def play(rnd: Round) -> None:
        if rnd.behind_insurance_refusal(1, C) is None:
            rnd.insure_behind(1, C)
        bold(rnd)
    _, rec = table_round("vip-platinum", [BoxBet(seat=1, stake=1000, player=A, behind=(
        BehindBet(player=C, stake=600), BehindBet(player=B, stake=400, insure=True)))],
        play, seed=seed)
    return table_recall(rec)


def _vip_solo(seed: bytes = SEED) -> dict[str, Any]:
    return solo_recall("vip-platinum", [BoxBet(seat=s, stake=1000, perfect_pairs=100,
                                               twenty_one_plus_three=100) for s in (1, 2, 3)],
                       bold, seed=seed, client_seed="mine")


def _power_solo(seed: bytes = SEED) -> dict[str, Any]:
    return solo_recall("power", [BoxBet(seat=1, stake=1000)], bold, seed=seed)


HONEST: dict[str, Callable[[], dict[str, Any]]] = {
    "vip-platinum table: Bet Behind, split and double":
        lambda: _seed_with(_vip_table, {"ACTION_SPLIT", "ACTION_DOUBLE", "behind_stake_added"}),
    "vip-platinum table: insurance, a Bet Behind's live and another's preset": lambda:
        _seed_with(_insuring_table, {"ACTION_INSURE", "behind_insurance_settled"}),
    "vip-platinum solo: split, double, side bets":
        lambda: _seed_with(_vip_solo, {'"action": "split"', '"action": "double"'}),
    "power solo: Power Split": lambda: _seed_with(_power_solo, {'"action": "power_split"'}),
    "power solo: Power Double, card replaced": lambda: _seed_with(
        _power_solo, {'"action": "power_double"', '"action": "power_replace"', "card_burned"}),
    "vegas-20-plus solo: 20+ Bonus": lambda: solo_recall(
        "vegas-20-plus", [BoxBet(seat=1, stake=1000, twenty_plus=200)], bold),
    "classic-resplit solo": lambda: solo_recall(
        "classic-resplit", [BoxBet(seat=1, stake=1000)], bold, round_number=7),
    "electronic-h17 table, two boxes": lambda: table_recall(table_round(
        "electronic-h17", [BoxBet(seat=2, stake=500, player=A),
                           BoxBet(seat=4, stake=700, player=B)], bold)[1]),
    "vip-platinum table, events_json of an earlier release": lambda: table_recall(
        table_round("vip-platinum", [BoxBet(seat=1, stake=1000, player=A, behind=(
            BehindBet(player=C, stake=500, follow_double=True),))], bold)[1], typed=False),
    "vip-platinum table as the other operator sees it": lambda: table_recall(
        table_round("vip-platinum", [BoxBet(seat=1, stake=1000, player=A, behind=(
            BehindBet(player=C, stake=500, follow_split=True),))], bold)[1], "other-operator"),
}


def _verdict(doc: dict[str, Any]) -> tuple[bool, str]:
    verdict, = verify_document(doc)
    return verdict.fair, "\n".join(verdict.lines)


@pytest.mark.parametrize("name", sorted(HONEST))
def test_an_honest_recall_verifies_whole(name: str) -> None:
    fair, text = _verdict(HONEST[name]())
    assert fair, text
    assert "replayed whole" in text and "every card went where the recall says" in text


@pytest.mark.parametrize("path", sorted(RECALLS.glob("*.json")), ids=lambda p: p.name)
def test_a_saved_recall_of_a_real_server_verifies_whole(path: Path) -> None:
    fair, text = _verdict(json.loads(path.read_text("utf-8")))
    assert fair, text
    assert "replayed whole" in text


@pytest.mark.parametrize("path", sorted(RECALLS.glob("*.json")), ids=lambda p: p.name)
def test_every_probe_fails_a_saved_recall_of_a_real_server(path: Path) -> None:
    probes = TABLE_TAMPERING if path.name.startswith("table-") else SOLO_TAMPERING
    applied = []
    for name, (tamper, says) in probes.items():
        doc = json.loads(path.read_text("utf-8"))
        if tamper(doc):
            fair, text = _verdict(doc)
            assert not fair and says in text, (name, text)
            applied.append(name)
    assert len(applied) >= 4, applied


# ------------------------------------------------------------------ tampering, solo recall


def _steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = doc["round"]["steps"]
    return steps


def _solo_doc() -> dict[str, Any]:
    """Three boxes with side bets, a split and a double; a hand won, one lost, a side bet
    lost."""
    return _seed_with(_vip_solo, {'"action": "split"', '"action": "double"',
                                  '"outcome": "win"', '"outcome": "lose"', '"line": "lose"'})


@pytest.mark.parametrize("name", sorted(SOLO_TAMPERING))
def test_a_tampered_solo_recall_does_not_verify(name: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    doc = _solo_doc()
    tamper, says = SOLO_TAMPERING[name]
    assert tamper(doc)
    path = tmp_path / "round.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "NOT VERIFIED" in out and says in out, out


def test_a_step_whose_fields_contradict_its_detail_does_not_verify() -> None:
    doc = _solo_doc()
    hand = next(s for s in _steps(doc) if s["kind"] == "hand_settled")
    hand["amount"] = str(int(hand.get("amount", 0)) + 500)  # the shown payout only
    fair, text = _verdict(doc)
    assert not fair and "shows amount" in text and "contradicts itself" in text


def test_a_decision_the_rules_refuse_is_named() -> None:
    doc = solo_recall("classic-resplit", [BoxBet(seat=1, stake=1000)], stand_all)
    acted = next(s for s in _steps(doc) if s["kind"] == "player_acted")
    set_step(acted, hand=1)
    fair, text = _verdict(doc)
    assert not fair and "is not one the rules allow" in text, text


def test_a_solo_recall_without_its_details_cannot_be_read(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    doc = solo_recall("classic-resplit", [BoxBet(seat=1, stake=1000)])
    for s in _steps(doc):
        del s["detail_json"]
    path = tmp_path / "round.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 2
    assert "has no detail_json" in capsys.readouterr().err


# ------------------------------------------------------------------ tampering, table recall


def _events(doc: dict[str, Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = doc["events"]
    return events


def _table_doc() -> dict[str, Any]:
    """Three seats, side bets, Bet Behinds, a split and a double."""
    return _seed_with(_vip_table, {"ACTION_SPLIT", "ACTION_DOUBLE", "behind_stake_added",
                                   "perfect_pair", '"line": "lose"'})


@pytest.mark.parametrize("name", sorted(TABLE_TAMPERING))
def test_a_tampered_table_recall_does_not_verify(name: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    doc = _table_doc()
    tamper, says = TABLE_TAMPERING[name]
    assert tamper(doc)
    path = tmp_path / "table-round.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    text = " ".join(out["rounds"][0]["lines"])
    assert out["fair"] is False and says in text, text


def test_a_table_recall_of_an_earlier_release_with_a_payout_inflated_does_not_verify() -> None:
    doc = table_recall(table_round("vip-platinum", [BoxBet(seat=1, stake=1000, player=A)])[1],
                       typed=False)
    events = json.loads(doc["events_json"])
    hand = next(fields for kind, fields in events if kind == "hand_settled")
    hand["payout"] += 1000
    doc["events_json"] = json.dumps(events)
    fair, text = _verdict(doc)
    assert not fair and "the recall says seat 1" in text, text


def test_the_first_difference_names_the_card_and_where_the_order_puts_it() -> None:
    doc = _table_doc()
    TABLE_TAMPERING["two cards swapped between seats"][0](doc)
    _, text = _verdict(doc)
    cards = [e["card_dealt"] for e in _events(doc) if "card_dealt" in e]
    card, seat = cards[0]["card"], cards[0]["seat"]
    assert (f"card 1 ({card}) went to seat {seat} in the recall (event "
            in text), text
    assert "give it to seat 1" in text


def test_a_card_given_to_a_seat_instead_of_the_dealer_is_named() -> None:
    doc = solo_recall("classic-resplit", [BoxBet(seat=1, stake=1000)], stand_all)
    cards = [s for s in _steps(doc) if s["kind"] == "card_dealt"]
    set_step(cards[1], seat=1)  # the dealer's up card, now the player's
    fair, text = _verdict(doc)
    assert not fair
    assert (f"card 2 ({cards[1]['card']}) went to seat 1 in the recall (step 2); the seeds' "
            "order, the recorded decisions and the rules give it to the dealer") in text, text


def test_fair_says_what_was_checked(capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    doc = solo_recall("classic-resplit", [BoxBet(seat=1, stake=1234)], stand_all)
    path = tmp_path / "round.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    cards = sum(1 for s in _steps(doc) if s["kind"] == "card_dealt")
    paid = int(doc["round"].get("total_paid", 0))
    assert ": FAIR" in out and f"{cards} cards, 1 hand, 0 side bets" in out
    assert f"staked 12.34 EUR, payouts {paid // 100}.{paid % 100:02d} EUR" in out
