"""The command line lives in rgs.cli: one parser with every command, reached the same way from the
console script and ``python -m rgs``; the sandbox wallet has its own command."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import rgs.__main__
import rgs.cli

COMMANDS = {"simulate", "par", "rng", "serve", "migrate", "sandbox", "play", "verify",
            "authenticate", "audit", "admin", "movements", "reconcile", "report", "probe",
            "purge", "partitions", "rtp"}


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def test_one_parser_offers_every_command() -> None:
    assert _commands(rgs.cli.build_parser()) == COMMANDS


def test_python_dash_m_rgs_is_a_shim_over_rgs_cli() -> None:
    assert rgs.__main__.main is rgs.cli.main
    done = subprocess.run([sys.executable, "-m", "rgs", "--help"], capture_output=True,
                          text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert all(c in done.stdout for c in COMMANDS)


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert rgs.cli.main([]) == 2
    assert capsys.readouterr().err.startswith("usage: rgs")


def test_the_sandbox_wallet_has_its_own_command() -> None:
    done = subprocess.run([sys.executable, "-m", "sandbox_wallet", "--help"],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: sandbox-wallet")


def test_a_database_url_password_never_reaches_the_terminal(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Found: a configuration error at start-up printed secrets (pydantic's message quotes the
    whole input of a failed check: the database password in --database-url among them)."""
    from rgs.cli import main
    monkeypatch.setenv("RGS_LISTEN", "0.0.0.0:50051")  # plaintext off loopback: refused
    rc = main(["migrate", "--database-url", "postgresql://rgs:pw-SECRET@127.0.0.1:1/rgs"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error:") and "plaintext" in err
    assert "SECRET" not in err and "input_value" not in err
