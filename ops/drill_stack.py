"""What the database drills share (ops/failover_drill.py, ops/restore_drill.py and
bench/failover.py): the sandbox wallet and one ``rgs serve`` started as processes on a journal
in a private cluster (ops/pgcluster.py), players with sessions playing solo rounds flat out
(each call sent again with its request id until it is answered), the journal's migrations and
outbox, and the command line around a drill (the wallet's database made and dropped, the
clusters' directory, the report printed). One home for the set-up, so the drills differ only in
what they do to the database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def platform_file(path: Path, wallet: str, tables: Sequence[Mapping[str, Any]] = ()) -> Path:
    """The shipped platform file with dev-operator's wallet at ``wallet`` and ``tables`` as
    its shared tables (none by default)."""
    raw = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    for o in raw["operators"]:
        if o["id"] == "dev-operator":
            o["wallet"]["address"] = wallet
        for ref in ("api_key", "hmac_secret"):
            value = o["wallet"].get(ref)
            if isinstance(value, dict) and "file" in value:
                value["file"] = str(DEFAULT_PLATFORM_FILE.parent / value["file"])
    raw["tables"] = list(tables)
    path.write_text(json.dumps(raw), "utf-8")
    return path


def _env(extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RGS_")}
    env["PYTHONPATH"] = str(ROOT / "services")
    # No drill shows hints: the replica builds no analysis table it would not use.
    env["RGS_HINTS_WARM"] = "false"
    env.update(extra)
    return env


def start_process(args: list[str], log: Path, env: Mapping[str, str]
                  ) -> subprocess.Popen[bytes]:
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


async def serving(target: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until ``target`` answers its gRPC health SERVING (its process must not exit)."""
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
            await asyncio.sleep(0.1)
    raise RuntimeError(f"{target} not serving: {log.read_text()[-2000:]}")


async def prepare_journal(url: str) -> None:
    """The journal's migrations and the sandbox's operator keys, on a new database."""
    from rgs.bootstrap import add_dev_operator_keys
    from rgs.journal.migrate import migrate
    from rgs.journal.postgres import PostgresJournal
    await migrate(url)
    journal = await PostgresJournal.connect(url, min_size=1, max_size=1)
    try:
        await add_dev_operator_keys(journal)
    finally:
        await journal.close()


async def outbox_open(url: str) -> int:
    """The journal's open outbox rows."""
    from rgs.journal.postgres import PostgresJournal
    journal = await PostgresJournal.connect(url, min_size=1, max_size=1)
    try:
        return (await journal.outbox_backlog()).open_rows
    finally:
        await journal.close()


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


async def play_until(team: Sequence[Player], until: float) -> None:
    """Every player plays rounds flat out until the monotonic time ``until``."""
    async def play(p: Player) -> None:
        await asyncio.sleep(random.uniform(0, 0.05))
        while time.monotonic() < until:
            await p.play_round()
    await asyncio.gather(*(play(p) for p in team))


@dataclass
class DrillStack:
    """The wallet and the RGS as processes, and the channels made on them."""

    root: Path
    wallet: str
    rgs: str
    control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    procs: list[subprocess.Popen[bytes]]
    channels: list[grpc.aio.Channel]

    def channel(self, **options: int) -> grpc.aio.Channel:
        """A channel of its own on the RGS (closed with the stack)."""
        ch = grpc.aio.insecure_channel(self.rgs, options=list(options.items()))
        self.channels.append(ch)
        return ch

    async def session(self, pid: str, ch: grpc.aio.Channel) -> tuple[tuple[str, str], ...]:
        """A new player in the wallet with START, and its session's metadata."""
        await self.control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id=pid, currency="EUR", balance=START)),
            metadata=WALLET)
        s = await operator_pb2_grpc.OperatorServiceStub(ch).CreateSession(
            op.CreateSessionRequest(request_id=f"s-{pid}", brand_id="demo-casino",
                                    player_id=pid), metadata=OPERATOR)
        return (("authorization", f"Bearer {s.session_token}"),)

    async def players(self, prefix: str, count: int) -> list[Player]:
        """``count`` players with a session each, each on a channel of its own (so a dropped
        connection is one player's)."""
        team = []
        for i in range(count):
            ch = self.channel(**{"grpc.use_local_subchannel_pool": 1})
            pid = f"{prefix}-{i}"
            team.append(Player(pid=pid, md=await self.session(pid, ch),
                               game=blackjack_pb2_grpc.BlackjackServiceStub(ch)))
        return team

    async def wallet_balance(self, pid: str) -> int:
        got = await self.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                           metadata=WALLET)
        return int(got.player.balance)

    def rgs_alive(self) -> bool:
        return self.procs[-1].poll() is None


@asynccontextmanager
async def drill_stack(root: Path, *, journal_url: str, wallet_db: str,
                      rgs_env: Mapping[str, str] | None = None,
                      tables: Sequence[Mapping[str, Any]] = ()) -> AsyncIterator[DrillStack]:
    """The sandbox wallet (dev-operator's, on ``wallet_db``) and ``rgs serve`` on
    ``journal_url`` (already migrated: :func:`prepare_journal`), logs under ``root``;
    stopped at the end."""
    procs: list[subprocess.Popen[bytes]] = []
    channels: list[grpc.aio.Channel] = []
    try:
        wallet = f"127.0.0.1:{pgcluster.free_port()}"
        wlog = root / "wallet.log"
        procs.append(start_process(["-m", "sandbox_wallet", "--listen", wallet,
                                    "--database-url", wallet_db, "--api-key", WALLET_KEY,
                                    "--operator-id", "dev-operator"], wlog, {}))
        rgs = f"127.0.0.1:{pgcluster.free_port()}"
        rlog = root / "rgs.log"
        platform = platform_file(root / "platform.json", wallet, tables)
        procs.append(start_process(
            ["-m", "rgs", "serve", "--listen", rgs, "--database-url", journal_url],
            rlog, {"RGS_PLATFORM_FILE": str(platform), **(rgs_env or {})}))
        # Both start at once: the RGS needs the wallet only for its first call.
        await asyncio.gather(serving(wallet, procs[0], wlog), serving(rgs, procs[1], rlog))
        wch = grpc.aio.insecure_channel(wallet)
        channels.append(wch)
        yield DrillStack(root=root, wallet=wallet, rgs=rgs,
                         control=sandbox_pb2_grpc.SandboxControlServiceStub(wch),
                         procs=procs, channels=channels)
    finally:
        for ch in channels:
            await ch.close()
        for proc in reversed(procs):
            stop_process(proc)


Drill = Callable[..., Awaitable[dict[str, Any]]]


def run_cli(drill: Drill, *, doc: str, workspace: str, seconds: float, players: int,
            ok: Callable[[dict[str, Any]], bool] | None = None) -> None:
    """The command line of a drill: ``--seconds``, ``--players``, ``--keep``, ``--json``; a
    wallet database made on the local PostgreSQL (or DATABASE_URL's) and dropped after, the
    clusters under a fresh directory (kept with ``--keep``), the report printed; exit 1 when
    ``ok`` says the report is not."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=seconds, help="seconds of play")
    ap.add_argument("--players", type=int, default=players)
    ap.add_argument("--keep", action="store_true", help="keep the clusters' directory")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    why = pgcluster.available()
    if why:
        raise SystemExit(why)
    report = asyncio.run(_run(drill, args, workspace))
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    sys.exit(0 if ok is None or ok(report) else 1)


async def _run(drill: Drill, args: argparse.Namespace, workspace: str) -> dict[str, Any]:
    from rgs import devdb
    from sandbox_wallet.migrate import migrate as migrate_wallet
    choice = await devdb.resolve_server()
    name = devdb.unique_name(f"{workspace.strip('-').replace('-', '_')}_wallet")
    wallet_db = await devdb.create_database(choice.url, name)
    root = pgcluster.workspace(workspace)
    try:
        await migrate_wallet(wallet_db)
        return await drill(root=root, wallet_db=wallet_db, seconds=args.seconds,
                           players=args.players)
    finally:
        if args.keep:
            print(f"the clusters and logs are kept in {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
        await devdb.drop_database(choice.url, name)
