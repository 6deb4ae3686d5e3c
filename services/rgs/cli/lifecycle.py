"""``rgs purge``: delete expired idempotency records, sessions and launch codes, and finished
demo play's virtual money, in batches (:mod:`rgs.journal.lifecycle`); the Helm chart runs it
daily as a CronJob.

    rgs purge                                  # 7 days of request ids, sessions 30 days past expiry
    rgs purge --idempotency-days 14 --session-days 90 --launch-days 1 --json

Game records are never purged by it (ops/dr.md has the retention per regulator).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import asdict
from datetime import UTC, datetime, timedelta

from rgs.cli.common import UserError

MIN_IDEMPOTENCY_DAYS = 1
"""A request id must stay a replay for longer than any client's retries, the reconciler's
backoff and an abandoned round's completion (RGS_ABANDON_AFTER_S, an hour): a day at least."""


async def _purge(ns: argparse.Namespace) -> dict[str, object]:
    from rgs.cli.service import _settings, database_url
    from rgs.journal.lifecycle import purge

    now = datetime.now(UTC)
    report = await purge(await database_url(_settings(ns)),
                         idempotency_before=now - timedelta(days=ns.idempotency_days),
                         sessions_before=now - timedelta(days=ns.session_days),
                         launches_before=now - timedelta(days=ns.launch_days),
                         batch=ns.batch, pause_s=ns.pause)
    return asdict(report)


def run(ns: argparse.Namespace) -> int:
    """Carry out ``rgs purge``."""
    import asyncpg

    if ns.idempotency_days < MIN_IDEMPOTENCY_DAYS:
        raise UserError(f"--idempotency-days must be at least {MIN_IDEMPOTENCY_DAYS}: a request "
                        "id must stay answerable as a replay while clients may still retry it")
    if ns.session_days < 0:
        raise UserError("--session-days must be 0 or more (days past a session's expiry)")
    if ns.launch_days < 0:
        raise UserError("--launch-days must be 0 or more (days past a launch code's expiry)")
    if not 1 <= ns.batch <= 100_000:
        raise UserError("--batch must be 1-100000 rows per transaction")
    try:
        out = asyncio.run(_purge(ns))
    except (OSError, asyncpg.PostgresError) as exc:
        raise UserError(f"cannot purge: {exc}; give --database-url or set RGS_DATABASE_URL "
                        "(run `rgs migrate` first)") from exc
    if ns.json:
        print(json.dumps(out))
    else:
        print(f"purged {out['idempotency_records']} idempotency records, "
              f"{out['sessions']} session rows, {out['launch_codes']} launch codes and "
              f"{out['demo_balances']} demo balances ({out['demo_moves']} demo moves) in "
              f"{out['batches']} batches")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``purge``."""
    p = sub.add_parser("purge", help="delete expired idempotency records, sessions, launch "
                       "codes and finished demo balances",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    p.add_argument("--idempotency-days", type=float, default=7.0,
                   help="keep request ids answerable as replays this long (default 7)")
    p.add_argument("--session-days", type=float, default=30.0,
                   help="keep sessions this long past their expiry (default 30)")
    p.add_argument("--launch-days", type=float, default=1.0,
                   help="keep launch codes this long past their expiry (default 1)")
    p.add_argument("--batch", type=int, default=5000, help="rows per transaction")
    p.add_argument("--pause", type=float, default=0.05, help="seconds between batches")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
