"""The release manifest: the SHA-256 of every control program of the ``rgs`` package and of the
whole, as the build writes it and as ``rgs authenticate`` and the replica's self-check recompute
it (N.J.A.C. 13:69O-1.5, AGCO 6.1).

Pure standard library on purpose: the build hook (``services/rgs_build.py``) loads this module by
its path, before the package is installed, and a lab can read it beside the documented
construction (``docs/authentication.md``).

The control programs are every file under the package folder (the sources, the variant rule
data, the PAR sheets, the migrations, the web bundle, the generated protobuf code), except
Python's caches (``__pycache__`` folders, ``.pyc``/``.pyo`` files) and the manifest itself. A
file's path is its POSIX path relative to the package folder; paths sort by their UTF-8 bytes.
The whole is the SHA-256 of the lines ``<hex digest><two spaces><path>\\n`` in that order: what
``sha256sum`` prints for the sorted files, so ``... | sha256sum`` reproduces it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST_NAME = "RELEASE-MANIFEST.json"
"""The manifest's file name, at the top of the package folder."""
FORMAT = "rgs-release-manifest/1"
"""The manifest's format tag."""
CACHE_DIRS = frozenset({"__pycache__"})
"""Folders that are never control programs (written by the interpreter at run time)."""
CACHE_SUFFIXES = (".pyc", ".pyo")
"""File endings that are never control programs."""
SEED_BYTES = (16, 1024)
"""The shortest and longest challenge seed accepted, in bytes (128 bits at least)."""
_CHUNK = 1 << 16


class ManifestError(Exception):
    """The manifest is missing, unreadable or malformed; the message says what to do."""


def control_programs(root: Path) -> list[str]:
    """The control programs under the package folder ``root``: relative POSIX paths, sorted by
    their UTF-8 bytes (caches and the manifest left out)."""
    found: list[str] = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if (rel.name == MANIFEST_NAME and len(rel.parts) == 1) or not path.is_file():
            continue
        if CACHE_DIRS & set(rel.parts[:-1]) or rel.name.endswith(CACHE_SUFFIXES):
            continue
        found.append(rel.as_posix())
    return sorted(found, key=lambda p: p.encode("utf-8"))


def file_digest(path: Path) -> str:
    """The SHA-256 of one file, hex."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def digest_files(root: Path, paths: Iterable[str] | None = None,
                 progress: Callable[[int], None] | None = None) -> dict[str, str]:
    """Path → SHA-256 of the control programs under ``root`` (or of ``paths``), in sorted
    order; ``progress`` gets the count done after each file."""
    names = control_programs(root) if paths is None else list(paths)
    out: dict[str, str] = {}
    for i, name in enumerate(names, 1):
        out[name] = file_digest(root / name)
        if progress is not None:
            progress(i)
    return out


def whole_digest(files: Mapping[str, str]) -> str:
    """The SHA-256 of the whole: of ``<digest>  <path>\\n`` for every file, sorted by path."""
    h = hashlib.sha256()
    for name in sorted(files, key=lambda p: p.encode("utf-8")):
        h.update(f"{files[name]}  {name}\n".encode())
    return h.hexdigest()


def seeded_digest(whole: str, seed: bytes) -> str:
    """A lab's challenge answered: HMAC-SHA-256 keyed by the seed's bytes over the 32 bytes of
    the whole digest (not its hex), hex."""
    check_seed(seed)
    return hmac.new(seed, bytes.fromhex(whole), hashlib.sha256).hexdigest()


def check_seed(seed: bytes) -> None:
    """ValueError unless ``seed`` is a usable challenge seed."""
    low, high = SEED_BYTES
    if not low <= len(seed) <= high:
        raise ValueError(f"a challenge seed is {low} to {high} bytes ({2 * low} to {2 * high} "
                         f"hex digits); this one is {len(seed)} bytes")


def parse_seed(text: str) -> bytes:
    """A challenge seed from its hex form; ValueError saying what is wrong."""
    cleaned = text.strip().removeprefix("0x")
    try:
        seed = bytes.fromhex(cleaned)
    except ValueError:
        raise ValueError("the seed must be hexadecimal digits (0-9, a-f), an even number of "
                         "them") from None
    check_seed(seed)
    return seed


@dataclass(frozen=True, slots=True, kw_only=True)
class Manifest:
    """What the build recorded: each control program's SHA-256 and the whole's."""

    version: str
    files: Mapping[str, str] = field(default_factory=dict)
    whole: str = ""

    def to_json(self) -> str:
        """The manifest file's text (sorted, one file a line, stable across builds)."""
        return json.dumps({"format": FORMAT, "package": "rgs", "version": self.version,
                           "algorithm": "sha256", "whole": self.whole,
                           "files": dict(sorted(self.files.items(),
                                                key=lambda kv: kv[0].encode("utf-8")))},
                          indent=1) + "\n"


def build_manifest(root: Path, version: str,
                   progress: Callable[[int], None] | None = None) -> Manifest:
    """The manifest of the package folder ``root`` as it is now."""
    files = digest_files(root, progress=progress)
    return Manifest(version=version, files=files, whole=whole_digest(files))


def write_manifest(root: Path, version: str,
                   progress: Callable[[int], None] | None = None) -> Manifest:
    """Compute the manifest of ``root`` and write it at ``root/RELEASE-MANIFEST.json``."""
    manifest = build_manifest(root, version, progress)
    (root / MANIFEST_NAME).write_text(manifest.to_json(), encoding="utf-8")
    return manifest


def read_manifest(root: Path) -> Manifest:
    """The manifest shipped in the package folder ``root``; ManifestError when there is none or
    it is not one."""
    path = root / MANIFEST_NAME
    try:
        raw = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ManifestError(
            f"no release manifest at {path}: this copy was not installed from a release build "
            "(`pip install .` writes it; in a source tree `rgs authenticate --write-manifest` "
            "does)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path} cannot be read as a release manifest ({exc}): reinstall "
                            "the release") from None
    files = raw.get("files") if isinstance(raw, dict) else None
    if (not isinstance(raw, dict) or raw.get("format") != FORMAT or not isinstance(files, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
            or not isinstance(raw.get("whole"), str)):
        raise ManifestError(f"{path} is not a {FORMAT} manifest: reinstall the release")
    return Manifest(version=str(raw.get("version", "")), files=files, whole=raw["whole"])
