"""`rgs serve --workers N`: one replica, several worker processes on one port, one `/metrics`
that adds them all up, a supervisor that restarts a dead worker and stops when they keep dying
(issue 14)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
import pytest
import yaml
from ops_toolbox import CHART, ROOT, run, tool

from rgs.cli.workers import REPLICA_METRICS_SUBDIR, Supervisor, metrics_directory
from rgs.generated.blackjack.v1 import blackjack_pb2, blackjack_pb2_grpc
from rgs.observability.replica_health import RNG_FAILED, WATCH_INTERVAL_S

CALLS = 40
METHOD = "rgs.blackjack.v1.BlackjackService/ListVariants"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RGS_", "OTEL_", "PROMETHEUS_"))}
    env["PYTHONPATH"] = str(ROOT / "services")
    env["RGS_HINTS_WARM"] = "false"  # nothing here shows hints (tests/conftest.py)
    env.update(extra)
    return env


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        return str(resp.read().decode())


def _workers(supervisor: int) -> list[int]:
    done = subprocess.run(["ps", "--ppid", str(supervisor), "-o", "pid="], capture_output=True,
                          text=True, check=False)
    return sorted(int(p) for p in done.stdout.split())


async def _wait_serving(address: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    probe = [sys.executable, "-m", "rgs.observability.healthprobe", "--address", address,
             "--timeout", "1"]
    while subprocess.run(probe, env=_env(), capture_output=True, check=False).returncode:
        assert proc.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < deadline, log.read_text()[-3000:]
        await asyncio.sleep(0.3)


async def _call_on_new_connections(address: str, calls: int) -> None:
    """``calls`` calls, each on a connection of its own (the kernel spreads connections, not
    calls, over the workers)."""
    for _ in range(calls):
        async with grpc.aio.insecure_channel(
                address, options=[("grpc.use_local_subchannel_pool", 1)]) as ch:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await blackjack_pb2_grpc.BlackjackServiceStub(ch).ListVariants(
                    blackjack_pb2.ListVariantsRequest(),
                    metadata=(("authorization", "Bearer no-such-session-token"),), timeout=10)
            assert err.value.code() is grpc.StatusCode.UNAUTHENTICATED


def _stop(proc: subprocess.Popen[bytes]) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise


@pytest.mark.asyncio(loop_scope="session")
async def test_workers_share_the_port_and_metrics_add_up_across_them(
        rgs_database_url: str, tmp_path: Path) -> None:
    grpc_port, metrics_port = _free_port(), _free_port()
    address = f"127.0.0.1:{grpc_port}"
    log = tmp_path / "rgs.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rgs", "serve", "--workers", "3"], stdout=out,
            stderr=subprocess.STDOUT, cwd=ROOT,
            env=_env(RGS_DATABASE_URL=rgs_database_url, RGS_LISTEN=address,
                     RGS_METRICS_LISTEN=f"127.0.0.1:{metrics_port}", RGS_LOG_FORMAT="json",
                     RGS_OPS_SAMPLE_INTERVAL_S="0.2", RGS_DATABASE_POOL_SIZE="4",
                     RGS_SHUTDOWN_GRACE_S="1"))
    try:
        await _wait_serving(address, proc, log)
        deadline = time.monotonic() + 30
        # Every worker has built its app (its pool gauges are written then, just before it
        # binds the port): a loaded machine starts the workers seconds apart.
        pool_max = 'rgs_journal_pool_connections{state="max"} 12.0'
        while len(_workers(proc.pid)) < 3 or not {
                "rgs_journal_database_up 1.0", pool_max} <= set(_scrape(metrics_port).splitlines()):
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            await asyncio.sleep(0.2)
        await asyncio.sleep(0.5)  # and bound the port
        first = _workers(proc.pid)
        await _call_on_new_connections(address, CALLS)
        # One endpoint counts the calls of every worker: the sum, not one worker's share. A
        # worker counts a call just after sending its answer, so on a loaded machine the last
        # counts may land a moment after the client has all its answers.
        counted = (f'rgs_rpc_requests_total{{code="UNAUTHENTICATED",method="{METHOD}"}} '
                   f'{float(CALLS)}')
        # The latency histogram is observed apart from the request counter: wait for both.
        timed = f'rgs_rpc_latency_seconds_count{{method="{METHOD}"}} {float(CALLS)}'
        text = _scrape(metrics_port)
        until = time.monotonic() + 10
        while not (counted in text and timed in text) and time.monotonic() < until:
            await asyncio.sleep(0.1)
            text = _scrape(metrics_port)
        assert counted in text
        assert timed in text
        assert "rgs_rpc_in_flight 0.0" in text  # livesum: no call is open
        assert "rgs_outbox_pending 0.0" in text  # sampled by worker 0 alone
        # Each worker writes its own pool's gauges (read at scrape time, they would be lost):
        # the replica's limit is the three pools' (RGS_DATABASE_POOL_SIZE 4 each).
        assert pool_max in text, [line for line in text.splitlines() if "pool" in line]
        opened = next(float(line.split()[-1]) for line in text.splitlines()
                      if line.startswith('rgs_journal_pool_connections{state="open"}'))
        assert 3 <= opened <= 12
        build = [line for line in text.splitlines() if line.startswith("rgs_build_info{")]
        assert build and all('event_loop="uvloop"' in line for line in build), build
        assert "process_cpu_seconds_total" in text
        rpc_lines = [json.loads(line) for line in log.read_text().splitlines()
                     if line.startswith("{") and METHOD in line]
        served_by = {r["pid"] for r in rpc_lines}
        assert len(rpc_lines) == CALLS
        assert len(served_by) >= 2 and served_by <= set(first), served_by

        # A worker killed outright is replaced; the replica keeps its port and its counts.
        os.kill(first[0], signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not ((now := _workers(proc.pid)) and len(now) == 3 and first[0] not in now):
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            await asyncio.sleep(0.2)
        await _wait_serving(address, proc, log)
        await _call_on_new_connections(address, 4)
        counted = (f'rgs_rpc_requests_total{{code="UNAUTHENTICATED",method="{METHOD}"}} '
                   f'{float(CALLS + 4)}')
        until = time.monotonic() + 10
        while counted not in (text := _scrape(metrics_port)) and time.monotonic() < until:
            await asyncio.sleep(0.1)
        assert counted in text
        assert "restarting it" in log.read_text()
    finally:
        code = _stop(proc)
    assert code == 0, log.read_text()[-3000:]
    assert proc.poll() is not None and not _workers(proc.pid)


def test_supervisor_gives_up_when_workers_keep_dying(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # A worker that dies at once, every time: restarted within the budget, then the replica
    # stops with a failure instead of looping forever.
    crash = [sys.executable, "-c", "import sys; sys.exit(3)"]
    supervisor = Supervisor(count=2, argv=crash, env=_env(), metrics_dir=tmp_path,
                            restart_budget=3, restart_window_s=60)
    started = time.monotonic()
    assert supervisor.run() == 1
    assert time.monotonic() - started < 20
    err = capsys.readouterr().err
    assert err.count("restarting it") == 3
    assert "died 4 times within 60 s" in err


def test_supervisor_stops_at_once_on_a_settings_error(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # Exit code 2 is the command line's "fix the settings": restarting cannot help.
    supervisor = Supervisor(count=2, argv=[sys.executable, "-c", "import sys; sys.exit(2)"],
                            env=_env(), metrics_dir=tmp_path)
    assert supervisor.run() == 2
    assert "restarting" not in capsys.readouterr().err


def test_the_supervisor_forwards_sigterm_and_exits_cleanly(tmp_path: Path) -> None:
    # Workers that exit 0 on SIGTERM; the supervisor (a process of its own here) must pass the
    # signal on and return 0 once they are gone.
    marker = tmp_path / "stopped"
    worker = (f"import signal, sys, time, pathlib\n"
              f"def stop(*_):\n"
              f"    pathlib.Path({str(marker)!r} + sys.argv[-1]).touch(); sys.exit(0)\n"
              f"signal.signal(signal.SIGTERM, stop)\n"
              f"time.sleep(60)\n")
    script = (f"import sys; from pathlib import Path; from rgs.cli.workers import Supervisor\n"
              f"sys.exit(Supervisor(count=2, argv=[sys.executable, '-c', {worker!r}], "
              f"env=dict(__import__('os').environ), metrics_dir=Path({str(tmp_path)!r})).run())")
    proc = subprocess.Popen([sys.executable, "-c", script], env=_env(), cwd=ROOT)
    deadline = time.monotonic() + 20
    while len(_workers(proc.pid)) < 2:
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    time.sleep(0.5)  # the workers install their handler
    assert _stop(proc) == 0
    assert sorted(p.name for p in tmp_path.glob("stopped*")) == ["stopped0", "stopped1"]


@pytest.mark.parametrize(("values", "workers"), [
    ([], "1"),  # the default request, 500m
    (["--set", "resources.requests.cpu=1500m"], "2"),
    (["--set", "resources.requests.cpu=2.5"], "3"),
    (["--set", "resources.limits.cpu=4", "--set", "resources.requests.cpu=1"], "4"),
    (["--set", "workers=3"], "3"),
])
def test_the_chart_sizes_workers_from_the_cpu_it_gives_the_pod(values: list[str],
                                                               workers: str) -> None:
    # Within the connection budget at every worker count (the chart refuses 40 pods of 4
    # workers on 1,000 connections): 10 pods at most, the pool derived from the budget.
    budget = ["--set", "autoscaling.maxReplicas=10", "--set", "database.poolSize=0"]
    out = run([tool("helm"), "template", "rgs", str(CHART), "-f",
               str(CHART / "ci" / "production-values.yaml"), *budget, *values])
    deployment = next(d for d in yaml.safe_load_all(out.stdout)
                      if d and d["kind"] == "Deployment")
    env = {e["name"]: e.get("value") for e in
           deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["RGS_WORKERS"] == workers


def test_a_given_metrics_directory_is_never_emptied_only_the_replicas_folder_in_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keep = tmp_path / "someone-elses-file"
    keep.write_text("keep me")
    stale = tmp_path / REPLICA_METRICS_SUBDIR / "counter_12345.db"
    stale.parent.mkdir()
    stale.write_bytes(b"an earlier run's counts")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    directory, owned = metrics_directory()
    assert directory == tmp_path / REPLICA_METRICS_SUBDIR and not owned
    assert keep.read_text() == "keep me"
    assert list(directory.iterdir()) == []  # an earlier run's files would add to this run
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    fresh, owned = metrics_directory()
    assert owned and fresh.is_dir() and list(fresh.iterdir()) == []
    fresh.rmdir()


def _readiness(address: str) -> str:
    """The readiness answer of whichever worker a new connection reaches."""
    done = subprocess.run([sys.executable, "-m", "rgs.observability.healthprobe", "--address",
                           address, "--timeout", "2"], env=_env(), capture_output=True,
                          text=True, check=False)
    return "SERVING" if done.returncode == 0 else "NOT_SERVING"


@pytest.mark.asyncio(loop_scope="session")
async def test_an_rng_failure_in_one_worker_makes_every_worker_of_the_replica_unready(
        rgs_database_url: str, tmp_path: Path) -> None:
    grpc_port, metrics_port = _free_port(), _free_port()
    address = f"127.0.0.1:{grpc_port}"
    log = tmp_path / "rgs.log"
    shared = tmp_path / "metrics"
    shared.mkdir()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rgs", "serve", "--workers", "2"], stdout=out,
            stderr=subprocess.STDOUT, cwd=ROOT,
            env=_env(RGS_DATABASE_URL=rgs_database_url, RGS_LISTEN=address,
                     RGS_METRICS_LISTEN=f"127.0.0.1:{metrics_port}",
                     PROMETHEUS_MULTIPROC_DIR=str(shared), RGS_SHUTDOWN_GRACE_S="1"))
    try:
        await _wait_serving(address, proc, log)
        deadline = time.monotonic() + 30
        while len(_workers(proc.pid)) < 2:
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            await asyncio.sleep(0.2)
        await asyncio.sleep(1.0)  # both workers bound the port
        assert {_readiness(address) for _ in range(8)} == {"SERVING"}
        # What a worker whose RNG failed leaves in the replica's folder (bootstrap.serve):
        (shared / REPLICA_METRICS_SUBDIR / RNG_FAILED).write_text("repetition count test\n")
        await asyncio.sleep(3 * WATCH_INTERVAL_S + 0.5)
        # Every worker answers NOT_SERVING, whichever a new connection reaches, and stays alive
        # (liveness keeps the evidence).
        assert {_readiness(address) for _ in range(12)} == {"NOT_SERVING"}
        assert len(_workers(proc.pid)) == 2 and proc.poll() is None
    finally:
        code = _stop(proc)
    assert code == 0, log.read_text()[-3000:]
