"""The RTP monitoring's operations files (docs/rtp-monitoring.md): its alert rules valid for
promtool and pinned by their promtool unit tests, each alert with a runbook, its dashboard what
its builder writes with queries Prometheus parses, and both reading only the series
``rgs rtp worker`` exports (rgs.rtp.metrics)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import yaml
from ops_toolbox import OPS, STANDARD_SERIES, names_in, run, tool

from rgs.rtp.metrics import REGISTRY

RULES = OPS / "prometheus" / "rtp_rules.yml"
RULES_TEST = OPS / "prometheus" / "rtp_rules_test.yml"
DASHBOARD = OPS / "grafana" / "rtp" / "rgs-rtp.json"
VARIABLES = {"$__rate_interval": "5m", "$namespace": ".*", "$job": ".*", "$brand": ".*",
             "$variant": ".*", "$channel": ".*", "$window": "rolling"}


def _exported() -> set[str]:
    out = set()
    for metric in REGISTRY.collect():
        out.add(metric.name)
        out |= {s.name for s in metric.samples}
        if metric.type == "counter":
            out.add(f"{metric.name}_total")
    return out


def _alerts() -> list[dict[str, Any]]:
    doc = yaml.safe_load(RULES.read_text("utf-8"))
    return [r for g in doc["groups"] for r in g["rules"] if "alert" in r]


def test_promtool_accepts_the_rules_and_their_unit_tests_pass() -> None:
    assert "SUCCESS" in run([tool("promtool"), "check", "rules", str(RULES)]).stdout
    out = run([tool("promtool"), "test", "rules", RULES_TEST.name], cwd=RULES.parent)
    assert "SUCCESS" in out.stdout + out.stderr


def test_every_alert_has_a_promtool_test_and_a_runbook() -> None:
    tests = yaml.safe_load(RULES_TEST.read_text("utf-8"))
    tested = {case["alertname"] for t in tests["tests"] for case in t["alert_rule_test"]}
    for rule in _alerts():
        assert rule["alert"] in tested
        page = rule["annotations"]["runbook_url"].rsplit("/", 1)[1]
        assert (OPS / "runbooks" / page).is_file(), page


def test_rules_read_only_the_workers_series() -> None:
    assert names_in(str(r["expr"]) for r in _alerts()) - _exported() == set()


def _builder() -> Any:
    spec = importlib.util.spec_from_file_location(
        "rgs_ops_build_rtp_dashboard", OPS / "grafana" / "build_rtp_dashboard.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _queries(d: dict[str, Any]) -> list[str]:
    exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
    exprs += [a["expr"] for a in d["annotations"]["list"] if "expr" in a]
    for var in d["templating"]["list"]:
        q = var.get("query")
        if isinstance(q, dict) and var["type"] == "query":
            exprs.append(re.sub(r"^label_values\((.*),\s*\w+\)$", r"\1", q["query"]))
    return exprs


def test_dashboard_is_what_its_builder_writes_and_its_queries_parse(tmp_path: Path) -> None:
    assert DASHBOARD.read_text("utf-8") == _builder().render(), \
        "run `python ops/grafana/build_rtp_dashboard.py` and commit"
    d = json.loads(DASHBOARD.read_text("utf-8"))
    exprs = _queries(d)
    assert names_in(exprs) - _exported() - STANDARD_SERIES - {"rgs_build_info"} == set()
    rules = []
    for i, raw in enumerate(exprs):
        expr = raw
        for name, value in sorted(VARIABLES.items(), key=lambda kv: -len(kv[0])):
            expr = expr.replace(name, value)
        assert "$" not in expr, expr
        rules.append({"record": f"dashboard:rgs_rtp:q{i}", "expr": expr})
    path = tmp_path / "q.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "d", "rules": rules}]}))
    assert f"SUCCESS: {len(rules)} rules found" in run(
        [tool("promtool"), "check", "rules", str(path)]).stdout
