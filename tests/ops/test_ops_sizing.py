"""The chart sizes pods from their workers and refuses sizes that cannot work (ops/capacity.md):
memory derived from the workers and the hints brands' rule sets, a limit below it refused; the
journal pool derived from the connection budget, and pods x workers x connections above the
budget refused; a drain shorter than lock wait + 2 x the wallet time-out refused."""

from __future__ import annotations

import subprocess

import pytest
from ops_toolbox import CHART, run, tool
from test_ops_helm import _container, _env, by_kind, render

PRODUCTION = str(CHART / "ci" / "production-values.yaml")
HINTS = ["--set", "operators[0].brands[0].hints=true"]


def _refused(*args: str) -> str:
    proc = subprocess.run([tool("helm"), "template", "rgs", str(CHART), "-f", PRODUCTION,
                           *args], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0, "the chart accepted it"
    return proc.stderr


def test_memory_follows_the_workers_and_the_hints_rule_sets() -> None:
    one = _container(render("-f", PRODUCTION))["resources"]
    assert one["limits"]["memory"] == one["requests"]["memory"] == "376Mi"  # 256 + 120
    four = _container(render("-f", PRODUCTION, "--set", "resources.requests.cpu=2",
                             "--set", "resources.limits.cpu=4", "--set", "database.poolSize=4",
                             "--set", "autoscaling.maxReplicas=10"))
    assert _env(four)["RGS_WORKERS"] == "4"
    assert four["resources"]["limits"]["memory"] == "736Mi"  # 256 + 4 x 120
    # brand-a plays classic-resplit and vip-platinum: two rule sets, 135 MiB each per worker.
    hinted = _container(render("-f", PRODUCTION, *HINTS, "--set", "workers=4",
                               "--set", "database.poolSize=4",
                               "--set", "autoscaling.maxReplicas=10"))
    assert hinted["resources"]["limits"]["memory"] == f"{256 + 4 * (120 + 2 * 135)}Mi"


def test_a_memory_limit_below_the_workers_need_is_refused() -> None:
    # The review's case: cpu 2/4 renders 4 workers, and 1 Gi cannot hold them with hints on.
    err = _refused(*HINTS, "--set", "resources.requests.cpu=2", "--set", "resources.limits.cpu=4",
                   "--set", "resources.limits.memory=1Gi", "--set", "database.poolSize=4",
                   "--set", "autoscaling.maxReplicas=10")
    assert "resources.limits.memory (1Gi) is below what 4 workers need: 1816 MiB" in err
    ok = _container(render("-f", PRODUCTION, "--set", "resources.limits.memory=2Gi"))
    assert ok["resources"]["limits"]["memory"] == "2Gi"


def test_the_connection_budget_is_refused_when_broken_and_the_pool_derived_within_it() -> None:
    # The review's case: 4 workers x 20 connections x 40 pods against PgBouncer's 1,000.
    err = _refused("--set", "workers=4", "--set", "database.poolSize=20",
                   "--set", "resources.limits.memory=4Gi")
    assert "connection budget: 40 pods x 4 workers x 33 connections" in err
    assert "+ 4 (migration Job, purge CronJob, partitions CronJob, RTP worker) = 5284, more than " \
           "database.connectionBudget 1000" in err
    derived = render("-f", PRODUCTION, "--set", "workers=4", "--set", "database.poolSize=0",
                     "--set", "autoscaling.maxReplicas=20", "--set", "resources.limits.memory=4Gi")
    pool = int(_env(_container(derived))["RGS_DATABASE_POOL_SIZE"])
    per_worker = pool + max(2, pool // 2) + 3
    assert pool == 6 and 20 * 4 * per_worker + 4 <= 1000
    # 160 workers cannot fit 1,000 connections even at the smallest pool: refused, not shrunk.
    err = _refused("--set", "workers=4", "--set", "database.poolSize=0",
                   "--set", "resources.limits.memory=4Gi")
    assert "40 pods x 4 workers x 7 connections (database.poolSize 2" in err
    # Without autoscaling the fixed replica count is what counts.
    fixed = render("-f", PRODUCTION, "--set", "autoscaling.enabled=false",
                   "--set", "replicaCount=3", "--set", "database.poolSize=0")
    assert _env(_container(fixed))["RGS_DATABASE_POOL_SIZE"] == "10"


def test_a_drain_shorter_than_lock_wait_and_two_wallet_timeouts_is_refused() -> None:
    # Production: wallet timeouts 4 s, lock wait 5 s: a call may need 13 s after SIGTERM.
    err = _refused("--set", "terminationGracePeriodSeconds=20")  # 20 - 5 - 3 = 12 s
    assert "drain: the calls in flight get 12 s" in err and "= 13 s" in err
    docs = by_kind(render("-f", PRODUCTION, "--set", "terminationGracePeriodSeconds=21"))
    assert docs["Deployment"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 21
    env = _env(_container(list(docs.values())))
    assert env["RGS_LOCK_WAIT_S"] == "5"


@pytest.mark.parametrize("values", ["minimal-values.yaml", "lab-values.yaml",
                                    "production-values.yaml"])
def test_every_scenario_fits_its_budget(values: str) -> None:
    run([tool("helm"), "template", "rgs", str(CHART), "-f", str(CHART / "ci" / values)])


def test_the_pods_share_the_operators_rates_through_the_headless_services_record() -> None:
    # docs/overload.md: every worker of every ready pod holds its share of an operator's rate;
    # the pods count themselves from the headless Service's DNS record (one address each).
    docs = render("-f", PRODUCTION, "--set", "fullnameOverride=blackjack")
    env = _env(_container(docs))
    assert env["RGS_RATE_LIMIT_PEERS"] == "blackjack-headless.casino.svc"
    services = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Service"}
    headless = services["blackjack-headless"]["spec"]
    assert headless["clusterIP"] == "None"
    assert headless["selector"]["app.kubernetes.io/component"] == "server"
    off = render("-f", PRODUCTION, "--set", "server.shareRateLimits=false",
                 "--set", "service.headless=false")
    assert "RGS_RATE_LIMIT_PEERS" not in _env(_container(off))
    assert not [d for d in off if d["kind"] == "Service" and d["metadata"]["name"].endswith(
        "-headless")]


def test_the_in_flight_limit_is_the_servers_default_unless_the_values_set_it() -> None:
    assert "RGS_MAX_IN_FLIGHT" not in _env(_container(render("-f", PRODUCTION)))
    env = _env(_container(render("-f", PRODUCTION, "--set", "server.maxInFlight=24")))
    assert env["RGS_MAX_IN_FLIGHT"] == "24"
