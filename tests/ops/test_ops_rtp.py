"""The RTP monitoring's operations files (docs/rtp-monitoring.md): its alert rules valid for
promtool and pinned by their promtool unit tests, each alert with a runbook, its dashboard what
its builder writes with queries Prometheus parses, and both reading only the series
``rgs rtp worker`` exports (rgs.rtp.metrics)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml
from ops_toolbox import CHART, OPS, STANDARD_SERIES, names_in, run, tool

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
    # and Prometheus' own up of its job (RgsRtpWorkerDown)
    assert names_in(str(r["expr"]) for r in _alerts()) - _exported() == {"up"}


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


# --------------------------------------------------------------------------- the chart

def _chart(*args: str) -> list[dict[str, Any]]:
    from test_ops_helm import render
    return render("-f", str(CHART / "ci" / "production-values.yaml"), *args)


def _named(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


def test_the_chart_ships_the_same_rtp_rules() -> None:
    assert (CHART / "files" / "prometheus-rtp-rules.yml").read_text("utf-8") == \
        RULES.read_text("utf-8"), (
            "copy ops/prometheus/rtp_rules.yml to deploy/helm/rgs/files/prometheus-rtp-rules.yml")


def test_the_worker_runs_alone_reads_the_journal_and_is_scraped_as_its_own_job() -> None:
    docs = _chart()
    deploy = _named(docs, "Deployment", "rgs-rtp")
    spec = deploy["spec"]
    # One replica, and never two during a rollout (Recreate): see values.yaml rtp.
    assert spec["replicas"] == 1 and spec["strategy"] == {"type": "Recreate"}
    pod = spec["template"]
    (container,) = pod["spec"]["containers"]
    assert container["args"][:4] == ["rtp", "worker", "--metrics-listen", "0.0.0.0:9466"]
    env = {e["name"]: e for e in container["env"]}
    assert env["RGS_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "rgs-credentials"
    assert env["RGS_DATABASE_POOL_MODE"]["value"] == "transaction"
    assert pod["spec"]["automountServiceAccountToken"] is False
    assert pod["metadata"]["labels"]["app.kubernetes.io/component"] == "rtp"
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["resources"]["limits"]["memory"] == "768Mi"
    service = _named(docs, "Service", "rgs-rtp")
    monitor = _named(docs, "ServiceMonitor", "rgs-rtp")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"][
        "labels"].items()
    assert service["spec"]["selector"]["app.kubernetes.io/component"] == "rtp"
    assert [p["port"] for p in service["spec"]["ports"]] == [9466]
    # The server's Service, ServiceMonitor and NetworkPolicy do not take the worker in.
    assert _named(docs, "ServiceMonitor", "rgs")["spec"]["selector"]["matchLabels"][
        "app.kubernetes.io/component"] == "server"
    policy = _named(docs, "NetworkPolicy", "rgs-rtp")["spec"]
    assert policy["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == "rtp"
    assert {p["port"] for rule in policy["egress"] for p in rule["ports"]} == {53, 6432}
    assert [p["port"] for rule in policy["ingress"] for p in rule["ports"]] == ["metrics"]
    off = _chart("--set", "rtp.enabled=false")
    assert not [d for d in off if d["metadata"]["name"] == "rgs-rtp"]


def test_the_rendered_rtp_rules_pass_promtool_and_their_cases(tmp_path: Path) -> None:
    docs = _chart()
    rule = _named(docs, "PrometheusRule", "rgs-rtp")
    groups = rule["spec"]["groups"]
    exprs = [str(r["expr"]) for g in groups for r in g["rules"]]
    for e in exprs:  # every series of the worker, of this installation only
        for matchers in re.findall(r"rgs_rtp_\w+(\{[^}]*\})", e):
            assert 'namespace="casino", job="rgs-rtp"' in matchers, e
    assert all(r["annotations"]["runbook_url"].startswith(
        "https://git.example.invalid/casino/rgs/-/blob/main/ops/runbooks/Rgs")
        for g in groups for r in g["rules"] if "alert" in r)
    (tmp_path / "rtp_rules.yml").write_text(yaml.safe_dump({"groups": groups}))
    assert "SUCCESS" in run([tool("promtool"), "check", "rules",
                             str(tmp_path / "rtp_rules.yml")]).stdout
    cases = yaml.safe_load(RULES_TEST.read_text("utf-8"))
    for case in cases["tests"]:  # the rendered runbook links
        for test in case["alert_rule_test"]:
            for alert in test["exp_alerts"]:
                alert["exp_annotations"]["runbook_url"] = (
                    "https://git.example.invalid/casino/rgs/-/blob/main/ops/runbooks/"
                    f"{test['alertname']}.md")
    (tmp_path / "rtp_rules_test.yml").write_text(yaml.safe_dump(cases))
    out = run([tool("promtool"), "test", "rules", "rtp_rules_test.yml"], cwd=tmp_path)
    assert "SUCCESS" in out.stdout + out.stderr
    # The same suite fails against another installation's rules: the selectors matter.
    other = yaml.safe_dump({"groups": _named(_chart("--namespace", "casino-staging"),
                                             "PrometheusRule", "rgs-rtp")["spec"]["groups"]})
    (tmp_path / "rtp_rules.yml").write_text(other)
    proc = subprocess.run([tool("promtool"), "test", "rules", "rtp_rules_test.yml"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode != 0
