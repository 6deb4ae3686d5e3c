"""`rgs verify` on recall JSON it must refuse or not pass: exit 2 with what to do on input that is
not a recall, exit 1 with the reason on rounds that do not verify (the whole-round checks are in
test_rng_verify_whole.py; the passing and tampered cases also run against real servers in
tests/e2e/test_fair_e2e.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgs.cli import main
from rgs.engine import BoxBet
from support.recalls import SEED, solo_recall


def _record(*, seed: str = SEED.hex(), **fair: object) -> dict[str, object]:
    """A real round's recall as camelCase JSON with 64-bit integers as strings (as proto3 JSON
    printers write it), its ``fair`` fields changed by ``fair``."""
    doc = solo_recall("classic-resplit", [BoxBet(seat=1, stake=1000)], round_number=4,
                      proto_names=False)
    f = doc["round"]["fair"]
    assert f["roundNumber"] == "4" and f["serverSeed"] == SEED.hex()
    f["serverSeed"] = seed
    f.update(fair)
    return doc


def _run(tmp_path: Path, doc: object, *extra: str) -> int:
    path = tmp_path / "recall.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return main(["verify", str(path), *extra])


def test_camel_case_json_with_string_int64_verifies(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, _record()) == 0
    assert "round r-classic-resplit-4: FAIR" in capsys.readouterr().out


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
