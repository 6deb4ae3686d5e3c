"""The build writes the release manifest: a wheel built from the repository (setuptools with
``services/rgs_build.py``) and installed with pip carries ``rgs/RELEASE-MANIFEST.json`` over
exactly the files it installed, and ``rgs authenticate`` run from that installed copy agrees
(exit 0), names a file altered afterwards (exit 1), and answers a seed from the files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rgs.authenticity.manifest import MANIFEST_NAME, control_programs
from support.installed import alter, installed_release

SEED = "000102030405060708090a0b0c0d0e0f"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed_release(tmp_path_factory.mktemp("release"))


def _rgs(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # From the installed copy: PYTHONPATH puts it before the development tree.
    return subprocess.run([sys.executable, "-m", "rgs", "authenticate", *args],
                          env={**os.environ, "PYTHONPATH": str(site)}, cwd=site,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_wheel_carries_a_manifest_of_exactly_its_installed_files(site: Path) -> None:
    root = site / "rgs"
    manifest = json.loads((root / MANIFEST_NAME).read_text())
    assert sorted(manifest["files"]) == control_programs(root)
    assert "authenticity/manifest.py" in manifest["files"]
    assert "web_table/static/app.js" in manifest["files"]
    assert any(p.startswith("journal/migrations/") for p in manifest["files"])
    assert not (site / "rgs_build.py").exists()  # the build hook is not installed


def test_the_installed_copy_authenticates_and_an_altered_file_is_named(
        site: Path, tmp_path: Path) -> None:
    clean = _rgs(site, "--json")
    assert clean.returncode == 0, clean.stderr
    report = json.loads(clean.stdout)
    assert report["authentic"] and report["whole"] == report["manifest_whole"]
    answer = _rgs(site, "--seed", SEED)
    assert answer.returncode == 0 and len(answer.stdout.strip()) == 64
    alter(site / "rgs" / "math" / "par" / "power.json", " ")
    try:
        altered = _rgs(site)
        assert altered.returncode == 1
        assert altered.stdout.splitlines()[1].split() == ["altered", "math/par/power.json"]
        assert _rgs(site, "--seed", SEED).stdout != answer.stdout
    finally:
        path = site / "rgs" / "math" / "par" / "power.json"
        path.write_bytes(path.read_bytes()[:-1])
    assert _rgs(site).returncode == 0
