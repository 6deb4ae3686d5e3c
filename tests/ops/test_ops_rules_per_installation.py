"""The chart renders the alerting rules for its own installation: every promtool case of
ops/prometheus/rules_test.yml passes against the rendered copy, every RGS selector names the
release's namespace and job, and the outage cases an SRE review found hold as rendered: a
production that is gone pages while staging is up, and fullnameOverride is followed (the rule
once looked for any job matching .*rgs.* and paged forever on a healthy `blackjack`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from ops_toolbox import CHART, OPS, run, tool

MINIMAL = str(CHART / "ci" / "minimal-values.yaml")
EXPORTER_JOBS = ["--set", "prometheusRule.databaseJobs.postgres=rgs-postgres",
                 "--set", "prometheusRule.databaseJobs.pgbouncer=rgs-pgbouncer",
                 "--set", "prometheusRule.databaseJobs.pgbackrest=rgs-pgbackrest"]


def _rendered_rules(namespace: str, *args: str) -> list[dict[str, Any]]:
    out = run([tool("helm"), "template", "rgs", str(CHART), "--namespace", namespace,
               "-f", MINIMAL, "--set", "prometheusRule.enabled=true",
               "--set", "prometheusRule.runbookBaseUrl=https://runbooks.example.invalid/rgs",
               *args])
    docs = [d for d in yaml.safe_load_all(out.stdout) if d]
    # The server's rules (the RTP worker's are <fullname>-rtp, tests/ops/test_ops_rtp.py).
    (rule,) = [d for d in docs if d["kind"] == "PrometheusRule"
               and not d["metadata"]["name"].endswith("-rtp")]
    return list(rule["spec"]["groups"])


def _write(tmp_path: Path, groups: list[dict[str, Any]]) -> None:
    (tmp_path / "rules.yml").write_text(yaml.safe_dump({"groups": groups}))


def test_every_promtool_case_passes_against_the_rendered_rules(tmp_path: Path) -> None:
    # Release rgs in namespace casino is the installation the cases describe.
    _write(tmp_path, _rendered_rules("casino", "--set", "probe.enabled=true",
                                    "--set", "probe.existingSecret=probe-key", *EXPORTER_JOBS))
    # The cases whose RGS series are all this installation's (the others show two
    # installations in one Prometheus, which the rendered copy tells apart by construction).
    kept = 0
    for suite in ("rules_test.yml", "rules_slow_test.yml"):
        doc = yaml.safe_load((OPS / "prometheus" / suite).read_text("utf-8"))
        doc["tests"] = [c for c in doc["tests"] if all(
            'namespace="casino", job="rgs"' in s["series"]
            for s in c["input_series"] if re.match(r"(rgs_|up\{)", s["series"]))]
        kept += len(doc["tests"])
        (tmp_path / suite).write_text(yaml.safe_dump(doc))
        out = run([tool("promtool"), "test", "rules", suite], cwd=tmp_path, timeout=600)
        assert "SUCCESS" in out.stdout + out.stderr
    assert kept >= 25


def test_every_rgs_selector_names_the_installation() -> None:
    groups = _rendered_rules("casino-prod", "--set", "fullnameOverride=blackjack")
    exprs = [str(r["expr"]) for g in groups for r in g["rules"]]
    selectors = [m for e in exprs for m in re.findall(r"(?<![:\w])(rgs_\w+|up)(\{[^}]*\})?", e)]
    assert selectors
    for name, matchers in selectors:
        assert 'namespace="casino-prod"' in matchers and 'job="blackjack' in matchers, name
    text = "\n".join(exprs)
    assert 'deployment="blackjack"' in text and 'horizontalpodautoscaler="blackjack"' in text
    assert 'pod=~"blackjack-.*"' in text and '"rgs"' not in text.replace('container="rgs"', "")
    assert "rgs.probe" not in {g["name"] for g in groups}  # probe.enabled is off


def test_outages_page_per_installation_as_rendered(tmp_path: Path) -> None:
    _write(tmp_path, _rendered_rules("casino", "--set", "fullnameOverride=blackjack"))
    outage = {"severity": "critical", "namespace": "casino", "job": "blackjack"}
    summary = {"summary": "No RGS replica is up (or none is being scraped at all).",
               "runbook_url": "https://runbooks.example.invalid/rgs/RgsTotalOutage.md"}
    suite = {"rule_files": ["rules.yml"], "evaluation_interval": "1m", "tests": [
        {"name": "a healthy install named by fullnameOverride pages nobody",
         "interval": "1m",
         "input_series": [{"series": 'up{namespace="casino", job="blackjack", instance="a"}',
                           "values": "1x30"}],
         "alert_rule_test": [{"eval_time": "20m", "alertname": "RgsTotalOutage",
                              "exp_alerts": []}]},
        {"name": "production gone while staging is up pages for production",
         "interval": "1m",
         "input_series": [
             {"series": 'up{namespace="casino", job="blackjack", instance="a"}',
              "values": "1x5 _x30"},
             {"series": 'up{namespace="casino-staging", job="blackjack", instance="b"}',
              "values": "1x35"}],
         "alert_rule_test": [{"eval_time": "20m", "alertname": "RgsTotalOutage",
                              "exp_alerts": [{"exp_labels": outage,
                                              "exp_annotations": summary}]}]},
    ]}
    (tmp_path / "case.yml").write_text(yaml.safe_dump(suite))
    out = run([tool("promtool"), "test", "rules", "case.yml"], cwd=tmp_path, timeout=600)
    assert "SUCCESS" in out.stdout + out.stderr
