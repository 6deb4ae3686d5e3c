"""``rgs par``: the JSON figures, the written sheet and the error for an unknown variant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgs.cli import main


def test_par_json_prints_variant_rtp_side_bets_and_cash_out_rtp(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", "vip-platinum", "--json"]) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert doc["variant"] == "vip-platinum"
    assert doc["rtp"] == pytest.approx(99.29, abs=0.03)
    assert set(doc["side_bets"]) == {"perfect_pairs", "twenty_one_plus_three"}
    assert doc["cash_out_rtp"] == pytest.approx(96.80, abs=0.02)
    assert out.err == ""


def test_par_writes_markdown_chart_and_figures(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", "electronic-h17", "--out", str(tmp_path)]) == 0
    md = (tmp_path / "electronic-h17.md").read_text("utf-8")
    assert "| return to player |" in md and "![strategy chart](electronic-h17.png)" in md
    assert (tmp_path / "electronic-h17.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "electronic-h17.json").read_text())["variant"] == "electronic-h17"
    assert str(tmp_path / "electronic-h17.md") in capsys.readouterr().out


def test_par_unknown_variant_lists_the_known_ids_and_exits_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", "blackjack-switch"]) == 2
    err = capsys.readouterr().err
    assert "unknown variant 'blackjack-switch'" in err
    assert "vegas-20-plus" in err and "vip-platinum" in err


def test_par_into_an_unwritable_place_says_to_choose_another_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["par", "electronic-h17", "--out", str(blocker / "sheets")]) == 1
    assert "pass a writable --out directory" in capsys.readouterr().err
