"""The chart renders the alerting rules for its own installation: every promtool case of
ops/prometheus/rules_test.yml passes against the rendered copy, every RGS selector names the
release's namespace and job, and the outage cases an SRE review found hold as rendered: a
production that is gone pages while staging is up, and fullnameOverride is followed (the rule
once looked for any job matching .*rgs.* and paged forever on a healthy `blackjack`). The
backup alerts render for the backup tool the chart is told (pgbackrest, cloudnativepg, none),
each tool's promtool cases passing against its rendering; the probe's alert reads the series
either probe mode reports (a scraped Deployment, or CronJob runs pushed to a Pushgateway)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from ops_toolbox import CHART, OPS, run, tool

MINIMAL = str(CHART / "ci" / "minimal-values.yaml")
EXPORTER_JOBS = ["--set", "prometheusRule.databaseJobs.postgres=rgs-postgres",
                 "--set", "prometheusRule.databaseJobs.pgbouncer=rgs-pgbouncer",
                 "--set", "prometheusRule.databaseJobs.pgbackrest=rgs-pgbackrest",
                 "--set", "prometheusRule.databaseJobs.cloudnativepg=rgs-cloudnativepg"]
BACKUP_TOOLS = ("pgbackrest", "cloudnativepg")
"""The backup tools with rules (their promtool cases are named "<tool>: ...")."""


def _other_tools_case(case: dict[str, Any], tool_: str) -> bool:
    return any(str(case["name"]).startswith(f"{t}:") for t in BACKUP_TOOLS if t != tool_)


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
            for s in c["input_series"] if re.match(r"(rgs_|up\{)", s["series"]))
            and not _other_tools_case(c, "pgbackrest")]  # the chart's default backupTool
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
    assert 'cronjob="blackjack-partitions"' in text  # the partitions CronJob's own name


def test_the_partition_alert_renders_with_its_cronjob_only() -> None:
    names = {g["name"] for g in _rendered_rules("casino")}
    assert "rgs.lifecycle" in names
    off = _rendered_rules("casino", "--set", "lifecycle.partitions.enabled=false")
    assert "rgs.lifecycle" not in {g["name"] for g in off}
    assert names - {"rgs.lifecycle"} == {g["name"] for g in off}


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


@pytest.mark.parametrize("backup_tool", BACKUP_TOOLS)
def test_the_backup_alerts_render_for_the_tool_the_chart_is_told(backup_tool: str,
                                                                 tmp_path: Path) -> None:
    groups = _rendered_rules("casino", "--set", f"prometheusRule.backupTool={backup_tool}",
                             *EXPORTER_JOBS)
    names = {g["name"] for g in groups}
    assert {n for n in names if n.startswith("rgs.backup.")} == {f"rgs.backup.{backup_tool}"}
    backup = next(g for g in groups if g["name"] == f"rgs.backup.{backup_tool}")
    assert {r["alert"] for r in backup["rules"]} == {"RgsWalArchivingFailing", "RgsBackupTooOld"}
    _write(tmp_path, groups)
    kept = 0
    for suite in ("rules_test.yml", "rules_slow_test.yml"):
        doc = yaml.safe_load((OPS / "prometheus" / suite).read_text("utf-8"))
        doc["tests"] = [c for c in doc["tests"] if str(c["name"]).startswith(f"{backup_tool}:")]
        if not doc["tests"]:
            continue
        kept += len(doc["tests"])
        (tmp_path / suite).write_text(yaml.safe_dump(doc))
        out = run([tool("promtool"), "test", "rules", suite], cwd=tmp_path, timeout=600)
        assert "SUCCESS" in out.stdout + out.stderr
    assert kept >= 2
    # A managed database's provider alerts on its own backups: none renders no backup group.
    none = _rendered_rules("casino", "--set", "prometheusRule.backupTool=none")
    assert not [g for g in none if g["name"].startswith("rgs.backup.")]


def _refused(*args: str) -> str:
    """helm template's error for these values (the test fails if it renders)."""
    proc = subprocess.run(
        [tool("helm"), "template", "rgs", str(CHART), "-f", MINIMAL,
         "--set", "prometheusRule.enabled=true",
         "--set", "prometheusRule.runbookBaseUrl=https://runbooks.example.invalid/rgs", *args],
        capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0, f"rendered with {args}"
    return proc.stderr


def test_the_backup_tool_and_its_exporter_job_are_checked() -> None:
    assert "must be one of" in _refused("--set", "prometheusRule.backupTool=barman")
    assert "prometheusRule.databaseJobs.cloudnativepg is required" in _refused(
        "--set", "prometheusRule.backupTool=cloudnativepg")


def test_either_probe_mode_feeds_the_rendered_probe_alert() -> None:
    # The Deployment is scraped as job <fullname>-probe (its Service's name); a CronJob run
    # pushes job <fullname>-probe with the release's namespace in its grouping key: the same
    # series the rendered RgsProbeFailing selects.
    for mode in ("deployment", "cronjob"):
        out = run([tool("helm"), "template", "rgs", str(CHART), "--namespace", "casino-prod",
                   "-f", MINIMAL, "--set", "fullnameOverride=blackjack",
                   "--set", "prometheusRule.enabled=true",
                   "--set", "prometheusRule.runbookBaseUrl=https://runbooks.example.invalid/rgs",
                   "--set", "probe.enabled=true", "--set", "probe.existingSecret=probe-key",
                   "--set", f"probe.mode={mode}",
                   "--set", "probe.pushgateway.url=http://pushgateway.monitoring:9091"])
        docs = [d for d in yaml.safe_load_all(out.stdout) if d]
        (rule,) = [d for d in docs if d["kind"] == "PrometheusRule"
                   and not d["metadata"]["name"].endswith("-rtp")]
        (group,) = [g for g in rule["spec"]["groups"] if g["name"] == "rgs.probe"]
        expr = group["rules"][0]["expr"]
        assert expr.count('{namespace="casino-prod", job="blackjack-probe"}') == 3, expr
        named = {(d["kind"], d["metadata"]["name"]) for d in docs}
        if mode == "deployment":
            # Scraped through its Service: Prometheus' job label is the Service's name.
            assert ("Service", "blackjack-probe") in named
            assert ("CronJob", "blackjack-probe") not in named
            continue
        cron = next(d for d in docs if d["kind"] == "CronJob"
                    and d["metadata"]["name"] == "blackjack-probe")
        args = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"]
        assert args[args.index("--push-job") + 1] == "blackjack-probe"
        assert args[args.index("--push-label") + 1] == "namespace=casino-prod"
        assert not [d for d in docs if d["kind"] == "Deployment"
                    and d["metadata"]["name"] == "blackjack-probe"]
