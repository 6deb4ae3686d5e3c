"""The engine is pure: it imports nothing that does I/O, reads the clock or makes randomness,
and nothing from the rest of the project."""

from __future__ import annotations

from pathlib import Path

import rgs.engine
from support.pyimports import source_facts

ENGINE = Path(rgs.engine.__file__).parent
ALLOWED_STDLIB = {"__future__", "collections", "dataclasses", "enum", "fractions", "typing"}


def _imports(path: Path) -> set[str]:
    return set(source_facts(ENGINE)[path].imports)


def test_engine_imports_only_itself_and_pure_stdlib() -> None:
    offenders = {}
    for path in ENGINE.rglob("*.py"):
        bad = {n for n in _imports(path)
               if not n.startswith("rgs.engine") and n.split(".")[0] not in ALLOWED_STDLIB}
        if bad:
            offenders[path.name] = sorted(bad)
    assert offenders == {}


def test_engine_never_calls_random_time_or_open() -> None:
    for path, facts in source_facts(ENGINE).items():
        assert not facts.calls & {"open", "print", "input", "__import__", "eval", "exec"}, path
