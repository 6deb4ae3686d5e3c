"""The ``rgs rng`` lab tools: raw stream, outcome files, report, and their error messages."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from rgs.cli import main
from rgs.cli.rng import register
from rgs.engine.cards import DECK


def _run(*argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rgs", "rng", *argv],
                          capture_output=True, check=False, timeout=120)


def test_raw_writes_exactly_the_requested_bytes() -> None:
    done = _run("raw", "--bytes", "200000")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) == 200_000
    assert done.stderr == b""


def test_raw_forever_stops_quietly_when_the_reader_closes_the_pipe() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "rgs", "rng", "raw", "--bytes", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(1_000_000)) == 1_000_000
    proc.stdout.close()
    assert proc.wait(timeout=30) == 0
    assert proc.stderr.read() == b""


def test_raw_json_summary_goes_to_stderr_so_stdout_stays_binary() -> None:
    done = _run("raw", "--bytes", "100", "--json")
    assert len(done.stdout) == 100
    assert json.loads(done.stderr)["bytes"] == 100


def test_outcomes_shoes_are_full_shoes_in_shuffled_order(tmp_path: Path) -> None:
    out = tmp_path / "shoes.txt"
    assert main(["rng", "outcomes", "--shoes", "50", "--decks", "2", "-o", str(out)]) == 0
    header, *lines = out.read_text().splitlines()
    assert header.startswith("# rgs-rng-outcomes v1 format=shoes count=50 cards-per-line=104 "
                             "encoding=codes decks=2 ")
    assert len(lines) == 50
    full = Counter(DECK * 2)
    assert all(Counter(line.split()) == full for line in lines)
    assert len(set(lines)) == 50


def test_outcomes_draws_are_full_shoes_in_engine_draw_order(tmp_path: Path) -> None:
    out = tmp_path / "draws.txt"
    assert main(["rng", "outcomes", "--format", "draws", "--shoes", "5", "--decks", "1",
                 "--numeric", "-o", str(out)]) == 0
    header, *lines = out.read_text().splitlines()
    assert "format=draws" in header and "encoding=numeric" in header
    assert all(sorted(map(int, line.split())) == list(range(52)) for line in lines)


def test_outcomes_rounds_are_deal_time_cards_of_engine_rounds(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    out = tmp_path / "rounds.txt"
    assert main(["rng", "outcomes", "--format", "rounds", "--rounds", "30",
                 "--variant", "classic-resplit", "-o", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == summary | {"format": "rounds", "count": 30, "cards_per_line": 4}
    header, *lines = out.read_text().splitlines()
    assert "variant=classic-resplit" in header
    assert len(lines) == 30
    assert all(len(line.split()) == 4 and set(line.split()) <= set(DECK) for line in lines)


@pytest.mark.parametrize(("argv", "message"), [
    (["outcomes", "--format", "rounds"], "--format rounds needs --rounds N"),
    (["outcomes"], "--format shoes needs --shoes N"),
    (["outcomes", "--shoes", "1", "--decks", "9"], "--decks must be between 1 and 8"),
    (["outcomes", "--shoes", "1", "--json"], "give --output FILE"),
    (["report", "--bits", "1000"], "--bits must be a multiple of 8 and at least 100000"),
    (["report", "--input", "/nonexistent/capture.bin"], "cannot read --input"),
    (["raw", "--bytes", "1", "--reseed-interval", "0"], "--reseed-interval must be between"),
])
def test_user_errors_exit_2_with_a_message_and_no_traceback(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rng", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("rgs rng: error: ")


def test_report_writes_markdown_png_and_json(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rng", "report", "--sequences", "2", "--bits", "200000", "--rounds", "2000",
                 "--shuffles", "500", "--output-dir", str(tmp_path), "--json", "--jobs", "2"])
    summary = json.loads(capsys.readouterr().out)
    assert code == (0 if summary["passed"] else 1)
    assert (tmp_path / "rng-pvalues.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (tmp_path / "rng-report.md").read_text()
    assert "## SP 800-22 results" in md and "| Frequency | 2 |" in md
    assert "| dealt rank | 32,000 |" in md
    assert json.loads((tmp_path / "rng-report.json").read_text())["sequences"] == 2
    assert {row["test"] for row in summary["cards"]} >= {"dealt rank", "deal position × card"}


def test_report_reads_a_captured_stream_and_says_how_much_is_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "capture.bin"
    capture.write_bytes(bytes(1000))
    assert main(["rng", "report", "--input", str(capture), "--sequences", "1", "--bits",
                 "100000"]) == 2
    assert "holds 1,000 bytes" in capsys.readouterr().err
    capture.write_bytes(bytes(12_500))  # all zeros: every test must fail
    code = main(["rng", "report", "--input", str(capture), "--sequences", "1", "--bits",
                 "100000", "--rounds", "0", "--shuffles", "0", "--output-dir", str(tmp_path)])
    assert code == 1
    assert "**Verdict: FAIL**" in (tmp_path / "rng-report.md").read_text()


def test_register_adds_rng_to_a_parent_parser() -> None:
    parser = argparse.ArgumentParser(prog="rgs")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["rng", "outcomes", "--shoes", "3"])
    assert callable(args.func)
    assert (args.command, args.rng_command, args.shoes) == ("rng", "outcomes", 3)


def test_rgs_entry_point_runs_rng_commands_and_their_user_errors(
        capsys: pytest.CaptureFixture[str]) -> None:
    from rgs.__main__ import main as rgs_main  # the `python -m rgs` shim

    assert rgs_main(["rng", "outcomes", "--format", "rounds"]) == 2
    assert "--format rounds needs --rounds N" in capsys.readouterr().err
