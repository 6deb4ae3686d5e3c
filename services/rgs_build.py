"""The build's one addition to setuptools: the release manifest of the ``rgs`` package.

``pyproject.toml`` names :class:`BuildPy` as the ``build_py`` command, so every wheel (``pip
install .``, the container image) carries ``rgs/RELEASE-MANIFEST.json`` computed over exactly
the files the wheel installs (:mod:`rgs.authenticity.manifest`). An editable install (``pip
install -e .``) gets none: it runs the source tree, which changes with every edit.

Not part of the installed package: setuptools loads this module from the source tree, and it
loads the manifest module by its path (the package is not importable yet).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

from setuptools.command.build_py import build_py  # type: ignore[import-untyped]

_HERE = Path(__file__).resolve().parent


def _manifest_module() -> ModuleType:
    path = _HERE / "rgs" / "authenticity" / "manifest.py"
    spec = importlib.util.spec_from_file_location("_rgs_release_manifest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _version() -> str:
    text = (_HERE / "rgs" / "__init__.py").read_text("utf-8")
    found = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    return found[1] if found else ""


class BuildPy(build_py):  # type: ignore[misc]
    """setuptools' build_py, then the release manifest over the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        root = Path(self.build_lib) / "rgs"
        if root.is_dir():
            manifest = _manifest_module().write_manifest(root, _version())
            self.announce(f"release manifest: {len(manifest.files)} control programs, "
                          f"SHA-256 {manifest.whole}", level=2)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = list(super().get_outputs(include_bytecode))
        if not getattr(self, "editable_mode", False):
            outputs.append(str(Path(self.build_lib) / "rgs" / "RELEASE-MANIFEST.json"))
        return outputs
