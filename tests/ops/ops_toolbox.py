"""Shared helpers of the ops tests: finding the real tools and reading PromQL.

The tools are installed by ``.ci/ops-tools`` (run by ``.ci/test``). A missing tool fails the
test with the command that installs it: an ops check that silently skips is no check.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "ops"
CHART = ROOT / "deploy" / "helm" / "rgs"
TOOLS_CACHE = Path(os.environ.get("RGS_OPS_TOOLS_CACHE",
                                  Path.home() / ".cache" / "rgs-ops-tools"))

#: Series that a scrape of the service shows besides its own rgs_* metrics (prometheus_client's
#: default process and platform collectors) and Prometheus' own per-target series.
STANDARD_SERIES = frozenset({
    "up", "process_cpu_seconds_total", "process_resident_memory_bytes",
    "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
    "process_start_time_seconds", "python_info", "python_gc_objects_collected_total",
    "python_gc_collections_total", "python_gc_objects_uncollectable_total",
})
PROMETHEUS_PROVIDED = frozenset({"up"})
"""Series Prometheus itself adds per target (not on the /metrics page)."""


def dashboards_builder() -> Any:
    """ops/grafana/build_dashboards.py as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location(
        "rgs_ops_build_dashboards", OPS / "grafana" / "build_dashboards.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def external_series() -> frozenset[str]:
    """Series the dashboards read from other exporters (PostgreSQL, PgBouncer)."""
    return frozenset(m for names in dashboards_builder().EXTERNAL_EXPORTERS.values()
                     for m in names)


def own_series(names: Iterable[str]) -> set[str]:
    """Of the series ``names`` (read by dashboards and rules), those the RGS itself must serve:
    not recording rules (``level:metric:operation``), not Prometheus' own, not other
    exporters'."""
    return {n for n in names if ":" not in n} - PROMETHEUS_PROVIDED - external_series()


def tool(name: str) -> str:
    """The path of ``name`` (cache first, then PATH); fails the test when it is missing."""
    cached = TOOLS_CACHE / "bin" / name
    if cached.exists() and os.access(cached, os.X_OK):
        return str(cached)
    found = shutil.which(name)
    if found:
        return found
    pytest.fail(f"{name} is not installed: run `bash .ci/ops-tools` (it installs promtool, "
                f"helm and kubernetes-validate), then re-run the tests", pytrace=False)


def run(args: Sequence[str], *, cwd: Path = ROOT, input_text: str | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run a tool; fail the test with its output when it exits non-zero."""
    proc = subprocess.run(list(args), cwd=cwd, input=input_text, capture_output=True,
                          text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}",
                    pytrace=False)
    return proc


# --------------------------------------------------------------------------- PromQL names

_KEYWORDS = frozenset({
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
    "bool", "offset", "inf", "nan", "atan2",
})
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_MATCHERS = re.compile(r"\{[^{}]*\}")
_RANGES = re.compile(r"\[[^\]]*\]")
_LABEL_LISTS = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\$\{?\w+\}?")
_IDENT = re.compile(r"(?<![\w:.])([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?")


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads (functions, keywords, labels removed)."""
    text = _TEMPLATE.sub(" ", expr)
    text = _STRING.sub('""', text)
    text = _MATCHERS.sub(" ", text)
    text = _RANGES.sub(" ", text)
    text = _LABEL_LISTS.sub(" ", text)
    names = set()
    for m in _IDENT.finditer(text):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in _KEYWORDS or re.fullmatch(r"\d+[smhdwy]", word):
            continue
        names.add(word)
    return names


def names_in(exprs: Iterable[str]) -> set[str]:
    """The union of :func:`metric_names` over ``exprs``."""
    out: set[str] = set()
    for e in exprs:
        out |= metric_names(e)
    return out
