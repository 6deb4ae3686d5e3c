"""Overload: what the RGS does when offered three times what it can serve.

On the production-shape stack (bench/stack.py: PostgreSQL, the sandbox wallet and ``rgs serve``
as separate processes), with ``RGS_MAX_IN_FLIGHT`` at ``--max-in-flight``:

1. **unloaded**: one player, one call at a time, for ``--unloaded-seconds``: p50/p99 per call;
2. **peak**: ``--peak-players`` players flat out for ``--peak-seconds``: calls/s served, and the
   RGS's CPU per call (all its processes, from /proc);
3. **shed cost**: ``--max-in-flight`` Deals held in flight by the wallet (a latency fault), then
   ``--shed-calls`` calls that are all shed: the RGS's CPU per shed call, against an admitted
   call's;
4. **overload**: an open-loop arrival process at ``--factor`` x the peak (default 3) for
   ``--seconds`` (the issue's minute by default), each arrival one call (Deal, or Act STAND on
   the player's open round) of an idle player of ``--players``: admitted calls' p50/p99, calls
   shed (RESOURCE_EXHAUSTED, by reason, each with its retry delay) and anything else;
5. **recovery**: the moment the load drops, one player again: the first call's answer and
   latency, and p99 over ``--unloaded-seconds``;
6. **money**: every open round finished, then each wallet's balance against what its rounds
   announced (start - stakes + payouts), to the cent.

The unloaded and overload phases also report the RGS's own latency of the Deal and Act calls
it served (``server_p50_ms``/``server_p99_ms``, from its ``rgs_rpc_latency_seconds`` histogram,
scraped from ``RGS_METRICS_LISTEN`` before and after the phase; linear within the histogram's
coarse buckets): the time from its observing interceptor to the answer. The difference from the
client's figure is the time outside the handler: the transport, the RGS's event-loop queue
before a call reaches its interceptors, and this load generator's own loop. ``loop_lag_p99_ms``
is the p99 of the RGS's ``rgs_event_loop_lag_seconds`` in the phase: how long a ready callback
(a call arriving, a database answer) waited for the loop; ``client_loop_lag_p99_ms`` the same
of this load generator's loop during the overload (a 10 ms timer): an answer that arrived
waits that long before its latency is taken.

Every phase reports the CPU milliseconds per call of the RGS and of this load generator (one
asyncio process; its cost per call is what it takes from a machine it shares). On a machine
with cores to spare, ``--server-cpus 0,1 --client-cpus 2,3`` pins the RGS's processes and the
load generator to cores of their own (the wallet and PostgreSQL are left where the system puts
them), so the client's CPU is no longer taken from the server's: that, not a network namespace
(loopback costs the same CPU either way), is what separates them on one host.

A shed call is retried later with its same request id (as a client that backs off would). The
script prints figures and the verdicts (p99 within 2x of the unloaded p99, every shed call with
its reason and delay, recovery, wallets); it asserts nothing about time.

    .venv/bin/python bench/overload.py [--seconds 60] [--max-in-flight 8] [--json]
        [--server-cpus 0,1 --client-cpus 2,3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stack import Stack, cpu_seconds, free_port, production_stack

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET = (("authorization", "Bearer sandbox-wallet-dev-key"),)
START = 1_000_000
STAKE = 100


def pct(values: list[float], q: float) -> float:
    """The q-quantile of ``values`` in ms (0 when empty)."""
    if not values:
        return 0.0
    s = sorted(values)
    return round(s[min(len(s) - 1, int(q * len(s)))] * 1000, 2)


def _cpus(spec: str) -> set[int]:
    return {int(c) for c in spec.split(",") if c.strip()}


GAME_CALLS = ("rgs.blackjack.v1.BlackjackService/Deal", "rgs.blackjack.v1.BlackjackService/Act")


def _scrape(url: str) -> dict[str, dict[float, float]]:
    """Two of the RGS's own histograms (cumulative count by upper bound, seconds): ``calls``,
    the latency of the Deal and Act calls it served, from its first observing interceptor to
    the answer (without the time before: the transport, the event loop's queue, the client);
    and ``lag``, how late its event loop's 0.1 s timer fired (``rgs_event_loop_lag_seconds``)."""
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    out: dict[str, dict[float, float]] = {"calls": {}, "lag": {}}
    for line in text.splitlines():
        if line.startswith("rgs_rpc_latency_seconds_bucket{"):
            if not any(f'method="{m}"' in line for m in GAME_CALLS):
                continue
            into = out["calls"]
        elif line.startswith("rgs_event_loop_lag_seconds_bucket{"):
            into = out["lag"]
        else:
            continue
        labels, _, value = line.rpartition(" ")
        le = labels.split('le="')[1].split('"')[0]
        bound = float("inf") if le == "+Inf" else float(le)
        into[bound] = into.get(bound, 0.0) + float(value)
    return out


def _quantile(before: dict[float, float], after: dict[float, float], q: float) -> float:
    """The q-quantile (ms) of what a histogram counted between two scrapes, linear within a
    bucket (coarse, as a scrape is)."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    total = counts[-1] if counts else 0.0
    lower, below = 0.0, 0.0
    for bound, cum in zip(bounds, counts, strict=True):
        if total and cum >= q * total:
            top = bound if bound != float("inf") else lower * 2
            share = (q * total - below) / (cum - below) if cum > below else 1.0
            return round((lower + (top - lower) * share) * 1000, 1)
        lower, below = bound, cum
    return 0.0


def server_quantiles(before: dict[str, dict[float, float]], after: dict[str, dict[float, float]]
                     ) -> dict[str, float | int]:
    """The RGS's p50/p99 of its Deal and Act calls and its event loop's p99 lag (ms) between
    two scrapes (the latency buckets are 2.5, 5, 10, 25, 50, 100, 250, 500 ms...)."""
    calls = after["calls"]
    return {"server_calls": int(calls.get(float("inf"), 0.0)
                                - before["calls"].get(float("inf"), 0.0)),
            "server_p50_ms": _quantile(before["calls"], calls, 0.5),
            "server_p99_ms": _quantile(before["calls"], calls, 0.99),
            "loop_lag_p99_ms": _quantile(before["lag"], after["lag"], 0.99)}


def _client_cpu() -> float:
    t = os.times()
    return t.user + t.system


class Cpu:
    """CPU seconds of the RGS's processes and of this load generator, between two marks."""

    def __init__(self, stack: Stack) -> None:
        self._stack = stack
        self._at = self._now()

    def _now(self) -> tuple[float, float]:
        server = sum(cpu_seconds(pid) or 0.0 for pid in self._stack.processes()["rgs"])
        return server, _client_cpu()

    def lap(self) -> tuple[float, float]:
        """(RGS, client) CPU seconds since the last lap."""
        now = self._now()
        spent = (now[0] - self._at[0], now[1] - self._at[1])
        self._at = now
        return spent


def per_call(spent: tuple[float, float], calls: int) -> dict[str, float]:
    """CPU milliseconds per call of the RGS and of the client."""
    if not calls:
        return {"rgs_cpu_ms": 0.0, "client_cpu_ms": 0.0}
    return {"rgs_cpu_ms": round(spent[0] / calls * 1000, 3),
            "client_cpu_ms": round(spent[1] / calls * 1000, 3)}


@dataclass
class Player:
    """A player's session, its open round and what its settled rounds announced."""

    pid: str
    md: tuple[tuple[str, str], ...]
    game: blackjack_pb2_grpc.BlackjackServiceAsyncStub
    view: Any = None
    n: int = 0
    pending: str = ""  # the request id of a call shed or failed, sent again as is
    net: int = 0  # payouts - stakes of its settled rounds
    busy: bool = False

    def _request(self) -> tuple[str, Any]:
        if not self.pending:
            self.n += 1
            self.pending = f"{self.pid}-{self.n}"
        if self.view is None:
            return "Deal", bj.DealRequest(request_id=self.pending, variant_id="classic-resplit",
                                          boxes=[bj.BoxBet(seat=1, stake=STAKE)])
        v = self.view
        action = (bj.ACTION_DECLINE_INSURANCE if v.status == bj.ROUND_STATUS_INSURANCE
                  else bj.ACTION_STAND)
        return "Act", bj.ActRequest(request_id=self.pending, round_id=v.round_id,
                                    expected_seq=v.seq, seat=v.to_act.seat or 1,
                                    hand=v.to_act.hand, action=action)

    async def step(self, stats: Stats) -> None:
        """One call: the Deal or the Act the round needs next."""
        name, request = self._request()
        method = self.game.Deal if name == "Deal" else self.game.Act
        t0 = time.perf_counter()
        try:
            resp = await method(request, metadata=self.md, timeout=30)
        except grpc.aio.AioRpcError as err:
            stats.failed(err)
            return
        stats.ok.append(time.perf_counter() - t0)
        self.pending = ""
        self.view = resp.round
        if self.view.status == bj.ROUND_STATUS_SETTLED:
            self.net += self.view.total_paid - self.view.total_staked
            self.view = None


@dataclass
class Stats:
    ok: list[float] = field(default_factory=list)
    shed: Counter[str] = field(default_factory=Counter)
    shed_without_delay: int = 0
    delays: list[int] = field(default_factory=list)
    other: Counter[str] = field(default_factory=Counter)

    def failed(self, err: grpc.aio.AioRpcError) -> None:
        if err.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
            self.other[err.code().name] += 1
            return
        trailer = dict(err.trailing_metadata() or ())
        from google.rpc import error_details_pb2, status_pb2
        status = status_pb2.Status.FromString(trailer.get("grpc-status-details-bin", b""))
        info = error_details_pb2.ErrorInfo()
        reason = (status.details[0].Unpack(info) and info.reason) or "?"
        self.shed[reason] += 1
        if "retry-after-ms" not in trailer or "retry_after_ms" not in info.metadata:
            self.shed_without_delay += 1
        else:
            self.delays.append(int(trailer["retry-after-ms"]))


async def setup_players(rgs: str, wallet: str, count: int, channels: int) -> list[Player]:
    chans = [grpc.aio.insecure_channel(rgs, options=[("grpc.use_local_subchannel_pool", 1)])
             for _ in range(channels)]
    players = []
    async with grpc.aio.insecure_channel(wallet) as wch:
        control = sandbox_pb2_grpc.SandboxControlServiceStub(wch)
        for i in range(count):
            pid = f"ov-{i}"
            await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
                player_id=pid, currency="EUR", balance=START)), metadata=WALLET)
            ch = chans[i % channels]
            s = await operator_pb2_grpc.OperatorServiceStub(ch).CreateSession(
                op.CreateSessionRequest(request_id=f"s-{pid}", brand_id="demo-casino",
                                        player_id=pid), metadata=OPERATOR)
            players.append(Player(pid=pid, md=(("authorization", f"Bearer {s.session_token}"),),
                                  game=blackjack_pb2_grpc.BlackjackServiceStub(ch)))
    return players


async def closed_loop(players: list[Player], seconds: float) -> Stats:
    """Each player calls as soon as its previous call answered."""
    stats = Stats()
    until = time.monotonic() + seconds

    async def run(p: Player) -> None:
        while time.monotonic() < until:
            await p.step(stats)
    await asyncio.gather(*(run(p) for p in players))
    return stats


class ClientLag:
    """How late this load generator's own event loop runs a 10 ms timer, while it runs: a call
    whose answer arrived waits that long before its latency is taken."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _sample(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + 0.01
            await asyncio.sleep(0.01)
            self.lags.append(max(0.0, loop.time() - due))

    def __enter__(self) -> ClientLag:
        self._task = asyncio.get_running_loop().create_task(self._sample())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()


async def open_loop(players: list[Player], rate: float, seconds: float) -> tuple[Stats, int]:
    """Arrivals at ``rate``/s (Poisson), each one call of an idle player; (stats, arrivals
    dropped because no player was idle)."""
    stats = Stats()
    idle = list(players)
    tasks: set[asyncio.Task[None]] = set()
    dropped = 0

    async def one(p: Player) -> None:
        try:
            await p.step(stats)
        finally:
            idle.append(p)

    until = time.monotonic() + seconds
    next_at = time.monotonic()
    while next_at < until:
        delay = next_at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        # Every arrival due by now (the loop may have slept late).
        while next_at <= time.monotonic() and next_at < until:
            next_at += random.expovariate(rate)
            if not idle:
                dropped += 1
                continue
            p = idle.pop(random.randrange(len(idle)))
            task = asyncio.create_task(one(p))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks)
    return stats, dropped


async def shed_cost(stack: Stack, held: list[Player], shedder: Player, calls: int,
                    cpu: Cpu) -> dict[str, Any]:
    """Hold one Deal per slot in flight (the wallet sits on each debit for 4 s, within the
    RGS's wallet time-out), then send up to ``calls`` calls that find no room, for at most
    2.5 s: what a shed call costs."""
    async with grpc.aio.insecure_channel(stack.wallet) as wch:
        control = sandbox_pb2_grpc.SandboxControlServiceStub(wch)
        await control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
            kind=sandbox_pb2.FAULT_KIND_LATENCY, method=sandbox_pb2.WALLET_METHOD_DEBIT,
            latency_ms=4000, remaining=len(held))), metadata=WALLET)
        stats = Stats()
        holding = [asyncio.ensure_future(p.step(stats)) for p in held]
        await asyncio.sleep(0.5)
        cpu.lap()
        shed = Stats()
        request = bj.GetBalanceRequest()
        sent = 0
        until = time.monotonic() + 2.5

        async def one() -> None:
            try:
                await shedder.game.GetBalance(request, metadata=shedder.md, timeout=10)
            except grpc.aio.AioRpcError as err:
                shed.failed(err)
        while sent < calls and time.monotonic() < until:
            wave = min(50, calls - sent)
            await asyncio.gather(*(one() for _ in range(wave)))
            sent += wave
        spent = cpu.lap()
        await asyncio.gather(*holding)
    return {"calls": sent, "shed": dict(shed.shed), "other": dict(shed.other),
            "held_answered": len(stats.ok), **per_call(spent, sent)}


async def finish_all(players: list[Player]) -> int:
    """Finish every open round (retrying shed calls); the calls it took."""
    calls = 0
    for _ in range(200):
        open_ = [p for p in players if p.view is not None or p.pending]
        if not open_:
            return calls
        stats = Stats()
        await asyncio.gather(*(p.step(stats) for p in open_))
        calls += len(open_)
        if stats.shed or stats.other:
            await asyncio.sleep(0.1)
    raise SystemExit("rounds still open after 200 passes")


async def wallets_check(wallet: str, players: list[Player]) -> tuple[int, int, int]:
    """(players checked, wallets off, cents off in total)."""
    off = cents = 0
    async with grpc.aio.insecure_channel(wallet) as wch:
        control = sandbox_pb2_grpc.SandboxControlServiceStub(wch)
        for p in players:
            got = await control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=p.pid),
                                          metadata=WALLET)
            diff = got.player.balance - (START + p.net)
            if diff:
                off += 1
                cents += abs(diff)
    return len(players), off, cents


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="overload duration")
    ap.add_argument("--factor", type=float, default=3.0, help="offered load / peak")
    ap.add_argument("--max-in-flight", type=int, default=8, help="RGS_MAX_IN_FLIGHT")
    ap.add_argument("--players", type=int, default=400, help="players of the overload")
    ap.add_argument("--peak-players", type=int, default=0,
                    help="players of the peak run (default: --max-in-flight)")
    ap.add_argument("--unloaded-seconds", type=float, default=10.0)
    ap.add_argument("--peak-seconds", type=float, default=15.0)
    ap.add_argument("--channels", type=int, default=16, help="client connections")
    ap.add_argument("--shed-calls", type=int, default=2000,
                    help="calls of the shed-cost phase (0: skip it)")
    ap.add_argument("--server-cpus", default="", help="pin the RGS to these cores, e.g. 0,1")
    ap.add_argument("--client-cpus", default="", help="pin this load generator, e.g. 2,3")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.client_cpus:
        os.sched_setaffinity(0, _cpus(args.client_cpus))
    out: dict[str, Any] = {"max_in_flight": args.max_in_flight, "seconds": args.seconds}
    metrics = f"127.0.0.1:{free_port()}"
    metrics_url = f"http://{metrics}/metrics"

    async def histogram() -> dict[str, dict[float, float]]:
        return await asyncio.to_thread(_scrape, metrics_url)
    async with production_stack(rgs_env={"RGS_MAX_IN_FLIGHT": str(args.max_in_flight),
                                         "RGS_LOG_LEVEL": "WARNING",
                                         "RGS_METRICS_LISTEN": metrics}) as stack:
        if args.server_cpus:
            for pid in stack.processes()["rgs"]:
                os.sched_setaffinity(pid, _cpus(args.server_cpus))
        players = await setup_players(stack.rgs, stack.wallet, args.players, args.channels)
        solo = players[:1]
        await closed_loop(solo, 2.0)  # warm-up
        cpu = Cpu(stack)
        mark = await histogram()
        unloaded = await closed_loop(solo, args.unloaded_seconds)
        out["unloaded"] = {"calls": len(unloaded.ok), "p50_ms": pct(unloaded.ok, 0.5),
                           "p99_ms": pct(unloaded.ok, 0.99),
                           **per_call(cpu.lap(), len(unloaded.ok)),
                           **server_quantiles(mark, await histogram())}
        peak_players = players[1:1 + (args.peak_players or args.max_in_flight)]
        peak = await closed_loop(peak_players, args.peak_seconds)
        peak_rate = len(peak.ok) / args.peak_seconds
        out["peak"] = {"players": len(peak_players), "calls_per_s": round(peak_rate, 1),
                       "p99_ms": pct(peak.ok, 0.99), "shed": dict(peak.shed),
                       **per_call(cpu.lap(), len(peak.ok) + sum(peak.shed.values()))}
        if args.shed_calls:
            # Players that have not played yet: their Deal debits, which the wallet holds.
            out["shed_cost"] = await shed_cost(
                stack, players[-1 - args.max_in_flight:-1], players[-1], args.shed_calls, cpu)
        rate = args.factor * peak_rate
        mark = await histogram()
        cpu.lap()
        t0 = time.monotonic()
        with ClientLag() as client_lag:
            over, dropped = await open_loop(players[1:], rate, args.seconds)
        elapsed = time.monotonic() - t0
        over_cpu = cpu.lap()
        over_server = server_quantiles(mark, await histogram())
        offered = len(over.ok) + sum(over.shed.values()) + sum(over.other.values())
        out["overload"] = {
            "offered_per_s": round(offered / elapsed, 1), "target_per_s": round(rate, 1),
            "arrivals_without_idle_player": dropped,
            "admitted_per_s": round(len(over.ok) / elapsed, 1),
            "admitted_p50_ms": pct(over.ok, 0.5), "admitted_p99_ms": pct(over.ok, 0.99),
            "shed": dict(over.shed), "shed_without_delay": over.shed_without_delay,
            "retry_delay_ms": sorted(set(over.delays))[:5], "other_errors": dict(over.other),
            "rgs_cpu_s": round(over_cpu[0], 2), "client_cpu_s": round(over_cpu[1], 2),
            **per_call(over_cpu, offered), **over_server,
            "client_loop_lag_p99_ms": pct(client_lag.lags, 0.99)}
        t1 = time.perf_counter()
        first = Stats()
        await solo[0].step(first)
        first_ms = round((time.perf_counter() - t1) * 1000, 2)
        recovery = await closed_loop(solo, args.unloaded_seconds)
        out["recovery"] = {"first_call": "OK" if first.ok else dict(first.shed | first.other),
                           "first_call_ms": first_ms,
                           "p99_ms": pct(recovery.ok, 0.99), "shed": dict(recovery.shed)}
        out["finish_calls"] = await finish_all(players)
        checked, off, cents = await wallets_check(stack.wallet, players)
        out["wallets"] = {"checked": checked, "off": off, "cents_off": cents}
        outbox = await stack.outbox_open()
        out["outbox_open"] = outbox
    unloaded_p99 = out["unloaded"]["p99_ms"]
    ov = out["overload"]
    out["verdict"] = {
        "admitted_p99_within_2x_unloaded": ov["admitted_p99_ms"] <= 2 * unloaded_p99,
        "ratio": round(ov["admitted_p99_ms"] / unloaded_p99, 2) if unloaded_p99 else None,
        "server_ratio": (round(ov["server_p99_ms"] / out["unloaded"]["server_p99_ms"], 2)
                         if out["unloaded"]["server_p99_ms"] else None),
        "shed_cleanly": (sum(ov["shed"].values()) > 0 and ov["shed_without_delay"] == 0
                         and not ov["other_errors"]),
        "recovered_at_once": out["recovery"]["first_call"] == "OK",
        "every_wallet_to_the_cent": off == 0}
    if args.json:
        print(json.dumps(out))
        return
    for key, value in out.items():
        print(f"{key}: {value}")
    print(f"unloaded p99 {unloaded_p99} ms; admitted p99 under {args.factor:g}x "
          f"{ov['admitted_p99_ms']} ms; statistics.mean delay "
          f"{statistics.mean(over.delays) if over.delays else 0:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
