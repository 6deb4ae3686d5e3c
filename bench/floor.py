"""What the parts cost on this machine: an empty gRPC unary call and a one-row PostgreSQL
statement, and the floor they put under a round of the production shape.

Run: ``.venv/bin/python bench/floor.py [--calls 3000] [--statements 5000] [--json]``.

A server process answering the standard health ``Check`` (nothing of the RGS in it) and one
client call it one call at a time; then one asyncpg connection runs ``SELECT $1::int`` one
statement at a time on the local (or DATABASE_URL's, or embedded) PostgreSQL. Each prints the
CPU both sides spent per call (from /proc, so other work on the machine does not count) and the
p50 latency. Both sides run on uvloop, as the product's processes do (``--loop asyncio`` for
asyncio's own loop).

The floor of a round multiplies these by what a round of ``bench/service.py`` makes (player
calls, wallet calls, statements: ``--per-round`` overrides them): the CPU every process together
spends on nothing but crossing the parts, before any work of the product. ``bench/service.py``
runs these measurements in its own run and sets each process's CPU per round against its own
share of that floor (:func:`process_floors`). ``bench/service.py``'s
rounds per 100 upserts cannot exceed what that floor leaves on the machine's cores; the figures
and the reasoning are in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from typing import Any

import asyncpg
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from stack import cpu_seconds, free_port

from rgs import devdb, eventloop

SERVER = """
import asyncio, sys
import grpc
from grpc_health.v1 import health, health_pb2_grpc
from rgs import eventloop

async def main() -> None:
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    server.add_insecure_port(sys.argv[1])
    await server.start()
    print("serving", flush=True)
    await server.wait_for_termination()

eventloop.run(main(), sys.argv[2])  # the loop the benchmark runs on
"""

#: What one round of bench/service.py makes (16 players, 2026-12-01): player calls (Deal and
#: Acts), wallet calls (debit, credit), journal and wallet statements.
PER_ROUND = {"player_calls": 2.5, "wallet_calls": 1.9, "statements": 6.8 + 1.9}


def _p50(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


async def grpc_call_cost(calls: int) -> dict[str, float]:
    """CPU ms per empty unary call on each side, and its p50 latency, one call at a time."""
    address = f"127.0.0.1:{free_port()}"
    server = subprocess.Popen([sys.executable, "-c", SERVER, address,
                               eventloop.running_loop_name()], stdout=subprocess.PIPE,
                              env=os.environ.copy())
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != b"serving":
            raise SystemExit("the health server did not start")
        async with grpc.aio.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            request = health_pb2.HealthCheckRequest()
            for _ in range(200):  # connection, first-call costs
                await stub.Check(request)
            client0, server0 = time.process_time(), cpu_seconds(server.pid) or 0.0
            latencies = []
            for _ in range(calls):
                started = time.perf_counter()
                await stub.Check(request)
                latencies.append(time.perf_counter() - started)
            client1, server1 = time.process_time(), cpu_seconds(server.pid) or 0.0
    finally:
        server.kill()
        server.wait()
    return {"client_cpu_ms": round(1000 * (client1 - client0) / calls, 3),
            "server_cpu_ms": round(1000 * (server1 - server0) / calls, 3),
            "p50_ms": round(1000 * _p50(latencies), 3)}


async def statement_cost(statements: int) -> dict[str, float]:
    """CPU ms per one-row statement in the client and its PostgreSQL backend, and its p50."""
    choice = await devdb.resolve_server()
    conn = await asyncpg.connect(choice.url)
    try:
        backend = await conn.fetchval("SELECT pg_backend_pid()")
        for _ in range(200):
            await conn.fetchval("SELECT $1::int", 1)
        client0, server0 = time.process_time(), cpu_seconds(backend) or 0.0
        latencies = []
        for i in range(statements):
            started = time.perf_counter()
            await conn.fetchval("SELECT $1::int", i)
            latencies.append(time.perf_counter() - started)
        client1, server1 = time.process_time(), cpu_seconds(backend)
    finally:
        await conn.close()
    if server1 is None:  # a server elsewhere (DATABASE_URL): its CPU is not ours to read
        return {"client_cpu_ms": round(1000 * (client1 - client0) / statements, 3),
                "server_cpu_ms": float("nan"), "p50_ms": round(1000 * _p50(latencies), 3)}
    return {"client_cpu_ms": round(1000 * (client1 - client0) / statements, 3),
            "server_cpu_ms": round(1000 * (server1 - server0) / statements, 3),
            "p50_ms": round(1000 * _p50(latencies), 3)}


def floor_per_round(call: dict[str, float], statement: dict[str, float],
                    per_round: dict[str, float]) -> float:
    """CPU ms every process together spends per round on crossing the parts alone."""
    hop = call["client_cpu_ms"] + call["server_cpu_ms"]
    stmt = statement["client_cpu_ms"] + statement["server_cpu_ms"]
    return round((per_round["player_calls"] + per_round["wallet_calls"]) * hop
                 + per_round["statements"] * stmt, 3)


def process_floors(call: dict[str, float], statement: dict[str, float],
                   per_round: dict[str, float]) -> dict[str, float]:
    """CPU ms per round each process spends on its own share of the crossings alone, from the
    crossings a round made (``per_round``: ``player_calls`` served by the RGS and made by the
    clients, ``wallet_calls`` made by the RGS and served by the wallet, ``journal_statements``
    made by the RGS, ``wallet_statements`` made by the wallet; PostgreSQL serves both kinds):
    the floor under each process's own CPU per round, in ``bench/service.py``."""
    server, client = call["server_cpu_ms"], call["client_cpu_ms"]
    pg, sql_client = statement["server_cpu_ms"], statement["client_cpu_ms"]
    player, wallet = per_round["player_calls"], per_round["wallet_calls"]
    journal, ledger = per_round["journal_statements"], per_round["wallet_statements"]
    return {"rgs": round(player * server + wallet * client + journal * sql_client, 3),
            "wallet": round(wallet * server + ledger * sql_client, 3),
            "client": round(player * client, 3),
            "postgres": round((journal + ledger) * pg, 3)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """The measurements and the floor they give."""
    per_round = dict(PER_ROUND)
    for item in args.per_round or []:
        name, _, value = item.partition("=")
        if name not in per_round:
            raise SystemExit(f"--per-round {item}: name one of {', '.join(per_round)}")
        per_round[name] = float(value)
    call = await grpc_call_cost(args.calls)
    statement = await statement_cost(args.statements)
    floor = floor_per_round(call, statement, per_round)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"grpc_empty_unary": call, "postgres_one_row_statement": statement,
            "per_round": per_round, "floor_cpu_ms_per_round": floor,
            "cores": cores, "max_rounds_per_second": round(1000 * (cores or 1) / floor, 1),
            "event_loop": eventloop.running_loop_name(),
            "python": platform.python_version()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--statements", type=int, default=5000)
    parser.add_argument("--per-round", action="append", metavar="NAME=N",
                        help="override a round's player_calls, wallet_calls or statements")
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = eventloop.run(run(args), args.loop)  # the health server follows it too
    if args.json:
        print(json.dumps(result))
        return
    call, stmt = result["grpc_empty_unary"], result["postgres_one_row_statement"]
    print(f"machine: {result['cores']} CPUs, load average {os.getloadavg()[0]:.2f}, "
          f"Python {result['python']}, {result['event_loop']}")
    print(f"empty gRPC unary call:    client {call['client_cpu_ms']:.3f} + server "
          f"{call['server_cpu_ms']:.3f} CPU ms, p50 {call['p50_ms']:.3f} ms")
    print(f"one-row SQL statement:    client {stmt['client_cpu_ms']:.3f} + PostgreSQL "
          f"{stmt['server_cpu_ms']:.3f} CPU ms, p50 {stmt['p50_ms']:.3f} ms")
    pr, floor = result["per_round"], result["floor_cpu_ms_per_round"]
    print(f"a round ({pr['player_calls']:g} player calls, {pr['wallet_calls']:g} wallet calls, "
          f"{pr['statements']:g} statements) spends at least {floor:.2f} CPU ms crossing the "
          f"parts: at most {result['max_rounds_per_second']:,.0f} rounds/s on "
          f"{result['cores']} cores before any work of the product")


if __name__ == "__main__":
    main()
