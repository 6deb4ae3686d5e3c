"""The chaos test's machinery (tests/chaos/test_chaos.py): its settings (RGS_CHAOS_SECONDS,
RGS_CHAOS_PLAYERS, RGS_CHAOS_SEED), the players that play solo rounds (Player) and at the shared
table (TablePlayer) against the replicas (Cluster), retrying as a client would, the faults it
causes (wallet faults switched on in the sandbox wallet, a replica SIGKILLed and restarted, the
journal's private PostgreSQL restarted), and the check of the money invariant between the
journal and the wallet once the reconciler has drained (check_money).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import grpc
from e2e_servers import ServerProcess, start

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.errors import error_reason
from support.tables import plain

CHAOS_SECONDS = float(os.environ.get("RGS_CHAOS_SECONDS", "30"))
PLAYERS = int(os.environ.get("RGS_CHAOS_PLAYERS", "10"))
#: Players at the shared table (seats 1..TABLE_PLAYERS), betting on their seat and behind the
#: next one.
TABLE_PLAYERS = 4
TABLE = "chaos-vip"
SEED = int(os.environ.get("RGS_CHAOS_SEED", str(int(time.time()))))
KILLS = max(3, int(CHAOS_SECONDS // 10))
START = 10_000_000
OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET_KEY = "sandbox-wallet-dev-key"
WALLET_AUTH = (("authorization", f"Bearer {WALLET_KEY}"),)
BRAND = "demo-casino"
VARIANTS = ("vegas-20-plus", "classic-resplit", "electronic-h17", "power", "vip-platinum")
#: Codes a client retries with the same request id (the call's outcome is unknown or busy).
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
                       grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNKNOWN,
                       grpc.StatusCode.CANCELLED})
FAULT_KINDS = {
    sandbox_pb2.FAULT_KIND_LATENCY: "latency",
    sandbox_pb2.FAULT_KIND_TIMEOUT_BEFORE_APPLY: "timeout_before_apply",
    sandbox_pb2.FAULT_KIND_TIMEOUT_AFTER_APPLY: "timeout_after_apply",
    sandbox_pb2.FAULT_KIND_ERROR: "error",
    sandbox_pb2.FAULT_KIND_DUPLICATE_DELIVERY: "duplicate_delivery",
}
METHODS = (sandbox_pb2.WALLET_METHOD_UNSPECIFIED, sandbox_pb2.WALLET_METHOD_DEBIT,
           sandbox_pb2.WALLET_METHOD_CREDIT, sandbox_pb2.WALLET_METHOD_ROLLBACK,
           sandbox_pb2.WALLET_METHOD_BALANCE)
#: Variants dealing more than one box (the others take seat 1 only).
MULTI_BOX = frozenset({"electronic-h17", "vip-platinum"})
METHOD_NAMES = dict(zip(METHODS, ("any", "debit", "credit", "rollback", "balance"),
                        strict=True))
#: Final refusals: a debit refused so fails cleanly; a credit or rollback must still go
#: through in the end (the RGS keeps retrying it).
REFUSALS = ("INSUFFICIENT_FUNDS", "PLAYER_BLOCKED", "LIMIT_EXCEEDED")


@dataclass
class Stats:
    """What the run did, printed at the end."""

    rounds_dealt: int = 0
    rounds_finished_by_player: int = 0
    rounds_abandoned: int = 0
    rounds_voided_by_operator: int = 0
    decisions: int = 0
    retries: int = 0
    refusals: collections.Counter[str] = field(default_factory=collections.Counter)
    retry_reasons: collections.Counter[str] = field(default_factory=collections.Counter)
    faults_set: collections.Counter[str] = field(default_factory=collections.Counter)
    faults_fired: collections.Counter[str] = field(default_factory=collections.Counter)
    variants: collections.Counter[str] = field(default_factory=collections.Counter)
    kills: int = 0
    failed_starts: int = 0
    pg_restarts: int = 0
    table_bets: int = 0
    table_decisions: int = 0


def _reason(err: grpc.aio.AioRpcError) -> str:
    return error_reason(err) or err.code().name


class Refused(Exception):
    """A final refusal the player sees."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Cluster:
    """The replicas' stubs (replica 0 is the one killed)."""

    targets: list[str]
    games: list[Any]
    operators: list[Any]
    stop_at: float
    tables: list[Any] = field(default_factory=list)


class Player:
    """One player playing rounds until the chaos ends."""

    def __init__(self, pid: str, cluster: Cluster, stats: Stats, rng: random.Random) -> None:
        self.pid = pid
        self.c = cluster
        self.stats = stats
        self.rng = rng
        self.md: tuple[tuple[str, str], ...] = ()
        self.n = 0

    async def call(self, method: str, req: Any, *, operator: bool = False) -> Any:
        """Call any replica; retry a retryable failure with the same request (and id)."""
        give_up = time.monotonic() + 120
        while True:
            i = self.rng.randrange(len(self.c.games))
            stub = (self.c.operators if operator else self.c.games)[i]
            try:
                return await getattr(stub, method)(
                    req, metadata=OPERATOR if operator else self.md, timeout=15)
            except grpc.aio.AioRpcError as err:
                if err.code() not in RETRYABLE:
                    raise Refused(_reason(err)) from err
                self.stats.retries += 1
                self.stats.retry_reasons[_reason(err)] += 1
                assert time.monotonic() < give_up, f"{method} kept failing: {err.details()}"
                await asyncio.sleep(self.rng.uniform(0.05, 0.3))

    async def run(self) -> None:
        """Play until the chaos window closes, then finish the round in hand."""
        resp = await self.call("CreateSession", op.CreateSessionRequest(
            request_id=f"s-{self.pid}", brand_id=BRAND, player_id=self.pid), operator=True)
        self.md = (("authorization", f"Bearer {resp.session_token}"),)
        while time.monotonic() < self.c.stop_at:
            await self.round()

    def _bets(self, variant: str) -> list[bj.BoxBet]:
        boxes = []
        seats = (1, 2, 3) if variant in MULTI_BOX else (1,)
        for seat in self.rng.sample(seats, self.rng.randint(1, len(seats))):
            stake = self.rng.choice((1000, 1500, 2500))
            side = self.rng.choice((0, 100, 200))
            if variant == "vegas-20-plus":
                boxes.append(bj.BoxBet(seat=seat, stake=stake, twenty_plus=side))
            elif variant == "vip-platinum":
                boxes.append(bj.BoxBet(seat=seat, stake=stake, perfect_pairs=side,
                                       twenty_one_plus_three=side))
            else:
                boxes.append(bj.BoxBet(seat=seat, stake=stake))
        return boxes

    async def round(self) -> None:
        """Deal, then act until the round ends (or abandon it, or have it voided)."""
        self.n += 1
        variant = self.rng.choice(VARIANTS)
        try:
            view = (await self.call("Deal", bj.DealRequest(
                request_id=f"d{self.n}", variant_id=variant,
                boxes=self._bets(variant)))).round
            self.stats.rounds_dealt += 1
            self.stats.variants[variant] += 1
        except Refused as exc:
            self.stats.refusals[exc.reason] += 1
            if exc.reason != "ROUND_IN_PROGRESS":
                return
            # A round of ours is open (a call that looked failed had committed): go on with it.
            view = (await self.call("GetRound", bj.GetRoundRequest())).round
        fate = self.rng.random()
        steps = 0
        while view.status in (bj.ROUND_STATUS_INSURANCE, bj.ROUND_STATUS_PLAYER_TURN):
            if fate < 0.05 and steps == 0:
                await self.abandon(view.round_id)
                return
            if fate > 0.95 and steps == 1:
                await self.void(view.round_id)
                return
            steps += 1
            seat, hand, allowed = self._choices(view)
            action = self.rng.choice(allowed)
            try:
                view = (await self.call("Act", bj.ActRequest(
                    request_id=f"a{self.n}-{steps}", round_id=view.round_id,
                    expected_seq=view.seq, seat=seat, hand=hand, action=action))).round
                self.stats.decisions += 1
            except Refused as exc:
                self.stats.refusals[exc.reason] += 1
                view = (await self.call("GetRound", bj.GetRoundRequest(
                    round_id=view.round_id))).round
        self.stats.rounds_finished_by_player += 1

    @staticmethod
    def _choices(view: Any) -> tuple[int, int, list[int]]:
        if view.status == bj.ROUND_STATUS_INSURANCE:
            box = next(b for b in view.boxes if b.insurance_allowed)
            return box.seat, 0, [a.action for a in box.insurance_allowed]
        seat, hand = view.to_act.seat, view.to_act.hand
        box = next(b for b in view.boxes if b.seat == seat)
        return seat, hand, [a.action for a in box.hands[hand].allowed]

    async def abandon(self, round_id: str) -> None:
        """Walk away; the sweeper must finish the round on the player's behalf."""
        self.stats.rounds_abandoned += 1
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            await asyncio.sleep(1.0)
            view = (await self.call("GetRound", bj.GetRoundRequest(round_id=round_id))).round
            if view.status not in (bj.ROUND_STATUS_INSURANCE, bj.ROUND_STATUS_PLAYER_TURN):
                return
        raise AssertionError(f"abandoned round {round_id} was never swept")

    async def void(self, round_id: str) -> None:
        """The operator voids the round (a dispute)."""
        try:
            await self.call("VoidRound", op.VoidRoundRequest(
                request_id=f"v{self.n}-{self.pid}", brand_id=BRAND, player_id=self.pid,
                round_id=round_id, reason="chaos test dispute"), operator=True)
            self.stats.rounds_voided_by_operator += 1
        except Refused as exc:
            self.stats.refusals[f"void:{exc.reason}"] += 1


class TablePlayer(Player):
    """A player at the shared table: bets on their seat (and behind the next seat), presses
    Deal Now, hits or stands when their hand is due, lets the clock time some decisions out."""

    def __init__(self, pid: str, seat: int, cluster: Cluster, stats: Stats,
                 rng: random.Random) -> None:
        super().__init__(pid, cluster, stats, rng)
        self.seat = seat
        self.games = cluster.tables

    async def tcall(self, method: str, req: Any) -> Any:
        """A table call to any replica; retryable failures repeat the same request."""
        give_up = time.monotonic() + 120
        while True:
            stub = self.rng.choice(self.c.tables)
            try:
                return await getattr(stub, method)(req, metadata=self.md, timeout=15)
            except grpc.aio.AioRpcError as err:
                if err.code() not in RETRYABLE:
                    raise Refused(_reason(err)) from err
                self.stats.retries += 1
                self.stats.retry_reasons[f"table:{_reason(err)}"] += 1
                assert time.monotonic() < give_up, f"{method} kept failing: {err.details()}"
                await asyncio.sleep(self.rng.uniform(0.05, 0.3))

    async def snapshot(self) -> dict[str, Any]:
        while True:
            stub = self.rng.choice(self.c.tables)
            call = stub.WatchTable(tb.WatchTableRequest(table_id=TABLE), metadata=self.md,
                                   timeout=10)
            try:
                async for item in call:
                    return plain(item.snapshot)
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.2)
            finally:
                call.cancel()

    async def run(self) -> None:
        resp = await self.call("CreateSession", op.CreateSessionRequest(
            request_id=f"s-{self.pid}", brand_id=BRAND, player_id=self.pid), operator=True)
        self.md = (("authorization", f"Bearer {resp.session_token}"),)
        await self.tcall("TakeSeat", tb.TakeSeatRequest(request_id="seat", table_id=TABLE,
                                                        seat=self.seat))
        while time.monotonic() < self.c.stop_at:
            await self.table_round()
        deadline = time.monotonic() + 90
        while (await self.snapshot())["phase"] != "idle":  # the last round plays out
            assert time.monotonic() < deadline, "the table never went idle"
            await asyncio.sleep(0.5)

    async def table_round(self) -> None:
        self.n += 1
        bets = [tb.Bet(seat=self.seat, stake=self.rng.choice((1000, 2000)),
                       perfect_pairs=self.rng.choice((0, 100)))]
        if self.rng.random() < 0.6:
            bets.append(tb.Bet(seat=self.seat % TABLE_PLAYERS + 1, stake=1000, behind=True,
                               follow_double=self.rng.random() < 0.5,
                               follow_split=self.rng.random() < 0.5,
                               insurance=self.rng.choice((tb.BEHIND_INSURANCE_NEVER,
                                                          tb.BEHIND_INSURANCE_ALWAYS))))
        try:
            await self.tcall("PlaceBets", tb.PlaceBetsRequest(
                request_id=f"b{self.n}", table_id=TABLE, bets=bets))
            self.stats.table_bets += 1
        except Refused as exc:
            self.stats.refusals[f"table:{exc.reason}"] += 1
            await asyncio.sleep(0.3)
            return
        if self.rng.random() < 0.7:
            with contextlib.suppress(Refused):
                await self.tcall("DealNow", tb.DealNowRequest(request_id=f"n{self.n}",
                                                              table_id=TABLE))
        while time.monotonic() < self.c.stop_at + 60:
            snap = await self.snapshot()
            if snap["phase"] in ("idle", "betting") and snap["round_no"] != 0 and (
                    snap["phase"] == "idle" or not any(b["seat"] == self.seat
                                                       for b in snap["bets"])):
                return
            view = snap.get("round") or {}
            to_act = view.get("to_act")
            if snap["phase"] == "playing" and to_act and to_act[0] == self.seat \
                    and self.rng.random() < 0.8:
                action = self.rng.choice(("stand", "hit"))
                try:
                    await self.tcall("Act", tb.ActRequest(
                        request_id=f"a{self.n}-{snap['seq']}", table_id=TABLE,
                        round_id=snap["round_id"], seat=self.seat, hand=to_act[1],
                        action=action))
                    self.stats.table_decisions += 1
                except Refused as exc:
                    self.stats.refusals[f"table:{exc.reason}"] += 1
            await asyncio.sleep(0.2)


async def inject_faults(control: Any, stats: Stats, rng: random.Random, stop_at: float) -> None:
    """Keep up to three one-shot fault rules installed; count the ones that fired."""
    installed: dict[str, str] = {}
    while time.monotonic() < stop_at:
        listed = {f.fault_id for f in (await control.ListFaults(
            sandbox_pb2.ListFaultsRequest(), metadata=WALLET_AUTH)).faults}
        for fid in [f for f in installed if f not in listed]:
            stats.faults_fired[installed.pop(fid)] += 1
        while len(installed) < 3:
            kind = rng.choice(list(FAULT_KINDS))
            method = rng.choice(METHODS)
            reason = "WALLET_UNAVAILABLE"
            if kind == sandbox_pb2.FAULT_KIND_ERROR and rng.random() < 0.5:
                reason = rng.choice(REFUSALS)
            name = FAULT_KINDS[kind] + (f"({reason})" if kind == sandbox_pb2.FAULT_KIND_ERROR
                                        else "") + f"@{METHOD_NAMES[method]}"
            resp = await control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
                kind=kind, method=method, probability=1.0, remaining=1,
                latency_ms=rng.choice((200, 600, 1500)), error_reason=reason)),
                metadata=WALLET_AUTH)
            installed[resp.fault.fault_id] = name
            stats.faults_set[name] += 1
        await asyncio.sleep(rng.uniform(0.1, 0.4))
    await control.ClearFaults(sandbox_pb2.ClearFaultsRequest(), metadata=WALLET_AUTH)


async def kill_and_restart(victim: list[ServerProcess], args: list[str], env: dict[str, str],
                           logs: Path, stats: Stats, stop_at: float) -> None:
    """SIGKILL replica 0 KILLS times during the window, restarting it on the same port."""
    period = CHAOS_SECONDS / (KILLS + 1)
    for k in range(KILLS):
        await asyncio.sleep(max(0.0, min(period, stop_at - time.monotonic() - 1)))
        proc = victim[0]
        proc.proc.send_signal(signal.SIGKILL)
        proc.proc.wait()
        stats.kills += 1
        await asyncio.sleep(0.3)
        # Like a Kubernetes restart policy: a replica that cannot start (its database is
        # restarting) is started again.
        for attempt in range(30):
            try:
                victim[0] = await start(args, target=proc.target,
                                        log=logs / f"rgs0-{k + 1}-{attempt}.log", env=env)
                break
            except RuntimeError:
                stats.failed_starts += 1
                await asyncio.sleep(1.0)
        else:
            raise AssertionError("replica 0 could not be restarted")


_START_POSTGRES = ("import sys; from pathlib import Path; from rgs import devdb; "
                   "print(devdb.start_embedded(Path(sys.argv[1]), keep_running=True))")


def start_postgres(data_dir: Path) -> str:
    """Start the private PostgreSQL from a fresh interpreter; return its URL.

    Not from this process: the library forks to run pg_ctl as its own OS user, and a child
    forked while gRPC's threads run here can crash before it execs (seen: "pg_ctl died with
    SIGSEGV" at the restart). The fresh interpreter has no such threads; the server outlives it
    and is stopped by :func:`stop_postgres`.
    """
    done = subprocess.run([sys.executable, "-c", _START_POSTGRES, str(data_dir)],
                          capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"PostgreSQL did not start in {data_dir}: {done.stderr[-2000:]}")
    return done.stdout.strip().splitlines()[-1]


async def stop_postgres(data_dir: Path) -> None:
    """Fast shutdown (SIGINT: clients are disconnected, open transactions rolled back), and
    wait until the postmaster is gone. Signalled directly: pg_ctl stop is not reliable here."""
    pid_file = data_dir / "postmaster.pid"
    if not pid_file.exists():
        return
    postmaster = int(pid_file.read_text().split()[0])
    with contextlib.suppress(ProcessLookupError):
        os.kill(postmaster, signal.SIGINT)
    while True:
        try:
            os.kill(postmaster, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.1)


async def restart_postgres(data_dir: Path, stats: Stats, at: float) -> None:
    """Restart the journal's private PostgreSQL once, mid-run (fast shutdown drops clients)."""
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    await stop_postgres(data_dir)
    await asyncio.sleep(1.0)
    await asyncio.to_thread(start_postgres, data_dir)
    stats.pg_restarts += 1


async def wait_drained(rgs_db: str, timeout: float) -> None:
    """Until no round is unfinished and no outbox row is open (or fail)."""
    deadline = time.monotonic() + timeout
    conn = await asyncpg.connect(rgs_db)
    try:
        while True:
            unfinished = await conn.fetchval(
                "SELECT count(*) FROM rgs.rounds WHERE status NOT IN ('settled', 'voided')")
            open_rows = await conn.fetchval(
                "SELECT count(*) FROM rgs.wallet_transactions WHERE status IN "
                "('pending', 'unknown') OR (kind = 'debit' AND status = 'applied')")
            if unfinished == 0 and open_rows == 0:
                return
            if time.monotonic() >= deadline:
                rows = await conn.fetch(
                    "SELECT * FROM rgs.wallet_transactions WHERE status IN "
                    "('pending', 'unknown') OR (kind = 'debit' AND status = 'applied')")
                raise AssertionError(
                    f"not drained: {unfinished} rounds unfinished, {open_rows} outbox rows "
                    f"open: {[dict(r) for r in rows]}")
            await asyncio.sleep(0.5)
    finally:
        await conn.close()




async def check_money(rgs_db: str, wallet_db: str, pids: list[str]) -> dict[str, int]:
    """Assert the money invariant between the journal and the wallet; return counts."""
    rj = await asyncpg.connect(rgs_db)
    wj = await asyncpg.connect(wallet_db)
    try:
        rounds = await rj.fetch("SELECT round_id, status, total_staked, total_paid "
                                "FROM rgs.rounds")
        outbox = await rj.fetch("SELECT transaction_id, round_id, kind, amount, status, "
                                "attempts FROM rgs.wallet_transactions")
        txs = await wj.fetch(
            "SELECT transaction_id, kind, round_id, player_id, amount, balance_change, seq, "
            "debit_transaction_id, rolled_back_by FROM sandbox_wallet.transactions "
            "WHERE player_id = ANY($1::text[])", pids)
        balances = await wj.fetch("SELECT player_id, balance FROM sandbox_wallet.players "
                                  "WHERE player_id = ANY($1::text[])", pids)
        table_rounds = await rj.fetch("SELECT round_id, status FROM rgs.table_rounds")
        shares = await rj.fetch("SELECT round_id, staked, paid FROM rgs.table_round_players")
    finally:
        await rj.close()
        await wj.close()

    # Every round is finished; no outbox row is open.
    assert {r["status"] for r in rounds} <= {"settled", "voided"}
    open_rows = [o for o in outbox if o["status"] in ("pending", "unknown")
                 or (o["kind"] == "debit" and o["status"] == "applied")]
    assert open_rows == []

    # No transaction id applied twice (the wallet keeps one row per id; ids are distinct).
    ids = [t["transaction_id"] for t in txs]
    assert len(ids) == len(set(ids))

    # Per round: wallet debits - effective rollbacks - credits == stakes - payouts.
    net: collections.Counter[str] = collections.Counter()
    by_kind: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for t in txs:
        net[t["round_id"]] -= t["balance_change"]
        by_kind[t["round_id"]][t["kind"]] += abs(t["balance_change"])
    expected = {r["round_id"]: (0 if r["status"] == "voided"
                                else r["total_staked"] - r["total_paid"]) for r in rounds}
    # A shared table's round: each player's share (a round refunded or never dealt has none:
    # not_dealt, when only Bet Behinds reached betting close, their seat's own bet refused).
    assert {r["status"] for r in table_rounds} <= {"settled", "voided", "not_dealt"}
    for sh in shares:
        expected[sh["round_id"]] = expected.get(sh["round_id"], 0) + sh["staked"] - sh["paid"]
    for rid in set(net) | set(expected):
        k = by_kind[rid]
        assert k["debit"] - k["rollback"] - k["credit"] == net[rid]
        assert net[rid] == expected.get(rid, 0), (
            f"round {rid}: wallet net {net[rid]} != journal {expected.get(rid, 0)}")
    total_expected = sum(expected.values())
    assert sum(net.values()) == total_expected
    assert sum(b["balance"] for b in balances) == START * len(pids) - total_expected

    # What the journal booked is what the wallet holds, id by id.
    wallet_by_id = {t["transaction_id"]: t for t in txs}
    for o in outbox:
        w = wallet_by_id.get(o["transaction_id"])
        if o["status"] == "booked":
            assert w is not None and w["amount"] == o["amount"] and w["rolled_back_by"] == ""
        if o["kind"] == "credit":
            assert o["status"] == "applied" and w is not None and w["amount"] == o["amount"]

    # The journal's outbox agrees with its rounds: a settled round's booked stakes and its one
    # applied credit are its totals; a voided round's stakes were all rolled back, nothing paid.
    rows_by_round: dict[str, list[Any]] = collections.defaultdict(list)
    for o in outbox:
        rows_by_round[o["round_id"]].append(o)
    for r in rounds:
        rows = rows_by_round[r["round_id"]]
        booked = sum(o["amount"] for o in rows if o["kind"] == "debit"
                     and o["status"] == "booked")
        credits = [o["amount"] for o in rows if o["kind"] == "credit"]
        if r["status"] == "settled":
            assert (booked, credits) == (r["total_staked"], [r["total_paid"]]), r["round_id"]
        else:
            assert booked == 0 and credits == [], r["round_id"]
            assert all(o["status"] in ("rolled_back", "refused") for o in rows
                       if o["kind"] == "debit"), r["round_id"]

    # A debit is never rolled back after a credit of its round was applied (to its player: a
    # shared table's round pays several players).
    first_credit = {}
    for t in sorted(txs, key=lambda t: t["seq"]):
        if t["kind"] == "credit":
            first_credit.setdefault((t["round_id"], t["player_id"]), t["seq"])
    for t in txs:
        if t["kind"] == "rollback" and t["balance_change"] != 0:
            assert t["seq"] < first_credit.get((t["round_id"], t["player_id"]), 1 << 62)

    statuses = collections.Counter(r["status"] for r in rounds)
    return {"rounds": len(rounds), "settled": statuses["settled"],
            "voided": statuses["voided"], "wallet_transactions": len(txs),
            "outbox_rows": len(outbox),
            "outbox_calls_retried": sum(max(o["attempts"] - 1, 0) for o in outbox),
            "outbox_rows_retried": sum(1 for o in outbox if o["attempts"] > 1),
            "rollbacks_applied": sum(1 for t in txs if t["kind"] == "rollback"
                                     and t["balance_change"] != 0),
            "staked_minus_paid": total_expected, "table_rounds": len(table_rounds),
            "table_shares": len(shares)}
