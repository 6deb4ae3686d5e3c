"""The Prometheus alert rules: valid for promtool, pinned by its unit tests, documented by a
runbook each, shipped unchanged in the Helm chart, and reading only exported metrics."""

from __future__ import annotations

import yaml
from ops_toolbox import CHART, OPS, PROMETHEUS_PROVIDED, names_in, run, tool

from rgs.observability.metrics import exported_series_names

RULES = OPS / "prometheus" / "rules.yml"


def _rules() -> list[dict[str, object]]:
    doc = yaml.safe_load(RULES.read_text("utf-8"))
    return [rule for group in doc["groups"] for rule in group["rules"]]


def test_promtool_accepts_the_rules() -> None:
    out = run([tool("promtool"), "check", "rules", str(RULES)])
    assert "SUCCESS" in out.stdout


def test_promtool_unit_tests_of_every_alert_pass() -> None:
    out = run([tool("promtool"), "test", "rules", "rules_test.yml"], cwd=RULES.parent)
    assert "SUCCESS" in out.stdout + out.stderr


def test_every_alert_has_a_promtool_test() -> None:
    tests = yaml.safe_load((OPS / "prometheus" / "rules_test.yml").read_text("utf-8"))
    tested = {case["alertname"] for t in tests["tests"] for case in t["alert_rule_test"]}
    alerts = {str(r["alert"]) for r in _rules() if "alert" in r}
    assert alerts - tested == set()


def test_every_alert_has_a_runbook_it_links_to() -> None:
    for rule in _rules():
        name = rule["alert"]
        annotations = rule["annotations"]
        assert isinstance(annotations, dict)
        assert annotations["runbook_url"] == f"ops/runbooks/{name}.md"
        runbook = OPS / "runbooks" / f"{name}.md"
        assert runbook.exists(), f"missing runbook {runbook}"
        text = runbook.read_text("utf-8")
        assert text.startswith(f"# {name}"), runbook
        for section in ("## Meaning", "## Impact", "## Diagnosis", "## Mitigation"):
            assert section in text, f"{runbook} lacks {section}"
        assert rule["labels"]["severity"] in ("critical", "warning")  # type: ignore[index]


def test_rules_read_only_metrics_the_service_exports() -> None:
    used = names_in(str(r["expr"]) for r in _rules())
    unknown = used - exported_series_names() - PROMETHEUS_PROVIDED
    assert unknown == set(), f"rules use metrics the service does not export: {unknown}"


def test_the_chart_ships_the_same_rules() -> None:
    shipped = CHART / "files" / "prometheus-rules.yml"
    assert shipped.read_text("utf-8") == RULES.read_text("utf-8"), (
        "copy ops/prometheus/rules.yml to deploy/helm/rgs/files/prometheus-rules.yml")
