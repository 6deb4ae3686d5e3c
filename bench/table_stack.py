"""The system under test of ``bench/tables.py``: a sandbox wallet and N ``rgs serve`` replicas
with shared tables, on fresh databases of the local (or embedded) PostgreSQL, stopped and
dropped at the end; players created in the wallet with a session each. Not a command."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stack import (
    OPERATOR_KEY,
    ROOT,
    WALLET_KEY,
    WALLET_KEY_ENV,
    _env,
    _stop,
    free_port,
    wait_serving,
)

from rgs import devdb
from rgs.bootstrap import add_operator_keys_file
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.migrate import migrate
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

SEATS = 7
BRAND = "demo-casino"
Metadata = tuple[tuple[str, str], ...]


def platform(directory: Path, wallet: str, tables: int, *, betting_s: float,
             decision_s: float) -> Path:
    path = directory / "platform.json"
    path.write_text(json.dumps({
        "operators": [{
            "id": "dev-operator",
            "wallet": {"kind": "grpc", "address": wallet, "api_key": {"env": WALLET_KEY_ENV},
                       "max_in_flight": 256},
            "brands": [{"id": BRAND, "currencies": {"EUR": {}},
                        "variants": {"vip-platinum": {}}}]}],
        "tables": [{"id": f"bench-{i}", "variant": "vip-platinum", "seats": SEATS,
                    "currency": "EUR", "brands": [BRAND], "betting_s": betting_s,
                    "decision_s": decision_s} for i in range(tables)]}))
    return path


@dataclass(slots=True)
class Player:
    player_id: str
    md: Metadata
    stub: table_pb2_grpc.TableServiceAsyncStub


@dataclass(slots=True)
class TableStack:
    """The running processes, a stub per replica, the wallet's control API."""

    replicas: list[str]
    stubs: list[table_pb2_grpc.TableServiceAsyncStub]
    operator: operator_pb2_grpc.OperatorServiceAsyncStub
    control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    procs: list[subprocess.Popen[bytes]]
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    server_url: str = ""
    databases: tuple[str, ...] = ()

    async def player(self, player_id: str, replica: int, *, balance: int) -> Player:
        await self.control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
            player=sandbox_pb2.Player(player_id=player_id, currency="EUR", balance=balance)),
            metadata=WALLET_AUTH)
        s = await self.operator.CreateSession(op.CreateSessionRequest(
            request_id=f"s-{player_id}", brand_id=BRAND, player_id=player_id,
            nickname=player_id),  # the table shows the player by it: events name them so
            metadata=OPERATOR_AUTH)
        return Player(player_id, (("authorization", f"Bearer {s.session_token}"),),
                      self.stubs[replica % len(self.stubs)])

    async def balance(self, player_id: str) -> int:
        r = await self.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=player_id),
                                         metadata=WALLET_AUTH)
        return int(r.player.balance)

    async def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds so far of each process: the wallet, each replica, this benchmark's
        client and the PostgreSQL backends serving the stack's databases (those open now)."""
        import resource

        import asyncpg
        from stack import cpu_seconds

        out: dict[str, float] = {}
        for i, p in enumerate(self.procs):
            name = "wallet" if i == 0 else f"rgs{i}"
            out[name] = cpu_seconds(p.pid) or 0.0
        ru = resource.getrusage(resource.RUSAGE_SELF)
        out["client"] = ru.ru_utime + ru.ru_stime
        conn = await asyncpg.connect(self.server_url)
        try:
            pids = [r["pid"] for r in await conn.fetch(
                "SELECT pid FROM pg_stat_activity WHERE datname = ANY($1)",
                list(self.databases))]
        finally:
            await conn.close()
        out["postgres"] = sum(cpu_seconds(p) or 0.0 for p in pids)
        return out

    async def transactions(self) -> int:
        """Transactions committed or rolled back in the journal's database so far (a
        statement outside an explicit transaction is one)."""
        import asyncpg

        conn = await asyncpg.connect(self.server_url)
        try:
            await conn.execute("SELECT pg_stat_clear_snapshot()")
            n = await conn.fetchval("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                                    "WHERE datname = $1", self.databases[0])
        finally:
            await conn.close()
        return int(n or 0)


WALLET_AUTH: Metadata = (("authorization", f"Bearer {WALLET_KEY}"),)
OPERATOR_AUTH: Metadata = (("authorization", f"Bearer {OPERATOR_KEY}"),)


@contextlib.asynccontextmanager
async def table_stack(*, tables: int, replicas: int, betting_s: float, decision_s: float,
                      rgs_env: dict[str, str] | None = None,
                      say: Any = print) -> AsyncIterator[TableStack]:
    choice = await devdb.resolve_server()
    server = choice.url
    journal_db, wallet_db = devdb.unique_name("bench_tables"), devdb.unique_name("bench_wallet")
    journal_url = await devdb.create_database(server, journal_db)
    wallet_url = await devdb.create_database(server, wallet_db)
    await migrate(journal_url)
    config = Path(tempfile.mkdtemp(prefix="bench-tables-"))
    keys = config / "keys.json"
    keys.write_text(json.dumps({"dev-operator": OPERATOR_KEY}))
    await add_operator_keys_file(journal_url, keys)
    wallet = f"127.0.0.1:{free_port()}"
    targets = [f"127.0.0.1:{free_port()}" for _ in range(replicas)]
    plat = platform(config, wallet, tables, betting_s=betting_s, decision_s=decision_s)
    procs: list[subprocess.Popen[bytes]] = []
    channels: list[grpc.aio.Channel] = []
    try:
        say(f"starting a wallet and {replicas} replica(s) with {tables} table(s) ...")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "sandbox_wallet", "--listen", wallet, "--database-url",
             wallet_url], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=ROOT,
            env=_env({})))
        await wait_serving(wallet, procs[-1])
        for target in targets:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "rgs", "serve"], stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT, cwd=ROOT,
                env=_env({"RGS_LISTEN": target, "RGS_DATABASE_URL": journal_url,
                          "RGS_PLATFORM_FILE": str(plat), WALLET_KEY_ENV: WALLET_KEY,
                          **(rgs_env or {})})))
            await wait_serving(target, procs[-1])
        channels = [grpc.aio.insecure_channel(t) for t in targets]
        wch = grpc.aio.insecure_channel(wallet)
        channels.append(wch)
        yield TableStack(replicas=targets,
                         stubs=[table_pb2_grpc.TableServiceStub(c) for c in channels[:-1]],
                         operator=operator_pb2_grpc.OperatorServiceStub(channels[0]),
                         control=sandbox_pb2_grpc.SandboxControlServiceStub(wch),
                         procs=procs, channels=channels, server_url=server,
                         databases=(journal_db, wallet_db))
    finally:
        for c in channels:
            await c.close()
        for p in reversed(procs):
            _stop(p)
        shutil.rmtree(config, ignore_errors=True)
        for name in (journal_db, wallet_db):
            await devdb.drop_database(server, name)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]
