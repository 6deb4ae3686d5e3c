"""The installed control programs compared with the release manifest, and a lab's seeded
challenge answered from the files as they are.

Both read the files afresh every time: the challenge never repeats the manifest's word (a copy
whose files and manifest were both altered answers a seed differently from the certified
release), and the comparison names every file that differs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path

from rgs.authenticity.manifest import (
    ManifestError,
    digest_files,
    read_manifest,
    seeded_digest,
    whole_digest,
)

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
"""The folder of the ``rgs`` package this process runs."""


class Verdict(Enum):
    """The outcome of one authentication."""

    AUTHENTIC = "authentic"
    #: A control program differs from the manifest (altered, missing or not in it).
    ALTERED = "altered"
    #: No readable manifest (not a release build, or the manifest itself damaged).
    NO_MANIFEST = "no-manifest"
    #: The manifest's whole is not the release digest this replica was told to expect.
    WRONG_RELEASE = "wrong-release"


@dataclass(frozen=True, slots=True)
class Difference:
    """One control program that differs: ``altered`` (its digest), ``missing`` (listed in the
    manifest, not installed) or ``unexpected`` (installed, not listed)."""

    path: str
    kind: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Authentication:
    """One authentication's pass/fail report."""

    verdict: Verdict
    checked_at: datetime
    #: SHA-256 of the whole as installed now (recomputed from the files).
    whole: str
    #: The whole the manifest records ("" without one).
    manifest_whole: str = ""
    files: int = 0
    differences: tuple[Difference, ...] = ()
    detail: str = ""

    @property
    def authentic(self) -> bool:
        """True when every control program is the one the manifest records."""
        return self.verdict is Verdict.AUTHENTIC

    def summary(self) -> str:
        """One line for a log, an alert or an audit row, naming what failed."""
        if self.authentic:
            return f"authentic: {self.files} control programs, SHA-256 {self.whole}"
        if self.differences:
            named = ", ".join(f"{d.path} ({d.kind})" for d in self.differences[:20])
            more = len(self.differences) - 20
            return (f"NOT AUTHENTIC: {len(self.differences)} control program(s) differ from "
                    f"the release manifest: {named}{f' and {more} more' if more > 0 else ''}")
        return f"NOT AUTHENTIC: {self.detail}"

    def to_dict(self) -> dict[str, object]:
        """The report as plain data (``rgs authenticate --json``, an audit row)."""
        return {"authentic": self.authentic, "verdict": self.verdict.value,
                "checked_at": self.checked_at.isoformat(), "whole": self.whole,
                "manifest_whole": self.manifest_whole, "files": self.files,
                "differences": [{"path": d.path, "kind": d.kind} for d in self.differences],
                "detail": self.detail}


def authenticate(root: Path = PACKAGE_ROOT, *, expected_whole: str | None = None,
                 progress: Callable[[int], None] | None = None,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> Authentication:
    """Recompute every control program under ``root`` and compare with its manifest (and, with
    ``expected_whole``, the manifest's whole with that release digest)."""
    found = digest_files(root, progress=progress)
    whole = whole_digest(found)
    try:
        manifest = read_manifest(root)
    except ManifestError as exc:
        return Authentication(verdict=Verdict.NO_MANIFEST, checked_at=now(), whole=whole,
                              files=len(found), detail=str(exc))
    differences = [Difference(p, "altered") for p, d in found.items()
                   if p in manifest.files and manifest.files[p] != d]
    differences += [Difference(p, "missing") for p in manifest.files if p not in found]
    differences += [Difference(p, "unexpected") for p in found if p not in manifest.files]
    differences.sort(key=lambda d: d.path.encode("utf-8"))
    report = Authentication(verdict=Verdict.AUTHENTIC, checked_at=now(), whole=whole,
                            manifest_whole=manifest.whole, files=len(found))
    if differences:
        return replace(report, verdict=Verdict.ALTERED, differences=tuple(differences))
    if whole != manifest.whole:  # every file agrees, so the manifest's own whole was altered
        return replace(report, verdict=Verdict.ALTERED, detail=(
            "the manifest's whole digest is not the digest of its files: the manifest was "
            "altered"))
    if expected_whole is not None and expected_whole.lower() != whole:
        return replace(report, verdict=Verdict.WRONG_RELEASE, detail=(
            f"the installed release has SHA-256 {whole}, not the expected {expected_whole}"))
    return report

def challenge(seed: bytes, root: Path = PACKAGE_ROOT) -> str:
    """A lab's seeded challenge: HMAC-SHA-256 keyed by ``seed`` over the whole digest of the
    control programs as installed now (ValueError for an unusable seed). Reads files only; the
    AdminService answers it."""
    return seeded_digest(whole_digest(digest_files(root)), seed)
