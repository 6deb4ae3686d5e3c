"""The Grafana dashboards: generated from ops/grafana/build_dashboards.py, every query (panels,
variables, deploy annotations) valid PromQL for promtool's parser, filtered by namespace,
money never summed across currencies, SLO budgets as the alerts have them, and reading only
metrics the service exports, the recording rules, or the named exporters'."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from ops_toolbox import (
    OPS,
    STANDARD_SERIES,
    dashboards_builder,
    external_series,
    names_in,
    run,
    tool,
)

from rgs.observability.metrics import exported_series_names

DASHBOARDS = OPS / "grafana" / "dashboards"
#: The dashboards the SREs asked for, by uid.
REQUIRED = {"rgs-service-health", "rgs-business", "rgs-wallet-outbox", "rgs-database",
            "rgs-slo"}
RULES = OPS / "prometheus" / "rules.yml"
#: What Grafana substitutes, for promtool.
VARIABLES = {"$__rate_interval": "5m", "$window": "1d", "$namespace": ".*", "$job": ".*",
             "$database": ".*"}


def _builder() -> Any:
    return dashboards_builder()


def _dashboards() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text("utf-8")) for p in sorted(DASHBOARDS.glob("*.json"))}


def _queries(d: dict[str, Any]) -> list[str]:
    exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
    exprs += [a["expr"] for a in d["annotations"]["list"] if "expr" in a]
    for var in d["templating"]["list"]:
        q = var.get("query")
        if isinstance(q, dict) and var["type"] == "query":
            exprs.append(re.sub(r"^label_values\((.*),\s*\w+\)$", r"\1", q["query"]))
    return exprs


def _concrete(expr: str) -> str:
    for name, value in VARIABLES.items():
        expr = expr.replace(name, value)
    assert "$" not in expr, f"a Grafana variable the test does not know: {expr}"
    return expr


def _recorded() -> set[str]:
    doc = yaml.safe_load(RULES.read_text("utf-8"))
    return {r["record"] for g in doc["groups"] for r in g["rules"] if "record" in r}


def test_committed_dashboards_are_what_the_builder_writes() -> None:
    rendered = _builder().render()
    on_disk = {p.name: p.read_text("utf-8") for p in DASHBOARDS.glob("*.json")}
    assert on_disk == rendered, "run `python ops/grafana/build_dashboards.py` and commit"


def test_the_dashboards_exist_with_unique_panel_ids() -> None:
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
            rules.append({"record": f"dashboard:{name.removesuffix('.json')}:q{i}".replace(
                "-", "_"), "expr": _concrete(expr)})
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]}))
    out = run([tool("promtool"), "check", "rules", str(path)])
    assert f"SUCCESS: {len(rules)} rules found" in out.stdout


def test_dashboards_read_only_exported_recorded_or_named_exporter_metrics() -> None:
    external = external_series()
    for name, d in _dashboards().items():
        unknown = (names_in(_queries(d)) - exported_series_names() - STANDARD_SERIES
                   - _recorded() - external)
        assert unknown == set(), f"{name} uses metrics the service does not export: {unknown}"


def test_every_dashboard_has_namespace_and_job_variables_and_deploy_annotations() -> None:
    for d in _dashboards().values():
        names = [v["name"] for v in d["templating"]["list"]]
        assert names[:3] == ["datasource", "namespace", "job"], d["uid"]
        deploys = [a for a in d["annotations"]["list"] if a.get("name") == "Deploys"]
        assert deploys and "rgs_build_info" in deploys[0]["expr"], d["uid"]
        for expr in _queries(d):
            for selector in re.findall(r"\b(rgs_\w+|namespace_job:\w+:\w+)\{([^}]*)\}", expr):
                assert 'namespace=~"$namespace"' in selector[1], (d["uid"], expr)


def test_money_is_never_summed_across_currencies() -> None:
    # Minor units of EUR and GBP do not add up: every sum of stakes or wins keeps the currency
    # (ratios such as the RTP are not amounts).
    for d in _dashboards().values():
        for p in d["panels"]:
            for t in p.get("targets", []):
                expr = t["expr"]
                if not re.search(r"rgs_(stakes|wins)_minor_total", expr) or " / " in expr:
                    continue
                for labels in re.findall(r"\bsum by \(([^)]*)\)", expr):
                    assert "currency" in labels, (d["uid"], p["title"], expr)


def test_ggr_per_hour_is_by_variant_and_currency() -> None:
    business = _dashboards()["rgs-business.json"]
    ggr = next(p for p in business["panels"] if p["title"].startswith("GGR per hour"))
    assert "sum by (variant, currency)" in ggr["targets"][0]["expr"]


def test_the_slo_dashboard_budgets_are_the_alerts_budgets() -> None:
    doc = yaml.safe_load(RULES.read_text("utf-8"))
    alerts = {r["labels"]["slo"]: r["expr"] for g in doc["groups"] for r in g["rules"]
              if "slo" in r.get("labels", {}) and r["alert"] != "RgsSloBudgetSlowBurn"}
    objectives = _builder().OBJECTIVES
    assert set(alerts) == set(objectives)
    for slo, budget in objectives.items():
        assert f"(14.4 * {budget})" in alerts[slo] and f"(6 * {budget})" in alerts[slo], slo
