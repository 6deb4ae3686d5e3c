"""The dependency rule: the service layer and the API edge see the engine and the ports, never an
adapter; only bootstrap picks adapters; only the command line uses the terminal client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import rgs
from support.pyimports import source_facts

ROOT = Path(rgs.__file__).parent
#: Every adapter behind a port: the journal package (PostgreSQL, in-memory, migrations) and each
#: wallet adapter. The service and the API reach them only through rgs.service.ports and
#: rgs.wallet.port, whose errors live beside them.
ADAPTERS = ("rgs.journal", "rgs.wallet.grpc_wallet", "rgs.wallet.http_wallet")
#: Modules that talk to the outside world or wire it: only adapters, the API edge, bootstrap and
#: the command line use them.
OUTSIDE = ("asyncpg", "grpc", "rgs.api", "rgs.bootstrap", "rgs.cli", "rgs.devdb",
           "sandbox_wallet", "google.protobuf", "rgs.generated", "rgs.observability")


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


def test_service_imports_no_adapter_and_nothing_from_the_outside() -> None:
    assert _offenders("service", (*ADAPTERS, *OUTSIDE)) == {}


def test_api_imports_no_journal_and_no_wallet_adapter() -> None:
    assert _offenders("api", ADAPTERS) == {}


def test_the_ban_catches_an_adapter_imported_through_its_parent_package(tmp_path: Path) -> None:
    (tmp_path / "sneaky.py").write_text("from rgs import journal\nfrom rgs.wallet import "
                                        "http_wallet\n")
    names = source_facts(tmp_path)[tmp_path / "sneaky.py"].imports
    assert {"rgs.journal", "rgs.wallet.http_wallet"} <= names


def test_wallet_port_and_codec_import_no_transport() -> None:
    for module in ("wallet/port.py", "codec.py", "journal/memory.py"):
        bad = [n for n in _imports(ROOT / module) if n.split(".")[0] in ("grpc", "asyncpg")]
        assert bad == [], module


def test_engine_imports_nothing_from_the_service_side() -> None:
    assert _offenders("engine", ("rgs.service", "rgs.journal", "rgs.wallet", "rgs.api",
                                 "rgs.bootstrap", "grpc", "asyncpg")) == {}


def test_cross_cutting_concerns_are_injected_not_imported_from_below() -> None:
    # Metrics, tracing and logging setup belong to rgs.observability, wired by bootstrap: the
    # RNG is observed through its health listener, the gRPC wallet gets its interceptors.
    cross_cutting = ("rgs.observability", "prometheus_client", "opentelemetry")
    for package in ("rng", "wallet", "journal", "service", "engine", "math"):
        assert _offenders(package, cross_cutting) == {}, package


def test_nothing_imports_the_command_line() -> None:
    importers = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                 if any(n == "rgs.cli" or n.startswith("rgs.cli.") for n in _imports(p))}
    assert {p for p in importers if not p.startswith("cli/")} == {"__main__.py"}


def test_only_the_command_line_uses_the_terminal_client() -> None:
    # rgs.terminal is an outer layer (the client behind `rgs play`): what the finance reports,
    # the recall's words and the terminal share (currency exponents, amounts written per
    # language, the decisions' and side bets' names) lives in rgs.locales, below all of them.
    importers = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                 if any(n == "rgs.terminal" or n.startswith("rgs.terminal.")
                        for n in _imports(p))}
    assert {p for p in importers if not p.startswith(("terminal/", "cli/"))} == set()


def test_the_locales_import_no_layer_of_the_server_or_its_clients() -> None:
    # The neutral home must stay neutral: words and amounts, no use case, edge or client.
    assert _offenders("locales", ("rgs.terminal", "rgs.cli", "rgs.api", "rgs.service",
                                  "rgs.finance", "rgs.recall", "rgs.bootstrap", "rgs.journal",
                                  "rgs.wallet", "grpc", "asyncpg")) == {}


def test_only_bootstrap_chooses_concrete_adapters() -> None:
    choosers = set()
    for path in ROOT.rglob("*.py"):
        names = _imports(path)
        if {"rgs.journal.postgres", "rgs.wallet.grpc_wallet", "rgs.wallet.http_wallet"} & names:
            choosers.add(str(path.relative_to(ROOT)))
    assert choosers == {"bootstrap.py"}


def test_the_production_bootstrap_does_not_load_the_development_database_helper() -> None:
    # A fresh interpreter: this test process has long imported rgs.devdb (fixtures use it).
    probe = "import json, sys, rgs.bootstrap; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=120)
    loaded = set(json.loads(done.stdout))
    assert "rgs.bootstrap" in loaded
    assert "rgs.devdb" not in loaded
    assert not {m for m in loaded if m == "rgs.cli" or m.startswith("rgs.cli.")}
