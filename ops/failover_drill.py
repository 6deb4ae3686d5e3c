"""Failover, for real: a primary and a streaming hot standby (two clusters made here by initdb
and pg_basebackup, synchronous replication so a commit the RGS was told of is on both), one
``rgs serve`` on the multi-host connection string ``host1:p1,host2:p2`` with
``target_session_attrs=read-write``, players playing rounds flat out; the primary is SIGKILLed
mid-run and the standby promoted by hand (``pg_ctl promote``: the manual failover; an automatic
one, e.g. pg_auto_failover, does the same two steps). The RGS is not touched: it must reconnect
by itself.

Then: every open round finished, each wallet against what its rounds announced (to the cent),
no round debited or credited twice (the wallet's own transactions), the outbox drained, and the
seconds the players could not play (the longest gap between two answered calls around the kill).

    .venv/bin/python ops/failover_drill.py [--seconds 20] [--players 6] [--keep] [--json]

Used by ``tests/chaos/test_failover.py`` and ``bench/failover.py``; the stack and the players
are ops/drill_stack.py's.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg
import pgcluster
from drill_stack import (
    START,
    WALLET,
    drill_stack,
    outbox_open,
    play_until,
    prepare_journal,
    run_cli,
)

from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2


async def drill(*, root: Path, wallet_db: str, seconds: float = 20.0, players: int = 6,
                kill_after: float = 0.4) -> dict[str, Any]:
    """Run the drill under ``root`` (clusters, logs); the report (module docstring)."""
    primary = pgcluster.init_primary(root, synchronous=True)
    standby = pgcluster.start_standby(primary, root)
    try:
        pgcluster.wait_streaming(primary)
        primary.psql("CREATE DATABASE rgs")
        hosts = f"127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
        url = f"postgresql://postgres@{hosts}/rgs?target_session_attrs=read-write"
        await prepare_journal(primary.db_url("rgs"))
        async with drill_stack(root, journal_url=url, wallet_db=wallet_db, rgs_env={
                "RGS_RECONCILE_INTERVAL_S": "1", "RGS_RECONCILE_MIN_AGE_S": "2",
                "RGS_LOG_FORMAT": "json"}) as stack:
            team = await stack.players("fo", players)
            until = time.monotonic() + seconds
            game = asyncio.ensure_future(play_until(team, until))
            await asyncio.sleep(seconds * kill_after)
            killed_at = time.monotonic()
            await asyncio.to_thread(primary.kill)
            await asyncio.to_thread(standby.promote)
            promoted_at = time.monotonic()
            await game
            # Unavailability: the longest silence (no call of any player answered) from just
            # before the kill to the end, and the first answer after the promotion.
            answered = sorted(t for p in team for t in p.answered)
            around = [killed_at - 0.5, *(t for t in answered if t >= killed_at - 0.5)]
            silence = max((b - a for a, b in itertools.pairwise(around)), default=0.0)
            first_after = min((t for t in answered if t >= promoted_at), default=until)
            # Money: each wallet against its rounds, and the wallet's own transactions per
            # round.
            off: dict[str, int] = {}
            twice: list[str] = []
            rolled_back = 0
            for p in team:
                balance = await stack.wallet_balance(p.pid)
                if balance != START + p.net:
                    off[p.pid] = balance - (START + p.net)
                txns = await stack.control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
                    player_id=p.pid), metadata=WALLET)
                kinds = Counter((t.round_id, sandbox_pb2.TransactionKind.Name(t.kind))
                                for t in txns.transactions)
                twice += [f"{p.pid} {r} {k} x{n}" for (r, k), n in kinds.items() if n > 1]
                # A debit rolled back (a Deal the journal lost in the crash, refunded by the
                # reconciler) is no round played; every other debited round is one.
                rollbacks = {r for (r, k) in kinds if k == "TRANSACTION_KIND_ROLLBACK"}
                debited = {r for (r, k) in kinds if k == "TRANSACTION_KIND_DEBIT"} - rollbacks
                rolled_back += len(rollbacks)
                if len(debited) != p.rounds:
                    twice.append(f"{p.pid}: {len(debited)} rounds debited, {p.rounds} played")
            deadline = time.monotonic() + 60
            outbox = await outbox_open(standby.db_url("rgs"))
            while outbox and time.monotonic() < deadline:
                await asyncio.sleep(0.5)
                outbox = await outbox_open(standby.db_url("rgs"))
            rgs_alive = stack.rgs_alive()
        conn = await asyncpg.connect(standby.db_url("rgs"))
        try:
            in_recovery = await conn.fetchval("SELECT pg_is_in_recovery()")
        finally:
            await conn.close()
        errors: Counter[str] = Counter()
        for p in team:
            errors.update(p.errors)
        return {
            "failover": "manual: SIGKILL of the primary's postmaster, then pg_ctl promote",
            "promote_s": round(promoted_at - killed_at, 2),
            "unavailable_s": round(silence, 2),
            "first_answer_after_kill_s": round(first_after - killed_at, 2),
            "rounds": sum(p.rounds for p in team), "players": players,
            "seconds": seconds, "errors_retried": dict(errors),
            "rounds_rolled_back": rolled_back, "wallets_off": off,
            "paid_or_dealt_twice": twice, "outbox_open": outbox,
            "rgs_alive": rgs_alive, "new_primary_in_recovery": in_recovery,
        }
    finally:
        primary.stop()
        standby.stop()


def passed(report: dict[str, Any]) -> bool:
    """The drill's verdict: the RGS lived through it, the money is whole, the outbox drained."""
    return bool(report["rgs_alive"] and not report["wallets_off"]
                and not report["paid_or_dealt_twice"] and report["outbox_open"] == 0)


if __name__ == "__main__":
    run_cli(drill, doc=__doc__ or "", workspace="rgs-failover-", seconds=20.0, players=6,
            ok=passed)
