"""The Prometheus rules: valid for promtool, pinned by its unit tests (and each guard shown to
be what keeps its quiet case quiet), documented by a runbook each behind an absolute link,
aggregated by namespace, shipped unchanged in the Helm chart, and reading only exported metrics
and their own recording rules."""

from __future__ import annotations

import re
import subprocess
import urllib.parse
from pathlib import Path

import pytest
import yaml
from ops_toolbox import CHART, OPS, PROMETHEUS_PROVIDED, external_series, names_in, run, tool

from rgs.observability.metrics import exported_series_names

RULES = OPS / "prometheus" / "rules.yml"
RULES_TEST = OPS / "prometheus" / "rules_test.yml"
RULES_SLOW_TEST = OPS / "prometheus" / "rules_slow_test.yml"
"""The ticket tier's cases (days of series, evaluated every 10 minutes)."""
RUNBOOK_BASE = "https://runbooks.example.invalid/rgs"
"""The placeholder base of every runbook link (the chart rewrites it)."""


def _rules() -> list[dict[str, object]]:
    doc = yaml.safe_load(RULES.read_text("utf-8"))
    return [rule for group in doc["groups"] for rule in group["rules"]]


def _alerts() -> list[dict[str, object]]:
    return [r for r in _rules() if "alert" in r]


def _recorded() -> set[str]:
    return {str(r["record"]) for r in _rules() if "record" in r}


def test_promtool_accepts_the_rules() -> None:
    out = run([tool("promtool"), "check", "rules", str(RULES)])
    assert "SUCCESS" in out.stdout


@pytest.mark.parametrize("suite", [RULES_TEST, RULES_SLOW_TEST], ids=lambda p: p.name)
def test_promtool_unit_tests_of_every_alert_pass(suite: Path) -> None:
    out = run([tool("promtool"), "test", "rules", suite.name], cwd=RULES.parent, timeout=600)
    assert "SUCCESS" in out.stdout + out.stderr


def test_every_alert_has_a_promtool_test() -> None:
    tested = {case["alertname"] for suite in (RULES_TEST, RULES_SLOW_TEST)
              for t in yaml.safe_load(suite.read_text("utf-8"))["tests"]
              for case in t["alert_rule_test"]}
    assert {str(r["alert"]) for r in _alerts()} - tested == set()


# Each guard or term, removed from the rules, makes the promtool case it exists for fail: the
# quiet cases are quiet because of the rule, not because of their data.
MUTATIONS = [
    ("the traffic guard keeps a few night errors from paging",
     [("and namespace_job:rgs_player_rpc_requests:rate1h * 3600 >= 100", ""),
      ("and namespace_job:rgs_player_rpc_requests:rate6h * 21600 >= 100", "")],
     "below 100 calls in the long window a high error ratio does not page"),
    ("the long window keeps a short burst from paging",
     [("namespace_job:rgs_player_rpc_errors:ratio_rate1h > (14.4 * 0.001)\n", ""),
      ("namespace_job:rgs_player_rpc_errors:ratio_rate6h > (6 * 0.001)\n", ""),
      ("and namespace_job:rgs_player_rpc_errors:ratio_rate5m",
       "namespace_job:rgs_player_rpc_errors:ratio_rate5m"),
      ("and namespace_job:rgs_player_rpc_errors:ratio_rate30m",
       "namespace_job:rgs_player_rpc_errors:ratio_rate30m")],
     "at 0.1 calls/s, 3 errors in 20 minutes page nobody"),
    ("absent() pages when the targets vanish",
     [('or\n          absent(up{namespace="casino", job="rgs"})', "")],
     "targets that vanish altogether page as a total outage"),
    ("increase() holds an RNG failure whose counter was reset",
     [("or\n          sum by (namespace, job, instance) "
       "(increase(rgs_rng_health_failures_total[1h])) > 0", "")],
     "an RNG failure whose replica was restarted"),
    ("only the upper side of the RTP band fires",
     [("(\n            (\n              sum by (namespace, job, variant) "
       "(increase(rgs_wins_minor_total{bet=\"main\"}[1d]))",
       "(\n            abs(\n              sum by (namespace, job, variant) "
       "(increase(rgs_wins_minor_total{bet=\"main\"}[1d]))")],
     "observed RTP above four standard errors fires; below the band"),
    ("the pool traffic guard",
     [("and\n          sum by (namespace, job, pool) "
       "(rate(rgs_journal_pool_wait_seconds_count[5m])) * 300 >= 20", "")],
     "database unreachable, slow commits, stale samples"),
    ("a Deployment scaled to zero on purpose is not an outage",
     [("\n          and on (namespace, deployment)\n          max by (namespace, job, deployment) "
       "(kube_deployment_spec_replicas{namespace=\"casino\", deployment=\"rgs\"}) > 0", "")],
     "every pod running but none ready"),
    ("an old OOMKilled reason without a recent restart stays quiet",
     [("\n          and on (namespace, job, pod, container)\n          sum by (namespace, job, "
       "pod, container) (increase(kube_pod_container_status_restarts_total{namespace=\"casino\", "
       "pod=~\"rgs-.*\", container=\"rgs\"}[30m])) > 0", "")],
     "an OOMKilled restart opens a ticket"),
    ("a Pushgateway keeps the last push: a probe CronJob that stopped reporting pages",
     [("\n          or\n          time() - max by (namespace, job) (rgs_probe_timestamp_seconds"
       "{namespace=\"casino\", job=\"rgs-probe\"}) > 120", "")],
     "probe CronJob: a passing run a minute"),
    ("a vanished probe Deployment pages",
     [("\n          or\n          absent(rgs_probe_success{namespace=\"casino\", "
       "job=\"rgs-probe\"})", "")],
     "probe Deployment: a failing synthetic client"),
    ("the wallet traffic guard",
     [("and\n          sum by (namespace, job, operator) (rate(rgs_wallet_calls_total[5m]))"
       " * 300 >= 20", "")],
     "one wallet timeout among a few night calls"),
]


@pytest.mark.parametrize(("mutation", "test_name"),
                         [(m[1], m[2]) for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_each_guard_is_what_keeps_its_case_right(
        mutation: list[tuple[str, str]], test_name: str, tmp_path: Path) -> None:
    shipped = text = RULES.read_text("utf-8")
    for old, new in mutation:
        assert old in text, f"the rules no longer contain {old!r}: update the mutation"
        text = text.replace(old, new)
    (tmp_path / "rules.yml").write_text(shipped)
    # Only the case the guard exists for (promtool evaluates every rule for every case).
    suite = yaml.safe_load(RULES_TEST.read_text("utf-8"))
    suite["tests"] = [t for t in suite["tests"] if t["name"].startswith(test_name)]
    assert len(suite["tests"]) == 1, test_name
    (tmp_path / "case.yml").write_text(yaml.safe_dump(suite))
    run([tool("promtool"), "test", "rules", "case.yml"], cwd=tmp_path)  # passes as shipped...
    (tmp_path / "rules.yml").write_text(text)
    run([tool("promtool"), "check", "rules", str(tmp_path / "rules.yml")])
    proc = subprocess.run([tool("promtool"), "test", "rules", "case.yml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0, "...and must fail without the guard"
    assert "FAILED" in proc.stdout + proc.stderr


def test_every_alert_has_a_runbook_behind_an_absolute_link() -> None:
    for rule in _alerts():
        name = rule["alert"]
        annotations = rule["annotations"]
        assert isinstance(annotations, dict)
        url = annotations["runbook_url"]
        assert url == f"{RUNBOOK_BASE}/{name}.md"
        parts = urllib.parse.urlsplit(url)
        assert parts.scheme == "https" and parts.netloc
        runbook = OPS / "runbooks" / f"{name}.md"
        assert runbook.exists(), f"missing runbook {runbook}"
        text = runbook.read_text("utf-8")
        assert text.startswith(f"# {name}"), runbook
        for section in ("## Meaning", "## Impact", "## Diagnosis", "## Mitigation"):
            assert section in text, f"{runbook} lacks {section}"
        assert rule["labels"]["severity"] in ("critical", "warning")  # type: ignore[index]
    alerts = {str(r["alert"]) for r in _alerts()}
    rtp = yaml.safe_load((OPS / "prometheus" / "rtp_rules.yml").read_text("utf-8"))
    alerts |= {str(r["alert"]) for g in rtp["groups"] for r in g["rules"]}  # test_ops_rtp.py
    orphans = {p.stem for p in (OPS / "runbooks").glob("*.md")} - alerts
    assert orphans == set(), f"runbooks of alerts that no longer exist: {orphans}"


def test_every_aggregation_keeps_namespace_and_job() -> None:
    # `by (job)` alone merged two installations (staging and production) into one series.
    for rule in _rules():
        for labels in re.findall(r"\bby\s*\(([^)]*)\)", str(rule["expr"])):
            names = {x.strip() for x in labels.split(",")}
            assert {"namespace", "job"} <= names, (rule.get("alert") or rule["record"], labels)


def test_recording_rules_follow_the_level_metric_operation_naming() -> None:
    for name in _recorded():
        level, metric, operation = name.split(":")
        assert level == "namespace_job" and metric.startswith("rgs_") and operation, name


def test_rules_read_only_metrics_the_service_exports_and_their_own_records() -> None:
    # ... or the named exporters' (kube-state-metrics, the database exporters, `rgs probe`).
    used = names_in(str(r["expr"]) for r in _rules())
    recorded = _recorded()
    unknown = used - exported_series_names() - PROMETHEUS_PROVIDED - recorded - external_series()
    assert unknown == set(), f"rules use metrics the service does not export: {unknown}"
    assert {n for n in used if ":" in n} <= recorded


def test_the_chart_ships_the_same_rules() -> None:
    shipped = CHART / "files" / "prometheus-rules.yml"
    assert shipped.read_text("utf-8") == RULES.read_text("utf-8"), (
        "copy ops/prometheus/rules.yml to deploy/helm/rgs/files/prometheus-rules.yml")
