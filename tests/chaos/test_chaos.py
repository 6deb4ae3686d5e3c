"""Chaos: money moves exactly once while the wallet misbehaves, an RGS process is SIGKILLed and
restarted several times and the journal's PostgreSQL restarts once.

Many concurrent players play complete rounds of every variant over gRPC against two real RGS
replicas (subprocesses on loopback), abandon some rounds (the sweeper finishes them) and have some
voided by the operator, while random wallet faults (latency, timeout before/after applying, error
responses, duplicate deliveries) are switched on in the sandbox wallet. The journal lives in a
private embedded PostgreSQL in a temp dir (the machine's shared server is never restarted); the
sandbox wallet's database is a fresh copy on the shared server.

Afterwards, once the reconciler has drained, the rule pinned is the architecture's money
invariant: every round is settled or voided; for every round and in total, wallet debits −
rollbacks − credits equals the journal's stakes − payouts to the cent; no transaction id was
applied twice; no outbox row is left open; no debit was rolled back after a credit of its round.

It runs twice: with the replicas connected to PostgreSQL directly (session pool mode: players
held by the advisory lock and a lease) and through a real PgBouncer in transaction mode (leases
alone: a killed replica's players wait for its leases to expire, 5 s here, and a call that
outlives its lease is fenced off).

The CI run lasts ``RGS_CHAOS_SECONDS`` (default 30) of chaos per mode; the long run is::

    RGS_CHAOS_SECONDS=600 RGS_CHAOS_PLAYERS=24 .venv/bin/pytest tests/chaos -s

The players, the faults and the money check are in chaos_support.py.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
import shutil
import tempfile
import time
from pathlib import Path

import grpc
import pytest
from chaos_support import (
    BRAND,
    CHAOS_SECONDS,
    KILLS,
    PLAYERS,
    SEED,
    START,
    TABLE,
    TABLE_PLAYERS,
    VARIANTS,
    WALLET_AUTH,
    WALLET_KEY,
    Cluster,
    Player,
    Stats,
    TablePlayer,
    check_money,
    inject_faults,
    kill_and_restart,
    restart_postgres,
    start_postgres,
    stop_postgres,
    wait_drained,
)
from e2e_servers import ServerProcess, free_port, start

from rgs import devdb
from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.migrate import migrate
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import SANDBOX_WALLET_TEMPLATE, DatabaseTemplates
from support.pgbouncer import running_pgbouncer, set_journal_search_path
from support.platforms import write_platform_file


@pytest.mark.parametrize("pool_mode", ["session", "transaction"])
async def test_money_invariant_holds_under_wallet_faults_kills_and_a_database_restart(
        database_templates: DatabaseTemplates, tmp_path: Path, pool_mode: str) -> None:
    rng = random.Random(SEED)
    stats = Stats()
    # Not under tmp_path: pytest makes that 0700, and the embedded server runs as its own OS
    # user when the tests run as root.
    pg_root = Path(tempfile.mkdtemp(prefix="rgs-chaos-pg-"))
    pg_root.chmod(0o755)
    data_dir = pg_root / "pg"
    server_url = await asyncio.to_thread(start_postgres, data_dir)
    wallet_name, wallet_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    procs: list[ServerProcess] = []
    victim: list[ServerProcess] = []
    channels: list[grpc.aio.Channel] = []
    bouncer = contextlib.ExitStack()
    try:
        rgs_db = await devdb.create_database(server_url, "rgs_chaos")
        await migrate(rgs_db)
        journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
        await add_dev_operator_keys(journal)
        await journal.close()
        replica_db, pooling = rgs_db, {}
        if pool_mode == "transaction":
            await set_journal_search_path(rgs_db)
            replica_db = bouncer.enter_context(running_pgbouncer(server_url)).url_for(rgs_db)
            pooling = {"RGS_DATABASE_POOL_MODE": "transaction", "RGS_PLAYER_LEASE_S": "5"}

        wport = free_port()
        wallet = await start(["-m", "sandbox_wallet", "--listen", f"127.0.0.1:{wport}",
                              "--database-url", wallet_db, "--api-key", WALLET_KEY,
                              "--fault-seed", str(SEED)],
                             target=f"127.0.0.1:{wport}", log=tmp_path / "wallet.log")
        procs.append(wallet)
        platform_file = write_platform_file(tmp_path / "platform.json",
                                            {"dev-operator": wallet.target},
                                            tables=[{"id": TABLE, "variant": "vip-platinum",
                                                     "seats": 7, "currency": "EUR",
                                                     "brands": [BRAND], "betting_s": 2,
                                                     "decision_s": 2}],
                                            # Both, so a 5 s lease (transaction mode) is
                                            # legal: at least twice the slowest wallet's.
                                            **{"dev-operator": {"timeout_s": 1},
                                               "other-operator": {"timeout_s": 1}})
        env = {"RGS_PLATFORM_FILE": str(platform_file), "RGS_LOCK_WAIT_S": "10",
               "RGS_RECONCILE_INTERVAL_S": "0.5", "RGS_RECONCILE_MIN_AGE_S": "2",
               "RGS_ABANDON_AFTER_S": "3", **pooling}
        ports = [free_port(), free_port()]
        args = [["-m", "rgs", "serve", "--listen", f"127.0.0.1:{p}",
                 "--database-url", replica_db] for p in ports]
        replicas = await asyncio.gather(*(
            start(a, target=f"127.0.0.1:{p}", log=tmp_path / f"rgs{i}.log", env=env)
            for i, (a, p) in enumerate(zip(args, ports, strict=True))))
        victim.append(replicas[0])
        procs.append(replicas[1])
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p}") for p in ports]
        wallet_channel = grpc.aio.insecure_channel(wallet.target)
        channels.append(wallet_channel)
        control = sandbox_pb2_grpc.SandboxControlServiceStub(wallet_channel)
        pids = [f"chaos-{SEED}-{i}" for i in range(PLAYERS)]
        table_pids = [f"chaos-{SEED}-t{i}" for i in range(TABLE_PLAYERS)]
        for pid in (*pids, *table_pids):
            await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
                player_id=pid, currency="EUR", balance=START)), metadata=WALLET_AUTH)

        began = time.monotonic()
        stop_at = began + CHAOS_SECONDS
        cluster = Cluster(targets=[f"127.0.0.1:{p}" for p in ports],
                          games=[blackjack_pb2_grpc.BlackjackServiceStub(c)
                                 for c in channels[:2]],
                          operators=[operator_pb2_grpc.OperatorServiceStub(c)
                                     for c in channels[:2]], stop_at=stop_at,
                          tables=[table_pb2_grpc.TableServiceStub(c) for c in channels[:2]])
        players = [Player(pid, cluster, stats, random.Random(rng.random())) for pid in pids]
        players += [TablePlayer(pid, i + 1, cluster, stats, random.Random(rng.random()))
                    for i, pid in enumerate(table_pids)]
        chaos = [
            asyncio.create_task(inject_faults(control, stats, random.Random(rng.random()),
                                              stop_at)),
            asyncio.create_task(kill_and_restart(victim, args[0], env, tmp_path, stats,
                                                 stop_at)),
            asyncio.create_task(restart_postgres(data_dir, stats,
                                                 began + CHAOS_SECONDS * 0.55)),
        ]
        await asyncio.gather(*chaos, *(p.run() for p in players))
        played = time.monotonic() - began
        await wait_drained(rgs_db, timeout=60)
        drained = time.monotonic() - began - played

        print(f"\nchaos pool_mode={pool_mode} seed={SEED} players={PLAYERS} "
              f"window={CHAOS_SECONDS:.0f}s "
              f"played={played:.1f}s drained_in={drained:.1f}s")
        print(f"  rounds: dealt={stats.rounds_dealt} finished_by_player="
              f"{stats.rounds_finished_by_player} abandoned(swept)={stats.rounds_abandoned} "
              f"voided_by_operator={stats.rounds_voided_by_operator} decisions={stats.decisions}")
        print(f"  variants dealt: {dict(stats.variants)}")
        fired: collections.Counter[str] = collections.Counter()
        for name, n in stats.faults_fired.items():
            fired[name.split("@")[0]] += n
        print(f"  faults set: {sum(stats.faults_set.values())}, fired: "
              f"{sum(stats.faults_fired.values())}; fired by kind: {dict(sorted(fired.items()))}")
        print(f"  fired by kind@method: {dict(sorted(stats.faults_fired.items()))}")
        print(f"  kills(SIGKILL+restart)={stats.kills} (failed starts {stats.failed_starts}) "
              f"postgres_restarts={stats.pg_restarts}")
        print(f"  client retries={stats.retries} by reason {dict(stats.retry_reasons)}")
        print(f"  table: bets={stats.table_bets} decisions={stats.table_decisions}")
        print(f"  final refusals seen by players: {dict(stats.refusals)}")
        counts = await check_money(rgs_db, wallet_db, [*pids, *table_pids])
        print(f"  journal and wallet agree to the cent: {counts}")
        assert stats.kills == KILLS and stats.pg_restarts == 1
        assert set(stats.variants) == set(VARIANTS) and sum(stats.faults_fired.values()) > 0
        assert "INVALID_BET" not in stats.refusals
        assert stats.table_bets > 0 and counts["table_rounds"] > 0
    finally:
        for ch in channels:
            await ch.close()
        for p in (*victim, *procs):
            p.stop()
        bouncer.close()
        await stop_postgres(data_dir)
        shutil.rmtree(pg_root, ignore_errors=True)
        database_templates.discard(wallet_name)
