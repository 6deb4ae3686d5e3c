"""The Helm chart, rendered by a real helm for every ci/*-values.yaml scenario and validated by
kubernetes-validate against the Kubernetes API schemas; the monitoring CRDs (which it has no
schema for) are checked by hand and their rules by promtool."""

from __future__ import annotations

import json
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
