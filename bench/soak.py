"""Soak: the production-shaped stack at a steady load with wallet faults switched on, for a long
time; does throughput, latency and memory hold, and does the outbox drain?

Run: ``.venv/bin/python bench/soak.py [--minutes 30] [--rate R] [--json]``. It starts the stack
of ``bench/service.py`` (sandbox wallet and ``rgs serve --workers N`` as processes of their own,
fresh databases), measures the peak for ``--peak-seconds`` unless ``--rate`` (rounds/s, all
players together) is given, and plays at half of that peak, every player paced, while the
sandbox wallet injects latency, errors and timeouts before and after applying (its control
API). Every ``--interval`` seconds it prints rounds/s, p50/p99 per RPC, errors and each
process's resident memory. At the end it switches the faults off, waits for the outbox to drain
to 0 (queried from the journal) and prints each process's memory growth after the warm-up.

Exit status: 0 when every process grew less than ``--max-growth`` percent after the warm-up
and the outbox drained; 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import Counter
from typing import Any

import grpc
from load import ClientPool, Window, percentile
from stack import Stack, production_stack, rss_bytes

from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

WALLET = (("authorization", "Bearer sandbox-wallet-dev-key"),)
#: (kind, method, probability, latency ms): a lively but survivable wallet. A timeout fault
#: sleeps past the RGS's wallet deadline, so the debit's outcome is unknown (rolled back) or the
#: credit stays open (retried by the next call or the reconciler).
FAULTS = (
    (sandbox_pb2.FAULT_KIND_LATENCY, sandbox_pb2.WALLET_METHOD_UNSPECIFIED, 0.05, 40),
    (sandbox_pb2.FAULT_KIND_ERROR, sandbox_pb2.WALLET_METHOD_DEBIT, 0.01, 0),
    (sandbox_pb2.FAULT_KIND_TIMEOUT_BEFORE_APPLY, sandbox_pb2.WALLET_METHOD_DEBIT, 0.002, 0),
    (sandbox_pb2.FAULT_KIND_TIMEOUT_AFTER_APPLY, sandbox_pb2.WALLET_METHOD_DEBIT, 0.002, 0),
    (sandbox_pb2.FAULT_KIND_TIMEOUT_AFTER_APPLY, sandbox_pb2.WALLET_METHOD_CREDIT, 0.004, 0),
    (sandbox_pb2.FAULT_KIND_ERROR, sandbox_pb2.WALLET_METHOD_CREDIT, 0.01, 0),
)
#: The RGS gives up on a wallet call after this long (a timeout fault sleeps just past it), and
#: its reconciler takes over open outbox rows this soon, so faults resolve within the run.
WALLET_TIMEOUT_S = 1.0
RGS_ENV = {"RGS_RECONCILE_INTERVAL_S": "2", "RGS_RECONCILE_MIN_AGE_S": "3",
           "RGS_RECONCILE_MAX_BACKOFF_S": "10"}


async def _faults(wallet: str, on: bool) -> None:
    async with grpc.aio.insecure_channel(wallet) as ch:
        control = sandbox_pb2_grpc.SandboxControlServiceStub(ch)
        await control.ClearFaults(sandbox_pb2.ClearFaultsRequest(), metadata=WALLET)
        if not on:
            return
        for kind, method, probability, latency in FAULTS:
            await control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
                kind=kind, method=method, probability=probability, latency_ms=latency,
                error_reason="WALLET_UNAVAILABLE" if kind == sandbox_pb2.FAULT_KIND_ERROR
                else "")), metadata=WALLET)


def _memory(stack: Stack, clients: ClientPool) -> dict[str, int]:
    """Resident bytes of each process, by a stable label."""
    procs = stack.processes()
    labels: dict[str, int] = {}
    rgs = procs.get("rgs", [])
    for i, pid in enumerate(rgs):
        labels[f"rgs[{pid}]" if i else "rgs supervisor" if len(rgs) > 1 else "rgs"] = pid
    for pid in procs.get("wallet", []):
        labels["wallet"] = pid
    for i, p in enumerate(clients.procs):
        labels[f"client {i}"] = p.pid
    return {label: rss for label, pid in labels.items() if (rss := rss_bytes(pid)) is not None}


async def _drain(stack: Stack, timeout_s: float) -> tuple[int, float]:
    """Wait until the journal's outbox is empty: (open rows at the end, seconds waited)."""
    t0 = time.monotonic()
    open_rows = await stack.outbox_open()
    while open_rows and time.monotonic() - t0 < timeout_s:
        await asyncio.sleep(1)
        open_rows = await stack.outbox_open()
    return open_rows, time.monotonic() - t0


async def _peak(stack: Stack, args: argparse.Namespace) -> float:
    clients = ClientPool(rgs=stack.rgs, wallet=stack.wallet, players=args.players,
                         procs=args.client_procs)
    await clients.start()
    try:
        total = await clients.play(args.peak_seconds, args.peak_seconds)
    finally:
        await clients.stop()
    return total.rounds / args.peak_seconds


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """The soak; its figures and verdict."""
    async with production_stack(rgs_workers=args.rgs_workers, rgs_env=RGS_ENV,
                                wallet_timeout_s=WALLET_TIMEOUT_S) as stack:
        peak = args.rate * 2 if args.rate else await _peak(stack, args)
        rate = peak / 2
        print(f"soak: {args.minutes:g} min at {rate:.1f} rounds/s (half of peak {peak:.1f}), "
              f"{args.players} players, faults {'on' if args.faults else 'off'}", flush=True)
        await _faults(stack.wallet, args.faults)
        clients = ClientPool(rgs=stack.rgs, wallet=stack.wallet, players=args.players,
                             procs=args.client_procs, rate=rate / args.players)
        await clients.start()
        rows: list[dict[str, Any]] = []
        errors: Counter[str] = Counter()
        started = time.monotonic()
        previous = [started]

        def report(window: Window) -> None:
            now = time.monotonic()
            elapsed, span = now - started, max(now - previous[0], 1e-3)
            previous[0] = now
            errors.update(window.errors)
            if span < args.interval / 2:  # the rounds players finish after the end: no interval
                return
            row = {"minute": round(elapsed / 60, 2),
                   "rounds_per_second": round(window.rounds / span, 1),
                   "latency_ms": {n: {"p50": round(percentile(xs, 0.5), 2),
                                      "p99": round(percentile(xs, 0.99), 2)}
                                  for n, xs in sorted(window.latencies.items())},
                   "errors": dict(window.errors),
                   "rss_mb": {k: round(v / 2**20, 1) for k, v in _memory(stack, clients).items()}}
            rows.append(row)
            if not args.json:
                lat = " ".join(f"{n} p50 {s['p50']:.1f} p99 {s['p99']:.1f}"
                               for n, s in row["latency_ms"].items())
                rss = " ".join(f"{k} {v:.0f}" for k, v in row["rss_mb"].items())
                print(f"[{row['minute']:6.2f} min] {row['rounds_per_second']:7.1f} rounds/s | "
                      f"{lat} ms | errors {sum(window.errors.values())} | RSS MB: {rss}",
                      flush=True)

        try:
            await clients.play(args.minutes * 60, args.interval, report)
        finally:
            await clients.stop()
        await _faults(stack.wallet, False)
        open_rows, waited = await _drain(stack, args.drain_seconds)
    warm = max(1, round(args.warmup_minutes * 60 / args.interval))
    base = rows[min(warm, len(rows)) - 1]["rss_mb"]
    last = rows[-1]["rss_mb"]
    growth = {k: round(100 * (last[k] - v) / v, 1) for k, v in base.items() if k in last and v}
    ok = open_rows == 0 and all(g <= args.max_growth for g in growth.values())
    return {"minutes": args.minutes, "rate": round(rate, 1), "peak": round(peak, 1),
            "faults": args.faults, "intervals": rows, "errors": dict(errors),
            "memory_growth_percent": growth,
            "outbox_open_at_end": open_rows, "drain_seconds": round(waited, 1), "ok": ok,
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=None,
                        help="rounds/s of all players together (default: half the peak "
                        "measured first)")
    parser.add_argument("--peak-seconds", type=float, default=20.0)
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--rgs-workers", type=int, default=1)
    parser.add_argument("--interval", type=float, default=60.0, help="seconds per report")
    parser.add_argument("--warmup-minutes", type=float, default=5.0,
                        help="memory growth is measured from the end of this")
    parser.add_argument("--max-growth", type=float, default=10.0, help="percent")
    parser.add_argument("--drain-seconds", type=float, default=120.0)
    parser.add_argument("--no-faults", dest="faults", action="store_false")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
    else:
        print(f"client-side errors (each retried or resumed): {result['errors']}")
        print("memory growth after warm-up (%): " + ", ".join(
            f"{k} {v:+.1f}" for k, v in result["memory_growth_percent"].items()))
        print(f"outbox open at the end: {result['outbox_open_at_end']} "
              f"(drained in {result['drain_seconds']} s after the faults stopped)")
        print("PASS" if result["ok"] else "FAIL")
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()
