"""The engine is pure: it imports nothing that does I/O, reads the clock or makes randomness,
and nothing from the rest of the project."""

from __future__ import annotations

import ast
from pathlib import Path

import rgs.engine

ENGINE = Path(rgs.engine.__file__).parent
ALLOWED_STDLIB = {"__future__", "collections", "dataclasses", "enum", "fractions", "typing"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_imports_only_itself_and_pure_stdlib() -> None:
    offenders = {}
    for path in ENGINE.rglob("*.py"):
        bad = {n for n in _imports(path)
               if not n.startswith("rgs.engine") and n.split(".")[0] not in ALLOWED_STDLIB}
        if bad:
            offenders[path.name] = sorted(bad)
    assert offenders == {}


def test_engine_never_calls_random_time_or_open() -> None:
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        calls = {n.func.id for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not calls & {"open", "print", "input", "__import__", "eval", "exec"}, path.name
