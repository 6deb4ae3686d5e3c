"""`rgs verify` on recall JSON it must refuse or not pass: exit 2 with what to do on input that is
not a recall, exit 1 with the reason on rounds that do not verify (the passing and tampered cases
run against real servers in tests/e2e/test_fair_e2e.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgs.cli import main
from rgs.rng.fair import card_order, commitment

SEED = bytes(range(32))


def _record(*, seed: str = SEED.hex(), cards: list[str] | None = None, **fair: object
            ) -> dict[str, object]:
    dealt = cards if cards is not None else card_order(SEED, "", 4, 6)[:5]
    f: dict[str, object] = {"verifiable": True, "commitment": commitment(SEED),
                            "roundNumber": "4", "decks": 6, "serverSeed": seed}
    f.update(fair)
    return {"round": {"roundId": "r1", "status": "settled", "fair": f, "steps": [
        {"index": i, "kind": "card_dealt", "card": c} for i, c in enumerate(dealt)]}}


def _run(tmp_path: Path, doc: object, *extra: str) -> int:
    path = tmp_path / "recall.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return main(["verify", str(path), *extra])


def test_camel_case_json_with_string_int64_verifies(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, _record()) == 0
    assert "round r1: FAIR" in capsys.readouterr().out


@pytest.mark.parametrize(("doc", "says"), [
    (_record(seed=""), "not revealed yet"),
    (_record(seed="ab" * 31), "64 hexadecimal"),
    (_record(commitment="0" * 64), "but the commitment is"),
    (_record(roundNumber="5"), "card 1 dealt was"),
    (_record(verifiable=False), "no provably fair seeds"),
])
def test_rounds_that_do_not_verify_exit_1_with_the_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: object, says: str) -> None:
    assert _run(tmp_path, doc, "--json") == 1
    out = json.loads(capsys.readouterr().out)
    assert out["fair"] is False and says in " ".join(out["rounds"][0]["lines"])


@pytest.mark.parametrize(("doc", "says"), [
    ("{not json", "is not JSON"),
    ([1, 2], "expected a JSON object"),
    ({"something": 1}, "no round found"),
])
def test_input_that_is_not_a_recall_exits_2_saying_what_to_give(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: object, says: str) -> None:
    assert _run(tmp_path, doc) == 2
    assert says in capsys.readouterr().err


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
