"""``bench/tables.py`` (the default scene, ``crowd``): one VIP table as a popular live table is
used. Not a command of its own.

Two operators (each with its own sandbox wallet and key; players alternate between them), two
replicas, ``--seated`` players in the seats and ``--behind`` Bet Behind players spread over the
seats with mixed presets (follow double on/off, follow split on/off, insurance never / always /
ask), ``--watchers`` watch streams spread over the replicas. The Bet Behind players and the
watchers run in ``--client-procs`` processes (``bench/table_clients.py``) so that the benchmark
is not what saturates first.

Each round: the seated players bet (that opens the betting window), the Bet Behinds are sent
spread uniformly over ``--spread-s`` seconds (0: all at one instant), retrying a retryable
refusal within the window; the seated players press Deal Now, stand on every decision (and take
insurance; the "ask" Bet Behinds decide too); settlement. Measured: PlaceBets latency and
outcomes, errors by reason; fan-out to every watcher (a bet's answer -> each watcher sees its
event; without per-bet events, the round's events first watcher -> last); last Deal Now -> first
card; settlement (its event's time) -> the last credit the wallets recorded; each process's CPU
per round; and every player's wallet balance against the table's stakes and wins.

``--kill-clock-at-settlement``: the last round's decisions go to the replica holding the table's
clock lease, which is SIGKILLed when its settlement's first event is seen: the other replica
must pay everyone exactly once (the wallet check) and the last credit's time is reported.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
from table_clients import hist_pct, reason, retryable
from table_stack import OPERATORS, Player, TableStack, pct, snapshot, table_stack

from rgs.generated.table.v1 import table_pb2 as tb

START = 10**9
STAKE = 1000
TABLE = "bench-0"
HERE = Path(__file__).resolve().parent
PRESETS = (tb.BEHIND_INSURANCE_NEVER, tb.BEHIND_INSURANCE_ALWAYS, tb.BEHIND_INSURANCE_ASK)
SETTLING = ("hand_settled", "behind_settled", "round_settled", "round_finished")
#: Insurance rounds (test mode): each seat's two cards (17 to 19), the dealer's ace and 9.
FIRST = ["TS", "TH", "TD", "TC", "9S", "9H", "9D"]
SECOND = ["7S", "7H", "8D", "8C", "TC", "9C", "TH"]


def preset(i: int) -> dict[str, Any]:
    """The i-th Bet Behind's presets: every combination of follow double, follow split and
    insurance in turn."""
    return {"follow_double": i % 2 == 0, "follow_split": (i // 2) % 2 == 0,
            "insurance": PRESETS[(i // 4) % 3]}


def streams_needed(args: argparse.Namespace) -> int:
    """File descriptors the benchmark's client processes need: a connection per
    ``--streams-per-conn`` streams, per replica, per process (with margin)."""
    per_proc = -(-(args.watchers + args.behind) // max(1, args.client_procs))
    conns = -(-per_proc // (args.streams_per_conn * args.replicas)) * args.replicas
    return conns + 64


def check_ulimit(args: argparse.Namespace) -> None:
    """Raise the soft open-files limit to the hard one if needed (the replicas inherit it);
    stop with what to do when even that is too low."""
    need = max(streams_needed(args), 2 * (args.watchers + args.behind)
               // max(1, args.streams_per_conn) + 256)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= need:
        return
    if hard == resource.RLIM_INFINITY or hard >= need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
        return
    raise SystemExit(
        f"tables.py: {args.watchers} watchers and {args.behind} players need about {need} open "
        f"files per process, the limit here is {soft} (hard {hard}). Raise it "
        f"(`ulimit -n {need}` as root, or LimitNOFILE= / limits.conf), or put more streams on "
        f"a connection (--streams-per-conn, now {args.streams_per_conn}).")


class Clients:
    """The client processes: spawned with their share, one JSON line per command."""

    def __init__(self, shares: list[dict[str, Any]]) -> None:
        self.procs = [subprocess.Popen(
            [sys.executable, str(HERE / "table_clients.py")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(HERE.parent / "services")},
            ) for _ in shares]
        for p, share in zip(self.procs, shares, strict=True):
            self._send(p, share)

    @staticmethod
    def _send(p: subprocess.Popen[bytes], obj: dict[str, Any]) -> None:
        assert p.stdin is not None
        p.stdin.write((json.dumps(obj) + "\n").encode())
        p.stdin.flush()

    async def answers(self) -> list[dict[str, Any]]:
        def read(p: subprocess.Popen[bytes]) -> dict[str, Any]:
            assert p.stdout is not None
            line = p.stdout.readline()
            if not line:
                raise SystemExit(f"a client process exited ({p.poll()})")
            out: dict[str, Any] = json.loads(line)
            return out

        return list(await asyncio.gather(*(asyncio.to_thread(read, p) for p in self.procs)))

    async def ask(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        for p in self.procs:
            self._send(p, obj)
        return await self.answers()

    def stop(self) -> None:
        for p in self.procs:
            with contextlib.suppress(OSError):
                self._send(p, {"op": "stop"})
        for p in self.procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()


class Drivers:
    """The benchmark's own watcher on each replica: one queue of the table's events, each once
    (a replica may die)."""

    def __init__(self, t: TableStack, md: Any) -> None:
        self.events: asyncio.Queue[tuple[str, Any, float, float]] = asyncio.Queue()
        self.seqs: set[int] = set()
        self.ready = [asyncio.Event() for _ in t.stubs]
        self.tasks = [asyncio.create_task(self._run(s, md, r))
                      for s, r in zip(t.stubs, self.ready, strict=True)]

    async def _run(self, stub: Any, md: Any, ready: asyncio.Event) -> None:
        call = stub.WatchTable(tb.WatchTableRequest(table_id=TABLE), metadata=md)
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
            async for item in call:
                if item.HasField("snapshot"):
                    ready.set()
                    continue
                if item.event.seq in self.seqs:
                    continue
                self.seqs.add(item.event.seq)
                kind = item.event.WhichOneof("event") or ""
                self.events.put_nowait((kind, getattr(item.event, kind) if kind else None,
                                        time.monotonic(),
                                        item.event.at.ToNanoseconds() / 1e9))
        call.cancel()

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


class Crowd:
    """One run's players, client processes and figures."""

    def __init__(self, args: argparse.Namespace, t: TableStack, say: Any) -> None:
        self.args, self.t, self.say = args, t, say
        self.seated: list[Player] = []
        self.behind: list[Player] = []
        self.ms: dict[str, list[float]] = {}
        self.outcomes: dict[str, Counter[str]] = {}
        self.retried: Counter[str] = Counter()
        self.money: dict[str, list[int]] = {}
        self.first_card_ms: list[float] = []
        self.bet_hist: Counter[int] = Counter()
        self.round_spread_ms: list[float] = []
        self.per_round: list[dict[str, Any]] = []
        self.missed_sights = 0
        self.kill: dict[str, Any] = {}

    # ------------------------------------------------------------------ set-up
    async def players(self) -> None:
        a, sem = self.args, asyncio.Semaphore(32)
        ops = len(self.t.controls)

        async def make(pid: str, i: int) -> Player:
            async with sem:
                return await self.t.player(pid, i, balance=START, operator=i % ops)

        self.seated = [await make(f"seat-{i + 1}", i) for i in range(a.seated)]
        for i, p in enumerate(self.seated):
            await p.stub.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=TABLE,
                                                     seat=i + 1), metadata=p.md)
        for start in range(0, a.behind, 500):
            self.behind += await asyncio.gather(*(make(f"behind-{i + 1}", i) for i in
                                                  range(start, min(a.behind, start + 500))))
            self.say(f"  {len(self.behind)} of {a.behind} Bet Behind players with a session")

    def shares(self) -> list[dict[str, Any]]:
        a = self.args
        k = max(1, a.client_procs)
        out: list[dict[str, Any]] = [
            {"table": TABLE, "stake": STAKE, "replicas": self.t.replicas,
             "streams_per_conn": a.streams_per_conn, "players": [], "watchers": []}
            for _ in range(k)]
        n = len(self.behind)
        for i, p in enumerate(self.behind):
            out[i % k]["players"].append({
                "id": p.player_id, "token": p.md[0][1].removeprefix("Bearer "),
                "replica": i % len(self.t.stubs), "seat": 1 + i % a.seated,
                "offset": i / max(1, n), **preset(i)})
        everyone = self.seated + self.behind
        for j in range(a.watchers):
            p = everyone[j % len(everyone)]
            out[j % k]["watchers"].append({"token": p.md[0][1].removeprefix("Bearer "),
                                           "replica": j % len(self.t.stubs)})
        return out

    # ------------------------------------------------------------------ commands
    async def timed(self, name: str, make: Any, deadline: float) -> Any:
        """A command, retried on a retryable refusal until ``deadline`` (monotonic)."""
        t0 = time.monotonic()
        while True:
            try:
                out = await make()
            except grpc.aio.AioRpcError as exc:
                why, delay = reason(exc)
                if retryable(why) and time.monotonic() < deadline:
                    self.retried[f"{name} {why}"] += 1
                    await asyncio.sleep((delay or 0.1) * random.uniform(1.0, 2.0))
                    continue
                self.ms.setdefault(name, []).append((time.monotonic() - t0) * 1000)
                self.outcomes.setdefault(name, Counter())[why] += 1
                return None
            self.ms.setdefault(name, []).append((time.monotonic() - t0) * 1000)
            self.outcomes.setdefault(name, Counter())["OK"] += 1
            return out

    # ------------------------------------------------------------------ a round
    async def round(self, clients: Clients, drivers: Drivers, n: int, *, kill: bool) -> bool:
        """One round; False when it did not finish within two minutes."""
        a, seated = self.args, self.seated
        round_no = (await snapshot(seated[0], TABLE)).round_no + 1
        t_open = time.monotonic()
        window_end = t_open + a.betting_s - 0.3
        answered: dict[str, float] = {}

        async def seat_bet(seat: int, p: Player) -> None:
            r = await self.timed("PlaceBets seated", lambda: p.stub.PlaceBets(tb.PlaceBetsRequest(
                request_id=f"b{round_no}-{p.player_id}", table_id=TABLE,
                bets=[tb.Bet(seat=seat, stake=STAKE)]), metadata=p.md, timeout=30), window_end)
            if r is not None:
                answered[f"bet_placed:{seat}:{p.player_id}"] = time.monotonic()

        await asyncio.gather(*(seat_bet(i + 1, p) for i, p in enumerate(seated)))
        bets = await clients.ask({"op": "bet", "round": round_no, "start": time.monotonic(),
                                  "spread_s": a.spread_s, "deadline": window_end})
        for b in bets:
            self.ms.setdefault("PlaceBets behind", []).extend(b["ms"])
            self.outcomes.setdefault("PlaceBets behind", Counter()).update(b["outcomes"])
            self.retried.update({f"PlaceBets behind {k}": v for k, v in b["retried"].items()})
            answered.update(b["answered"])
        placed = sum(b["outcomes"].get("OK", 0) for b in bets)
        self.say(f"  round {n + 1}: {placed} of {len(self.behind)} Bet Behinds placed in "
                 f"{time.monotonic() - t_open:.1f} s")
        holder = None
        if kill:
            pid = await self.t.clock_holder(TABLE)
            holder = next((i for i, p in enumerate(self.t.rgs_procs) if p.pid == pid), None)
            self.kill = {"replica": None if holder is None else f"rgs{holder + 1}"}
        forced = [*FIRST[:a.seated], "AS", *SECOND[:a.seated], "9C"] if a.insurance else []
        last_deal_now = 0.0

        async def deal_now(i: int, p: Player) -> None:
            nonlocal last_deal_now
            await self.timed("DealNow", lambda: p.stub.DealNow(tb.DealNowRequest(
                request_id=f"d{round_no}-{p.player_id}", table_id=TABLE,
                forced_cards=forced if i == 0 else []), metadata=p.md, timeout=30),
                time.monotonic() + 10)
            last_deal_now = time.monotonic()

        if time.monotonic() < window_end:  # else the clock closes betting (no Deal Now)
            await asyncio.gather(*(deal_now(i, p) for i, p in enumerate(seated)))
        return await self._play(clients, drivers, n, round_no, answered=answered,
                                last_deal_now=last_deal_now, holder=holder)

    async def _play(self, clients: Clients, drivers: Drivers, n: int, round_no: int, *,
                    answered: dict[str, float], last_deal_now: float, holder: int | None
                    ) -> bool:
        by_seat = {i + 1: p for i, p in enumerate(self.seated)}
        round_id, card_seen, insured, settle_at = "", False, False, None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                kind, data, seen, at = await asyncio.wait_for(drivers.events.get(), 1.0)
            except TimeoutError:
                continue
            if kind in ("betting_opened", "betting_closed") and data.round_id:
                round_id = data.round_id
            elif kind == "card_dealt":
                if not card_seen:
                    card_seen = True
                    if last_deal_now:  # pressed (not closed by the clock)
                        self.first_card_ms.append(max(0.0, seen - last_deal_now) * 1000)
                if (not insured and not data.HasField("seat") and data.card.startswith("A")
                        and not data.face_down):
                    insured = await self._insurance(clients, round_id, by_seat)
            elif kind == "decision_due":
                p = by_seat[data.seat]
                stub = self.t.stubs[holder] if holder is not None else p.stub
                await self.timed("Act", lambda p=p, d=data, s=stub, r=round_id: s.Act(
                    tb.ActRequest(request_id=f"a{round_no}-{d.seat}-{d.hand}", table_id=TABLE,
                                  round_id=r, seat=d.seat, hand=d.hand, action="stand"),
                    metadata=p.md, timeout=30), time.monotonic() + 10)
            if kind in SETTLING and settle_at is None:
                settle_at = at
                if holder is not None:
                    os.kill(self.t.rgs_procs[holder].pid, signal.SIGKILL)
                    self.kill["at"] = time.time()
                    self.kill["killed_after_settlement_s"] = round(time.time() - at, 3)
                    self.say(f"  SIGKILLed {self.kill['replica']} (the clock's holder) at "
                             "settlement")
            if kind == "round_finished":
                await self._finished(clients, n, round_no, data, answered=answered,
                                     settle_at=settle_at or at)
                return True
        return False

    async def _insurance(self, clients: Clients, round_id: str, by_seat: dict[int, Player]
                         ) -> bool:
        snap = await snapshot(self.seated[0], TABLE)
        if snap.phase != tb.TABLE_PHASE_INSURANCE:
            return False
        end = time.monotonic() + 10
        await asyncio.gather(*(self.timed("DecideInsurance", lambda s=s, p=p: (
            p.stub.DecideInsurance(tb.DecideInsuranceRequest(
                request_id=f"i-{round_id}-{p.player_id}", table_id=TABLE, round_id=round_id,
                seat=s, take=True), metadata=p.md, timeout=30)), end)
            for s, p in by_seat.items()))
        for r in await clients.ask({"op": "insure", "round_id": round_id}):
            self.outcomes.setdefault("DecideInsurance behind", Counter()).update(r["outcomes"])
            self.ms.setdefault("DecideInsurance behind", []).extend(r["ms"])
        return True

    async def _finished(self, clients: Clients, n: int, round_no: int, data: Any, *,
                        answered: dict[str, float], settle_at: float) -> None:
        # Everyone's stakes and payouts as each operator sees them (a watcher's round_finished
        # lists the seated players and its own only).
        paid: dict[str, int] = {}
        for op in OPERATORS[:self.args.operators]:
            rec = await self.t.stubs[0].GetTableRound(tb.GetTableRoundRequest(
                table_id=TABLE, round_id=data.round_id), metadata=op.rgs_auth, timeout=30)
            for share in rec.players:
                m = self.money.setdefault(share.player_id, [0, 0])
                m[0] += share.staked  # a returned stake (refunded) nets to nothing
                m[1] += share.paid
                paid[share.player_id] = share.paid
        last, unpaid, times = await self._credits(data.round_id, paid)
        if "at" in self.kill and "credits_before_kill" not in self.kill:
            self.kill["credits_before_kill"] = sum(t < self.kill["at"] for t in times)
            self.kill["credits_after_kill"] = sum(t >= self.kill["at"] for t in times)
        fan = await clients.ask({"op": "fanout", "round": round_no, "answered": answered})
        hist: Counter[int] = Counter()
        for f in fan:
            hist.update({int(k): v for k, v in f["bets"].items()})
        self.bet_hist.update(hist)
        sights = sum(f["bet_events"] for f in fan)
        # A Bet Behind's events are its own player's (others see the seats' totals): only the
        # seat bets' events are owed to every watcher.
        public = sum(not k.startswith("behind_placed:") for k in answered)
        self.missed_sights += max(0, public * self.args.watchers - sights)
        spread: list[float] = []
        by_kind: dict[str, list[float]] = {}
        for event in {e for f in fan for e in f["rounds"]}:  # each event: first -> last
            times = [t for f in fan for t in f["rounds"].get(event, [])]
            first = min(times)
            late = [(t - first) * 1000 for t in times]
            spread += late
            by_kind.setdefault(event.partition("#")[0], []).extend(late)
        self.round_spread_ms += spread
        rec = {"round": n + 1, "round_id": data.round_id, "players": len(paid),
               # Bet Behinds the round took, answered in time to their player or not.
               "behind_recorded": sum(k.startswith("behind-") for k in paid),
               "settle_to_last_credit_s": None if last is None else round(last - settle_at, 3),
               "unpaid": unpaid,
               "fanout_bets_p99_ms": hist_pct(dict(hist), 0.99) if hist else None,
               "round_events_spread_p99_ms": round(pct(spread, 0.99), 1) if spread else None,
               # Which events the tail is made of (the kind's p99 and its events' count).
               "round_events_spread_p99_ms_by_kind": {
                   k: [round(pct(v, 0.99), 1), len(v) // max(1, self.args.watchers)]
                   for k, v in sorted(by_kind.items())}}
        self.per_round.append(rec)
        self.say(f"  round {n + 1} settled: last credit {rec['settle_to_last_credit_s']} s "
                 f"after settlement, {unpaid} not paid; fan-out p99 "
                 f"{rec['fanout_bets_p99_ms']} ms (per bet), round events first->last p99 "
                 f"{rec['round_events_spread_p99_ms']} ms")

    async def _credits(self, round_id: str, paid: dict[str, int]
                       ) -> tuple[float | None, int, list[float]]:
        """When the wallets recorded the round's last credit (Unix s), how many players with a
        win were still without their credit when the wait ran out, and every credit's time."""
        ops = {p.player_id: p.operator for p in self.seated + self.behind}
        # Few calls at a time, every 2 s: the wallet's own times are what is measured, and
        # the polling shares the machine with the payments it waits for.
        sem = asyncio.Semaphore(8)
        found: dict[str, float] = {}

        async def look(pid: str) -> None:
            async with sem:
                for rid, at in await self.t.credits(pid, ops.get(pid, 0)):
                    if rid == round_id:
                        found[pid] = max(at, found.get(pid, 0.0))

        wait = [p for p, v in paid.items() if v > 0]
        end = time.monotonic() + (150 if self.args.kill_clock_at_settlement else 60)
        await asyncio.sleep(2.0)
        while wait and time.monotonic() < end:
            await asyncio.gather(*(look(p) for p in wait))
            wait = [p for p in wait if p not in found]
            if wait:
                await asyncio.sleep(2.0)
        await asyncio.gather(*(look(p) for p in paid if p not in found))  # credits of 0 too
        return (max(found.values()) if found else None), len(wait), list(found.values())

    async def wallets(self) -> dict[str, Any]:
        """Each player's wallet balance against the stakes and wins the table announced."""
        sem, wrong = asyncio.Semaphore(48), []

        async def check(p: Player) -> None:
            staked, paid = self.money.get(p.player_id, [0, 0])
            async with sem:
                got = await self.t.balance(p.player_id, p.operator)
            if got != START - staked + paid:
                wrong.append((p.player_id, got - (START - staked + paid)))

        everyone = self.seated + self.behind
        await asyncio.gather(*(check(p) for p in everyone))
        return {"players": len(everyone), "exact": len(everyone) - len(wrong),
                "off": wrong[:10]}


async def _cpu(t: TableStack, clients: Clients) -> dict[str, float]:
    from stack import cpu_seconds

    out = await t.cpu_seconds()
    out["bench"] = out.pop("client")
    for i, p in enumerate(clients.procs):
        out[f"client{i + 1}"] = cpu_seconds(p.pid) or 0.0
    return out


async def crowd(args: argparse.Namespace, say: Any) -> dict[str, Any]:
    check_ulimit(args)
    load0 = os.getloadavg()
    env = {"RGS_TEST_MODE": "1"} if args.insurance else {}
    if args.pool_size:
        env["RGS_DATABASE_POOL_SIZE"] = str(args.pool_size)
    async with table_stack(tables=1, replicas=args.replicas, betting_s=args.betting_s,
                           decision_s=10, rgs_env=env, operators=args.operators, say=say) as t:
        c = Crowd(args, t, say)
        await c.players()
        drivers = Drivers(t, c.seated[0].md)
        for r in drivers.ready:
            await asyncio.wait_for(r.wait(), 30)
        say(f"starting {args.client_procs} client process(es): {args.behind} Bet Behinds, "
            f"{args.watchers} watchers ...")
        clients = Clients(c.shares())
        try:
            ready = await clients.answers()
            watching = sum(r["watching"] for r in ready)
            ended = sum((Counter(r["ended"]) for r in ready), Counter())
            say(f"  {watching} of {args.watchers} watchers have their snapshot "
                f"({sum(r['connections'] for r in ready)} connections)"
                + (f"; streams ended: {dict(ended)}" if ended else ""))
            cpu0 = await _cpu(t, clients)
            say(f"{args.seated} seated + {args.behind} behind, {args.watchers} watchers, "
                f"{args.operators} operators, {args.replicas} replicas; {args.rounds} round(s), "
                f"Bet Behinds spread over {args.spread_s} s ...")
            t0, finished = time.monotonic(), 0
            for n in range(args.rounds):
                kill = args.kill_clock_at_settlement and n == args.rounds - 1
                if not await c.round(clients, drivers, n, kill=kill):
                    say(f"  round {n + 1} did not finish within 120 s")
                    break
                finished += 1
            elapsed = time.monotonic() - t0
            cpu1 = await _cpu(t, clients)
            end_fan = await clients.ask({"op": "fanout", "round": -1, "answered": {}})
            ended = sum((Counter(f["ended"]) for f in end_fan), Counter())
        finally:
            clients.stop()
            await drivers.stop()
        wallets = await c.wallets()
        load1 = os.getloadavg()
    return c_figures(args, c, finished=finished, elapsed=elapsed, watching=watching,
                     ended=ended, cpu=(cpu0, cpu1), wallets=wallets, load=(load0, load1))


def c_figures(args: argparse.Namespace, c: Crowd, *, finished: int, elapsed: float,
              watching: int, ended: Counter[str], cpu: tuple[dict[str, float], ...],
              wallets: dict[str, Any], load: tuple[tuple[float, ...], ...]) -> dict[str, Any]:
    """The run's JSON object."""
    errors: Counter[str] = Counter()
    for name, outs in c.outcomes.items():
        errors.update({f"{name} {k}": v for k, v in outs.items() if k != "OK"})
    # Streams of the replica the kill took away end UNAVAILABLE (the bench does not resume).
    killed = " (replica killed)" if c.kill else ""
    errors.update({f"watch stream {k}{killed}": v for k, v in ended.items()})
    unpaid = sum(r["unpaid"] for r in c.per_round)
    if unpaid:
        errors["not paid (no credit in the wallet)"] = unpaid
    if wallets["exact"] != wallets["players"]:
        errors["wallet off"] = wallets["players"] - wallets["exact"]
    if c.missed_sights:
        errors["bet event not seen by a watcher"] = c.missed_sights
    place = c.ms.get("PlaceBets behind") or c.ms.get("PlaceBets seated", [])
    per_bet = bool(c.bet_hist)
    credit = [r["settle_to_last_credit_s"] for r in c.per_round
              if r["settle_to_last_credit_s"] is not None]
    rounds = max(1, finished)
    cpu0, cpu1 = cpu
    return {
        "scene": "crowd", "seated": args.seated, "behind": args.behind,
        "watchers": args.watchers, "watching": watching, "operators": args.operators,
        "replicas": args.replicas, "client_procs": args.client_procs,
        "spread_s": args.spread_s, "rounds": args.rounds, "rounds_finished": finished,
        "seconds": round(elapsed, 1),
        "behind_placed_ok": c.outcomes.get("PlaceBets behind", Counter())["OK"],
        "behind_recorded": sum(r["behind_recorded"] for r in c.per_round),
        "place_p50_ms": round(pct(place, 0.5), 1), "place_p99_ms": round(pct(place, 0.99), 1),
        "place_max_ms": round(max(place), 1) if place else None,
        "settle_to_last_credit_s": max(credit) if credit else None,
        "fanout_measure": "bet answered -> each watcher sees its event" if per_bet
        else "round events, first watcher -> last",
        "fanout_p50_ms": (hist_pct(dict(c.bet_hist), 0.5) if per_bet
                          else round(pct(c.round_spread_ms, 0.5), 1)),
        "fanout_p99_ms": (hist_pct(dict(c.bet_hist), 0.99) if per_bet
                          else round(pct(c.round_spread_ms, 0.99), 1)),
        "fanout_sights": sum(c.bet_hist.values()),
        "round_events_spread_p99_ms": round(pct(c.round_spread_ms, 0.99), 1),
        "deal_now_to_first_card_ms": {"p50": round(pct(c.first_card_ms, 0.5), 1),
                                      "p99": round(pct(c.first_card_ms, 0.99), 1)},
        "errors": dict(errors), "retried": dict(c.retried),
        "commands": {k: {"n": len(v), "outcomes": dict(c.outcomes.get(k, {})),
                         "p50_ms": round(pct(v, 0.5), 1), "p99_ms": round(pct(v, 0.99), 1)}
                     for k, v in c.ms.items()},
        "cpu_s_per_round": {k: round((cpu1[k] - cpu0.get(k, 0.0)) / rounds, 3) for k in cpu1},
        "per_round": c.per_round,
        "kill": {k: v for k, v in c.kill.items() if k != "at"} or None, "wallets": wallets,
        "load_avg": {"start": [round(x, 2) for x in load[0]],
                     "end": [round(x, 2) for x in load[1]]}}


def print_crowd(out: dict[str, Any]) -> None:
    print(f"{out['seated']} seated + {out['behind']} behind, {out['watching']}/"
          f"{out['watchers']} watchers, {out['operators']} operators, {out['replicas']} "
          f"replicas: {out['rounds_finished']}/{out['rounds']} rounds in {out['seconds']} s")
    for name, c in out["commands"].items():
        print(f"  {name:<24} n={c['n']:<6} p50 {c['p50_ms']} ms  p99 {c['p99_ms']} ms  "
              f"{c['outcomes']}")
    print(f"  Bet Behinds answered OK {out['behind_placed_ok']}, recorded by the table "
          f"{out['behind_recorded']} (the rest of those answered too late or not at all)")
    print(f"  fan-out ({out['fanout_measure']}): p50 {out['fanout_p50_ms']} ms, p99 "
          f"{out['fanout_p99_ms']} ms; round events first->last p99 "
          f"{out['round_events_spread_p99_ms']} ms")
    d = out["deal_now_to_first_card_ms"]
    print(f"  last Deal Now -> first card: p50 {d['p50']} ms, p99 {d['p99']} ms")
    print(f"  settlement -> last credit in the wallets: {out['settle_to_last_credit_s']} s "
          f"(per round: {[r['settle_to_last_credit_s'] for r in out['per_round']]})")
    print(f"  CPU s per round: {out['cpu_s_per_round']}")
    print(f"  errors: {out['errors'] or 'none'}; retried: {out['retried'] or 'none'}")
    if out["kill"]:
        print(f"  killed: {out['kill']}")
    w = out["wallets"]
    print(f"  wallets exact: {w['exact']}/{w['players']}" + (f" off: {w['off']}"
                                                              if w["off"] else ""))
    print(f"  load average: start {out['load_avg']['start']}, end {out['load_avg']['end']}")
