"""Failover, for real: a primary and a streaming hot standby (two clusters made here by initdb
and pg_basebackup, synchronous replication so a commit the RGS was told of is on both), one
``rgs serve`` on the multi-host connection string ``host1:p1,host2:p2`` with
``target_session_attrs=read-write``, players playing rounds flat out; the primary is SIGKILLed
mid-run and the standby promoted by hand (``pg_ctl promote``: the manual failover; an automatic
one, e.g. pg_auto_failover, does the same two steps). The RGS is not touched: it must reconnect
by itself.

Then: every open round finished, each wallet against what its rounds announced (to the cent),
no round debited or credited twice (the wallet's own transactions), the outbox drained, and the
seconds the players could not play (the longest gap between two answered calls around the kill).

Used by ``tests/chaos/test_failover.py`` and ``bench/failover.py``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import grpc
import pgcluster
from grpc_health.v1 import health_pb2, health_pb2_grpc

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.platform_file import DEFAULT_PLATFORM_FILE
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET_KEY = "sandbox-wallet-dev-key"
WALLET = (("authorization", f"Bearer {WALLET_KEY}"),)
START = 1_000_000
STAKE = 100
#: Answers after which the same request is sent again (idempotent by its request id).
TRANSIENT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                       grpc.StatusCode.ABORTED, grpc.StatusCode.RESOURCE_EXHAUSTED})


def platform_file(path: Path, wallet: str) -> Path:
    """The shipped platform file, dev-operator's wallet at ``wallet``, no shared tables."""
    raw = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    for o in raw["operators"]:
        if o["id"] == "dev-operator":
            o["wallet"]["address"] = wallet
        for ref in ("api_key", "hmac_secret"):
            value = o["wallet"].get(ref)
            if isinstance(value, dict) and "file" in value:
                value["file"] = str(DEFAULT_PLATFORM_FILE.parent / value["file"])
    raw["tables"] = []
    path.write_text(json.dumps(raw), "utf-8")
    return path


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RGS_")}
    env["PYTHONPATH"] = str(ROOT / "services")
    env.update(extra)
    return env


async def _serving(target: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    async with grpc.aio.insecure_channel(target) as ch:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{target} exited: {log.read_text()[-2000:]}")
            try:
                got = await health_pb2_grpc.HealthStub(ch).Check(
                    health_pb2.HealthCheckRequest(), timeout=1)
                if got.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"{target} not serving: {log.read_text()[-2000:]}")


def start_process(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``python args`` with its output in ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, *args], stdout=out, stderr=subprocess.STDOUT,
                                cwd=ROOT, env=_env(env))


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Player:
    """A player, its open round and what its settled rounds announced."""

    pid: str
    md: tuple[tuple[str, str], ...]
    game: blackjack_pb2_grpc.BlackjackServiceAsyncStub
    view: Any = None
    n: int = 0
    net: int = 0
    rounds: int = 0
    answered: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    async def call(self, name: str, request: Any) -> Any:
        """The call, sent again with the same request id until it is answered."""
        method = getattr(self.game, name)
        for attempt in range(400):
            try:
                resp = await method(request, metadata=self.md, timeout=10)
            except grpc.aio.AioRpcError as err:
                self.errors[f"{name} {err.code().name}"] += 1
                if err.code() not in TRANSIENT:
                    raise
                await asyncio.sleep(min(0.5, 0.02 * 2 ** min(attempt, 5)))
                continue
            self.answered.append(time.monotonic())
            return resp
        raise RuntimeError(f"{name} of {self.pid} never answered")

    async def play_round(self) -> None:
        """Deal (or find the open round), then stand until it settles."""
        if self.view is None:
            self.n += 1
            self.view = (await self.call("Deal", bj.DealRequest(
                request_id=f"{self.pid}-d{self.n}", variant_id="classic-resplit",
                boxes=[bj.BoxBet(seat=1, stake=STAKE)]))).round
        while self.view.status != bj.ROUND_STATUS_SETTLED:
            v = self.view
            self.n += 1
            action = (bj.ACTION_DECLINE_INSURANCE if v.status == bj.ROUND_STATUS_INSURANCE
                      else bj.ACTION_STAND)
            self.view = (await self.call("Act", bj.ActRequest(
                request_id=f"{self.pid}-a{self.n}", round_id=v.round_id, expected_seq=v.seq,
                seat=v.to_act.seat or 1, hand=v.to_act.hand, action=action))).round
        self.net += self.view.total_paid - self.view.total_staked
        self.rounds += 1
        self.view = None


async def _journal(url: str) -> None:
    from rgs.bootstrap import add_dev_operator_keys
    from rgs.journal.migrate import migrate
    from rgs.journal.postgres import PostgresJournal
    await migrate(url)
    journal = await PostgresJournal.connect(url, min_size=1, max_size=1)
    try:
        await add_dev_operator_keys(journal)
    finally:
        await journal.close()


async def _outbox_open(url: str) -> int:
    from rgs.journal.postgres import PostgresJournal
    journal = await PostgresJournal.connect(url, min_size=1, max_size=1)
    try:
        return (await journal.outbox_backlog()).open_rows
    finally:
        await journal.close()


async def drill(*, root: Path, wallet_db: str, seconds: float = 20.0, players: int = 6,
                kill_after: float = 0.4) -> dict[str, Any]:
    """Run the drill under ``root`` (clusters, logs); the report (module docstring)."""
    primary = pgcluster.init_primary(root, synchronous=True)
    standby = pgcluster.start_standby(primary, root)
    procs: list[subprocess.Popen[bytes]] = []
    channels: list[grpc.aio.Channel] = []
    try:
        pgcluster.wait_streaming(primary)
        primary.psql("CREATE DATABASE rgs")
        hosts = f"127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
        url = f"postgresql://postgres@{hosts}/rgs?target_session_attrs=read-write"
        await _journal(primary.db_url("rgs"))
        wallet = f"127.0.0.1:{pgcluster.free_port()}"
        wlog = root / "wallet.log"
        procs.append(start_process(["-m", "sandbox_wallet", "--listen", wallet,
                                    "--database-url", wallet_db, "--api-key", WALLET_KEY,
                                    "--operator-id", "dev-operator"], wlog, {}))
        await _serving(wallet, procs[-1], wlog)
        rgs = f"127.0.0.1:{pgcluster.free_port()}"
        rlog = root / "rgs.log"
        procs.append(start_process(
            ["-m", "rgs", "serve", "--listen", rgs, "--database-url", url],
            rlog, {"RGS_PLATFORM_FILE": str(platform_file(root / "platform.json", wallet)),
                   "RGS_RECONCILE_INTERVAL_S": "1", "RGS_RECONCILE_MIN_AGE_S": "2",
                   "RGS_LOG_FORMAT": "json"}))
        await _serving(rgs, procs[-1], rlog)
        wch = grpc.aio.insecure_channel(wallet)
        channels.append(wch)
        control = sandbox_pb2_grpc.SandboxControlServiceStub(wch)
        team: list[Player] = []
        for i in range(players):
            pid = f"fo-{i}"
            await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
                player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
                metadata=WALLET)
            ch = grpc.aio.insecure_channel(rgs, options=[("grpc.use_local_subchannel_pool", 1)])
            channels.append(ch)
            s = await operator_pb2_grpc.OperatorServiceStub(ch).CreateSession(
                op.CreateSessionRequest(request_id=f"s-{pid}", brand_id="demo-casino",
                                        player_id=pid), metadata=OPERATOR)
            team.append(Player(pid=pid, md=(("authorization", f"Bearer {s.session_token}"),),
                               game=blackjack_pb2_grpc.BlackjackServiceStub(ch)))
        until = time.monotonic() + seconds

        async def play(p: Player) -> None:
            await asyncio.sleep(random.uniform(0, 0.05))
            while time.monotonic() < until:
                await p.play_round()

        game = asyncio.gather(*(play(p) for p in team))
        await asyncio.sleep(seconds * kill_after)
        killed_at = time.monotonic()
        await asyncio.to_thread(primary.kill)
        await asyncio.to_thread(standby.promote)
        promoted_at = time.monotonic()
        await game
        # Unavailability: the longest silence (no call of any player answered) from just
        # before the kill to the end, and the first answer after the promotion.
        answered = sorted(t for p in team for t in p.answered)
        around = [killed_at - 0.5, *(t for t in answered if t >= killed_at - 0.5)]
        silence = max((b - a for a, b in itertools.pairwise(around)), default=0.0)
        first_after = min((t for t in answered if t >= promoted_at), default=until)
        # Money: each wallet against its rounds, and the wallet's own transactions per round.
        off: dict[str, int] = {}
        twice: list[str] = []
        rolled_back = 0
        for p in team:
            got = await control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=p.pid),
                                          metadata=WALLET)
            if got.player.balance != START + p.net:
                off[p.pid] = got.player.balance - (START + p.net)
            txns = await control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
                player_id=p.pid), metadata=WALLET)
            kinds = Counter((t.round_id, sandbox_pb2.TransactionKind.Name(t.kind))
                            for t in txns.transactions)
            twice += [f"{p.pid} {r} {k} x{n}" for (r, k), n in kinds.items() if n > 1]
            # A debit rolled back (a Deal the journal lost in the crash, refunded by the
            # reconciler) is no round played; every other debited round is one.
            debited = ({r for (r, k) in kinds if k == "TRANSACTION_KIND_DEBIT"}
                       - {r for (r, k) in kinds if k == "TRANSACTION_KIND_ROLLBACK"})
            rolled_back += len({r for (r, k) in kinds if k == "TRANSACTION_KIND_ROLLBACK"})
            if len(debited) != p.rounds:
                twice.append(f"{p.pid}: {len(debited)} rounds debited, {p.rounds} played")
        deadline = time.monotonic() + 60
        outbox = await _outbox_open(standby.db_url("rgs"))
        while outbox and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            outbox = await _outbox_open(standby.db_url("rgs"))
        conn = await asyncpg.connect(standby.db_url("rgs"))
        try:
            in_recovery = await conn.fetchval("SELECT pg_is_in_recovery()")
        finally:
            await conn.close()
        errors: Counter[str] = Counter()
        for p in team:
            errors.update(p.errors)
        return {
            "failover": "manual: SIGKILL of the primary's postmaster, then pg_ctl promote",
            "promote_s": round(promoted_at - killed_at, 2),
            "unavailable_s": round(silence, 2),
            "first_answer_after_kill_s": round(first_after - killed_at, 2),
            "rounds": sum(p.rounds for p in team), "players": players,
            "seconds": seconds, "errors_retried": dict(errors),
            "rounds_rolled_back": rolled_back, "wallets_off": off,
            "paid_or_dealt_twice": twice, "outbox_open": outbox,
            "rgs_alive": procs[-1].poll() is None, "new_primary_in_recovery": in_recovery,
        }
    finally:
        for ch in channels:
            await ch.close()
        for proc in reversed(procs):
            stop_process(proc)
        primary.stop()
        standby.stop()
