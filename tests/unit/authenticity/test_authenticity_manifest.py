"""The release manifest and the seeded challenge: what the build records, what a check
recomputes, and the construction a lab's own tool reproduces from the documentation."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rgs.authenticity.check import Verdict, authenticate, challenge
from rgs.authenticity.manifest import (
    MANIFEST_NAME,
    ManifestError,
    build_manifest,
    control_programs,
    parse_seed,
    read_manifest,
    seeded_digest,
    whole_digest,
    write_manifest,
)
from support.installed import ROOT, alter, copied_package

SEED = bytes(range(32))


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "rgs"
    (root / "engine" / "__pycache__").mkdir(parents=True)
    (root / "__init__.py").write_text('__version__ = "9"\n')
    (root / "engine" / "rules.py").write_text("RULES = 1\n")
    (root / "engine" / "__pycache__" / "rules.cpython-311.pyc").write_bytes(b"cache")
    (root / "engine" / "stale.pyc").write_bytes(b"cache")
    (root / "data.json").write_text("{}")
    (root / "web").mkdir()
    (root / "web" / "app.js").write_text("run()")
    return root


def test_the_control_programs_are_every_file_but_caches_and_the_manifest(
        tmp_path: Path) -> None:
    root = _tree(tmp_path)
    write_manifest(root, "9")
    assert control_programs(root) == ["__init__.py", "data.json", "engine/rules.py",
                                      "web/app.js"]


def test_the_whole_is_sha256sum_of_the_sorted_files(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    manifest = build_manifest(root, "9")
    lines = "".join(f"{hashlib.sha256((root / p).read_bytes()).hexdigest()}  {p}\n"
                    for p in sorted(control_programs(root)))
    assert manifest.whole == hashlib.sha256(lines.encode()).hexdigest()
    assert manifest.files["engine/rules.py"] == hashlib.sha256(b"RULES = 1\n").hexdigest()


def test_the_manifest_file_is_stable_and_reads_back(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    first = write_manifest(root, "9").to_json()
    assert write_manifest(root, "9").to_json() == first  # the manifest never lists itself
    raw = json.loads((root / MANIFEST_NAME).read_text())
    assert list(raw["files"]) == sorted(raw["files"])
    assert read_manifest(root).whole == raw["whole"] == whole_digest(raw["files"])


def test_a_manifest_that_is_missing_or_not_one_says_what_to_do(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with pytest.raises(ManifestError, match="pip install"):
        read_manifest(root)
    (root / MANIFEST_NAME).write_text('{"format": "other"}')
    with pytest.raises(ManifestError, match="reinstall"):
        read_manifest(root)


def test_the_seeded_digest_changes_with_the_seed(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    answers = {challenge(bytes([b]) * 16, root) for b in range(64)}
    answers.add(challenge(bytes(16) + b"\x01", root))
    assert len(answers) == 65
    # HMAC's own property (RFC 2104 pads the key with zeros): seeds that differ only by
    # trailing zero bytes are one key. Documented; a random seed never meets it in practice.
    assert challenge(bytes(16), root) == challenge(bytes(17), root)


def test_the_seeded_digest_changes_with_any_one_file(tmp_path: Path) -> None:
    root = copied_package(tmp_path)
    before = challenge(SEED, root)
    names = control_programs(root)
    assert len(names) > 200 and "engine/rules.py" in names and "web_table/static/app.js" in names
    # Every file in turn (one byte appended, then taken back off).
    for name in names:
        path = root / name
        original = path.read_bytes()
        path.write_bytes(original + b" ")
        assert challenge(SEED, root) != before, name
        path.write_bytes(original)
    assert challenge(SEED, root) == before
    (root / "added.py").write_text("")
    assert challenge(SEED, root) != before  # an added file too


def test_the_documented_reference_verifier_computes_the_same_answer(tmp_path: Path) -> None:
    # docs/authentication.md's snippet is what a lab's tool runs: it must agree with the RGS.
    doc = (ROOT / "docs" / "authentication.md").read_text("utf-8")
    snippet = re.search(r"```python\n(# reference verifier.*?)```", doc, re.S)
    assert snippet, "docs/authentication.md lost its reference verifier"
    root = _tree(tmp_path)
    scope: dict[str, Any] = {}
    exec(snippet[1], scope)  # the documentation's own code
    assert scope["seeded_digest"](root, SEED.hex()) == challenge(SEED, root)
    assert scope["whole_digest"](root) == build_manifest(root, "9").whole


def test_the_hmac_is_keyed_by_the_seed_over_the_whole_digests_bytes() -> None:
    whole = hashlib.sha256(b"x").hexdigest()
    assert seeded_digest(whole, SEED) == hmac.new(SEED, bytes.fromhex(whole),
                                                  hashlib.sha256).hexdigest()


@pytest.mark.parametrize(("text", "why"), [
    ("", "16 to 1024 bytes"), ("00" * 15, "16 to 1024 bytes"), ("zz" * 16, "hexadecimal"),
    ("0" * 33, "hexadecimal"), ("00" * 1025, "16 to 1024 bytes")])
def test_an_unusable_seed_is_refused_with_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_seed(text)


def test_parse_seed_takes_hex_with_or_without_0x() -> None:
    assert parse_seed("0x" + SEED.hex()) == parse_seed(SEED.hex().upper()) == SEED


# ------------------------------------------------------------------ comparing


def test_an_untouched_copy_is_authentic(tmp_path: Path) -> None:
    report = authenticate(copied_package(tmp_path))
    assert report.verdict is Verdict.AUTHENTIC and report.authentic
    assert report.whole == report.manifest_whole and report.files > 200
    assert report.summary().startswith("authentic:")


def test_each_altered_missing_or_added_file_is_named(tmp_path: Path) -> None:
    root = copied_package(tmp_path)
    alter(root / "engine" / "rules.py")
    (root / "math" / "par" / "power.json").unlink()
    (root / "variants" / "extra.py").write_text("import os\n")
    report = authenticate(root)
    assert report.verdict is Verdict.ALTERED
    assert [(d.path, d.kind) for d in report.differences] == [
        ("engine/rules.py", "altered"), ("math/par/power.json", "missing"),
        ("variants/extra.py", "unexpected")]
    assert "engine/rules.py (altered)" in report.summary()


def test_a_manifest_rewritten_to_match_an_altered_file_is_caught_by_its_whole(
        tmp_path: Path) -> None:
    root = copied_package(tmp_path)
    alter(root / "engine" / "rules.py")
    raw = json.loads((root / MANIFEST_NAME).read_text())
    raw["files"]["engine/rules.py"] = hashlib.sha256(
        (root / "engine" / "rules.py").read_bytes()).hexdigest()
    (root / MANIFEST_NAME).write_text(json.dumps(raw))
    report = authenticate(root)
    assert report.verdict is Verdict.ALTERED and "manifest was altered" in report.detail


def test_a_consistent_manifest_of_another_release_fails_against_the_expected_digest(
        tmp_path: Path) -> None:
    root = copied_package(tmp_path)
    certified = read_manifest(root).whole
    alter(root / "engine" / "rules.py")
    write_manifest(root, "0.1.0")  # whoever altered the file rewrote the whole manifest too
    assert authenticate(root).authentic  # the manifest alone is fooled...
    report = authenticate(root, expected_whole=certified)  # ...the certified digest is not
    assert report.verdict is Verdict.WRONG_RELEASE and certified in report.detail
    assert challenge(SEED, root) != seeded_digest(certified, SEED)  # nor is a lab's seed


def test_the_source_tree_has_no_committed_manifest() -> None:
    # Generated by the build (services/rgs_build.py), never committed: a committed one would be
    # stale after every edit.
    tracked = subprocess.run(["git", "ls-files", "services"], cwd=ROOT, check=True,
                             capture_output=True, text=True, timeout=30).stdout.split()
    assert len(tracked) > 200 and f"services/rgs/{MANIFEST_NAME}" not in tracked
    assert f"services/rgs/{MANIFEST_NAME}" in (ROOT / ".gitignore").read_text().split()
