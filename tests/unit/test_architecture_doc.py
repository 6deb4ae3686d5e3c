"""docs/architecture.md shows the package as it is: every folder and top-level module of rgs has
its line in the tree, so the page cannot drift from the code unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

import rgs

ROOT = Path(rgs.__file__).parent
DOC = ROOT.parents[1] / "docs" / "architecture.md"


def _tree() -> str:
    text = DOC.read_text("utf-8")
    return text[text.index("## The shape"):text.index("### Before")]


def test_every_folder_of_the_package_has_a_line() -> None:
    folders = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    missing = {f for f in folders if not re.search(rf"^\s+{f}/\s", _tree(), re.MULTILINE)}
    assert missing == set()


def test_every_top_level_module_is_named() -> None:
    modules = {p.name for p in ROOT.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert {m for m in modules if m not in _tree()} == set()
