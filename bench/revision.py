"""Another revision's code beside this tree's, for benchmarks that compare the two in one run.

``services_of(rev)`` extracts that revision's ``services/rgs`` with ``git archive`` into a
temporary directory; a child process that puts the directory first on ``sys.path`` imports
that revision's ``rgs`` instead of this tree's editable install (:func:`child_env`). The default
revision is the previous release (``ops/previous-release``), the one ``helm rollback`` returns
to. Used by ``bench/engine.py`` and ``bench/engine_results.py``; not a command of its own.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: This tree's code, as a child process imports it.
THIS_TREE = ROOT / "services"


def previous_release() -> str:
    """The commit named in ``ops/previous-release``."""
    lines = (ROOT / "ops" / "previous-release").read_text("utf-8").splitlines()
    return next(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@dataclass(frozen=True, slots=True)
class Revision:
    """A revision as a report names it."""

    rev: str
    commit: str
    subject: str

    def label(self) -> str:
        return f"{self.commit[:10]} ({self.subject[:60]})"


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()} (run from a clone of the "
                         f"repository that holds the revision: git fetch origin <commit>)")
    return done.stdout.strip()


def resolve(rev: str) -> Revision:
    """``rev`` (a commit, branch or tag) with its full commit id and subject."""
    commit = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
    return Revision(rev=rev, commit=commit, subject=_git("log", "-1", "--format=%s", commit))


def this_tree() -> str:
    """This tree's commit, marked ``+changes`` when the engine's code differs from it."""
    commit = _git("rev-parse", "HEAD")
    dirty = _git("status", "--porcelain", "--", "services/rgs")
    return commit[:10] + (" +changes" if dirty else "")


@contextlib.contextmanager
def services_of(revision: Revision) -> Iterator[Path]:
    """A temporary directory holding ``revision``'s ``rgs`` package (its ``services/``)."""
    with tempfile.TemporaryDirectory(prefix="rgs-rev-") as tmp:
        archive = subprocess.run(["git", "archive", revision.commit, "services/rgs"], cwd=ROOT,
                                 capture_output=True, check=False)
        if archive.returncode != 0:
            raise SystemExit(f"cannot extract {revision.rev}: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        yield Path(tmp) / "services"


def child_env(tree: Path) -> dict[str, str]:
    """The environment of a child process that imports ``rgs`` from ``tree``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RGS_")}
    env["PYTHONPATH"] = str(tree)  # ahead of this tree's editable install
    return env
