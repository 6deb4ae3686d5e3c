"""``rgs authenticate``: exit 0 when the copy agrees with its manifest, 1 naming each file that
differs, 2 with what to do next; ``--seed`` prints the seeded digest; ``--json`` one object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgs.authenticity.check import challenge
from rgs.authenticity.manifest import MANIFEST_NAME, read_manifest
from rgs.cli import main
from support.installed import alter, copied_package

SEED = "00112233445566778899aabbccddeeff"


def test_an_untouched_copy_authenticates(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    root = copied_package(tmp_path)
    assert main(["authenticate", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("authentic:") and read_manifest(root).whole in out


def test_each_file_that_differs_is_named_and_the_exit_is_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copied_package(tmp_path)
    alter(root / "service" / "play.py")
    (root / "journal" / "migrations" / "0099_extra.sql").write_text("DROP TABLE rounds;")
    assert main(["authenticate", "--root", str(root)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("NOT AUTHENTIC: 2 control program(s) differ")
    assert [line.split() for line in lines[1:]] == [
        ["unexpected", "journal/migrations/0099_extra.sql"], ["altered", "service/play.py"]]


def test_json_is_one_object_with_the_report(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = copied_package(tmp_path)
    alter(root / "variants" / "__init__.py")
    assert main(["authenticate", "--root", str(root), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["authentic"] is False and report["verdict"] == "altered"
    assert report["differences"] == [{"path": "variants/__init__.py", "kind": "altered"}]


def test_expect_fails_a_copy_of_another_release(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = copied_package(tmp_path)
    assert main(["authenticate", "--root", str(root), "--expect", "0" * 64]) == 1
    assert "not the expected" in capsys.readouterr().out


def test_seed_prints_the_seeded_digest_of_the_files_as_they_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copied_package(tmp_path)
    assert main(["authenticate", "--root", str(root), "--seed", SEED]) == 0
    answer = capsys.readouterr().out.strip()
    assert answer == challenge(bytes.fromhex(SEED), root)
    alter(root / "engine" / "rules.py")
    assert main(["authenticate", "--root", str(root), "--seed", SEED, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hmac_sha256"] != answer


def test_write_manifest_then_authenticate(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = copied_package(tmp_path)
    (root / MANIFEST_NAME).unlink()
    assert main(["authenticate", "--root", str(root), "--write-manifest"]) == 0
    assert "release manifest written" in capsys.readouterr().out
    assert main(["authenticate", "--root", str(root)]) == 0


@pytest.mark.parametrize(("args", "says"), [
    (["--seed", "abc"], "hexadecimal"),
    (["--seed", "00"], "16 to 1024 bytes"),
    (["--seed", SEED, "--write-manifest"], "go separately"),
])
def test_usage_errors_exit_2_saying_what_to_do(
        args: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copied_package(tmp_path)
    assert main(["authenticate", "--root", str(root), *args]) == 2
    assert says in capsys.readouterr().err


def test_no_manifest_or_no_package_exits_2_saying_how_to_get_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copied_package(tmp_path)
    (root / MANIFEST_NAME).unlink()
    assert main(["authenticate", "--root", str(root)]) == 2
    assert "pip install ." in capsys.readouterr().err
    assert main(["authenticate", "--root", str(tmp_path)]) == 2
    assert "not the rgs package folder" in capsys.readouterr().err
