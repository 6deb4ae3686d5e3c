"""The Helm chart, rendered by a real helm for every ci/*-values.yaml scenario and validated by
kubernetes-validate against the Kubernetes API schemas; the monitoring CRDs (which it has no
schema for) are checked by hand and their rules by promtool. Shutdown timing, probes, rollouts
(checksums, Reloader), the migration Job's identity and the autoscaler's metric are pinned as
rendered."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
import yaml
from ops_toolbox import CHART, OPS, ROOT, run, tool

SCENARIOS = sorted(p.name for p in (CHART / "ci").glob("*-values.yaml"))
KUBERNETES_VALIDATE = ROOT / ".venv" / "bin" / "kubernetes-validate"


def _kubernetes_validate() -> str:
    if not KUBERNETES_VALIDATE.exists():
        pytest.fail("kubernetes-validate is not installed in .venv: run `bash .ci/ops-tools`",
                    pytrace=False)
    return str(KUBERNETES_VALIDATE)


def render(*args: str) -> list[dict[str, Any]]:
    """``helm template`` with ``args``; the documents it prints."""
    out = run([tool("helm"), "template", "rgs", str(CHART), "--namespace", "casino", *args])
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def by_kind(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Documents by kind: the release's main object of each kind (named like the release) when
    there are several (the headless Service, the migration ServiceAccount)."""
    out: dict[str, dict[str, Any]] = {}
    for d in docs:
        if d["kind"] not in out or d["metadata"]["name"] == "rgs":
            out[d["kind"]] = d
    return out


def named(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    """The document of ``kind`` called ``name``."""
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


MINIMAL = str(CHART / "ci" / "minimal-values.yaml")
PRODUCTION = str(CHART / "ci" / "production-values.yaml")


def _container(docs: list[dict[str, Any]]) -> dict[str, Any]:
    return dict(by_kind(docs)["Deployment"]["spec"]["template"]["spec"]["containers"][0])


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value") for e in container["env"]}


def test_there_are_ci_scenarios() -> None:
    assert {"minimal-values.yaml", "production-values.yaml", "lab-values.yaml"} <= set(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_chart_lints_renders_and_validates(scenario: str, tmp_path: Path) -> None:
    values = str(CHART / "ci" / scenario)
    run([tool("helm"), "lint", "--strict", str(CHART), "-f", values])
    rendered = run([tool("helm"), "template", "rgs", str(CHART), "--namespace", "casino",
                    "-f", values]).stdout
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(rendered)
    out = run([_kubernetes_validate(), "--strict", str(manifest)])
    docs = [d for d in yaml.safe_load_all(rendered) if d]
    crds = {d["kind"] for d in docs if d["apiVersion"].startswith("monitoring.coreos.com/")}
    standard = [d for d in docs if d["kind"] not in crds]
    passed = out.stdout.count(" passed for resource ")
    assert passed == len(standard), out.stdout + out.stderr
    assert "failed" not in out.stdout.lower()


def test_production_renders_every_piece() -> None:
    docs = by_kind(render("-f", str(CHART / "ci" / "production-values.yaml")))
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget",
            "NetworkPolicy", "ServiceAccount", "Job", "ServiceMonitor",
            "PrometheusRule"} <= set(docs)
    # Existing secrets (the database's, each operator's wallet's): the chart makes none. The
    # platform file it renders holds references to the mounted wallet secrets, never values.
    assert "Secret" not in docs
    platform = json.loads(docs["ConfigMap"]["data"]["platform.json"])
    wallets = {o["id"]: o["wallet"] for o in platform["operators"]}
    assert wallets["operator-a"]["api_key"] == {"file": "/etc/rgs/wallets/operator-a/api-key"}
    assert wallets["operator-a"]["tls"]["cert_file"] == "/etc/rgs/wallets/operator-a/tls.crt"
    assert wallets["operator-b"]["hmac_secret"] == {
        "file": "/etc/rgs/wallets/operator-b/hmac-secret"}
    assert all("secretName" not in w for w in wallets.values())
    volumes = {v["name"]: v for v in docs["Deployment"]["spec"]["template"]["spec"]["volumes"]}
    assert volumes["wallet-operator-a"]["secret"]["secretName"] == "rgs-wallet-operator-a"
    assert volumes["wallet-operator-b"]["secret"]["secretName"] == "rgs-wallet-operator-b"
    pod = docs["Deployment"]["spec"]["template"]
    container = pod["spec"]["containers"][0]
    assert container["image"].endswith("@sha256:" + "0123456789abcdef" * 4)
    env = {e["name"]: e for e in container["env"]}
    assert env["RGS_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "rgs-credentials"
    assert env["RGS_TLS_CERT_FILE"]["value"] == "/etc/rgs/tls/tls.crt"
    assert "RGS_ALLOW_PLAINTEXT" not in env
    assert env["OTEL_TRACES_EXPORTER"]["value"] == "otlp"
    # TLS: the kubelet's gRPC probe is plaintext-only, so the image's own client probes.
    probe = container["readinessProbe"]["exec"]["command"]
    assert probe[:3] == ["python", "-m", "rgs.observability.healthprobe"]
    assert "--tls-ca" in probe
    hpa = docs["HorizontalPodAutoscaler"]["spec"]
    assert {m["type"] for m in hpa["metrics"]} == {"Resource", "Pods"}


def test_pods_are_hardened() -> None:
    for scenario in SCENARIOS:
        docs = by_kind(render("-f", str(CHART / "ci" / scenario)))
        for kind in ("Deployment", "Job"):
            pod = docs[kind]["spec"]["template"]["spec"]
            assert pod["securityContext"]["runAsNonRoot"] is True
            assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
            assert pod["automountServiceAccountToken"] is False
            for c in pod["containers"]:
                sc = c["securityContext"]
                assert sc["readOnlyRootFilesystem"] is True
                assert sc["allowPrivilegeEscalation"] is False
                assert sc["capabilities"]["drop"] == ["ALL"]
                assert c["resources"]["limits"]["memory"]


def test_plaintext_scenarios_use_native_grpc_probes_and_plaintext() -> None:
    docs = by_kind(render("-f", str(CHART / "ci" / "minimal-values.yaml")))
    container = docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["grpc"] == {"port": 50051}
    for probe in ("startupProbe", "livenessProbe"):
        assert container[probe]["grpc"] == {"port": 50051, "service": "rgs.liveness"}
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["RGS_ALLOW_PLAINTEXT"] == "true"
    assert env["RGS_LISTEN"] == "0.0.0.0:50051"
    assert env["RGS_METRICS_LISTEN"] == "0.0.0.0:9090"
    assert container["args"] == ["serve"]


def test_config_and_secret_changes_roll_the_pods(tmp_path: Path) -> None:
    base = CHART / "ci" / "minimal-values.yaml"

    def annotations(*extra: str) -> dict[str, str]:
        d = by_kind(render("-f", str(base), *extra))["Deployment"]
        return dict(d["spec"]["template"]["metadata"]["annotations"])

    usd = tmp_path / "usd.yaml"
    base_values = yaml.safe_load(base.read_text())
    base_values["operators"][0]["brands"][0]["currencies"] = {"USD": {}}
    usd.write_text(yaml.safe_dump({"operators": base_values["operators"]}))
    rekeyed = tmp_path / "rekeyed.yaml"
    base_values["operators"][0]["wallet"]["apiKey"] = "another-wallet-key"
    rekeyed.write_text(yaml.safe_dump({"operators": base_values["operators"]}))
    before = annotations()
    brands = annotations("-f", str(usd))
    secret = annotations("--set", "database.url=postgresql://rgs:other@db:5432/rgs")
    wallet_key = annotations("-f", str(rekeyed))
    assert brands["checksum/platform"] != before["checksum/platform"]
    assert brands["checksum/secret"] == before["checksum/secret"]
    assert secret["checksum/secret"] != before["checksum/secret"]
    assert wallet_key["checksum/secret"] != before["checksum/secret"]


def test_an_existing_secret_or_config_map_gets_reloader_not_a_constant_checksum() -> None:
    # The chart cannot hash what it does not render: a checksum of nothing never changes, so a
    # rotated secret or a new platform file would never roll the pods. Reloader watches them.
    docs = by_kind(render("-f", PRODUCTION))
    deployment = docs["Deployment"]
    pod_annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
    assert "checksum/secret" not in pod_annotations  # existingSecret
    assert "checksum/platform" in pod_annotations  # rendered from operators by the chart
    reload = deployment["metadata"]["annotations"]
    assert reload["secret.reloader.stakater.com/reload"] == (
        "rgs-credentials,rgs-wallet-operator-a,rgs-wallet-operator-b")
    assert reload["configmap.reloader.stakater.com/reload"] == "rgs-platform"
    # The server certificate is reloaded in place: its Secret rolls nothing.
    assert "rgs-server-tls" not in reload["secret.reloader.stakater.com/reload"]
    existing = by_kind(render("-f", PRODUCTION, "--set", "existingPlatformConfigMap=rgs-p"))
    annotations = existing["Deployment"]["spec"]["template"]["metadata"].get("annotations", {})
    assert not [k for k in annotations if k.startswith("checksum/")]
    assert existing["Deployment"]["metadata"]["annotations"][
        "configmap.reloader.stakater.com/reload"] == "rgs-p"
    plain = by_kind(render("-f", MINIMAL))["Deployment"]
    assert "annotations" not in plain["metadata"]


def test_migration_job_and_its_secret_are_pre_install_and_pre_upgrade_hooks() -> None:
    docs = by_kind(render("-f", str(CHART / "ci" / "minimal-values.yaml")))
    job, secret = docs["Job"], docs["Secret"]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    assert job["spec"]["template"]["spec"]["serviceAccountName"] == "rgs-migrate"
    assert secret["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    # The Secret exists before the Job that reads it.
    assert (int(secret["metadata"]["annotations"]["helm.sh/hook-weight"])
            < int(job["metadata"]["annotations"]["helm.sh/hook-weight"]))
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["migrate"]
    assert secret["stringData"]["operator-keys.json"] == '{"dev-operator":"rgs-dev-operator-key"}'


def _operator(**wallet: object) -> list[str]:
    """One operator with its wallet, as --set-json (a list set by --set is replaced whole)."""
    return ["--set-json", json.dumps({"operators": [{
        "id": "op", "wallet": {"kind": "grpc", **wallet},
        "brands": [{"id": "b", "currencies": {"EUR": {}}, "variants": {"power": {}}}]}]})
        .removeprefix("{").removesuffix("}").replace('"operators": ', "operators=", 1)]


W = _operator(address="w:1", secretName="ws", tls="ca")


@pytest.mark.parametrize(("args", "message"), [
    (["--set", "existingSecret=s"], "operators[dev-operator].wallet.address is required"),
    ([*_operator(address="w:1", secretName="ws"), "--set", "existingSecret=s",
      "--set", "tls.existingSecret=t"], "a gRPC wallet is reached over TLS only"),
    ([*_operator(kind="http", url="http://w/rgs", secretName="ws"), "--set", "existingSecret=s",
      "--set", "tls.existingSecret=t"], "over https only"),
    ([*_operator(address="w:1", tls="ca"), "--set", "existingSecret=s"], "secretName is required"),
    ([*_operator(address="w:1", apiKey="inline-key", tls="ca"), "--set", "existingSecret=s",
      "--set", "tls.existingSecret=t"], "inline credentials are refused in production"),
    ([*W, "--set", "environment=development", "--set", "allowPlaintext=true"],
     "database.url is required"),
    ([*W, "--set", "existingSecret=s"], "environment=production serves TLS only"),
    ([*W, "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "testMode=true"], "testMode (forced cards) is refused"),
    ([*W, "--set", "existingSecret=s", "--set", "environment=staging"], "environment"),
    # values.schema.json: a misspelt key and a weakened security context are refused.
    ([*W, "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "replicaCont=3"], "replicaCont"),
    ([*W, "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "securityContext.allowPrivilegeEscalation=true"], "allowPrivilegeEscalation"),
    ([*W, "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "terminationGracePeriodSeconds=8"], "leaves no time for calls in flight"),
    ([*_operator(address="w:1", secretName="ws", tls="ca", timeout_s=6), "--set",
      "existingSecret=s", "--set", "tls.existingSecret=t", "--set",
      "database.playerLeaseSeconds=11"], "at least twice operators[op].wallet.timeout_s"),
    ([*W, "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "prometheusRule.enabled=true"], "prometheusRule.runbookBaseUrl is required"),
    ([*W, "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "database.poolMode=statement"], "poolMode"),
])
def test_chart_refuses_unsafe_or_incomplete_values(args: list[str], message: str) -> None:
    proc = subprocess.run([tool("helm"), "template", "rgs", str(CHART), *args],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert message in proc.stderr


def test_prometheus_rule_carries_the_ops_rules_and_promtool_accepts_it(tmp_path: Path) -> None:
    docs = by_kind(render("-f", str(CHART / "ci" / "production-values.yaml")))
    spec = docs["PrometheusRule"]["spec"]
    ops = yaml.safe_load((ROOT / "ops" / "prometheus" / "rules.yml").read_text())
    base = yaml.safe_load(Path(PRODUCTION).read_text())["prometheusRule"]["runbookBaseUrl"]
    for group in ops["groups"]:  # the same rules, each runbook link under the release's base
        for rule in group["rules"]:
            if "alert" in rule:
                rule["annotations"]["runbook_url"] = f"{base}/{rule['alert']}.md"
    def names(groups: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
        return [(g["name"], [r.get("alert") or r["record"] for r in g["rules"]]) for g in groups]

    # The same rules, rendered for the installation (tests/ops/test_ops_rules_per_installation.py
    # runs the promtool cases against the rendered copy), with the backup group of the chart's
    # default backup tool only.
    kept = [g for g in ops["groups"]
            if not g["name"].startswith("rgs.backup.") or g["name"] == "rgs.backup.pgbackrest"]
    assert names(spec["groups"]) == names(kept)
    for group in spec["groups"]:
        for rule in group["rules"]:
            if "alert" in rule:
                parts = urllib.parse.urlsplit(rule["annotations"]["runbook_url"])
                assert parts.scheme == "https" and parts.netloc
    path = tmp_path / "rules.yml"
    path.write_text(yaml.safe_dump({"groups": spec["groups"]}))
    run([tool("promtool"), "check", "rules", str(path)])
    monitor = docs["ServiceMonitor"]["spec"]
    service = docs["Service"]
    assert monitor["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert monitor["endpoints"][0]["port"] in {p["name"] for p in service["spec"]["ports"]}


def test_network_policy_admits_grpc_metrics_and_only_the_needed_egress() -> None:
    docs = by_kind(render("-f", str(CHART / "ci" / "production-values.yaml")))
    spec = docs["NetworkPolicy"]["spec"]
    assert spec["policyTypes"] == ["Ingress", "Egress"]
    ingress_ports = {p["port"] for rule in spec["ingress"] for p in rule["ports"]}
    assert ingress_ports == {"grpc", "metrics", "web"}  # web.enabled in production
    egress_ports = {p["port"] for rule in spec["egress"] for p in rule["ports"]}
    assert egress_ports == {53, 6432, 443, 4317}  # the database through PgBouncer


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_rendered_environment_is_settings_the_service_accepts(
        scenario: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from rgs.config import RgsSettings, load_settings
    from rgs.platform_file import load_platform

    docs = by_kind(render("-f", str(CHART / "ci" / scenario)))
    for kind in ("Deployment", "Job"):
        container = docs[kind]["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e.get("value", "from-a-secret-0123456789") for e in container["env"]}
        unknown = {k for k in env if k.startswith("RGS_")
                   and k.removeprefix("RGS_").lower() not in RgsSettings.model_fields}
        assert unknown == set(), f"{kind} sets variables the service does not read: {unknown}"
        for key in [k for k in os.environ if k.startswith("RGS_")]:
            monkeypatch.delenv(key)
        for key, value in env.items():
            if key.startswith("RGS_"):
                monkeypatch.setenv(key, value)
        settings = load_settings()  # raises ConfigError when the chart and the service disagree
        assert settings.environment == yaml.safe_load(
            (CHART / "ci" / scenario).read_text()).get("environment", "production")
    if "ConfigMap" in docs:
        # The service's own validation of the platform file, with every operator's wallet
        # Secret mounted where the deployment mounts it (here: under tmp_path).
        text = docs["ConfigMap"]["data"]["platform.json"]
        deployment = docs["Deployment"]["spec"]["template"]["spec"]
        mounts = {m["name"]: m["mountPath"] for m in deployment["containers"][0]["volumeMounts"]}
        for volume in deployment["volumes"]:
            if volume["name"].startswith("wallet-"):
                folder = tmp_path / mounts[volume["name"]].lstrip("/")
                folder.mkdir(parents=True)
                for name in ("api-key", "hmac-secret", "ca.crt", "tls.crt", "tls.key"):
                    (folder / name).write_text("from-a-secret-0123456789")
        assert "/etc/rgs/wallets/" in text and "from-a-secret" not in text
        platform_file = tmp_path / "platform.json"
        platform_file.write_text(text.replace("/etc/rgs/", f"{tmp_path}/etc/rgs/"))
        plat = load_platform(platform_file, production=settings.environment == "production")
        assert plat.operators and plat.brands


def test_the_drain_time_is_what_the_grace_period_leaves_after_prestop_and_the_margin() -> None:
    container = _container(render("-f", MINIMAL))
    assert container["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "5"]
    assert _env(container)["RGS_SHUTDOWN_GRACE_S"] == "22"  # 30 - 5 - 3
    longer = _container(render("-f", MINIMAL, "--set", "terminationGracePeriodSeconds=60",
                               "--set", "shutdown.preStopSleepSeconds=10"))
    assert _env(longer)["RGS_SHUTDOWN_GRACE_S"] == "47"
    assert longer["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "10"]
    pod = by_kind(render("-f", MINIMAL, "--set", "terminationGracePeriodSeconds=60"))[
        "Deployment"]["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] == 60


def test_liveness_and_readiness_are_different_checks_over_tls_too() -> None:
    container = _container(render("-f", PRODUCTION))
    readiness = container["readinessProbe"]["exec"]["command"]
    assert "--service" not in readiness  # the whole server: NOT_SERVING after an RNG failure
    for probe in ("startupProbe", "livenessProbe"):
        command = container[probe]["exec"]["command"]
        assert command[-2:] == ["--service", "rgs.liveness"]
        assert command[:-2] == readiness


def test_connections_age_out_and_a_headless_service_serves_client_side_balancing() -> None:
    docs = render("-f", PRODUCTION)
    env = _env(_container(docs))
    assert (env["RGS_MAX_CONNECTION_AGE_S"], env["RGS_MAX_CONNECTION_AGE_GRACE_S"]) == (
        "300", "30")
    assert (env["RGS_DATABASE_POOL_MODE"], env["RGS_PLAYER_LEASE_S"]) == ("transaction", "30")
    headless, service = named(docs, "Service", "rgs-headless"), named(docs, "Service", "rgs")
    assert headless["spec"]["clusterIP"] == "None"
    assert headless["spec"]["selector"] == service["spec"]["selector"]
    assert [p["name"] for p in headless["spec"]["ports"]] == ["grpc"]
    # Without it the Service is rendered only for the pods to count themselves (the operators'
    # rate limits, server.shareRateLimits: tests/ops/test_ops_sizing.py).
    off = render("-f", MINIMAL, "--set", "server.shareRateLimits=false")
    assert not [d for d in off if d["metadata"]["name"] == "rgs-headless"]


def test_the_migration_job_runs_under_its_own_service_account_created_before_it() -> None:
    docs = render("-f", PRODUCTION)
    account = named(docs, "ServiceAccount", "rgs-migrate")
    job = by_kind(docs)["Job"]
    assert job["spec"]["template"]["spec"]["serviceAccountName"] == "rgs-migrate"
    assert account["automountServiceAccountToken"] is False
    hooks = account["metadata"]["annotations"]
    assert hooks["helm.sh/hook"] == job["metadata"]["annotations"]["helm.sh/hook"]
    assert int(hooks["helm.sh/hook-weight"]) < int(
        job["metadata"]["annotations"]["helm.sh/hook-weight"])
    own = by_kind(render("-f", PRODUCTION, "--set", "migrations.serviceAccount.create=false",
                         "--set", "migrations.serviceAccount.name=db-migrator"))
    assert own["Job"]["spec"]["template"]["spec"]["serviceAccountName"] == "db-migrator"
    assert not [d for d in render("-f", PRODUCTION, "--set",
                                  "migrations.serviceAccount.create=false")
                if d["metadata"]["name"] == "rgs-migrate" and d["kind"] == "ServiceAccount"]


def test_the_prometheus_adapter_rule_serves_the_metric_the_hpa_scales_on(tmp_path: Path) -> None:
    from rgs.observability.metrics import EXPORTED_NAMES

    hpa = by_kind(render("-f", PRODUCTION))["HorizontalPodAutoscaler"]["spec"]
    wanted = next(m["pods"]["metric"]["name"] for m in hpa["metrics"] if m["type"] == "Pods")
    rules = yaml.safe_load((OPS / "prometheus-adapter.yaml").read_text())["rules"]["custom"]
    rule = next(r for r in rules if r["name"]["as"] == wanted)
    # Little's law: the rate of the latency histogram's sum is the mean of calls in flight.
    assert wanted == "rgs_rpc_concurrency"
    assert "rgs_rpc_latency_seconds" in EXPORTED_NAMES
    assert rule["seriesQuery"].startswith("rgs_rpc_latency_seconds_sum{")
    assert "rate(<<.Series>>" in rule["metricsQuery"]
    assert rule["resources"]["overrides"] == {"namespace": {"resource": "namespace"},
                                              "pod": {"resource": "pod"}}
    # The adapter fills the template in per request; what it sends Prometheus must parse.
    query = (rule["metricsQuery"].replace("<<.GroupBy>>", "pod")
             .replace("<<.Series>>", "rgs_rpc_latency_seconds_sum")
             .replace("<<.LabelMatchers>>", 'namespace="casino",pod=~"rgs-.*"'))
    path = tmp_path / "adapter.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "adapter", "rules": [
        {"record": "adapter:rgs_rpc_in_flight:sum", "expr": query},
        {"record": "adapter:rgs_rpc_in_flight:series", "expr": rule["seriesQuery"]}]}]}))
    run([tool("promtool"), "check", "rules", str(path)])


def test_the_browser_edge_is_off_by_default_and_on_gets_a_port_everywhere() -> None:
    off = by_kind(render("-f", MINIMAL))
    assert "RGS_WEB_LISTEN" not in _env(_container(list(off.values())))
    assert {p["name"] for p in off["Service"]["spec"]["ports"]} == {"grpc", "metrics"}
    docs = render("-f", PRODUCTION, "--set", "web.port=8443")
    on = by_kind(docs)
    container = _container(docs)
    assert _env(container)["RGS_WEB_LISTEN"] == "0.0.0.0:8443"
    assert {"name": "web", "containerPort": 8443, "protocol": "TCP"} in container["ports"]
    web = next(p for p in on["Service"]["spec"]["ports"] if p["name"] == "web")
    assert (web["port"], web["targetPort"]) == (8443, "web")
    platform = json.loads(next(iter(on["ConfigMap"]["data"].values())))
    brand = platform["operators"][0]["brands"][0]
    assert brand["web_origins"] == ["https://games.brand-a.example.invalid"]


def test_the_launch_settings_an_sre_sets_render_into_the_environment_and_the_purge() -> None:
    """Issue 28: where launch URLs point, how long their one-time code lives and how long a
    spent or expired code is kept are chart values, rendered into the settings the service
    reads (the production scenario's values pass through load_settings in
    test_rendered_environment_is_settings_the_service_accepts)."""
    docs = render("-f", PRODUCTION)
    env = _env(_container(docs))
    assert env["RGS_LAUNCH_URL"] == "https://games.brand-a.example.invalid/blackjack/"
    assert env["RGS_LAUNCH_TTL_S"] == "120"
    purge = named(docs, "CronJob", "rgs-purge")["spec"]["jobTemplate"]["spec"]["template"]
    args = purge["spec"]["containers"][0]["args"]
    assert args[args.index("--launch-days") + 1] == "1"
    defaults = render("-f", PRODUCTION, "--set", "web.launch.url=",
                      "--set", "web.launch.codeTtlSeconds=300",
                      "--set-json", "lifecycle.purge.launchDays=0.5")
    env = _env(_container(defaults))
    assert "RGS_LAUNCH_URL" not in env and env["RGS_LAUNCH_TTL_S"] == "300"
    args = named(defaults, "CronJob", "rgs-purge")["spec"]["jobTemplate"]["spec"]["template"][
        "spec"]["containers"][0]["args"]
    assert args[args.index("--launch-days") + 1] == "0.5"


_SAFE = [*W, "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
         "--set", "web.enabled=true"]


@pytest.mark.parametrize(("args", "message"), [
    (["--set", "web.launch.codeTtlSeconds=5"], "codeTtlSeconds"),
    (["--set", "web.launch.codeTtlSeconds=3600"], "codeTtlSeconds"),
    (["--set", "web.launch.url=https://play.example.com/#launch"], "/web/launch/url"),
    (["--set", "web.launch.url=play.example.com"], "/web/launch/url"),
    (["--set", "web.launch.url=http://play.example.com/"],
     "web.launch.url: in production players open launch URLs over https only"),
    (["--set", "lifecycle.purge.launchDays=-1"], "launchDays"),
])
def test_the_chart_refuses_launch_settings_the_service_would_refuse(args: list[str],
                                                                    message: str) -> None:
    proc = subprocess.run([tool("helm"), "template", "rgs", str(CHART), *_SAFE, *args],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr
