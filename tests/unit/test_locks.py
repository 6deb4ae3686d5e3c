"""Every supported Python installs from a lock that pins everything pyproject.toml asks for."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+) \\\n((?:    --hash=sha256:[0-9a-f]{64}.*\n)+)", re.M)


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _supported_pythons() -> list[str]:
    lines = (ROOT / ".ci" / "pythons").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requirements = [*project["project"]["dependencies"],
                    *project["project"]["optional-dependencies"]["dev"],
                    *project["build-system"]["requires"], "pip"]
    return {_normalize(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]) for r in requirements}


def test_supported_pythons_are_the_ones_pyproject_admits() -> None:
    versions = _supported_pythons()
    assert len(versions) >= 3
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == f">={versions[0]}"


def test_every_supported_python_has_a_lock_pinning_every_declared_dependency_with_hashes() -> None:
    declared = _declared()
    for version in _supported_pythons():
        lock = ROOT / "requirements" / f"lock-py{version.replace('.', '')}.txt"
        text = lock.read_text()
        pins = {_normalize(m[1]): m[3] for m in PIN.finditer(text)}
        assert len(pins) == len(re.findall(r"^[A-Za-z0-9]", text, re.M)), f"{lock}: unhashed pin"
        missing = declared - set(pins)
        assert not missing, f"{lock.name} lacks {sorted(missing)}: run bash .ci/lock"


def test_no_lock_is_left_for_a_python_no_longer_supported() -> None:
    locks = {p.name for p in (ROOT / "requirements").glob("lock-py*.txt")}
    assert locks == {f"lock-py{v.replace('.', '')}.txt" for v in _supported_pythons()}
