"""What Python files import and call, read in a fresh interpreter.

CPython 3.11's ``ast`` can fail with "SystemError: AST constructor recursion depth mismatch"
once another test (hypothesis does) has changed the recursion limit, so the dependency-rule
tests parse in a child process instead of the test process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_SCRIPT = r"""
import ast, json, sys
out = {}
for path in json.load(sys.stdin):
    tree = ast.parse(open(path, encoding="utf-8").read())
    imports, calls = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            # `from rgs import devdb` imports rgs.devdb: record both, so a ban on a module also
            # catches it being imported from its parent package.
            imports.add(node.module)
            imports.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.add(node.func.id)
    out[path] = {"imports": sorted(imports), "calls": sorted(calls)}
json.dump(out, sys.stdout)
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFacts:
    """The modules a file imports (``from a import b`` counts as ``a`` and ``a.b``) and the plain
    names it calls."""

    imports: frozenset[str]
    calls: frozenset[str]


@cache
def _facts(paths: tuple[str, ...]) -> dict[str, SourceFacts]:
    done = subprocess.run([sys.executable, "-c", _SCRIPT], input=json.dumps(paths),
                          capture_output=True, text=True, check=True, timeout=120)
    raw = json.loads(done.stdout)
    return {p: SourceFacts(imports=frozenset(v["imports"]), calls=frozenset(v["calls"]))
            for p, v in raw.items()}


def source_facts(root: Path) -> dict[Path, SourceFacts]:
    """Facts of every ``*.py`` file under ``root``."""
    paths = tuple(sorted(str(p) for p in root.rglob("*.py")))
    return {Path(p): f for p, f in _facts(paths).items()}
