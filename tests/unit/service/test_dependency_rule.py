"""The dependency rule: the service layer sees the engine and the ports, never an adapter; only
bootstrap picks adapters."""

from __future__ import annotations

from pathlib import Path

import rgs
from support.pyimports import source_facts

ROOT = Path(rgs.__file__).parent
#: Modules that talk to the outside world: only adapters, the API edge and bootstrap use them.
ADAPTERS = ("asyncpg", "grpc", "rgs.journal.postgres", "rgs.wallet.grpc_wallet", "rgs.api",
            "rgs.bootstrap", "rgs.devdb", "sandbox_wallet", "google.protobuf")


def _imports(path: Path) -> set[str]:
    return set(source_facts(ROOT)[path].imports)


def _offenders(package: str, banned: tuple[str, ...]) -> dict[str, list[str]]:
    out = {}
    for path in (ROOT / package).rglob("*.py"):
        bad = sorted(n for n in _imports(path)
                     if any(n == b or n.startswith(b + ".") for b in banned))
        if bad:
            out[str(path.relative_to(ROOT))] = bad
    return out


def test_service_imports_no_adapter() -> None:
    assert _offenders("service", ADAPTERS) == {}


def test_wallet_port_and_journal_codec_import_no_transport() -> None:
    for module in ("wallet/port.py", "journal/codec.py", "journal/memory.py"):
        bad = [n for n in _imports(ROOT / module) if n.split(".")[0] in ("grpc", "asyncpg")]
        assert bad == [], module


def test_engine_imports_nothing_from_the_service_side() -> None:
    assert _offenders("engine", ("rgs.service", "rgs.journal", "rgs.wallet", "rgs.api",
                                 "rgs.bootstrap", "grpc", "asyncpg")) == {}


def test_only_bootstrap_and_the_cli_choose_concrete_adapters() -> None:
    choosers = set()
    for path in ROOT.rglob("*.py"):
        names = _imports(path)
        if {"rgs.journal.postgres", "rgs.wallet.grpc_wallet"} & names:
            choosers.add(str(path.relative_to(ROOT)))
    assert choosers == {"bootstrap.py"}
