"""``rgs audit journal``: check a journal whole, e.g. one just restored to a point in time
(ops/runbooks/RestoreDrill.md): every solo round replays from its events, every movement belongs
to a round and has the state its round implies (rgs.service.journal_audit), nothing is
half-written (a round without events, a movement of no round).

    rgs audit journal [--database-url URL] [--json]    # exit 0 consistent, 1 not

Open movements (calls a restore cut through) are listed, not faults: the replicas' reconciler
drives them once they run. Shared table rounds are checked for their movements only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from rgs.cli.common import Progress, UserError

#: Problems printed in full (the count is always given).
_SHOWN = 50


async def _audit(ns: argparse.Namespace) -> dict[str, Any]:
    from rgs.bootstrap import connect_ops_journal
    from rgs.cli.service import _settings, database_url
    from rgs.service.journal_audit import audit_round
    from rgs.service.model import MovementStatus, is_open
    from rgs.wallet.port import MoneyKind

    settings = _settings(ns)
    url = await database_url(settings)
    journal = await connect_ops_journal(settings.model_copy(update={"database_url": url}))
    problems: list[str] = []
    open_movements = 0
    try:
        pool = journal._pool  # the listing queries below are this command's alone
        keys = await pool.fetch("SELECT player_key, round_id FROM rounds "
                                "ORDER BY player_key, round_id")
        free = {r["round_id"] for r in await pool.fetch("SELECT round_id FROM free_bet_uses")}
        # A Deal's debit is written before the wallet call and its round at the step's
        # commit: a debit of no round is a call cut short (open, or refused / rolled back:
        # final, nothing kept). A booked debit or a credit of no round is half-written.
        orphans = await pool.fetch(
            "SELECT w.transaction_id, w.round_id, w.kind, w.status FROM wallet_transactions w "
            "WHERE NOT EXISTS (SELECT 1 FROM rounds r WHERE r.player_key = w.player_key "
            "AND r.round_id = w.round_id) AND NOT EXISTS (SELECT 1 FROM table_rounds t "
            "WHERE t.round_id = w.round_id)")
        for o in orphans:
            if o["kind"] == "credit" or (o["kind"], o["status"]) == ("debit", "booked"):
                problems.append(f"movement {o['transaction_id']}: {o['status']} {o['kind']} "
                                f"of no round ({o['round_id']})")
            elif is_open(MoneyKind(o["kind"]), MovementStatus(o["status"])):
                open_movements += 1
        empty = await pool.fetch(
            "SELECT r.round_id FROM rounds r WHERE NOT EXISTS (SELECT 1 FROM round_events e "
            "WHERE e.player_key = r.player_key AND e.round_id = r.round_id)")
        problems += [f"round {e['round_id']}: no events (half-written)" for e in empty]
        movements_total = int(await pool.fetchval("SELECT count(*) FROM wallet_transactions"))
        progress = Progress(len(keys), "rounds replayed", quiet=ns.json)
        for done, k in enumerate(keys, 1):
            stored = await journal.get_round(k["player_key"], k["round_id"])
            if stored is None:
                problems.append(f"round {k['round_id']}: listed but unreadable")
                continue
            moves = await journal.movements(k["player_key"], k["round_id"])
            found = audit_round(stored, moves, free_bet=stored.round_id in free)
            problems += found.problems
            open_movements += len(found.open_movements)
            progress(done)
        progress.close()
    finally:
        await journal.close()
    return {"consistent": not problems, "rounds": len(keys), "movements": movements_total,
            "open_movements": open_movements, "problems": len(problems),
            "first_problems": problems[:_SHOWN]}


def run_journal(ns: argparse.Namespace) -> int:
    """Carry out ``rgs audit journal``; 0 when the journal is consistent, 1 when it is not."""
    from rgs.service.ports import JournalError

    try:
        out = asyncio.run(_audit(ns))
    except (JournalError, OSError) as exc:
        raise UserError(f"cannot read the journal: {exc}; give --database-url or set "
                        "RGS_DATABASE_URL") from exc
    if ns.json:
        print(json.dumps(out))
    else:
        verdict = "consistent" if out["consistent"] else "NOT CONSISTENT"
        print(f"journal {verdict}: {out['rounds']} rounds replayed from their events, "
              f"{out['movements']} movements checked, {out['open_movements']} still open "
              f"(the reconciler drives them), {out['problems']} problems")
        for line in out["first_problems"]:
            print(f"  {line}")
    return 0 if out["consistent"] else 1


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rgs audit journal``."""
    j = commands.add_parser(
        "journal", help="check the journal: rounds replay, movements match their rounds",
        description="Replay every round from its events and check every wallet movement "
                    "against its round (e.g. after a point-in-time restore).")
    j.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    j.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    j.set_defaults(func=run_journal)
