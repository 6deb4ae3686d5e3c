"""``rgs sandbox`` is one command: migrations, the sandbox wallet and the RGS, printing the
address, the dev operator key and how to play; it honours a replica's RGS_* settings (metrics
endpoint, log format and level); ``rgs migrate`` is idempotent."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

import grpc
import httpx
import pytest
from e2e_servers import ROOT, free_port, wait_serving

from rgs.cli import main as service_main
from rgs.cli.service import wallet_database_name
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from support.databases import SANDBOX_WALLET_TEMPLATE, DatabaseTemplates

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_sandbox_command_starts_everything_and_a_round_can_be_played(
        database_templates: DatabaseTemplates, tmp_path: object) -> None:
    # An empty database: the sandbox must migrate both schemas itself.
    name, db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    rgs, wallet = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    other_wallet, web = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    log = ROOT / "var" / f"sandbox-e2e-{os.getpid()}.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rgs", "sandbox", "--listen", rgs,
             "--wallet-listen", wallet, "--other-wallet-listen", other_wallet,
             "--web-listen", web, "--database-url", db], stdout=out,
            stderr=subprocess.STDOUT, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT / "services")})
    try:
        await wait_serving(rgs, proc, log)
        deadline = time.monotonic() + 10
        while "Stop with Ctrl-C" not in log.read_text() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        printed = log.read_text()
        assert rgs in printed and "rgs-dev-operator-key" in printed and "grpcurl" in printed
        # The banner says which key belongs to which operator, brands and wallet.
        dev_block = printed[printed.index("operator dev-operator:"):]
        assert dev_block.index("rgs-dev-operator-key") < dev_block.index(wallet)
        other_block = printed[printed.index("operator other-operator:"):]
        assert "rgs-other-operator-key" in other_block and other_wallet in other_block
        assert "other-casino" in other_block and "jq -r .session_token" in printed
        # The web table's URL carries a demo session in its fragment: the page and the
        # browser edge serve it.
        url = re.search(rf"http://{re.escape(web)}/#token=(\S+)", printed)
        assert url, printed
        async with httpx.AsyncClient(base_url=f"http://{web}", timeout=10) as client:
            page = await client.get("/")
            listed = await client.post(
                "/rgs.blackjack.v1.BlackjackService/ListVariants", json={},
                headers={"authorization": f"Bearer {url[1]}", "connect-protocol-version": "1"})
        assert page.status_code == 200 and "<title>" in page.text
        assert listed.status_code == 200 and listed.json()["currency"] == "EUR"
        async with grpc.aio.insecure_channel(rgs) as ch:
            s = await operator_pb2_grpc.OperatorServiceStub(ch).CreateSession(
                op.CreateSessionRequest(request_id="s", brand_id="demo-casino",
                                        player_id="demo-alice"),
                metadata=(("authorization", "Bearer rgs-dev-operator-key"),))
            md = (("authorization", f"Bearer {s.session_token}"),)
            game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
            dealt = (await game.Deal(bj.DealRequest(
                request_id="d", variant_id="classic-resplit",
                boxes=[bj.BoxBet(seat=1, stake=100)]), metadata=md)).round
            done = (await game.Settle(bj.SettleRequest(request_id="st",
                                                       round_id=dealt.round_id),
                                      metadata=md)).round
        assert done.status == bj.ROUND_STATUS_SETTLED
        assert done.balance == 100_000 - 100 + done.total_paid
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        log.unlink(missing_ok=True)
        database_templates.discard(name)
        database_templates.discard(wallet_database_name(db, "other-operator"))
    assert proc.returncode == 0


async def test_migrate_command_applies_once(database_templates: DatabaseTemplates,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    name, db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    assert await asyncio.to_thread(service_main, ["migrate", "--database-url", db]) == 0
    assert "0001_journal.sql" in capsys.readouterr().out
    assert await asyncio.to_thread(service_main, ["migrate", "--database-url", db]) == 0
    assert "up to date" in capsys.readouterr().out
    database_templates.discard(name)


async def _scrape_sampled(metrics: str, timeout: float = 20.0) -> str:
    """The metrics page once the database sampler has taken its first sample."""
    deadline = time.monotonic() + timeout
    while True:
        page = await asyncio.to_thread(
            lambda: urllib.request.urlopen(f"http://{metrics}/metrics", timeout=10).read())
        text = page.decode()
        if "\nrgs_ops_sample_timestamp_seconds 0.0\n" not in text or time.monotonic() > deadline:
            return text
        await asyncio.sleep(0.2)


@pytest.mark.parametrize(("log_format", "log_level"), [("json", "INFO"), ("text", "WARNING")])
async def test_sandbox_honours_the_replica_settings_for_metrics_and_logging(
        database_templates: DatabaseTemplates, log_format: str, log_level: str) -> None:
    name, db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    rgs, wallet, metrics = (f"127.0.0.1:{free_port()}" for _ in range(3))
    log = ROOT / "var" / f"sandbox-settings-e2e-{os.getpid()}.log"
    log.parent.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "services"), "RGS_METRICS_LISTEN": metrics,
           "RGS_LOG_FORMAT": log_format, "RGS_LOG_LEVEL": log_level, "RGS_LISTEN": rgs}
    with log.open("wb") as out:
        # No --listen: RGS_LISTEN applies, as for `rgs serve`.
        proc = subprocess.Popen(
            [sys.executable, "-m", "rgs", "sandbox", "--wallet-listen", wallet,
             "--web-listen", "", "--database-url", db], stdout=out, stderr=subprocess.STDOUT,
            cwd=ROOT, env=env)
    try:
        await wait_serving(rgs, proc, log)
        text = await _scrape_sampled(metrics)
        assert 'event_loop="uvloop"' in next(  # the sandbox serves on uvloop, installed
            line for line in text.splitlines() if line.startswith("rgs_build_info{"))
        assert "\nrgs_outbox_pending 0.0\n" in text  # the sampler reads the sandbox's journal
        assert "\nrgs_journal_database_up 1.0\n" in text
        lines = log.read_text().splitlines()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        log.unlink(missing_ok=True)
        database_templates.discard(name)
        database_templates.discard(wallet_database_name(db, "other-operator"))
    assert proc.returncode == 0
    started = [line for line in lines if "observability: metrics on port" in line]
    if log_level == "WARNING":
        assert started == []  # an INFO line, below the configured level
    else:
        assert len(started) == 1
        record = json.loads(started[0])
        assert (record["level"], record["logger"]) == ("info", "rgs.observability")
