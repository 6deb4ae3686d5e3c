"""The chart's scheduled jobs, the jobs' NetworkPolicy and the synthetic client, as rendered:
the daily purge runs `rgs purge` with the database URL and no API token, the daily partition
maintenance `rgs partitions maintain` the same way, with a retention the schema keeps at the
regulators' minimum or above; the migration Job and
the CronJobs may reach DNS and the database only, and nothing reaches them; the probe calls the
public address with its key read from a file (never an argument) and is scraped as
<fullname>-probe, the job its alert reads."""

from __future__ import annotations

import subprocess
from typing import Any

from ops_toolbox import CHART, tool
from test_ops_helm import named, render

PRODUCTION = str(CHART / "ci" / "production-values.yaml")


def _pod(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc["spec"]
    if doc["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return dict(spec["template"])


def test_the_daily_purge_runs_rgs_purge_against_the_journal() -> None:
    docs = render("-f", PRODUCTION)
    cron = named(docs, "CronJob", "rgs-purge")
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    pod = _pod(cron)
    (container,) = pod["spec"]["containers"]
    assert container["args"][:7] == ["purge", "--idempotency-days", "7", "--session-days", "30",
                                     "--launch-days", "1"]
    env = {e["name"]: e for e in container["env"]}
    assert env["RGS_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "rgs-credentials"
    assert pod["spec"]["automountServiceAccountToken"] is False
    assert pod["metadata"]["labels"]["app.kubernetes.io/component"] == "lifecycle"
    off = render("-f", PRODUCTION, "--set", "lifecycle.purge.enabled=false")
    assert [d["metadata"]["name"] for d in off if d["kind"] == "CronJob"] == ["rgs-partitions"]


def test_the_daily_partition_maintenance_runs_like_the_purge() -> None:
    docs = render("-f", PRODUCTION)
    purge, cron = named(docs, "CronJob", "rgs-purge"), named(docs, "CronJob", "rgs-partitions")
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    pod, purge_pod = _pod(cron), _pod(purge)
    (container,) = pod["spec"]["containers"]
    assert container["args"] == ["partitions", "maintain", "--retention-months", "72",
                                 "--months-ahead", "3", "--past-retention", "detach",
                                 "--lock-timeout-ms", "1000", "--attempts", "5", "--json"]
    # The purge's identity, hardening and database credentials, and its NetworkPolicy (the
    # lifecycle component: test below).
    for key in ("securityContext", "serviceAccountName", "automountServiceAccountToken"):
        assert pod["spec"][key] == purge_pod["spec"][key], key
    (purge_container,) = purge_pod["spec"]["containers"]
    assert container["securityContext"] == purge_container["securityContext"]
    assert container["env"] == purge_container["env"]
    assert pod["metadata"]["labels"] == purge_pod["metadata"]["labels"]
    assert container["resources"]["limits"]["memory"]
    set_ = render("-f", PRODUCTION, "--set", "lifecycle.partitions.retentionMonths=84",
                  "--set", "lifecycle.partitions.pastRetention=drop",
                  "--set", "lifecycle.partitions.schedule=5 4 * * *")
    cron = named(set_, "CronJob", "rgs-partitions")
    args = _pod(cron)["spec"]["containers"][0]["args"]
    assert args[args.index("--retention-months") + 1] == "84"
    assert args[args.index("--past-retention") + 1] == "drop"
    assert cron["spec"]["schedule"] == "5 4 * * *"
    off = render("-f", PRODUCTION, "--set", "lifecycle.partitions.enabled=false")
    assert [d["metadata"]["name"] for d in off if d["kind"] == "CronJob"] == ["rgs-purge"]
    # Without either lifecycle job the jobs' policy still covers the migration Job.
    none = render("-f", PRODUCTION, "--set", "lifecycle.partitions.enabled=false",
                  "--set", "lifecycle.purge.enabled=false")
    assert named(none, "NetworkPolicy", "rgs-jobs")


def test_the_chart_refuses_a_retention_inside_the_regulators() -> None:
    for value, field in (("lifecycle.partitions.retentionMonths=24", "retentionMonths"),
                         ("lifecycle.partitions.pastRetention=truncate", "pastRetention"),
                         ("lifecycle.partitions.lockTimeoutMs=60000", "lockTimeoutMs")):
        proc = subprocess.run([tool("helm"), "template", "rgs", str(CHART), "-f", PRODUCTION,
                               "--set", value], capture_output=True, text=True, timeout=60,
                              check=False)
        assert proc.returncode != 0 and field in proc.stderr, (value, proc.stderr)


def test_the_migration_job_and_the_cronjobs_reach_the_database_only() -> None:
    docs = render("-f", PRODUCTION)
    policy = named(docs, "NetworkPolicy", "rgs-jobs")
    spec = policy["spec"]
    assert spec["policyTypes"] == ["Ingress", "Egress"] and spec["ingress"] == []
    assert {p["port"] for rule in spec["egress"] for p in rule["ports"]} == {53, 6432}
    (expr,) = spec["podSelector"]["matchExpressions"]
    assert expr["values"] == ["migration", "lifecycle"]
    job = named(docs, "Job", "rgs-migrate")
    for pod in (_pod(job), _pod(named(docs, "CronJob", "rgs-purge")),
                _pod(named(docs, "CronJob", "rgs-partitions"))):
        labels = pod["metadata"]["labels"]
        assert spec["podSelector"]["matchLabels"].items() <= labels.items()
        assert labels["app.kubernetes.io/component"] in expr["values"]
    # A hook before the migration Job, so the Job starts under it.
    assert int(policy["metadata"]["annotations"]["helm.sh/hook-weight"]) < int(
        job["metadata"]["annotations"]["helm.sh/hook-weight"])
    # The server's policy does not select them (their component differs).
    server = named(docs, "NetworkPolicy", "rgs")["spec"]["podSelector"]["matchLabels"]
    assert server["app.kubernetes.io/component"] == "server"


def test_the_probe_calls_the_public_address_with_its_key_from_a_file() -> None:
    docs = render("-f", PRODUCTION)
    deploy = named(docs, "Deployment", "rgs-probe")
    (container,) = _pod(deploy)["spec"]["containers"]
    args = container["args"]
    assert args[0] == "probe"
    assert args[args.index("--address") + 1] == "rgs.gateway.example.invalid:443"
    assert args[args.index("--operator-key-file") + 1] == "/etc/rgs/probe/operator-key"
    assert args[args.index("--tls-server-name") + 1] == "rgs.gateway.example.invalid"
    assert "--interval" in args and "--metrics-listen" in args
    assert not [e for e in container.get("env", []) if "KEY" in e["name"]]
    # Scraped through its own Service: Prometheus' job label is the Service's name.
    service = named(docs, "Service", "rgs-probe")
    monitor = named(docs, "ServiceMonitor", "rgs-probe")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"][
        "labels"].items()
    assert service["spec"]["selector"]["app.kubernetes.io/component"] == "probe"
    # The server's Service and ServiceMonitor do not pick the probe up.
    server_monitor = named(docs, "ServiceMonitor", "rgs")["spec"]["selector"]["matchLabels"]
    assert server_monitor["app.kubernetes.io/component"] == "server"
    policy = named(docs, "NetworkPolicy", "rgs-probe")["spec"]
    assert {p["port"] for rule in policy["egress"] for p in rule["ports"]} == {53, 443}


def test_the_probe_as_a_cronjob_pushes_each_run_to_the_pushgateway() -> None:
    docs = render("-f", PRODUCTION, "--set", "probe.mode=cronjob",
                  "--set", "probe.pushgateway.url=http://prometheus-pushgateway.monitoring:9091")
    cron = named(docs, "CronJob", "rgs-probe")
    assert cron["spec"]["schedule"] == "* * * * *"
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    job = cron["spec"]["jobTemplate"]["spec"]
    # A run that cannot push is not retried within the minute, and never outlives it.
    assert job["backoffLimit"] == 0 and job["activeDeadlineSeconds"] < 60
    pod = _pod(cron)
    assert pod["spec"]["restartPolicy"] == "Never"
    (container,) = pod["spec"]["containers"]
    args = container["args"]
    assert args[args.index("--pushgateway") + 1] == "http://prometheus-pushgateway.monitoring:9091"
    assert args[args.index("--push-job") + 1] == "rgs-probe"
    assert args[args.index("--push-label") + 1] == "namespace=casino"  # the release's
    assert args[args.index("--operator-key-file") + 1] == "/etc/rgs/probe/operator-key"
    assert "--interval" not in args and "--metrics-listen" not in args
    assert "ports" not in container
    # Nothing scrapes a run: no Deployment, Service or ServiceMonitor of the probe.
    for kind in ("Deployment", "Service", "ServiceMonitor"):
        assert not [d for d in docs if d["kind"] == kind
                    and d["metadata"]["name"] == "rgs-probe"], kind
    policy = named(docs, "NetworkPolicy", "rgs-probe")["spec"]
    assert policy["ingress"] == []
    assert {p["port"] for rule in policy["egress"] for p in rule["ports"]} == {53, 443, 9091}
    # The port of a URL without one is the scheme's.
    https = render("-f", PRODUCTION, "--set", "probe.mode=cronjob",
                   "--set", "probe.pushgateway.url=https://pushgateway.example.invalid")
    policy = named(https, "NetworkPolicy", "rgs-probe")["spec"]
    assert {p["port"] for rule in policy["egress"] for p in rule["ports"]} == {53, 443}


def test_the_probe_cronjob_needs_its_pushgateway() -> None:
    import subprocess

    from ops_toolbox import tool
    proc = subprocess.run([tool("helm"), "template", "rgs", str(CHART), "-f", PRODUCTION,
                           "--set", "probe.mode=cronjob"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert "probe.pushgateway.url is required with probe.mode cronjob" in proc.stderr
