"""``rgs audit journal``: check a journal whole, e.g. one just restored to a point in time
(ops/runbooks/procedures/restore.md): every round, solo and shared-table, replays from its
events; every movement belongs to a round and has the state its round implies
(rgs.service.journal_audit, rgs.service.tables.audit); nothing is half-written (a round
without events, a movement of no round).

    rgs audit journal [--database-url URL] [--json]    # exit 0 consistent, 1 not

Open movements (calls a restore cut through) are listed, not faults: the replicas' reconciler
drives them once they run. Neither are the stakes of a table round still taking bets (its row
is written when betting closes).
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
    from rgs.journal.audit_reads import JournalAuditReads
    from rgs.service.journal_audit import audit_round
    from rgs.service.model import MovementStatus, is_open
    from rgs.service.tables.audit import audit_table_round
    from rgs.wallet.port import MoneyKind

    settings = _settings(ns)
    url = await database_url(settings)
    journal = await connect_ops_journal(settings.model_copy(update={"database_url": url}))
    problems: list[str] = []
    open_movements = betting_stakes = 0
    try:
        reads = JournalAuditReads(journal._pool)  # the listings are this command's alone
        keys = await reads.solo_rounds()
        free = await reads.solo_free_rounds()
        table_ids = await reads.table_rounds()
        table_free = await reads.table_free_bets()
        betting = await reads.betting_rounds()
        # A debit of no round is a call cut short (open, or refused / rolled back: final,
        # nothing kept), or a stake on a table round still taking bets. A booked debit or a
        # credit of no round is half-written.
        for o in await reads.of_no_round():
            if o.round_id in betting and o.kind is MoneyKind.DEBIT:
                betting_stakes += 1
            elif o.kind is MoneyKind.CREDIT or (o.kind, o.status) == (MoneyKind.DEBIT, "booked"):
                problems.append(f"movement {o.transaction_id}: {o.status} {o.kind.value} "
                                f"of no round ({o.round_id})")
            elif is_open(o.kind, MovementStatus(o.status)):
                open_movements += 1
        problems += [f"round {rid}: no events (half-written)"
                     for rid in await reads.solo_rounds_without_events()]
        movements_total = await reads.movements_total()
        progress = Progress(len(keys) + len(table_ids), "rounds replayed", quiet=ns.json)
        done = 0
        for player_key, round_id in keys:
            done += 1
            stored = await journal.get_round(player_key, round_id)
            if stored is None:
                problems.append(f"round {round_id}: listed but unreadable")
                continue
            moves = await journal.movements(player_key, round_id)
            found = audit_round(stored, moves, free_bet=stored.round_id in free)
            problems += found.problems
            open_movements += len(found.open_movements)
            progress(done)
        for round_id in table_ids:
            done += 1
            rec = await reads.table_round(round_id)
            if rec is None:
                problems.append(f"table round {round_id}: listed but unreadable")
                continue
            found = audit_table_round(rec, await reads.round_movements(round_id),
                                      table_free.get(round_id, {}))
            problems += found.problems
            open_movements += len(found.open_movements)
            progress(done)
        progress.close()
    finally:
        await journal.close()
    return {"consistent": not problems, "rounds": len(keys), "table_rounds": len(table_ids),
            "movements": movements_total, "open_movements": open_movements,
            "betting_stakes": betting_stakes, "problems": len(problems),
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
        print(f"journal {verdict}: {out['rounds']} solo and {out['table_rounds']} table rounds "
              f"replayed from their events, {out['movements']} movements checked, "
              f"{out['open_movements']} still open (the reconciler drives them), "
              f"{out['betting_stakes']} stakes on table rounds still taking bets, "
              f"{out['problems']} problems")
        for line in out["first_problems"]:
            print(f"  {line}")
    return 0 if out["consistent"] else 1


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rgs audit journal``."""
    j = commands.add_parser(
        "journal", help="check the journal: rounds replay, movements match their rounds",
        description="Replay every round (solo and shared-table) from its events and check "
                    "every wallet movement against its round (e.g. after a point-in-time "
                    "restore).")
    j.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    j.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    j.set_defaults(func=run_journal)
