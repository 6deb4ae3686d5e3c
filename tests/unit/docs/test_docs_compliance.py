"""docs/compliance.md is true about its evidence: every test it names exists (the file, and
the test function where it names one), so a lab that runs a row's test runs what the row
says."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "compliance.md"
_NAMED = re.compile(r"`((?:unit|integration|e2e|web|chaos|ops)/[\w/]+\.(?:py|yml))"
                    r"(?:::(\w+))?`")


def _named() -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in _NAMED.finditer(PAGE.read_text("utf-8"))]


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    return {n.name for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            and n.name.startswith("test_")}


def test_every_test_the_compliance_page_names_exists() -> None:
    named = _named()
    assert len(named) > 30, "the page names its evidence as `unit/...py::test_...`"
    missing = []
    for rel, test in named:
        base = ROOT / "tests" if not rel.startswith("ops/") else ROOT
        path = base / rel
        if not path.exists():
            missing.append(rel)
        elif test is not None and test not in _tests_in(path):
            missing.append(f"{rel}::{test}")
    assert not missing, f"docs/compliance.md names tests that do not exist: {missing}"
