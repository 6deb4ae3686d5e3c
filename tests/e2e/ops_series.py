"""What ops/grafana/build_dashboards.py names as the probe's series (the rules may read them)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def probe_series() -> set[str]:
    """EXTERNAL_EXPORTERS["rgs probe"] of the dashboards builder."""
    spec = importlib.util.spec_from_file_location(
        "rgs_ops_build_dashboards_e2e", ROOT / "ops" / "grafana" / "build_dashboards.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return set(module.EXTERNAL_EXPORTERS["rgs probe"])
