"""Installed copies of the ``rgs`` package for the software authentication tests: a copy of the
source package with the manifest the build writes, or a real wheel built and installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from rgs import __version__
from rgs.authenticity.manifest import write_manifest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "services" / "rgs"


def copied_package(dest: Path) -> Path:
    """``dest/rgs``: the source package copied (caches left behind) with its release manifest
    written, as the build writes it; returns the package folder."""
    root = dest / "rgs"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    write_manifest(root, __version__)
    return root


def installed_release(dest: Path) -> Path:
    """``dest/site``: the project built into a wheel (its build hook writes the manifest) and
    installed there with pip, as the container image installs it; returns the site folder
    (put it first on PYTHONPATH to run the installed copy)."""
    wheels, site = dest / "wheels", dest / "site"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                    str(ROOT)], check=True, timeout=300, cwd=dest)
    wheel = next(wheels.glob("rgs-*.whl"))
    subprocess.run([*pip, "install", "--no-deps", "--no-compile", "--target", str(site),
                    str(wheel)], check=True, timeout=300, cwd=dest)
    return site


def alter(path: Path, text: str = "\n# altered after certification\n") -> None:
    """Append ``text`` to a control program (the tampering the checks must catch)."""
    with path.open("a", encoding="utf-8") as f:
        f.write(text)
