"""Service throughput: N concurrent simulated players play complete rounds over gRPC against the
RGS, the sandbox wallet and PostgreSQL; prints rounds/s and p50/p99 latency per RPC, the
single-row upsert rate of the same PostgreSQL measured in the same run and the ratio of the two
(rounds per 100 upserts: the figure that survives a change of machine), the processes of each
side and the CPU each used during the run; then ``bench/floor.py``'s measurements of the parts
(an empty gRPC call, a one-row statement) in the same run, and per process (RGS, wallet,
clients, PostgreSQL) the CPU per round against its own floor: its share of the round's
crossings (player calls served, wallet calls made and served, statements made and served)
times what each costs.

Run: ``.venv/bin/python bench/service.py [--players 16] [--seconds 20] [--rate R]
[--rgs-workers 1] [--client-procs 2] [--json]``; ``--rate`` paces the players to R rounds/s
together (half of a flat-out run's rounds/s gives the latency at half of peak).
By default it starts the production shape (``bench/stack.py``):
the sandbox wallet and the RGS (``rgs serve --workers N``) as processes of their own on fresh
databases of the local (or DATABASE_URL's, or embedded) PostgreSQL, and drives them from
``--client-procs`` client processes (``bench/load.py``). ``--shape sandbox`` runs the earlier
single-process ``rgs sandbox`` instead; ``--rgs``/``--wallet`` point at running servers.
``--profile FILE`` records the first RGS worker with py-spy during the run (raw format; read it
with ``bench/profile_top.py``). Every loop is bounded in time; traffic stays on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from floor import process_floors
from load import ClientPool, percentile
from stack import Stack, cpu_seconds, production_stack, sandbox_stack

from rgs import devdb


@contextlib.asynccontextmanager
async def _given(rgs: str, wallet: str) -> AsyncIterator[Stack]:
    choice = await devdb.resolve_server()
    url = choice.url if choice.source == "env" else devdb.database_url(choice.url, "rgs_sandbox")
    yield Stack(rgs=rgs, wallet=wallet, shape="given", server_url=choice.url, journal_url=url,
                wallet_url=url)


def _profile(pid: int, out: Path, seconds: float) -> subprocess.Popen[bytes] | None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("py-spy is not installed (bash .ci/setup installs it): no profile", file=sys.stderr)
        return None
    return subprocess.Popen([spy, "record", "--pid", str(pid), "--duration", str(int(seconds)),
                             "--rate", "100", "--format", "raw", "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _cpu(pids: dict[str, list[int]]) -> dict[str, dict[int, float | None]]:
    return {side: {p: cpu_seconds(p) for p in ps} for side, ps in pids.items()}


def _usage(before: dict[str, dict[int, float | None]], after: dict[str, dict[int, float | None]],
           elapsed: float) -> dict[str, list[float]]:
    """CPU% of each process of each side over the run (100 = one core)."""
    out: dict[str, list[float]] = {}
    for side, procs in before.items():
        out[side] = []
        for pid, start in procs.items():
            end = after.get(side, {}).get(pid)
            if start is not None and end is not None:
                out[side].append(round(100 * (end - start) / elapsed, 1))
    return out


def _parts(calls: int, statements: int) -> dict[str, Any]:
    """``bench/floor.py``'s measurements (an empty gRPC call, a one-row statement), in a
    process of its own on the product's event loop."""
    out = subprocess.run([sys.executable, str(Path(__file__).with_name("floor.py")), "--json",
                          "--calls", str(calls), "--statements", str(statements)],
                         capture_output=True, check=True, timeout=600)
    parts: dict[str, Any] = json.loads(out.stdout)
    return parts


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """One benchmark run; its figures."""
    if args.rgs:
        stack_cm = _given(args.rgs, args.wallet)
    elif args.shape == "sandbox":
        stack_cm = sandbox_stack()
    else:
        env = {"RGS_DATABASE_POOL_SIZE": str(args.pool_size)} if args.pool_size else {}
        env.update(item.partition("=")[::2] for item in args.rgs_env or [])
        stack_cm = production_stack(rgs_workers=args.rgs_workers, rgs_env=env)
    async with stack_cm as stack:
        # --rate R: the players together start at most R rounds/s, each paced at R/players
        # (bench/load.py), so latency can be read at a load below the peak.
        clients = ClientPool(rgs=stack.rgs, wallet=stack.wallet, players=args.players,
                             procs=args.client_procs,
                             rate=args.rate / args.players if args.rate else None)
        await clients.start()
        try:
            pids = stack.processes()
            pids["client"] = [p.pid for p in clients.procs]
            pids["bench"] = [os.getpid()]
            pids["postgres"] = await stack.postgres_backends()
            spy = None
            if args.profile and "rgs" in pids:
                workers = pids["rgs"][1:] or pids["rgs"][:1]
                spy = _profile(workers[0], args.profile, max(1.0, args.seconds - 4))
            tx_before = await stack.transactions()
            moves_before = await stack.wallet_moves() if stack.shape == "production" else 0
            before, t0 = _cpu(pids), time.monotonic()
            total = await clients.play(args.seconds, args.seconds)
            elapsed = time.monotonic() - t0
            usage = _usage(before, _cpu(pids), elapsed)
            # PostgreSQL reports statistics after a short delay (stats flush, ~1 s).
            await asyncio.sleep(1.5)
            tx_after = await stack.transactions()
            moves = (await stack.wallet_moves() - moves_before
                     if stack.shape == "production" else 0)
            if spy is not None:
                spy.wait(timeout=60)
            upsert_rate = await clients.upserts(stack.journal_url, args.players,
                                                min(10.0, args.seconds))
        finally:
            await clients.stop()
        # What the parts cost now, on the same machine at the same hour (the stack idle).
        parts = _parts(args.floor_calls, args.floor_statements)
    rounds = total.rounds
    tx = ({k: round((tx_after[k] - tx_before[k]) / max(rounds, 1), 2) for k in tx_after}
          if stack.shape == "production" else {})
    cpu_ms = {side: round(sum(pcts) * 10 / max(rounds / elapsed, 1e-9), 2)
              for side, pcts in usage.items()}
    crossings = {
        "player_calls": round((sum(len(xs) for xs in total.latencies.values())
                               + sum(total.errors.values())) / max(rounds, 1), 2),
        "wallet_calls": round(moves / max(rounds, 1), 2),
        "journal_statements": tx.get("journal", 0.0), "wallet_statements": tx.get("wallet", 0.0)}
    floors = (process_floors(parts["grpc_empty_unary"], parts["postgres_one_row_statement"],
                             crossings) if tx else {})
    return {
        "shape": stack.shape, "players": args.players, "seconds": round(elapsed, 1),
        "rate": args.rate or None, "rgs_env": args.rgs_env or [],
        "rounds": rounds, "rounds_per_second": round(rounds / elapsed, 1),
        "errors": dict(total.errors),
        "latency_ms": {name: {"calls": len(xs), "p50": round(percentile(xs, 0.5), 2),
                              "p99": round(percentile(xs, 0.99), 2),
                              "mean": round(statistics.fmean(xs) * 1000, 2)}
                       for name, xs in sorted(total.latencies.items())},
        "db_transactions_per_round": tx,
        "crossings_per_round": crossings if tx else {},
        "upserts_per_second": round(upsert_rate),
        "rounds_per_100_upserts": round(rounds / elapsed / upsert_rate * 100, 2),
        "processes": {side: len(ps) for side, ps in pids.items()},
        "cpu_percent": usage,
        # CPU time each side spends per round: what a change of code moves, far less bent by
        # other work on the machine than rounds/s.
        "cpu_ms_per_round": cpu_ms,
        # Each process's own share of the crossings' cost (bench/floor.py, measured in this
        # run), and how many times that its CPU per round is: what the product adds.
        "parts": parts,
        "floor_cpu_ms_per_round": floors,
        "cpu_to_floor": {side: round(cpu_ms[side] / f, 2) for side, f in floors.items()
                         if f > 0 and side in cpu_ms},
        "machine": {"cpus": os.cpu_count(), "load_average": [round(x, 2)
                                                            for x in os.getloadavg()],
                    "python": platform.python_version()},
    }


def _print(r: dict[str, Any]) -> None:
    paced = f" paced at {r['rate']} rounds/s" if r["rate"] else ""
    paced += f" RGS settings {' '.join(r['rgs_env'])}" if r["rgs_env"] else ""
    print(f"shape={r['shape']} players={r['players']}{paced} seconds={r['seconds']} "
          f"rounds={r['rounds']} rounds/s={r['rounds_per_second']} errors={r['errors']}")
    for name, s in r["latency_ms"].items():
        print(f"  {name:<8} calls={s['calls']:>6} p50={s['p50']:7.2f} ms "
              f"p99={s['p99']:7.2f} ms mean={s['mean']:7.2f} ms")
    print(f"postgres single-row upserts/s ({r['players']} connections, asyncpg, same run) = "
          f"{r['upserts_per_second']}")
    print(f"ratio: {r['rounds_per_100_upserts']:.2f} rounds per 100 upserts")
    if r["db_transactions_per_round"]:
        print("database transactions (≈ statements) per round: " + ", ".join(
            f"{k} {v}" for k, v in r["db_transactions_per_round"].items()))
        c = r["crossings_per_round"]
        print(f"crossings per round: {c['player_calls']} player calls, {c['wallet_calls']} "
              f"wallet calls, {c['journal_statements']} journal and {c['wallet_statements']} "
              f"wallet statements")
    call, stmt = r["parts"]["grpc_empty_unary"], r["parts"]["postgres_one_row_statement"]
    print(f"parts (bench/floor.py, this run): empty gRPC call client {call['client_cpu_ms']:.3f}"
          f" + server {call['server_cpu_ms']:.3f} CPU ms; one-row statement client "
          f"{stmt['client_cpu_ms']:.3f} + PostgreSQL {stmt['server_cpu_ms']:.3f} CPU ms")
    for side, pcts in r["cpu_percent"].items():
        floor = r["floor_cpu_ms_per_round"].get(side)
        against = ("" if floor is None else f"; floor {floor:.2f}, "
                   f"{r['cpu_to_floor'].get(side, float('nan')):.2f}x")
        print(f"  {side:<9} {len(pcts)} processes, CPU% (100 = one core): "
              f"{' '.join(f'{p:.0f}' for p in pcts)} (sum {sum(pcts):.0f}; "
              f"{r['cpu_ms_per_round'][side]:.2f} CPU ms per round{against})")
    m = r["machine"]
    print(f"machine: {m['cpus']} CPUs, load average {m['load_average']}, Python {m['python']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=0.0,
                        help="rounds/s the players start together at most (default: flat out); "
                             "half of a run's peak gives the half-peak latency")
    parser.add_argument("--rgs-workers", type=int, default=1, help="rgs serve --workers")
    parser.add_argument("--client-procs", type=int, default=2,
                        help="client processes the players are spread over")
    parser.add_argument("--pool-size", type=int, default=0,
                        help="RGS_DATABASE_POOL_SIZE per worker (default: the setting's)")
    parser.add_argument("--rgs-env", action="append", metavar="RGS_NAME=VALUE",
                        help="a setting of the RGS process (repeatable), e.g. "
                             "RGS_DATABASE_PREVIOUS_RELEASE_LOCK=false")
    parser.add_argument("--shape", choices=("production", "sandbox"), default="production",
                        help="separate processes and databases (default) or rgs sandbox")
    parser.add_argument("--rgs", help="host:port of a running RGS (default: start one)")
    parser.add_argument("--wallet", help="host:port of its sandbox wallet")
    parser.add_argument("--profile", type=Path, help="py-spy raw profile of one RGS worker")
    parser.add_argument("--floor-calls", type=int, default=2000,
                        help="empty gRPC calls bench/floor.py times after the run")
    parser.add_argument("--floor-statements", type=int, default=3000,
                        help="one-row statements bench/floor.py times after the run")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    if bool(args.rgs) != bool(args.wallet):
        parser.error("--rgs and --wallet go together")
    if args.rate < 0 or args.players < 1:
        parser.error("--rate must not be negative and --players must be at least 1")
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
    else:
        _print(result)


if __name__ == "__main__":
    main()
