"""``bench/tables.py --scene rounds``: N tables x 7 seated players playing rounds flat out on
two replicas, with a watcher of every table on each: rounds/s, the time from the last Deal Now
to the first card a watcher sees, and the fan-out latency (a bet answered -> its event seen by
a watcher on each replica) p50/p99. Not a command of its own."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time
from typing import Any

import grpc
from table_stack import SEATS, pct, table_stack

from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc


class Figures:
    def __init__(self) -> None:
        self.rounds = 0
        self.bet_sent: dict[tuple[str, int, int], float] = {}
        self.fanout_ms: list[float] = []
        self.last_deal_now: dict[tuple[str, int], float] = {}
        self.first_card_ms: list[float] = []
        #: The table's own timers that fired: betting closed by its time (not by Deal Now),
        #: and decisions timed out. A player of the bench that stops pressing Deal Now or
        #: acting shows here, and each costs a round its timer's seconds (5 s).
        self.betting_timed_out = 0
        self.decisions_timed_out = 0
        #: Commands sent again with the same request id after a retryable refusal.
        self.retried = 0
        #: Deal Nows refused because betting had closed meanwhile (the bet still plays).
        self.deal_now_too_late = 0


#: Refusals a client sends again with the same request id (the server answers a retry from
#: its stored answer, or runs it once).
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED,
             grpc.StatusCode.DEADLINE_EXCEEDED)


async def _sent(figs: Figures, call: Any, request: Any, md: Any) -> Any:
    """A command, sent again (same request id) while it is refused for a retryable reason: a
    bench player that gave up after one TABLE_BUSY would leave its bet without a Deal Now, and
    every round after it would wait out the table's timers."""
    while True:
        try:
            return await call(request, metadata=md, timeout=30)
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in RETRYABLE:
                raise
            figs.retried += 1
            await asyncio.sleep(0.05)


async def _watch(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any, table_id: str, *,
                 figs: Figures, stop: asyncio.Event, count_rounds: bool) -> None:
    call = stub.WatchTable(tb.WatchTableRequest(table_id=table_id), metadata=md)
    round_no = 0
    seen_card = False
    closing = False
    with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
        async for item in call:
            now = time.perf_counter()
            if stop.is_set():
                break
            if not item.HasField("event"):
                continue
            kind = item.event.WhichOneof("event")
            if kind == "betting_opened":
                round_no, seen_card = item.event.betting_opened.round_no, False
                closing = False
            elif kind == "betting_closing":
                closing = True
            elif kind == "betting_closed" and count_rounds and not closing:
                figs.betting_timed_out += 1
            elif kind == "decision_timed_out" and count_rounds:
                figs.decisions_timed_out += 1
            elif kind == "bet_placed":
                sent = figs.bet_sent.get((table_id, round_no, item.event.bet_placed.seat))
                if sent is not None:
                    figs.fanout_ms.append((now - sent) * 1000)
            elif kind == "card_dealt" and not seen_card:
                seen_card = True
                pressed = figs.last_deal_now.get((table_id, round_no))
                if pressed is not None:
                    figs.first_card_ms.append((now - pressed) * 1000)
            elif kind == "round_finished" and count_rounds:
                figs.rounds += 1
    call.cancel()


async def _player(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any, table_id: str, *,
                  seat: int, figs: Figures, stop: asyncio.Event) -> None:
    n = 0
    await _sent(figs, stub.TakeSeat, tb.TakeSeatRequest(request_id="seat", table_id=table_id,
                                                         seat=seat), md)
    while not stop.is_set():
        n += 1
        try:
            snap = (await _sent(figs, stub.PlaceBets, tb.PlaceBetsRequest(
                request_id=f"b{n}", table_id=table_id, bets=[tb.Bet(seat=seat, stake=1000)]),
                md)).result.snapshot
            figs.bet_sent.setdefault((table_id, snap.round_no, seat), time.perf_counter())
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in (grpc.StatusCode.FAILED_PRECONDITION,
                                  grpc.StatusCode.ABORTED):
                raise
            await asyncio.sleep(0.05)
            continue
        # A bet sent before PlaceBets answered is timed from its answer: a lower bound.
        try:
            await _sent(figs, stub.DealNow, tb.DealNowRequest(request_id=f"d{n}",
                                                              table_id=table_id), md)
            figs.last_deal_now[(table_id, snap.round_no)] = time.perf_counter()
        except grpc.aio.AioRpcError as exc:
            # Betting closed before this Deal Now (the others' closed it while this bet went
            # in): the bet is in the round all the same, so play it. Going back to betting
            # here left the hand to the table's 5 s decision timer, one to three times a run.
            if exc.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                raise
            figs.deal_now_too_late += 1
        # Play: stand whenever this seat's hand is due, until the round is over.
        while not stop.is_set():
            try:
                done = await _turn(figs, stub, md, table_id, seat=seat, n=n,
                                   round_no=snap.round_no)
            except grpc.aio.AioRpcError as exc:
                # A look refused (the server shedding load): look again. A player that died
                # here left its hand to time out (decision_s) and its seat unplayed.
                if exc.code() not in RETRYABLE:
                    raise
                figs.retried += 1
                done = False
            if done:
                break
            await asyncio.sleep(0.05)


async def _turn(figs: Figures, stub: table_pb2_grpc.TableServiceAsyncStub, md: Any,
                table_id: str, *, seat: int, n: int, round_no: int) -> bool:
    """One look at the table (a snapshot), standing if this seat's hand is due; True once the
    round is over."""
    call = stub.WatchTable(tb.WatchTableRequest(table_id=table_id), metadata=md)
    done = False
    try:
        async for item in call:
            if item.HasField("snapshot"):
                s = item.snapshot
                if s.phase in (tb.TABLE_PHASE_IDLE, tb.TABLE_PHASE_BETTING):
                    done = s.round_no > round_no or s.phase == tb.TABLE_PHASE_IDLE
                    break
                if s.phase == tb.TABLE_PHASE_INSURANCE:
                    # The dealer shows an ace: decline (the same request id on every look, so
                    # the table answers a repeat from its stored answer). A bench that never
                    # answered left the table's decision timer to close insurance: the 5 s
                    # "decision timed out" one to three times a run (1 round in 13).
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        await _sent(figs, stub.DecideInsurance, tb.DecideInsuranceRequest(
                            request_id=f"i{n}", table_id=table_id, round_id=s.round_id,
                            seat=seat, take=False), md)
                    break
                to_act = s.round.to_act if s.round.HasField("to_act") else None
                if s.phase == tb.TABLE_PHASE_PLAYING and to_act and to_act.seat == seat:
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        await _sent(figs, stub.Act, tb.ActRequest(
                            request_id=f"a{n}-{s.seq}", table_id=table_id,
                            round_id=s.round_id, seat=seat, hand=to_act.hand,
                            action="stand"), md)
                break
    finally:
        call.cancel()
    return done


async def rounds(args: argparse.Namespace, say: Any) -> dict[str, Any]:
    async with table_stack(tables=args.tables, replicas=2, betting_s=5, decision_s=5,
                           say=say) as t:
        figs, stop = Figures(), asyncio.Event()
        tasks = []
        for n in range(args.tables):
            tid = f"bench-{n}"
            for seat in range(1, SEATS + 1):
                p = await t.player(f"bench-{n}-{seat}", n + seat, balance=10**9)
                if seat == 1:
                    for i, stub in enumerate(t.stubs):
                        tasks.append(asyncio.create_task(
                            _watch(stub, p.md, tid, figs=figs, stop=stop,
                                   count_rounds=i == 0)))
                tasks.append(asyncio.create_task(
                    _player(p.stub, p.md, tid, seat=seat, figs=figs, stop=stop)))
        say(f"{args.tables} tables x {SEATS} players, watchers on both replicas; "
            f"{args.seconds:.0f} s ...")
        await asyncio.sleep(args.seconds)
        stop.set()
        died = [t.exception() for t in tasks if t.done() and not t.cancelled()
                and t.exception() is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    out = {"scene": "rounds", "tables": args.tables, "players": args.tables * SEATS,
           "seconds": args.seconds, "rounds": figs.rounds,
           "rounds_per_s": round(figs.rounds / args.seconds, 2),
           "deal_now_to_first_card_ms": {"p50": round(pct(figs.first_card_ms, 0.5), 1),
                                         "p99": round(pct(figs.first_card_ms, 0.99), 1),
                                         "n": len(figs.first_card_ms)},
           "fanout_ms": {"p50": round(pct(figs.fanout_ms, 0.5), 1),
                         "p99": round(pct(figs.fanout_ms, 0.99), 1),
                         "mean": round(statistics.fmean(figs.fanout_ms), 1)
                         if figs.fanout_ms else None,
                         "n": len(figs.fanout_ms)},
           "timers_fired": {"betting": figs.betting_timed_out,
                            "decisions": figs.decisions_timed_out},
           "commands_retried": figs.retried,
           "deal_now_after_betting_closed": figs.deal_now_too_late,
           "bench_players_died": [type(e).__name__ + (f" {e.code().name}" if isinstance(
               e, grpc.aio.AioRpcError) else "") for e in died]}
    if not args.json:
        print(f"rounds: {out['rounds']} in {args.seconds:.0f} s = {out['rounds_per_s']}/s")
        print(f"last Deal Now -> first card at a watcher: p50 "
              f"{out['deal_now_to_first_card_ms']['p50']} ms, p99 "
              f"{out['deal_now_to_first_card_ms']['p99']} ms")
        print(f"fan-out (bet answered -> seen by watchers on both replicas): p50 "
              f"{out['fanout_ms']['p50']} ms, p99 {out['fanout_ms']['p99']} ms "
              f"(n={out['fanout_ms']['n']})")
        print(f"the table's timers fired: betting {figs.betting_timed_out}, decisions "
              f"{figs.decisions_timed_out}; commands retried (same request id): "
              f"{figs.retried}; bench players that died: {out['bench_players_died'] or 0}")
    return out
