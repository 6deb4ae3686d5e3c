"""``rgs probe`` against real RGS processes (the e2e stack: two replicas, PostgreSQL, the
sandbox wallet): a healthy replica passes end to end, a wrong key fails at the call with its
reason, an address with nobody behind it fails at health, the repeating mode (the chart's
Deployment) serves the series RgsProbeFailing reads, and a single run (the chart's CronJob)
pushes them to a real Pushgateway with the installation's namespace and job. The key is never
printed."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request

import pytest
from e2e_clients import Clients
from e2e_servers import ROOT, free_port
from ops_series import probe_series

pytestmark = pytest.mark.asyncio(loop_scope="session")
KEY = "rgs-dev-operator-key"


async def _probe(*args: str, key: str = KEY, timeout: float = 60
                 ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RGS_PROBE_OPERATOR_KEY": key}
    return await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "rgs", "probe", *args], capture_output=True,
        text=True, timeout=timeout, check=False, cwd=ROOT, env=env)


async def test_a_healthy_replica_passes_end_to_end(e2e: Clients) -> None:
    proc = await _probe("--address", e2e.stack.replicas[0].target)
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout)
    assert line["success"] is True and line["stage"] == "call" and line["code"] == "OK"
    assert KEY not in proc.stdout + proc.stderr


async def test_a_wrong_key_fails_at_the_call_and_nobody_listening_fails_at_health(
        e2e: Clients) -> None:
    wrong = await _probe("--address", e2e.stack.replicas[1].target, key="not-a-key-0000")
    assert wrong.returncode == 1
    line = json.loads(wrong.stdout)
    assert (line["success"], line["stage"], line["code"]) == (False, "call", "UNAUTHENTICATED")
    assert "not-a-key-0000" not in wrong.stdout + wrong.stderr
    nobody = await _probe("--address", f"127.0.0.1:{free_port()}", "--timeout", "1")
    assert nobody.returncode == 1
    line = json.loads(nobody.stdout)
    assert (line["success"], line["stage"]) == (False, "health")
    assert line["code"] in ("UNAVAILABLE", "DEADLINE_EXCEEDED")


async def test_the_repeating_probe_serves_its_series(e2e: Clients) -> None:
    port = free_port()
    env = {**os.environ, "RGS_PROBE_OPERATOR_KEY": KEY}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rgs", "probe", "--address", e2e.stack.replicas[0].target,
         "--interval", "0.5", "--metrics-listen", f"127.0.0.1:{port}"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        page = ""
        for _ in range(100):
            await asyncio.sleep(0.2)
            try:
                page = await asyncio.to_thread(
                    lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                                   timeout=2).read().decode())
            except OSError:
                continue
            if "rgs_probe_success 1.0" in page:
                break
        assert "rgs_probe_success 1.0" in page
        served = {line.split()[0].split("{")[0] for line in page.splitlines()
                  if line.startswith("rgs_probe_")}
        assert served == probe_series()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _pushed(page: str, name: str) -> list[str]:
    return [line for line in page.splitlines() if line.startswith(name + "{")]


async def test_a_cronjob_run_pushes_its_result_with_the_installations_labels(
        e2e: Clients) -> None:
    from support.pushgateway import pushgateway, scrape

    with pushgateway() as url:
        push = ("--pushgateway", url, "--push-job", "rgs-probe", "--push-label",
                "namespace=casino")
        ok = await _probe("--address", e2e.stack.replicas[0].target, *push)
        assert ok.returncode == 0, ok.stderr
        page = await asyncio.to_thread(scrape, url)
        # The series the alert selects: namespace and job as the chart renders them.
        (success,) = _pushed(page, "rgs_probe_success")
        assert 'job="rgs-probe"' in success and 'namespace="casino"' in success
        assert success.endswith(" 1")
        pushed = {line.split("{")[0] for line in page.splitlines()
                  if line.startswith("rgs_probe_")}
        assert pushed == probe_series()
        (stamp,) = _pushed(page, "rgs_probe_timestamp_seconds")
        first = float(stamp.rsplit(" ", 1)[1])
        # A failing check is a pushed 0 (the run itself succeeded: its result arrived), and
        # replaces the group's last push with a newer time stamp.
        bad = await _probe("--address", e2e.stack.replicas[1].target, *push,
                           key="not-a-key-0000")
        assert bad.returncode == 0, bad.stderr
        assert json.loads(bad.stdout)["success"] is False
        page = await asyncio.to_thread(scrape, url)
        (success,) = _pushed(page, "rgs_probe_success")
        assert success.endswith(" 0")
        (stamp,) = _pushed(page, "rgs_probe_timestamp_seconds")
        assert float(stamp.rsplit(" ", 1)[1]) >= first
        assert "not-a-key-0000" not in page
    # A run whose result cannot arrive fails, saying so: the CronJob's failed runs mean the
    # probe cannot report (and the alert fires as the time stamp goes stale).
    gone = await _probe("--address", e2e.stack.replicas[0].target, "--pushgateway", url,
                        "--timeout", "2")
    assert gone.returncode == 1
    assert "cannot push to the Pushgateway" in gone.stderr
