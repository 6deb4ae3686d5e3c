"""The repository stands on its own: no tracked file reaches outside it, and the reference data
it ships is the data its README describes.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

from support.data import DATA_DIR

ROOT = Path(__file__).resolve().parents[2]
THIS_FILE = Path(__file__).resolve().relative_to(ROOT).as_posix()

# The planning folder that sits beside the repository on the team's machines, named so that this
# file does not contain the references it looks for.
_PLANNING = "sha" + "red"
OUTSIDE_REFERENCE = re.compile(
    "|".join((
        rf"\.\.(?:[/\\]+\.\.)*[/\\]+{_PLANNING}\b",  # a relative path up and into it
        rf"\b{_PLANNING}[/\\]+(?:spec|testdata|seeds|hooks)\b",  # any path into its folders
        rf"""/\s*["']{_PLANNING}["']""",  # pathlib: ``... .parent / "<it>" / ...``
    )).encode()
)


def _tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True,
                         timeout=30).stdout
    return [name for name in out.decode().split("\0") if name]


def test_the_outside_reference_pattern_catches_every_form_seen_so_far() -> None:
    up = ".." + "/"
    caught = [
        f"The exact rules are in `{up}{_PLANNING}/spec/variants.md`",
        f"`{up * 4}{_PLANNING}/spec/rng.md` lists the requirements",
        f'DATA = Path(__file__).resolve().parents[3].parent / "{_PLANNING}" / "testdata"',
        f"row marked reproducible in `{_PLANNING}/testdata/rng/sp800_22_expected.md`",
        f"..\\{_PLANNING}\\spec\\wallet.md",
    ]
    for text in caught:
        assert OUTSIDE_REFERENCE.search(text.encode()), text
    for text in ("Helpers shared by the use cases", "the shared secret", "shared/ bearer"):
        assert not OUTSIDE_REFERENCE.search(text.encode()), text


def test_no_tracked_file_refers_to_the_planning_folder_outside_the_repository() -> None:
    files = _tracked_files()
    # A listing that came back short (not a git checkout, wrong directory) must not pass.
    assert len(files) > 200
    assert {"README.md", "pyproject.toml", THIS_FILE} <= set(files)
    offenders = []
    for name in files:
        path = ROOT / name
        if path.is_symlink() or not path.exists():
            continue  # links are checked below; a file deleted in the work tree reads nothing
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            if OUTSIDE_REFERENCE.search(line):
                offenders.append(f"{name}:{number}: {line.decode(errors='replace').strip()}")
    assert offenders == [], "move what these need into the repository:\n" + "\n".join(offenders)


def test_no_tracked_link_points_outside_the_repository() -> None:
    outside = []
    for name in _tracked_files():
        path = ROOT / name
        if path.is_symlink():
            target = (path.parent / os.readlink(path)).resolve()
            if not target.is_relative_to(ROOT):
                outside.append(f"{name} -> {os.readlink(path)}")
    assert outside == []


def _recorded_data_files() -> dict[str, tuple[int, str]]:
    """The table in tests/data/README.md: path -> (bytes, SHA-256)."""
    row = re.compile(r"^\| `([^`]+)` \| (\d+) \| `([0-9a-f]{64})` \|$")
    rows = {}
    for line in (DATA_DIR / "README.md").read_text().splitlines():
        match = row.match(line)
        if match:
            rows[match[1]] = (int(match[2]), match[3])
    return rows


def test_every_reference_data_file_is_recorded_with_its_size_and_sha256() -> None:
    recorded = _recorded_data_files()
    present = {
        path.relative_to(DATA_DIR).as_posix()
        for path in DATA_DIR.rglob("*") if path.is_file() and path.name != "README.md"
    }
    assert len(recorded) >= 4
    assert present == set(recorded)
    for name, (size, sha256) in recorded.items():
        data = (DATA_DIR / name).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, sha256), name
