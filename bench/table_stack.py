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
from rgs.bootstrap import DEV_OPERATOR_KEYS, add_operator_keys_file
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.migrate import migrate
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

SEATS = 7
BRAND = "demo-casino"
Metadata = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Operator:
    """One operator of the bench platform: its brand, its own sandbox wallet's key (each
    operator has a wallet process of its own) and its RGS operator API key."""

    operator_id: str
    brand_id: str
    wallet_key: str
    wallet_key_env: str
    rgs_key: str

    @property
    def wallet_auth(self) -> Metadata:
        return (("authorization", f"Bearer {self.wallet_key}"),)

    @property
    def rgs_auth(self) -> Metadata:
        return (("authorization", f"Bearer {self.rgs_key}"),)


OPERATORS = (
    Operator("dev-operator", BRAND, WALLET_KEY, WALLET_KEY_ENV, OPERATOR_KEY),
    Operator("other-operator", "other-casino", "sandbox-wallet-other-key",
             "BENCH_WALLET_API_KEY_2", DEV_OPERATOR_KEYS["other-operator"]),
)


def platform(directory: Path, wallets: list[str], tables: int, *, betting_s: float,
             decision_s: float) -> Path:
    """The platform file: one operator (and brand) per wallet, every table open to every
    brand."""
    path = directory / "platform.json"
    ops = OPERATORS[:len(wallets)]
    path.write_text(json.dumps({
        "operators": [{
            "id": o.operator_id,
            "wallet": {"kind": "grpc", "address": w, "api_key": {"env": o.wallet_key_env},
                       "max_in_flight": 256},
            "brands": [{"id": o.brand_id, "currencies": {"EUR": {}},
                        "variants": {"vip-platinum": {}}}]}
            for o, w in zip(ops, wallets, strict=True)],
        "tables": [{"id": f"bench-{i}", "variant": "vip-platinum", "seats": SEATS,
                    "currency": "EUR", "brands": [o.brand_id for o in ops],
                    "betting_s": betting_s, "decision_s": decision_s}
                   for i in range(tables)]}))
    return path


@dataclass(slots=True)
class Player:
    player_id: str
    md: Metadata
    stub: table_pb2_grpc.TableServiceAsyncStub
    operator: int = 0


async def snapshot(p: Player, table: str) -> tb.TableSnapshot:
    """The table's snapshot as ``p`` sees it (the first message of a watch)."""
    call = p.stub.WatchTable(tb.WatchTableRequest(table_id=table), metadata=p.md)
    try:
        async for item in call:
            return item.snapshot
    finally:
        call.cancel()
    raise RuntimeError("no snapshot")


@dataclass(slots=True)
class TableStack:
    """The running processes, a stub per replica, each operator's wallet control API."""

    replicas: list[str]
    stubs: list[table_pb2_grpc.TableServiceAsyncStub]
    operator: operator_pb2_grpc.OperatorServiceAsyncStub
    #: Each operator's sandbox wallet control API, in :data:`OPERATORS` order.
    controls: list[sandbox_pb2_grpc.SandboxControlServiceAsyncStub]
    procs: list[subprocess.Popen[bytes]]
    #: The name of each process in ``procs``: ``wallet``/``wallet2``..., ``rgs1``, ``rgs2``...
    names: list[str] = field(default_factory=list)
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    server_url: str = ""
    journal_url: str = ""
    databases: tuple[str, ...] = ()

    @property
    def control(self) -> sandbox_pb2_grpc.SandboxControlServiceAsyncStub:
        return self.controls[0]

    @property
    def rgs_procs(self) -> list[subprocess.Popen[bytes]]:
        return [p for n, p in zip(self.names, self.procs, strict=True) if n.startswith("rgs")]

    async def player(self, player_id: str, replica: int, *, balance: int,
                     operator: int = 0) -> Player:
        """A player in the operator's wallet (created or reset) with a session, both retried
        while the shared PostgreSQL is full (UNAVAILABLE)."""
        import asyncio

        o = OPERATORS[operator]
        for attempt in range(40):
            try:
                await self.controls[operator].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
                    player=sandbox_pb2.Player(player_id=player_id, currency="EUR",
                                              balance=balance)), metadata=o.wallet_auth)
                break
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE or attempt == 39:
                    raise
                await asyncio.sleep(0.5)
        for attempt in range(40):
            try:
                s = await self.operator.CreateSession(op.CreateSessionRequest(
                    request_id=f"s-{player_id}", brand_id=o.brand_id, player_id=player_id,
                    nickname=player_id),  # the table shows the player by it: events name them
                    metadata=o.rgs_auth)
                break
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE or attempt == 39:
                    raise
                await asyncio.sleep(0.5)
        return Player(player_id, (("authorization", f"Bearer {s.session_token}"),),
                      self.stubs[replica % len(self.stubs)], operator)

    async def balance(self, player_id: str, operator: int = 0) -> int:
        r = await self.controls[operator].GetPlayer(
            sandbox_pb2.GetPlayerRequest(player_id=player_id),
            metadata=OPERATORS[operator].wallet_auth)
        return int(r.player.balance)

    async def credits(self, player_id: str, operator: int = 0) -> list[tuple[str, float]]:
        """The player's credits in their wallet: (round id, when the wallet recorded it, Unix
        seconds)."""
        r = await self.controls[operator].ListTransactions(
            sandbox_pb2.ListTransactionsRequest(player_id=player_id),
            metadata=OPERATORS[operator].wallet_auth)
        return [(t.round_id, t.created_at.ToNanoseconds() / 1e9) for t in r.transactions
                if t.kind == sandbox_pb2.TRANSACTION_KIND_CREDIT]

    async def clock_holder(self, table_id: str) -> int | None:
        """The process id of the replica holding the table's clock lease now (the lease's
        holder is ``host/pid/suffix``); None when nobody holds it."""

        conn = await _connect(self.journal_url)
        try:
            holder = await conn.fetchval(
                "SELECT holder FROM rgs.leases WHERE kind = 'table' AND key = $1 "
                "AND expires_at > clock_timestamp()", table_id)
        finally:
            await conn.close()
        return int(holder.split("/")[1]) if holder else None

    async def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds so far of each process: the wallet, each replica, this benchmark's
        client and the PostgreSQL backends serving the stack's databases (those open now)."""
        import resource

        from stack import cpu_seconds

        out: dict[str, float] = {}
        for name, p in zip(self.names, self.procs, strict=True):
            out[name] = cpu_seconds(p.pid) or 0.0
        ru = resource.getrusage(resource.RUSAGE_SELF)
        out["client"] = ru.ru_utime + ru.ru_stime
        conn = await _connect(self.server_url)
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

        conn = await _connect(self.server_url)
        try:
            await conn.execute("SELECT pg_stat_clear_snapshot()")
            n = await conn.fetchval("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                                    "WHERE datname = $1", self.databases[0])
        finally:
            await conn.close()
        return int(n or 0)


async def _connect(url: str) -> Any:
    """A connection for the benchmark's own reads, waiting out a full server (the machine's
    PostgreSQL is shared: "too many clients" passes)."""
    import asyncio

    import asyncpg

    for _ in range(60):
        try:
            return await asyncpg.connect(url)
        except asyncpg.TooManyConnectionsError:
            await asyncio.sleep(0.5)
    return await asyncpg.connect(url)


async def _serving(target: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until ``proc`` serves; when it exits first, stop with the end of its output."""
    try:
        await wait_serving(target, proc)
    except SystemExit as exc:
        tail = log.read_text(errors="replace").strip().splitlines()[-15:]
        raise SystemExit(f"{exc}:\n" + "\n".join(tail)) from None


WALLET_AUTH: Metadata = OPERATORS[0].wallet_auth
OPERATOR_AUTH: Metadata = OPERATORS[0].rgs_auth


@contextlib.asynccontextmanager
async def table_stack(*, tables: int, replicas: int, betting_s: float, decision_s: float,
                      rgs_env: dict[str, str] | None = None, operators: int = 1,
                      say: Any = print) -> AsyncIterator[TableStack]:
    """A wallet per operator (``operators``: 1 or 2, :data:`OPERATORS`) and ``replicas``
    replicas serving ``tables`` VIP tables open to every operator's brand."""
    choice = await devdb.resolve_server()
    server = choice.url
    journal_db = devdb.unique_name("bench_tables")
    wallet_dbs = [devdb.unique_name("bench_wallet") for _ in range(operators)]
    journal_url = await devdb.create_database(server, journal_db)
    wallet_urls = [await devdb.create_database(server, name) for name in wallet_dbs]
    await migrate(journal_url)
    config = Path(tempfile.mkdtemp(prefix="bench-tables-"))
    keys = config / "keys.json"
    keys.write_text(json.dumps({o.operator_id: o.rgs_key for o in OPERATORS[:operators]}))
    await add_operator_keys_file(journal_url, keys)
    wallets = [f"127.0.0.1:{free_port()}" for _ in range(operators)]
    targets = [f"127.0.0.1:{free_port()}" for _ in range(replicas)]
    plat = platform(config, wallets, tables, betting_s=betting_s, decision_s=decision_s)
    procs: list[subprocess.Popen[bytes]] = []
    names: list[str] = []
    channels: list[grpc.aio.Channel] = []
    logs = contextlib.ExitStack()
    try:
        say(f"starting {operators} wallet(s) and {replicas} replica(s) with {tables} "
            "table(s) ...")
        for i, (o, wallet, url) in enumerate(zip(OPERATORS, wallets, wallet_urls, strict=False)):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "sandbox_wallet", "--listen", wallet, "--database-url",
                 url], stdout=logs.enter_context((config / f"wallet{i}.log").open("wb")),
                stderr=subprocess.STDOUT, cwd=ROOT,
                env=_env({"SANDBOX_WALLET_API_KEY": o.wallet_key,
                          "SANDBOX_WALLET_OPERATOR_ID": o.operator_id})))
            names.append("wallet" if i == 0 else f"wallet{i + 1}")
            await _serving(wallet, procs[-1], config / f"wallet{i}.log")
        for n, target in enumerate(targets):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "rgs", "serve"],
                stdout=logs.enter_context((config / f"rgs{n}.log").open("wb")),
                stderr=subprocess.STDOUT, cwd=ROOT,
                env=_env({"RGS_LISTEN": target, "RGS_DATABASE_URL": journal_url,
                          "RGS_PLATFORM_FILE": str(plat),
                          **{o.wallet_key_env: o.wallet_key for o in OPERATORS[:operators]},
                          **(rgs_env or {})})))
            names.append(f"rgs{n + 1}")
            await _serving(target, procs[-1], config / f"rgs{n}.log")
        channels = [grpc.aio.insecure_channel(t) for t in targets]
        wchs = [grpc.aio.insecure_channel(w) for w in wallets]
        channels += wchs
        yield TableStack(replicas=targets,
                         stubs=[table_pb2_grpc.TableServiceStub(c) for c in channels[:replicas]],
                         operator=operator_pb2_grpc.OperatorServiceStub(channels[0]),
                         controls=[sandbox_pb2_grpc.SandboxControlServiceStub(c) for c in wchs],
                         procs=procs, names=names, channels=channels, server_url=server,
                         journal_url=journal_url,
                         databases=(journal_db, *wallet_dbs))
    finally:
        for c in channels:
            await c.close()
        for p in reversed(procs):
            _stop(p)
        logs.close()
        shutil.rmtree(config, ignore_errors=True)
        for name in (journal_db, *wallet_dbs):
            await devdb.drop_database(server, name)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]
