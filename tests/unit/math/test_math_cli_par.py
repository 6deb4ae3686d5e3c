"""``rgs par``: the JSON figures, the written sheet and the error for an unknown variant."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def test_par_power_json_states_the_simulation_check_it_passed(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", "power", "--json"]) == 0
    check = json.loads(capsys.readouterr().out)["simulation_check"]
    assert check["passed"] and check["rounds"] >= 10_000_000
    assert abs(check["difference"]) < 3 * check["stderr"]
    assert check["command"].startswith("rgs par power --check-rounds")


def test_par_check_rounds_records_the_engine_run_on_the_sheet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["par", "electronic-h17", "--out", str(tmp_path), "--check-rounds", "3000",
            "--seed", "5", "--jobs", "1"]
    assert main(args) == 0
    check = json.loads((tmp_path / "electronic-h17.json").read_text())["simulation_check"]
    assert (check["rounds"], check["seed"]) == (3000, 5)
    assert "3,000 rounds (seed 5)" in capsys.readouterr().err
    assert "## Simulation check" in (tmp_path / "electronic-h17.md").read_text()
    # regenerating without a new check keeps the one run against the same figures
    assert main(["par", "electronic-h17", "--out", str(tmp_path)]) == 0
    kept = json.loads((tmp_path / "electronic-h17.json").read_text())["simulation_check"]
    assert kept == check


def test_par_check_rounds_below_one_says_what_a_lab_runs(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", "power", "--check-rounds", "0"]) == 2
    assert "10000000" in capsys.readouterr().err


def test_par_check_that_fails_is_written_down_and_exits_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import rgs.math.par_check as par_check

    real = par_check.run_check

    def off_by_a_lot(*args: Any, **kwargs: Any) -> dict[str, Any]:
        check = real(*args, **kwargs)
        return {**check, "rtp": check["rtp"] - 1.0, "difference": check["difference"] - 1.0,
                "standard_errors": -9.9, "passed": False}

    monkeypatch.setattr(par_check, "run_check", off_by_a_lot)
    assert main(["par", "electronic-h17", "--out", str(tmp_path), "--check-rounds", "500",
                 "--jobs", "1"]) == 1
    err = capsys.readouterr().err
    assert "FAILED" in err and "the engine does not return the sheet's RTP" in err
    assert "FAILED" in (tmp_path / "electronic-h17.md").read_text()
