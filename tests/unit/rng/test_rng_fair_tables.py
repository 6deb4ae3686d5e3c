"""A shared table round's client seed (rgs.rng.fair.table_client_seed) and `rgs verify` on a
table round's recall (a GetTableRound answer as JSON): the documented combination re-derived,
and every kind of tampering refused with the reason."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rgs.cli import main
from rgs.engine import BoxBet
from rgs.rng.fair import FairInputError, card_order, table_client_seed
from support.recalls import SEED, table_recall, table_round


def test_the_table_client_seed_is_the_documented_hash_of_the_seats_lines() -> None:
    # docs/rng.md: lines "<seat>:<seed>" + LF, seat order, seats without a seed left out.
    want = hashlib.sha256(b"1:lucky 7\n4:abc\n").hexdigest()
    assert table_client_seed([(4, "abc"), (2, ""), (1, "lucky 7")]) == want
    assert len(want) == 64 and want == want.lower()
    assert table_client_seed([]) == "" == table_client_seed([(1, ""), (3, "")])


def test_every_seat_and_every_seed_changes_the_table_client_seed() -> None:
    base = table_client_seed([(1, "a"), (2, "b")])
    assert len({base, table_client_seed([(1, "a"), (2, "c")]),
                table_client_seed([(1, "a"), (3, "b")]), table_client_seed([(2, "a"), (1, "b")]),
                table_client_seed([(1, "a")]), table_client_seed([(1, "a:2"), (2, "b")])}) == 6


@pytest.mark.parametrize("pairs", [[(1, "x" * 65)], [(1, "é")], [(1, "a\nb")],
                                   [(1, "a"), (1, "b")], [(0, "a")]])
def test_a_malformed_seat_seed_is_refused(pairs: list[tuple[int, str]]) -> None:
    with pytest.raises(FairInputError):
        table_client_seed(pairs)


def _table_recall(*, cards: list[str] | None = None, typed: bool = True,
                  **fair: object) -> dict[str, object]:
    """A real table round's GetTableRound answer as MessageToJson(preserving_proto_field_name=
    True) prints it (``typed``: this release's events; else an earlier release's
    ``events_json``): seats 1 and 3 with their client seeds, round 12 of the VIP table; its
    dealt cards replaced by ``cards`` and its ``fair`` fields changed by ``fair``."""
    _, rec = table_round("vip-platinum", [BoxBet(seat=1, stake=1000, player="op/ann"),
                                          BoxBet(seat=3, stake=2000, player="op/bob")],
                         seat_seeds=[(1, "ann"), (3, "bob")], round_no=12)
    doc = table_recall(rec, "op", typed=typed)
    if cards is not None:
        dealt = [e["card_dealt"] for e in doc["events"] if "card_dealt" in e]
        assert len(dealt) == len(cards)
        for e, card in zip(dealt, cards, strict=True):
            e["card"] = card
    assert doc["fair"]["round_number"] == "12"
    doc["fair"].update(fair)
    return doc


def _cards() -> list[str]:
    doc = _table_recall()
    return [e["card_dealt"]["card"] for e in doc["events"] if "card_dealt" in e]


def _run(tmp_path: Path, doc: object) -> int:
    path = tmp_path / "table-round.json"
    path.write_text(json.dumps(doc))
    return main(["verify", str(path), "--json"])


@pytest.mark.parametrize("typed", [True, False], ids=["events", "events_json of before"])
def test_a_table_round_verifies_from_its_recall(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                typed: bool) -> None:
    assert _run(tmp_path, _table_recall(typed=typed)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fair"] is True
    assert any("seat 1, seat 3" in line for line in out["rounds"][0]["lines"])


@pytest.mark.parametrize(("change", "says"), [
    ({"client_seed": table_client_seed([(1, "ann"), (3, "bob!")])}, "is not the one the seats"),
    ({"seat_seeds": [{"seat": 1, "client_seed": "ann"}, {"seat": 3, "client_seed": "bo"}]},
     "is not the one the seats"),
    ({"round_number": "13"}, "card 1 dealt was"),
    ({"server_seed": bytes(32).hex()}, "but the commitment is"),
    ({"server_seed": ""}, "not revealed yet"),
    ({"verifiable": False}, "no provably fair seeds"),
])
def test_a_tampered_table_recall_does_not_verify(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object],
        says: str) -> None:
    assert _run(tmp_path, _table_recall(**change)) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["fair"] is False and says in " ".join(out["rounds"][0]["lines"])


def test_a_swapped_card_in_a_table_recall_is_named(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    cards = _cards()
    assert cards == card_order(SEED, table_client_seed([(1, "ann"), (3, "bob")]), 12,
                               8)[:len(cards)]
    cards[2], cards[3] = cards[3], cards[2]
    assert _run(tmp_path, _table_recall(cards=cards)) == 1
    assert "card 3 dealt was" in capsys.readouterr().out


def test_a_table_recall_with_malformed_events_exits_2(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    doc = _table_recall(typed=False)
    doc["events_json"] = "[[\"card_dealt\"]]"
    assert _run(tmp_path, doc) == 2
    assert "is not [kind, fields]" in capsys.readouterr().err
    doc = _table_recall()
    doc["events"] = [{"seq": "1", "card_dealt": {"seat": 1}}]
    assert _run(tmp_path, doc) == 2
    assert "deals no card" in capsys.readouterr().err
