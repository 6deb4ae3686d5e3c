"""The Grafana dashboards: generated from ops/grafana/build_dashboards.py, valid PromQL (checked
by promtool's parser), and reading only metrics the service exports."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import yaml
from ops_toolbox import OPS, STANDARD_SERIES, names_in, run, tool

from rgs.observability.metrics import exported_series_names

DASHBOARDS = OPS / "grafana" / "dashboards"
#: The dashboards the SREs asked for, by uid.
REQUIRED = {"rgs-service-health", "rgs-business", "rgs-wallet-outbox", "rgs-database"}


def _builder() -> Any:
    spec = importlib.util.spec_from_file_location(
        "rgs_ops_build_dashboards", OPS / "grafana" / "build_dashboards.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _dashboards() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text("utf-8")) for p in sorted(DASHBOARDS.glob("*.json"))}


def _queries(d: dict[str, Any]) -> list[str]:
    exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
    for var in d["templating"]["list"]:
        q = var.get("query")
        if isinstance(q, dict) and var["type"] == "query":
            exprs.append(re.sub(r"^label_values\((.*),\s*\w+\)$", r"\1", q["query"]))
    return exprs


def test_committed_dashboards_are_what_the_builder_writes() -> None:
    rendered = _builder().render()
    on_disk = {p.name: p.read_text("utf-8") for p in DASHBOARDS.glob("*.json")}
    assert on_disk == rendered, "run `python ops/grafana/build_dashboards.py` and commit"


def test_the_four_dashboards_exist_with_unique_panel_ids() -> None:
    boards = _dashboards()
    assert {d["uid"] for d in boards.values()} == REQUIRED
    for d in boards.values():
        ids = [p["id"] for p in d["panels"]]
        assert len(ids) == len(set(ids))
        assert all(p["targets"] for p in d["panels"] if p["type"] != "row"), d["uid"]


def test_business_dashboard_graphs_ggr_and_rtp_against_theoretical() -> None:
    text = json.dumps(_dashboards()["rgs-business.json"])
    for needle in ("GGR", "rgs_variant_theoretical_rtp_ratio", "rgs_wins_minor_total",
                   "rgs_stakes_minor_total", "rgs_rounds_total"):
        assert needle in text


def test_dashboard_queries_parse_with_promtool(tmp_path: Path) -> None:
    # promtool has no "check expression" command, so each query becomes a recording rule:
    # `promtool check rules` then runs it through Prometheus' own PromQL parser.
    rules = []
    for name, d in _dashboards().items():
        for i, expr in enumerate(_queries(d)):
            concrete = (expr.replace("$__rate_interval", "5m").replace("$window", "1d")
                        .replace("$job", ".*"))
            rules.append({"record": f"dashboard:{name.removesuffix('.json')}:q{i}".replace(
                "-", "_"), "expr": concrete})
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]}))
    out = run([tool("promtool"), "check", "rules", str(path)])
    assert f"SUCCESS: {len(rules)} rules found" in out.stdout


def test_dashboards_read_only_metrics_the_service_exports() -> None:
    for name, d in _dashboards().items():
        unknown = names_in(_queries(d)) - exported_series_names() - STANDARD_SERIES
        assert unknown == set(), f"{name} uses metrics the service does not export: {unknown}"
