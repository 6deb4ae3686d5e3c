"""`rgs serve` and `rgs migrate` as the container runs them: a real process with its metrics
port, JSON logs and health, scraped and probed from outside; the migration stores the operator
keys the chart mounts."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import asyncpg
import grpc
import pytest
import yaml
from ops_toolbox import OPS, ROOT, names_in, own_series

from rgs.generated.blackjack.v1 import blackjack_pb2, blackjack_pb2_grpc
from rgs.service.fingerprints import sha256_hex

pytestmark = pytest.mark.asyncio(loop_scope="session")

TRACE = "0af7651916cd43dd8448eb211c80319c"
BAD_TOKEN = "not-a-session-token-but-secret-anyway"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RGS_", "OTEL_"))}
    env["PYTHONPATH"] = str(ROOT / "services")
    env["RGS_HINTS_WARM"] = "false"  # nothing here shows hints (tests/conftest.py)
    env.update(extra)
    return env


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        return str(resp.read().decode())


def _families(text: str) -> set[str]:
    names = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            names.add(name)
            if kind == "histogram":
                names.update({f"{name}_bucket", f"{name}_sum", f"{name}_count"})
        elif line and not line.startswith("#"):
            names.add(line.split("{")[0].split(" ")[0])
    return names


def _used_by_dashboards_and_rules() -> set[str]:
    exprs = [str(r["expr"]) for g in yaml.safe_load(
        (OPS / "prometheus" / "rules.yml").read_text())["groups"] for r in g["rules"]]
    for board in (OPS / "grafana" / "dashboards").glob("*.json"):
        d = json.loads(board.read_text())
        exprs += [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
    return own_series(names_in(exprs))


async def test_served_process_exports_metrics_logs_json_and_answers_health(
        rgs_database_url: str, tmp_path: Path) -> None:
    grpc_port, metrics_port = _free_port(), _free_port()
    log = tmp_path / "rgs.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rgs", "serve"], stdout=out, stderr=subprocess.STDOUT,
            cwd=ROOT, env=_env(RGS_DATABASE_URL=rgs_database_url,
                               RGS_LISTEN=f"127.0.0.1:{grpc_port}",
                               RGS_METRICS_LISTEN=f"127.0.0.1:{metrics_port}",
                               RGS_LOG_FORMAT="json",
                               RGS_OPS_SAMPLE_INTERVAL_S="0.2", RGS_SHUTDOWN_GRACE_S="1.5"))
    try:
        probe = [sys.executable, "-m", "rgs.observability.healthprobe",
                 "--address", f"127.0.0.1:{grpc_port}", "--timeout", "1"]
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            done = subprocess.run(probe, env=_env(), capture_output=True, text=True,
                                  check=False)
            if done.returncode == 0:
                assert done.stdout.strip() == "SERVING"
                break
            assert time.monotonic() < deadline, done.stderr
            await asyncio.sleep(0.3)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as ch:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await blackjack_pb2_grpc.BlackjackServiceStub(ch).ListVariants(
                    blackjack_pb2.ListVariantsRequest(),
                    metadata=(("authorization", f"Bearer {BAD_TOKEN}"),
                              ("traceparent", f"00-{TRACE}-b7ad6b7169203331-01")))
        assert err.value.code() is grpc.StatusCode.UNAUTHENTICATED
        # The interceptor counts a call just after the client has its answer, and the database
        # sampler reports on its own clock: wait for both, then check the figures.
        counted = ('rgs_rpc_requests_total{code="UNAUTHENTICATED",'
                   'method="rgs.blackjack.v1.BlackjackService/ListVariants"} 1.0')
        deadline = time.monotonic() + 10
        while not ("rgs_journal_database_up 1.0" in (text := _scrape(metrics_port))
                   and counted in text):
            assert time.monotonic() < deadline, f"never reported: {text[-2000:]}"
            await asyncio.sleep(0.2)
        assert "rgs_outbox_pending 0.0" in text
        assert 'rgs_journal_pool_connections{state="max"} 10.0' in text  # read at the scrape
        assert 'rgs_journal_pool_connections{state="in_use"} 0.0' in text
        missing = _used_by_dashboards_and_rules() - _families(text)
        assert missing == set(), f"not exported by `rgs serve`: {missing}"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    lines = [line for line in log.read_text().splitlines() if line.startswith("{")]
    records = [json.loads(line) for line in lines]
    rpc = [r for r in records if r.get("rpc_method", "").endswith("/ListVariants")]
    assert rpc and rpc[0]["trace_id"] == TRACE and rpc[0]["grpc_code"] == "UNAUTHENTICATED"
    stopping = [r for r in records if "shutdown_grace_s" in r]
    assert [r["shutdown_grace_s"] for r in stopping] == [1.5]  # RGS_SHUTDOWN_GRACE_S, not 5
    assert BAD_TOKEN not in log.read_text()
    password = urllib.parse.urlsplit(rgs_database_url).password
    assert not password or password not in log.read_text()


async def test_migrate_stores_the_operator_keys_file_hashed(
        rgs_database_url: str, tmp_path: Path) -> None:
    keys = tmp_path / "operator-keys.json"
    keys.write_text(json.dumps({"acme": "acme-operator-key-0001"}))
    done = subprocess.run([sys.executable, "-m", "rgs", "migrate"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False,
                          env=_env(RGS_DATABASE_URL=rgs_database_url,
                                   RGS_OPERATOR_KEYS_FILE=str(keys)))
    assert done.returncode == 0, done.stderr
    assert "operator keys stored: 1" in done.stdout
    conn = await asyncpg.connect(rgs_database_url)
    try:
        owner = await conn.fetchval("SELECT operator_id FROM rgs.operator_api_keys "
                                    "WHERE key_hash = $1", sha256_hex("acme-operator-key-0001"))
        stored = await conn.fetchval("SELECT count(*) FROM rgs.operator_api_keys "
                                     "WHERE key_hash = 'acme-operator-key-0001'")
    finally:
        await conn.close()
    assert owner == "acme"
    assert stored == 0  # only the hash is kept
