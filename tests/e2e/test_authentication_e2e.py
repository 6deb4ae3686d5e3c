"""Software authentication of real `rgs serve` processes running an installed release (a wheel
built by the project's build, its manifest written by the build hook, installed with pip): one
with an altered source file never reports ready and refuses to deal (a solo Deal, a bet at a
shared table); one whose file is altered
after start turns unready at its next periodic check, refuses new Deals, and finishes the round
in play, paid to the cent in the wallet. The metric says which."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from e2e_servers import ServerProcess, free_port, start_wallet, wait_serving
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs.authenticity.check import challenge
from rgs.bootstrap import DEV_ADMIN_KEY, add_dev_operator_keys, utc_now
from rgs.generated.admin.v1 import admin_pb2 as adm
from rgs.generated.admin.v1 import admin_pb2_grpc
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.audit import PostgresAuditTrail, open_pool
from rgs.journal.controls import PostgresControls
from rgs.journal.postgres import PostgresJournal
from rgs.service.admin import AdminAccess
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import SANDBOX_WALLET_TEMPLATE
from support.errors import error_reason
from support.installed import alter, installed_release
from support.platforms import SANDBOX_WALLET_KEYS, write_platform_file

pytestmark = pytest.mark.asyncio(loop_scope="session")

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET_AUTH = (("authorization", f"Bearer {SANDBOX_WALLET_KEYS['dev-operator']}"),)
START = 50_000
STAND_WINS = ["TS", "6H", "9D", "7C", "9S"]  # 19 v 6+7, the dealer draws 9 and busts


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built and installed once for the module (a site folder)."""
    return installed_release(tmp_path_factory.mktemp("release"))


@dataclass
class Replica:
    """An `rgs serve` process running an installed copy, and its metrics address."""

    process: ServerProcess
    metrics: str
    package: Path

    def metric(self, name: str) -> float | None:
        with urllib.request.urlopen(f"http://{self.metrics}/metrics", timeout=5) as r:
            text = r.read().decode()
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
        return None


@dataclass
class Site:
    control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    replica: Callable[..., Awaitable[Replica]]


@pytest_asyncio.fixture(loop_scope="session")
async def site(rgs_database_url: str, fresh_database: Callable[[str], Awaitable[str]],
               tmp_path: Path, release: Path) -> AsyncIterator[Site]:
    journal = await PostgresJournal.connect(rgs_database_url, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    pool = await open_pool(rgs_database_url)
    audit = PostgresAuditTrail(pool, utc_now)
    await AdminAccess(PostgresControls(pool, utc_now), audit).add_key(DEV_ADMIN_KEY, "lab")
    await pool.close()
    wallet = await start_wallet("dev-operator", await fresh_database(SANDBOX_WALLET_TEMPLATE),
                                tmp_path)
    started: list[ServerProcess] = [wallet]
    platform_file = write_platform_file(tmp_path / "platform.json",
                                        {"dev-operator": wallet.target})

    async def replica(name: str, *, altered: str | None = None, wait_ready: bool = True,
                      env: dict[str, str] | None = None) -> Replica:
        # Each replica runs its own copy of the installed release.
        site_dir = tmp_path / f"site-{name}"
        shutil.copytree(release, site_dir)
        if altered is not None:
            alter(site_dir / "rgs" / altered)
        port, metrics = free_port(), f"127.0.0.1:{free_port()}"
        log = tmp_path / f"{name}.log"
        full_env = {**os.environ, "PYTHONPATH": str(site_dir),
                    "RGS_PLATFORM_FILE": str(platform_file), "RGS_METRICS_LISTEN": metrics,
                    **(env or {})}
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "rgs", "serve", "--listen", f"127.0.0.1:{port}",
                 "--database-url", rgs_database_url, "--test-mode"],
                stdout=out, stderr=subprocess.STDOUT, env=full_env, cwd=tmp_path)
        server = ServerProcess(proc=proc, target=f"127.0.0.1:{port}", log=log)
        started.append(server)
        if wait_ready:
            await wait_serving(server.target, proc, log)
        else:
            await _wait_live(server)
        return Replica(process=server, metrics=metrics, package=site_dir / "rgs")

    async with grpc.aio.insecure_channel(wallet.target) as ch:
        try:
            yield Site(control=sandbox_pb2_grpc.SandboxControlServiceStub(ch), replica=replica)
        finally:
            for p in reversed(started):
                p.stop()


async def _wait_live(server: ServerProcess, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(server.target) as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        while time.monotonic() < deadline:
            if server.proc.poll() is not None:
                raise RuntimeError(f"server exited: {server.log.read_text()[-3000:]}")
            try:
                got = await stub.Check(health_pb2.HealthCheckRequest(service="rgs.liveness"),
                                       timeout=1.0)
                if got.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"not live after {timeout}s: {server.log.read_text()[-3000:]}")


async def _ready(channel: grpc.aio.Channel) -> int:
    got = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    return int(got.status)


async def _player(site: Site, channel: grpc.aio.Channel, pid: str
                  ) -> tuple[tuple[str, str], ...]:
    await site.control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
        player_id=pid, currency="EUR", balance=START)), metadata=WALLET_AUTH)
    made = await operator_pb2_grpc.OperatorServiceStub(channel).CreateSession(
        op.CreateSessionRequest(request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid),
        metadata=OPERATOR)
    return (("authorization", f"Bearer {made.session_token}"),)


async def _balance(site: Site, pid: str) -> int:
    got = await site.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                       metadata=WALLET_AUTH)
    return int(got.player.balance)


def _deal(request_id: str, forced: list[str] | None = None) -> bj.DealRequest:
    return bj.DealRequest(request_id=request_id, variant_id="classic-resplit",
                          boxes=[bj.BoxBet(seat=1, stake=100)], forced_cards=forced or [])


async def test_the_installed_release_authenticates_itself_and_serves(site: Site) -> None:
    replica = await site.replica("clean")
    assert replica.metric("rgs_software_authentic") == 1
    assert "software authentication passed" in replica.process.log.read_text()


async def test_an_installed_copy_with_one_altered_source_file_is_caught_at_start(
        site: Site) -> None:
    replica = await site.replica("altered", altered="engine/rules.py", wait_ready=False)
    async with grpc.aio.insecure_channel(replica.process.target) as ch:
        assert await _ready(ch) == health_pb2.HealthCheckResponse.NOT_SERVING
        md = await _player(site, ch, "auth-start")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await blackjack_pb2_grpc.BlackjackServiceStub(ch).Deal(_deal("d1", STAND_WINS),
                                                                   metadata=md)
        assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
        assert error_reason(refused.value) == "SOFTWARE_NOT_AUTHENTIC"
        # At a shared table too: a seat may be taken, a bet (a new round's stake) may not.
        tables = table_pb2_grpc.TableServiceStub(ch)
        await tables.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id="vip-1", seat=1),
                              metadata=md)
        with pytest.raises(grpc.aio.AioRpcError) as no_bet:
            await tables.PlaceBets(tb.PlaceBetsRequest(request_id="b1", table_id="vip-1", bets=[
                tb.Bet(seat=1, stake=1000)]), metadata=md)
        assert error_reason(no_bet.value) == "SOFTWARE_NOT_AUTHENTIC"
    assert await _balance(site, "auth-start") == START
    assert replica.metric("rgs_software_authentic") == 0
    log = replica.process.log.read_text()
    assert "software authentication failed" in log and "engine/rules.py (altered)" in log


async def test_the_periodic_check_catches_a_file_altered_after_start(site: Site) -> None:
    replica = await site.replica("periodic", env={"RGS_AUTHENTICATE_INTERVAL_S": "0.5"})
    async with grpc.aio.insecure_channel(replica.process.target) as ch:
        game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
        alice = await _player(site, ch, "auth-alice")
        bob = await _player(site, ch, "auth-bob")
        in_play = (await game.Deal(_deal("d1", STAND_WINS), metadata=alice)).round
        assert in_play.status == bj.ROUND_STATUS_PLAYER_TURN
        assert await _balance(site, "auth-alice") == START - 100

        alter(replica.package / "service" / "play.py")
        for _ in range(100):
            if await _ready(ch) == health_pb2.HealthCheckResponse.NOT_SERVING:
                break
            await asyncio.sleep(0.1)
        assert await _ready(ch) == health_pb2.HealthCheckResponse.NOT_SERVING
        assert replica.metric("rgs_software_authentic") == 0
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await game.Deal(_deal("d2"), metadata=bob)
        assert error_reason(refused.value) == "SOFTWARE_NOT_AUTHENTIC"
        # The round in play finishes on this replica: a stand on 19, the dealer busts.
        done = await game.Act(bj.ActRequest(
            request_id="a1", round_id=in_play.round_id, expected_seq=in_play.seq, seat=1,
            action=bj.ACTION_STAND), metadata=alice)
        assert done.round.status == bj.ROUND_STATUS_SETTLED and done.round.total_paid == 200
    assert await _balance(site, "auth-alice") == START - 100 + 200
    assert await _balance(site, "auth-bob") == START
    assert "service/play.py (altered)" in replica.process.log.read_text()


ADMIN = (("authorization", f"Bearer {DEV_ADMIN_KEY}"),)
LAB_SEED = "5eed" * 16


async def _challenge(replica: Replica, seed_hex: str, key: object = ADMIN
                     ) -> adm.AuthenticateSoftwareResponse:
    async with grpc.aio.insecure_channel(replica.process.target) as ch:
        return await admin_pb2_grpc.AdminServiceStub(ch).AuthenticateSoftware(
            adm.AuthenticateSoftwareRequest(seed_hex=seed_hex), metadata=key)


async def test_a_labs_seeded_challenge_is_answered_from_the_files_as_installed(
        site: Site, release: Path) -> None:
    """The lab computes HMAC(seed, whole) from the certified release (here the installed wheel
    itself, by `rgs authenticate --seed`) and compares it with the replica's answer."""
    clean = await site.replica("lab-clean")
    answer = await _challenge(clean, LAB_SEED)
    lab = subprocess.run(
        [sys.executable, "-m", "rgs", "authenticate", "--seed", LAB_SEED, "--json"],
        env={**os.environ, "PYTHONPATH": str(release)}, cwd=release, capture_output=True,
        text=True, check=True)
    assert answer.seeded_digest in lab.stdout
    assert answer.seeded_digest == challenge(bytes.fromhex(LAB_SEED), release / "rgs")
    assert (answer.authentic, answer.verdict) == (True, "authentic")
    assert answer.checked_at.seconds > 0
    # Another seed, another answer; an altered copy answers differently for the same seed.
    assert (await _challenge(clean, "ab" * 32)).seeded_digest != answer.seeded_digest
    altered = await site.replica("lab-altered", altered="engine/rules.py", wait_ready=False)
    tampered = await _challenge(altered, LAB_SEED)
    assert tampered.seeded_digest != answer.seeded_digest
    assert (tampered.authentic, tampered.verdict) == (False, "altered")
    assert "engine/rules.py" in tampered.summary
    # Only an administrator asks, and a seed must be one.
    for seed, key, reason in ((LAB_SEED, OPERATOR, "INVALID_ADMIN_KEY"),
                              ("00" * 8, ADMIN, "INVALID_SEED"),
                              ("not hex", ADMIN, "INVALID_SEED")):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await _challenge(clean, seed, key)
        assert error_reason(err.value) == reason
