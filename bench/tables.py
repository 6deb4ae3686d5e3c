"""Shared tables under load: N tables x 7 seated players on two RGS replicas, with a watcher of
every table on each replica. Prints rounds/s, the time from the last Deal Now to the first card
a watcher sees, and the fan-out latency (a bet's command sent -> its event seen by a watcher on
each replica) p50/p99.

    .venv/bin/python bench/tables.py --tables 4 --seconds 30 [--json]

Starts its own processes (a sandbox wallet, two ``rgs serve`` replicas) on fresh databases of
the local (or embedded) PostgreSQL and drops them at the end. Figures only: nothing asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
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
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.migrate import migrate
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

SEATS = 7


def _platform(directory: Path, wallet: str, tables: int) -> Path:
    path = directory / "platform.json"
    path.write_text(json.dumps({
        "operators": [{
            "id": "dev-operator",
            "wallet": {"kind": "grpc", "address": wallet, "api_key": {"env": WALLET_KEY_ENV}},
            "brands": [{"id": "demo-casino", "currencies": {"EUR": {}},
                        "variants": {"vip-platinum": {}}}]}],
        "tables": [{"id": f"bench-{i}", "variant": "vip-platinum", "seats": SEATS,
                    "currency": "EUR", "brands": ["demo-casino"], "betting_s": 5,
                    "decision_s": 5} for i in range(tables)]}))
    return path


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class Figures:
    def __init__(self) -> None:
        self.rounds = 0
        self.bet_sent: dict[tuple[str, int, int], float] = {}
        self.fanout_ms: list[float] = []
        self.last_deal_now: dict[tuple[str, int], float] = {}
        self.first_card_ms: list[float] = []


async def _watch(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any, table_id: str, *,
                 figs: Figures, stop: asyncio.Event, count_rounds: bool) -> None:
    call = stub.WatchTable(tb.WatchTableRequest(table_id=table_id), metadata=md)
    round_no = 0
    seen_card = False
    with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
        async for item in call:
            now = time.perf_counter()
            if stop.is_set():
                break
            if not item.HasField("event"):
                continue
            e = item.event
            data = json.loads(e.payload_json)
            if e.kind == "betting_opened":
                round_no, seen_card = data["round_no"], False
            elif e.kind == "bet_placed":
                sent = figs.bet_sent.get((table_id, round_no, data["seat"]))
                if sent is not None:
                    figs.fanout_ms.append((now - sent) * 1000)
            elif e.kind == "card_dealt" and not seen_card:
                seen_card = True
                pressed = figs.last_deal_now.get((table_id, round_no))
                if pressed is not None:
                    figs.first_card_ms.append((now - pressed) * 1000)
            elif e.kind == "round_finished" and count_rounds:
                figs.rounds += 1
    call.cancel()


async def _player(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any, table_id: str, *,
                  seat: int, figs: Figures, stop: asyncio.Event) -> None:
    n = 0
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=table_id, seat=seat),
                        metadata=md)
    while not stop.is_set():
        n += 1
        try:
            snap = json.loads((await stub.PlaceBets(tb.PlaceBetsRequest(
                request_id=f"b{n}", table_id=table_id, bets=[tb.Bet(seat=seat, stake=100)]),
                metadata=md)).result.snapshot.state_json)
            figs.bet_sent.setdefault((table_id, snap["round_no"], seat), time.perf_counter())
            # A bet sent before PlaceBets answered is timed from its answer: a lower bound.
            await stub.DealNow(tb.DealNowRequest(request_id=f"d{n}", table_id=table_id),
                               metadata=md)
            figs.last_deal_now[(table_id, snap["round_no"])] = time.perf_counter()
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in (grpc.StatusCode.FAILED_PRECONDITION,
                                  grpc.StatusCode.ABORTED):
                raise
            await asyncio.sleep(0.05)
            continue
        # Play: stand whenever this seat's hand is due, until the round is over.
        while not stop.is_set():
            call = stub.WatchTable(tb.WatchTableRequest(table_id=table_id), metadata=md)
            done = False
            async for item in call:
                if item.HasField("snapshot"):
                    s = json.loads(item.snapshot.state_json)
                    if s["phase"] in ("idle", "betting"):
                        done = s["round_no"] > snap["round_no"] or s["phase"] == "idle"
                        break
                    view = s["round"] or {}
                    to_act = view.get("to_act")
                    if s["phase"] == "playing" and to_act and to_act[0] == seat:
                        with contextlib.suppress(grpc.aio.AioRpcError):
                            await stub.Act(tb.ActRequest(
                                request_id=f"a{n}-{s['seq']}", table_id=table_id,
                                round_id=s["round_id"], seat=seat, hand=to_act[1],
                                action="stand"), metadata=md)
                    break
            call.cancel()
            if done:
                break
            await asyncio.sleep(0.05)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    say = (lambda *_: None) if args.json else (lambda *a: print(*a, file=sys.stderr))
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
    replicas = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    platform = _platform(config, wallet, args.tables)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        say(f"starting a wallet and 2 replicas with {args.tables} tables ...")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "sandbox_wallet", "--listen", wallet, "--database-url",
             wallet_url], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=ROOT,
            env=_env({})))
        await wait_serving(wallet, procs[-1])
        for target in replicas:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "rgs", "serve"], stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT, cwd=ROOT,
                env=_env({"RGS_LISTEN": target, "RGS_DATABASE_URL": journal_url,
                          "RGS_PLATFORM_FILE": str(platform), WALLET_KEY_ENV: WALLET_KEY})))
            await wait_serving(target, procs[-1])
        channels = [grpc.aio.insecure_channel(t) for t in replicas]
        stubs = [table_pb2_grpc.TableServiceStub(c) for c in channels]
        operator = operator_pb2_grpc.OperatorServiceStub(channels[0])
        wch = grpc.aio.insecure_channel(wallet)
        control = sandbox_pb2_grpc.SandboxControlServiceStub(wch)
        wauth = (("authorization", f"Bearer {WALLET_KEY}"),)
        oauth = (("authorization", f"Bearer {OPERATOR_KEY}"),)
        figs, stop = Figures(), asyncio.Event()
        tasks = []
        for t in range(args.tables):
            tid = f"bench-{t}"
            for seat in range(1, SEATS + 1):
                pid = f"bench-{t}-{seat}"
                await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(
                    player=sandbox_pb2.Player(player_id=pid, currency="EUR",
                                              balance=10**9)), metadata=wauth)
                s = await operator.CreateSession(op.CreateSessionRequest(
                    request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid),
                    metadata=oauth)
                md = (("authorization", f"Bearer {s.session_token}"),)
                if seat == 1:
                    for i, stub in enumerate(stubs):
                        tasks.append(asyncio.create_task(
                            _watch(stub, md, tid, figs=figs, stop=stop, count_rounds=i == 0)))
                tasks.append(asyncio.create_task(
                    _player(stubs[(t + seat) % 2], md, tid, seat=seat, figs=figs, stop=stop)))
        say(f"{args.tables} tables x {SEATS} players, watchers on both replicas; "
            f"{args.seconds:.0f} s ...")
        await asyncio.sleep(args.seconds)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        out = {"tables": args.tables, "players": args.tables * SEATS, "seconds": args.seconds,
               "rounds": figs.rounds, "rounds_per_s": round(figs.rounds / args.seconds, 2),
               "deal_now_to_first_card_ms": {
                   "p50": round(_pct(figs.first_card_ms, 0.5), 1),
                   "p99": round(_pct(figs.first_card_ms, 0.99), 1),
                   "n": len(figs.first_card_ms)},
               "fanout_ms": {"p50": round(_pct(figs.fanout_ms, 0.5), 1),
                             "p99": round(_pct(figs.fanout_ms, 0.99), 1),
                             "mean": round(statistics.fmean(figs.fanout_ms), 1)
                             if figs.fanout_ms else None,
                             "n": len(figs.fanout_ms)}}
        if args.json:
            print(json.dumps(out))
        else:
            print(f"rounds: {out['rounds']} in {args.seconds:.0f} s = {out['rounds_per_s']}/s")
            print(f"last Deal Now -> first card at a watcher: p50 "
                  f"{out['deal_now_to_first_card_ms']['p50']} ms, p99 "
                  f"{out['deal_now_to_first_card_ms']['p99']} ms")
            print(f"fan-out (bet answered -> seen by watchers on both replicas): p50 "
                  f"{out['fanout_ms']['p50']} ms, p99 {out['fanout_ms']['p99']} ms "
                  f"(n={out['fanout_ms']['n']})")
        for c in (*channels, wch):
            await c.close()
    finally:
        for p in reversed(procs):
            _stop(p)
        shutil.rmtree(config, ignore_errors=True)
        for name in (journal_db, wallet_db):
            await devdb.drop_database(server, name)


if __name__ == "__main__":
    asyncio.run(main())
