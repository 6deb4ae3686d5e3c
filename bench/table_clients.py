"""A client process of ``bench/tables.py`` (``--client-procs K``): its share of the Bet Behind
players and watchers of one table, driven by the benchmark over stdin/stdout, one JSON object a
line. Not a command of its own.

The first line is the share (:class:`Share`); then the benchmark sends

* ``{"op": "bet", "round": n, "start": t, "spread_s": s, "deadline": t}``: each player sends
  PlaceBets at ``start + spread_s * offset`` (``offset`` in [0, 1), given per player), retries
  a retryable refusal (RESOURCE_EXHAUSTED, TABLE_BUSY, UNAVAILABLE) until ``deadline``;
* ``{"op": "insure", "round_id": id}``: the players whose preset is "ask" decide insurance;
* ``{"op": "fanout", "round": n, "answered": {key: t}}``: the fan-out of the round's events
  to this share's watchers (:func:`fanout`);
* ``{"op": "stop"}``.

Times are ``time.monotonic()`` (CLOCK_MONOTONIC: one clock for every process of the machine).
Each answer is one line; the first line written is ``{"op": "ready", ...}`` once every watcher
has its snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "services"))
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc

#: Events that announce one bet (their key: kind, seat, the player's display name).
BET_EVENTS = ("bet_placed", "behind_placed")
#: Round events every watcher sees once a round, measured first watcher -> last.
ROUND_EVENTS = ("betting_closed", "round_started", "round_finished", "behind_totals")
#: Refusals a player retries within the betting window (counted as retried, not as errors).
RETRYABLE = ("RESOURCE_EXHAUSTED", "TABLE_BUSY", "UNAVAILABLE")


def reason(exc: grpc.aio.AioRpcError) -> tuple[str, float | None]:
    """The status code and ErrorInfo reason of a refusal, and its retry delay (s) if given."""
    code, delay = exc.code().name, None
    for key, value in exc.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
                if d.Unpack(info):
                    code = f"{exc.code().name} {info.reason}"
                elif d.Unpack(retry):
                    delay = retry.retry_delay.ToMilliseconds() / 1000
    return code, delay


def retryable(why: str) -> bool:
    return any(r in why for r in RETRYABLE)


def bet_key(kind: str, seat: int, name: str) -> str:
    return f"{kind}:{seat}:{name}"


def histogram(values_ms: list[float]) -> dict[int, int]:
    """Milliseconds counted in buckets of 1 ms (up to 1 s), then 10 ms: mergeable between
    processes, exact enough for a p99 against a 1 s goal."""
    out: Counter[int] = Counter()
    for v in values_ms:
        out[int(v) if v < 1000 else int(v) // 10 * 10] += 1
    return dict(out)


def hist_pct(hist: dict[int, int], q: float) -> float:
    """The q-quantile of a merged :func:`histogram`."""
    n = sum(hist.values())
    if not n:
        return float("nan")
    rank, seen = min(n - 1, int(q * n)), 0
    for bucket in sorted(hist):
        seen += hist[bucket]
        if seen > rank:
            return float(bucket)
    return float(max(hist))


@dataclass
class Seen:
    """When this share's watchers saw each event of each round."""

    #: round -> bet key -> times (one per watcher that saw it).
    bets: dict[int, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    #: round -> round event (``kind#seq``) -> times.
    rounds: dict[int, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    ended: Counter[str] = field(default_factory=Counter)


def fanout(seen: Seen, round_no: int, answered: dict[str, float]) -> dict[str, Any]:
    """The round's fan-out at these watchers: each bet's answer to each watcher's sight of its
    event (``bets``, a histogram of ms) and how many watcher-sights of answered bets were
    missing; and the raw times each round event was seen (the benchmark takes first to last
    over every process)."""
    per_bet = seen.bets.pop(round_no, {})
    ms = [max(0.0, t - answered[k]) * 1000 for k, ts in per_bet.items() if k in answered
          for t in ts]
    return {"bets": histogram(ms), "bet_events": sum(len(ts) for ts in per_bet.values()),
            "rounds": dict(seen.rounds.pop(round_no, {}))}


async def watch(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any, table: str, seen: Seen,
                ready: asyncio.Event, *, batch: bool = True) -> None:
    """One watcher; with ``batch`` (as the web table asks) each message may carry many events,
    each counted as seen when its message arrives."""
    call = stub.WatchTable(tb.WatchTableRequest(table_id=table, batch_events=batch),
                           metadata=md)
    round_no = 0
    try:
        async for item in call:
            now = time.monotonic()
            which = item.WhichOneof("item")
            if which == "snapshot":
                round_no = item.snapshot.round_no
                ready.set()
                continue
            events = item.events.events if which == "events" else (item.event,)
            for event in events:
                kind = event.WhichOneof("event") or ""
                if kind == "betting_opened":
                    round_no = event.betting_opened.round_no
                elif kind in BET_EVENTS:
                    data = getattr(event, kind)
                    seen.bets[round_no][bet_key(kind, data.seat, data.player.display_name)
                                        ].append(now)
                elif kind in ROUND_EVENTS:  # by seq: a round has many behind_totals
                    seen.rounds[round_no][f"{kind}#{event.seq}"].append(now)
        seen.ended["stream ended"] += 1
    except grpc.aio.AioRpcError as exc:
        seen.ended[reason(exc)[0]] += 1
    except asyncio.CancelledError:
        pass
    finally:
        call.cancel()


class Share:
    """This process's players and watchers, on ``conns`` connections per replica."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        self.table: str = cfg["table"]
        self.stake: int = cfg["stake"]
        n_streams = len(cfg["watchers"]) + len(cfg["players"])
        per = max(1, cfg["streams_per_conn"])
        conns = max(1, -(-n_streams // (per * len(cfg["replicas"]))))
        # A connection each (not one shared subchannel): as browsers and apps connect.
        self.channels = [[grpc.aio.insecure_channel(t, options=[
            ("grpc.use_local_subchannel_pool", 1), ("grpc.channel_id", i)])
            for i in range(conns)] for t in cfg["replicas"]]
        self.players: list[dict[str, Any]] = cfg["players"]
        self.watchers: list[dict[str, Any]] = cfg["watchers"]
        self.seen = Seen()
        self.tasks: list[asyncio.Task[None]] = []
        #: The players whose Bet Behind this round's window took.
        self.placed: set[str] = set()

    def stub(self, replica: int, i: int) -> table_pb2_grpc.TableServiceAsyncStub:
        chans = self.channels[replica % len(self.channels)]
        return table_pb2_grpc.TableServiceStub(chans[i % len(chans)])

    async def start(self) -> dict[str, Any]:
        events = []
        for i, w in enumerate(self.watchers):
            ready = asyncio.Event()
            events.append(ready)
            md = (("authorization", f"Bearer {w['token']}"),)
            self.tasks.append(asyncio.create_task(
                watch(self.stub(w["replica"], i), md, self.table, self.seen, ready)))
            if i % 50 == 49:
                await asyncio.sleep(0)  # let the opened streams go out
        deadline = time.monotonic() + 120
        # Until every stream has its snapshot or has ended (ended ones are counted apart).
        while (time.monotonic() < deadline and sum(e.is_set() for e in events)
               + sum(self.seen.ended.values()) < len(events)):
            await asyncio.sleep(0.2)
        return {"op": "ready", "watching": sum(e.is_set() for e in events),
                "ended": dict(self.seen.ended),
                "connections": sum(len(c) for c in self.channels)}

    async def bet(self, msg: dict[str, Any]) -> dict[str, Any]:
        ms: list[float] = []
        outcomes: Counter[str] = Counter()
        retried: Counter[str] = Counter()
        answered: dict[str, float] = {}
        self.placed = set()

        async def one(i: int, p: dict[str, Any]) -> None:
            await asyncio.sleep(max(0.0, msg["start"] + msg["spread_s"] * p["offset"]
                                    - time.monotonic()))
            md = (("authorization", f"Bearer {p['token']}"),)
            req = tb.PlaceBetsRequest(
                request_id=f"b{msg['round']}-{p['id']}", table_id=self.table,
                bets=[tb.Bet(seat=p["seat"], stake=self.stake, behind=True,
                             follow_double=p["follow_double"], follow_split=p["follow_split"],
                             insurance=p["insurance"])])
            t0 = time.monotonic()
            stub = self.stub(p["replica"], i)
            while True:
                left = msg["deadline"] - time.monotonic()
                try:
                    await stub.PlaceBets(req, metadata=md, timeout=max(0.5, left))
                except grpc.aio.AioRpcError as exc:
                    why, delay = reason(exc)
                    if retryable(why) and left > 0.5:
                        retried[why] += 1
                        # The server's retry delay, with jitter (as a client should: a
                        # thousand retries at the same instant would be the next burst).
                        await asyncio.sleep((delay if delay is not None else 0.1)
                                            * random.uniform(1.0, 2.0))
                        continue
                    outcomes[why] += 1
                    ms.append((time.monotonic() - t0) * 1000)
                    return
                now = time.monotonic()
                outcomes["OK"] += 1
                ms.append((now - t0) * 1000)
                answered[bet_key("behind_placed", p["seat"], p["id"])] = now
                self.placed.add(p["id"])
                return

        await asyncio.gather(*(one(i, p) for i, p in enumerate(self.players)))
        return {"op": "bet", "ms": ms, "outcomes": dict(outcomes), "retried": dict(retried),
                "answered": answered}

    async def insure(self, msg: dict[str, Any]) -> dict[str, Any]:
        outcomes: Counter[str] = Counter()
        ms: list[float] = []
        t0 = time.monotonic()
        end = t0 + 8  # within the insurance window (the table's 10 s)

        async def one(i: int, p: dict[str, Any]) -> None:
            md = (("authorization", f"Bearer {p['token']}"),)
            try:
                await decide(i, p, md)
            finally:  # each decision from the first try to its answer (or its giving up)
                ms.append((time.monotonic() - t0) * 1000)

        async def decide(i: int, p: dict[str, Any], md: tuple[tuple[str, str], ...]) -> None:
            while True:
                try:
                    await self.stub(p["replica"], i).DecideInsurance(tb.DecideInsuranceRequest(
                        request_id=f"i-{msg['round_id']}-{p['id']}", table_id=self.table,
                        round_id=msg["round_id"], seat=p["seat"], take=i % 2 == 0,
                        behind=True), metadata=md, timeout=max(0.5, end - time.monotonic()))
                    outcomes["OK"] += 1
                    return
                except grpc.aio.AioRpcError as exc:
                    why, delay = reason(exc)
                    if retryable(why) and time.monotonic() < end:
                        await asyncio.sleep((delay or 0.1) * random.uniform(1.0, 2.0))
                        continue
                    outcomes[why] += 1
                    return

        await asyncio.gather(*(one(i, p) for i, p in enumerate(self.players)
                               if p["insurance"] == tb.BEHIND_INSURANCE_ASK
                               and p["id"] in self.placed))
        return {"op": "insure", "outcomes": dict(outcomes), "ms": ms}

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for chans in self.channels:
            for c in chans:
                await c.close()


async def serve() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def send(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    share = Share(json.loads(await reader.readline()))
    send(await share.start())
    while line := await reader.readline():
        msg = json.loads(line)
        if msg["op"] == "bet":
            send(await share.bet(msg))
        elif msg["op"] == "insure":
            send(await share.insure(msg))
        elif msg["op"] == "fanout":
            send({"op": "fanout", **fanout(share.seen, msg["round"], msg["answered"]),
                  "ended": dict(share.seen.ended)})
        elif msg["op"] == "stop":
            break
    await share.stop()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        from rgs.eventloop import run

        run(serve())
