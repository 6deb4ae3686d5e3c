"""The Helm chart, rendered by a real helm for every ci/*-values.yaml scenario and validated by
kubernetes-validate against the Kubernetes API schemas; the monitoring CRDs (which it has no
schema for) are checked by hand and their rules by promtool."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from ops_toolbox import CHART, ROOT, run, tool

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
    """Documents by kind (one of each kind in this chart)."""
    return {d["kind"]: d for d in docs}


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
    # existing secret and brand ConfigMap: the chart makes neither
    assert "Secret" not in docs and "ConfigMap" not in docs
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
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["grpc"] == {"port": 50051}
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
    usd.write_text(yaml.safe_dump({"brands": {"brands": [
        {"id": "demo-casino", "operator_id": "dev-operator", "currency": "USD",
         "variants": ["power"]}]}}))
    before = annotations()
    brands = annotations("-f", str(usd))
    secret = annotations("--set", "database.url=postgresql://rgs:other@db:5432/rgs")
    assert brands["checksum/brands"] != before["checksum/brands"]
    assert brands["checksum/secret"] == before["checksum/secret"]
    assert secret["checksum/secret"] != before["checksum/secret"]


def test_migration_job_and_its_secret_are_pre_install_and_pre_upgrade_hooks() -> None:
    docs = by_kind(render("-f", str(CHART / "ci" / "minimal-values.yaml")))
    job, secret = docs["Job"], docs["Secret"]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    assert secret["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    # The Secret exists before the Job that reads it.
    assert (int(secret["metadata"]["annotations"]["helm.sh/hook-weight"])
            < int(job["metadata"]["annotations"]["helm.sh/hook-weight"]))
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["migrate"]
    assert secret["stringData"]["operator-keys.json"] == '{"dev-operator":"rgs-dev-operator-key"}'


@pytest.mark.parametrize(("args", "message"), [
    (["--set", "existingSecret=s"], "wallet.address is required"),
    (["--set", "wallet.address=w:1", "--set", "environment=development",
      "--set", "allowPlaintext=true", "--set", "wallet.apiKey=k"], "database.url is required"),
    (["--set", "wallet.address=w:1", "--set", "existingSecret=s"],
     "environment=production serves TLS only"),
    (["--set", "wallet.address=w:1", "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "testMode=true"], "testMode (forced cards) is refused"),
    (["--set", "wallet.address=w:1", "--set", "existingSecret=s", "--set", "environment=staging"],
     "environment"),
    # values.schema.json: a misspelt key and a weakened security context are refused.
    (["--set", "wallet.address=w:1", "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "replicaCont=3"], "replicaCont"),
    (["--set", "wallet.address=w:1", "--set", "existingSecret=s", "--set", "tls.existingSecret=t",
      "--set", "securityContext.allowPrivilegeEscalation=true"], "allowPrivilegeEscalation"),
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
    assert spec["groups"] == ops["groups"]
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
    assert ingress_ports == {"grpc", "metrics"}
    egress_ports = {p["port"] for rule in spec["egress"] for p in rule["ports"]}
    assert egress_ports == {53, 5432, 443, 4317}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_rendered_environment_is_settings_the_service_accepts(
        scenario: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from rgs.config import RgsSettings, load_brands, load_settings

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
        brands = tmp_path / "brands.json"
        brands.write_text(docs["ConfigMap"]["data"]["brands.json"])
        assert load_brands(brands)  # the service's own validation of the brand file
