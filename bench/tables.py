"""Shared tables as players use them.

    .venv/bin/python bench/tables.py [--seated 7] [--behind 100] [--watchers 2] [--rounds 3]
        [--operators 2] [--client-procs 1] [--spread-s 0] [--kill-clock-at-settlement]
        [--insurance] [--json]
    .venv/bin/python bench/tables.py --scene burst [--seated 7] [--behind 100] [--rounds 3]
    .venv/bin/python bench/tables.py --scene rounds --tables 2 --seconds 20 [--json]

``crowd`` (the default, ``table_crowd.py``): one VIP table of two operators (each with its own
sandbox wallet) on two replicas; ``--seated`` players in the seats, ``--behind`` Bet Behind
players with mixed presets and ``--watchers`` watch streams in ``--client-procs`` processes.
Per round: PlaceBets latency and errors by reason (retried refusals apart), fan-out to every
watcher, last Deal Now -> first card, settlement -> the last credit in the wallets, each
process's CPU per round, and every wallet against the table's stakes and wins afterwards.

``burst`` (the earlier scene): the same table with one operator, every PlaceBets sent at the
same instant from this process, a watcher per replica; placed / refused by reason and p50/p99
per command, fan-out, journal transactions and RGS CPU per bet; ``--insurance`` forces a
dealer's ace (test mode) and every seat decides insurance at once. Its fan-out covers the seat
bets (a Bet Behind is shown only to its own player) and its wallet check holds each player's
balance to the stakes and payouts of the operator's GetTableRound of each round.
``--behind-in-state`` puts Bet Behinds into the table's state (RGS_TABLE_BEHIND_ROWS=false), as
before issue 27.

``rounds``: N tables x 7 seated players playing rounds flat out (the earlier throughput
figure): rounds/s, last Deal Now -> first card, fan-out.

Starts its own processes on fresh databases of the local (or embedded) PostgreSQL and drops
them at the end. Figures only: nothing asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from table_stack import OPERATOR_AUTH, SEATS, Player, TableStack, pct, snapshot, table_stack

from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc

START = 10**9
STAKE = 1000
TABLE = "bench-0"


def _reason(exc: grpc.aio.AioRpcError) -> str:
    """The status code and ErrorInfo reason of a refusal."""
    for key, value in exc.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    return f"{exc.code().name} {info.reason}"
    return exc.code().name


@dataclass
class Command:
    """One kind of command's figures."""

    ms: list[float] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)

    def figures(self) -> dict[str, Any]:
        return {"n": len(self.ms), "outcomes": dict(self.outcomes),
                "p50_ms": round(pct(self.ms, 0.5), 1), "p99_ms": round(pct(self.ms, 0.99), 1),
                "max_ms": round(max(self.ms), 1) if self.ms else None}


@dataclass
class Scene:
    commands: dict[str, Command] = field(default_factory=dict)
    answered_at: dict[tuple[int, str], float] = field(default_factory=dict)
    fanout_ms: list[float] = field(default_factory=list)
    first_card_ms: list[float] = field(default_factory=list)
    last_deal_now: dict[int, float] = field(default_factory=dict)
    #: player id -> (staked, paid) the table announced in round_finished.
    money: dict[str, list[int]] = field(default_factory=dict)
    rounds_finished: int = 0
    #: The rounds finished (a watcher's round_finished lists the seated players and its own:
    #: everyone's money is read from the operator's GetTableRound).
    round_ids: list[str] = field(default_factory=list)

    async def timed(self, name: str, call: Any) -> Any:
        cmd = self.commands.setdefault(name, Command())
        t0 = time.perf_counter()
        try:
            out = await call
        except grpc.aio.AioRpcError as exc:
            cmd.ms.append((time.perf_counter() - t0) * 1000)
            cmd.outcomes[_reason(exc)] += 1
            return None
        cmd.ms.append((time.perf_counter() - t0) * 1000)
        cmd.outcomes["OK"] += 1
        return out


class Watcher:
    """A watcher on one replica: records when it sees each bet and the round's progress."""

    def __init__(self, scene: Scene, stub: table_pb2_grpc.TableServiceAsyncStub, md: Any,
                 replicas: int, *, driver: bool) -> None:
        self.scene, self.stub, self.md = scene, stub, md
        self.replicas, self.driver = replicas, driver
        self.seen: dict[tuple[int, str], int] = scene.__dict__.setdefault("_seen", {})
        self.round_no = 0
        self.card_seen = False
        self.events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.ready = asyncio.Event()

    async def run(self) -> None:
        call = self.stub.WatchTable(tb.WatchTableRequest(table_id=TABLE), metadata=self.md)
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
            async for item in call:
                now = time.perf_counter()
                if item.HasField("snapshot"):
                    self.round_no = item.snapshot.round_no
                    self.ready.set()
                    continue
                kind = item.event.WhichOneof("event") or ""
                data = getattr(item.event, kind) if kind else None
                if kind == "betting_opened":
                    self.round_no, self.card_seen = data.round_no, False
                elif kind in ("bet_placed", "behind_placed"):
                    # bench players' nicknames are their ids (table_stack.player)
                    key = (self.round_no, f"{kind}:{data.seat}:{data.player.display_name}")
                    self.seen[key] = self.seen.get(key, 0) + 1
                    sent = self.scene.answered_at.get(key)
                    if self.seen[key] == self.replicas and sent is not None:
                        self.scene.fanout_ms.append(max(0.0, now - sent) * 1000)
                elif kind == "card_dealt" and not self.card_seen:
                    self.card_seen = True
                    pressed = self.scene.last_deal_now.get(self.round_no)
                    if pressed is not None and self.driver:
                        self.scene.first_card_ms.append((now - pressed) * 1000)
                elif kind == "round_finished" and self.driver:
                    self.scene.rounds_finished += 1
                    self.scene.round_ids.append(data.round_id)
                if self.driver:
                    self.events.put_nowait((kind, data))
        call.cancel()


async def _at_once(calls: list[Any]) -> list[Any]:
    """Start every call in the same loop turn (each coroutine only sends when it runs)."""
    return await asyncio.gather(*calls)


async def _bets(scene: Scene, seated: list[Player], behind: list[Player], round_no: int
                ) -> None:
    def key(kind: str, seat: int, p: Player) -> tuple[int, str]:
        return (round_no, f"{kind}:{seat}:{p.player_id}")

    async def bet(p: Player, seat: int, is_behind: bool) -> None:
        r = await scene.timed("PlaceBets", p.stub.PlaceBets(tb.PlaceBetsRequest(
            request_id=f"b{round_no}-{p.player_id}", table_id=TABLE,
            bets=[tb.Bet(seat=seat, stake=STAKE, behind=is_behind,
                         insurance=tb.BEHIND_INSURANCE_NEVER)]), metadata=p.md, timeout=30))
        if r is not None:
            scene.answered_at[key("behind_placed" if is_behind else "bet_placed", seat, p)] = (
                time.perf_counter())

    calls = [bet(p, i + 1, False) for i, p in enumerate(seated)]
    calls += [bet(p, 1 + i % len(seated), True) for i, p in enumerate(behind)]
    await _at_once(calls)


#: Insurance rounds (test mode): each seat's two cards (17 to 19), the dealer's ace and 9.
FIRST = ["TS", "TH", "TD", "TC", "9S", "9H", "9D"]
SECOND = ["7S", "7H", "8D", "8C", "TC", "9C", "TH"]


async def _round(scene: Scene, driver: Watcher, seated: list[Player], behind: list[Player],
                 round_no: int, *, insurance: bool) -> bool:
    """One round; False when it did not finish within two minutes."""
    await _bets(scene, seated, behind, round_no)
    n = len(seated)
    forced = [*FIRST[:n], "AS", *SECOND[:n], "9C"] if insurance else []

    async def deal_now(i: int, p: Player) -> None:
        await scene.timed("DealNow", p.stub.DealNow(tb.DealNowRequest(
            request_id=f"d{round_no}-{p.player_id}", table_id=TABLE,
            forced_cards=forced if i == 0 else []), metadata=p.md, timeout=30))
        scene.last_deal_now[round_no] = time.perf_counter()

    await _at_once([deal_now(i, p) for i, p in enumerate(seated)])
    by_seat = {i + 1: p for i, p in enumerate(seated)}
    deadline = time.monotonic() + 120
    decided_insurance = False
    while time.monotonic() < deadline:
        try:
            kind, data = await asyncio.wait_for(driver.events.get(), 1.0)
        except TimeoutError:
            kind, data = "", None
        if insurance and not decided_insurance:
            snap = await snapshot(seated[0], TABLE)
            if snap.phase == tb.TABLE_PHASE_INSURANCE and snap.round_no == round_no:
                decided_insurance = True
                await _at_once([scene.timed("DecideInsurance", p.stub.DecideInsurance(
                    tb.DecideInsuranceRequest(request_id=f"i{round_no}-{p.player_id}",
                                              table_id=TABLE, round_id=snap.round_id,
                                              seat=seat, take=True),
                    metadata=p.md, timeout=30)) for seat, p in by_seat.items()])
        if kind == "decision_due":
            p = by_seat[data.seat]
            snap = await snapshot(p, TABLE)
            await scene.timed("Act", p.stub.Act(tb.ActRequest(
                request_id=f"a{round_no}-{snap.seq}", table_id=TABLE,
                round_id=snap.round_id, seat=data.seat, hand=data.hand,
                action="stand"), metadata=p.md, timeout=30))
        elif kind == "round_finished":
            return True
    return False


async def _wallets(t: TableStack, scene: Scene, players: list[Player]) -> dict[str, Any]:
    """Each player's wallet balance against what the table announced (waits for the payments
    and refunds the table sends after its commits)."""
    for rid in scene.round_ids:  # every player's stakes and payouts, as the operator sees them
        rec = await t.stubs[0].GetTableRound(tb.GetTableRoundRequest(
            table_id=TABLE, round_id=rid), metadata=OPERATOR_AUTH)
        for share in rec.players:
            m = scene.money.setdefault(share.player_id, [0, 0])
            m[0] += share.staked
            m[1] += share.paid
    deadline = time.monotonic() + 60
    while True:
        wrong = []
        for p in players:
            staked, paid = scene.money.get(p.player_id, [0, 0])
            got = await t.balance(p.player_id)
            if got != START - staked + paid:
                wrong.append((p.player_id, got - (START - staked + paid)))
        if not wrong or time.monotonic() > deadline:
            return {"players": len(players), "exact": len(players) - len(wrong),
                    "off": wrong[:10]}
        await asyncio.sleep(0.5)


def _profile(pid: int, out: Path) -> subprocess.Popen[bytes]:
    """py-spy on the first replica for the scene (raw format: bench/profile_top.py reads it)."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    return subprocess.Popen([spy, "record", "--pid", str(pid), "--rate", "200", "--format",
                             "raw", "-o", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


async def burst(args: argparse.Namespace, say: Any) -> dict[str, Any]:
    env = {"RGS_TEST_MODE": "1"} if args.insurance else {}
    if args.behind_in_state:  # the release before issue 27's rows, for comparison
        env["RGS_TABLE_BEHIND_ROWS"] = "false"
    if args.pool_size:
        env["RGS_DATABASE_POOL_SIZE"] = str(args.pool_size)
    async with table_stack(tables=1, replicas=args.replicas, betting_s=args.betting_s,
                           decision_s=10, rgs_env=env, say=say) as t:
        seated = [await t.player(f"seat-{i + 1}", i, balance=START) for i in range(args.seated)]
        behind = [await t.player(f"behind-{i + 1}", i, balance=START)
                  for i in range(args.behind)]
        for i, p in enumerate(seated):
            await p.stub.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=TABLE,
                                                     seat=i + 1), metadata=p.md)
        scene = Scene()
        watchers = [Watcher(scene, stub, seated[0].md, len(t.stubs), driver=i == 0)
                    for i, stub in enumerate(t.stubs)]
        tasks = [asyncio.create_task(w.run()) for w in watchers]
        for w in watchers:
            await asyncio.wait_for(w.ready.wait(), 30)
        # Warm every player's connection (each replica's channel is shared by its players).
        for stub in t.stubs:
            await stub.ListTables(tb.ListTablesRequest(), metadata=seated[0].md)
        cpu0, tx0 = await t.cpu_seconds(), await t.transactions()
        spy = _profile(t.procs[1].pid, args.profile) if args.profile else None
        say(f"{args.seated} seated + {args.behind} behind on {args.replicas} replica(s), "
            f"{args.rounds} round(s){' with insurance' if args.insurance else ''} ...")
        t0 = time.perf_counter()
        for n in range(args.rounds):
            snap = await snapshot(seated[0], TABLE)
            finished = await _round(scene, watchers[0], seated, behind, snap.round_no + 1,
                                    insurance=args.insurance)
            say(f"  round {n + 1}: PlaceBets {dict(scene.commands['PlaceBets'].outcomes)}"
                + ("" if finished else " (the round did not finish within 120 s)"))
            if not finished:
                break
        elapsed = time.perf_counter() - t0
        cpu1, tx1 = await t.cpu_seconds(), await t.transactions()
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(30)
        await asyncio.sleep(1.0)  # the last events reach the other replica's watcher
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        wallets = await _wallets(t, scene, seated + behind)
        return {"scene": "burst", "seated": args.seated, "behind": args.behind,
                "replicas": args.replicas, "rounds": args.rounds,
                "rounds_finished": scene.rounds_finished, "seconds": round(elapsed, 1),
                "commands": {k: v.figures() for k, v in scene.commands.items()},
                "fanout_ms": {"p50": round(pct(scene.fanout_ms, 0.5), 1),
                              "p99": round(pct(scene.fanout_ms, 0.99), 1),
                              "n": len(scene.fanout_ms)},
                "deal_now_to_first_card_ms": {
                    "p50": round(pct(scene.first_card_ms, 0.5), 1),
                    "p99": round(pct(scene.first_card_ms, 0.99), 1)},
                "cpu_s": {k: round(cpu1[k] - cpu0[k], 2) for k in cpu1},
                "journal_transactions_per_bet": round(
                    (tx1 - tx0) / max(1, scene.commands["PlaceBets"].outcomes["OK"]), 1),
                "rgs_cpu_ms_per_bet": round(1000 * sum(cpu1[k] - cpu0[k] for k in cpu1
                                                      if k.startswith("rgs"))
                                            / max(1, scene.commands["PlaceBets"].outcomes["OK"]),
                                            2),
                "wallets": wallets}


def _print_burst(out: dict[str, Any]) -> None:
    print(f"{out['seated']} seated + {out['behind']} behind, {out['replicas']} replica(s): "
          f"{out['rounds_finished']}/{out['rounds']} rounds finished in {out['seconds']} s")
    for name, c in out["commands"].items():
        print(f"  {name:<16} n={c['n']:<5} p50 {c['p50_ms']} ms  p99 {c['p99_ms']} ms  "
              f"max {c['max_ms']} ms  {c['outcomes']}")
    f = out["fanout_ms"]
    print(f"  fan-out (bet answered -> seen on every replica): p50 {f['p50']} ms, "
          f"p99 {f['p99']} ms (n={f['n']})")
    d = out["deal_now_to_first_card_ms"]
    print(f"  last Deal Now -> first card: p50 {d['p50']} ms, p99 {d['p99']} ms")
    print(f"  CPU s: {out['cpu_s']} (RGS: {out['rgs_cpu_ms_per_bet']} ms per bet placed, "
          "the rounds' other commands included)")
    print(f"  journal transactions per bet placed: {out['journal_transactions_per_bet']} "
          "(the rounds' other commands and the watchers' reads included)")
    w = out["wallets"]
    print(f"  wallets exact: {w['exact']}/{w['players']}" + (f" off: {w['off']}"
                                                              if w["off"] else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", choices=("crowd", "burst", "rounds"), default="crowd")
    ap.add_argument("--seated", type=int, default=SEATS)
    ap.add_argument("--behind", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--insurance", action="store_true")
    ap.add_argument("--betting-s", type=float, default=15.0)
    ap.add_argument("--behind-in-state", action="store_true",
                    help="Bet Behinds into the table's state (RGS_TABLE_BEHIND_ROWS=false)")
    ap.add_argument("--pool-size", type=int, default=0,
                    help="RGS_DATABASE_POOL_SIZE of the replicas (default: theirs)")
    ap.add_argument("--watchers", type=int, default=2,
                    help="crowd: watch streams, spread over the replicas")
    ap.add_argument("--operators", type=int, choices=(1, 2), default=2,
                    help="crowd: operators (each its own sandbox wallet); players alternate")
    ap.add_argument("--client-procs", type=int, default=1,
                    help="crowd: processes the Bet Behinds and watchers are split over")
    ap.add_argument("--spread-s", type=float, default=0.0,
                    help="crowd: the Bet Behinds spread uniformly over this many seconds")
    ap.add_argument("--streams-per-conn", type=int, default=10,
                    help="crowd: watch streams and players per client connection")
    ap.add_argument("--kill-clock-at-settlement", action="store_true",
                    help="crowd: SIGKILL the clock's replica when the last round settles")
    ap.add_argument("--tables", type=int, default=2, help="rounds scene: tables")
    ap.add_argument("--seconds", type=float, default=20.0, help="rounds scene: how long")
    ap.add_argument("--profile", type=Path, help="py-spy raw profile of the first replica")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    say = (lambda *_: None) if args.json else (lambda *a: print(*a, file=sys.stderr))
    if args.scene == "rounds":
        from table_rounds import rounds

        out = asyncio.run(rounds(args, say))
    elif args.scene == "crowd":
        from table_crowd import crowd, print_crowd

        if args.seated < 1:
            ap.error("--seated must be at least 1 (the seated bets open the window)")
        out = asyncio.run(crowd(args, say))
    else:
        out = asyncio.run(burst(args, say))
    if args.json:
        print(json.dumps(out))
    elif args.scene == "burst":
        _print_burst(out)
    elif args.scene == "crowd":
        print_crowd(out)


if __name__ == "__main__":
    main()
