"""``rgs partitions``: keep the monthly partitions of the journal's growing tables
(:mod:`rgs.journal.partitions`); the Helm chart runs ``maintain`` daily as a CronJob.

    rgs partitions status [--json]                   # what is attached, how far ahead, what is due
    rgs partitions maintain --dry-run                # print the steps, change nothing
    rgs partitions maintain --json                   # create 3 months ahead, detach past 72 months
    rgs partitions maintain --retention-months 84 --past-retention drop

On the default install the journal is not partitioned: both say so and change nothing
(partitioning is the scale-out path, ops/scale-out.md). The retention is the installation's,
for every market it serves (ops/dr.md: retention per regulator); it may not be shorter than the
longest minimum of the markets' profiles. ``maintain`` exits 1 when a step failed (a lock not
granted within --lock-timeout-ms, rows of a new month already in the default partition), so
the CronJob's failure raises RgsPartitionMaintenanceFailing after two days.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime

from rgs.cli.common import UserError
from rgs.service.jurisdiction import PROFILES

REGULATORS_MINIMUM_MONTHS = max(p.record_retention_months for p in PROFILES.values())
"""The longest record retention any market's profile asks (its partitions are shared by every
market of the installation): no shorter retention is accepted."""


def _check(ns: argparse.Namespace) -> None:
    if ns.retention_months < REGULATORS_MINIMUM_MONTHS:
        raise UserError(f"--retention-months {ns.retention_months} is inside the regulators' "
                        f"retention: game records are kept at least {REGULATORS_MINIMUM_MONTHS} "
                        "months (ops/dr.md, retention per regulator); nothing was changed")
    if not 0 <= ns.months_ahead <= 24:
        raise UserError("--months-ahead must be 0-24 months after this one")
    if ns.partitions_command == "maintain":
        _check_steps(ns)


def _check_steps(ns: argparse.Namespace) -> None:
    if not 10 <= ns.lock_timeout_ms <= 10_000:
        raise UserError("--lock-timeout-ms must be 10-10000: game calls wait behind a "
                        "partition change while it waits for its lock")
    if not 1 <= ns.attempts <= 20:
        raise UserError("--attempts must be 1-20")


async def _url(ns: argparse.Namespace) -> str:
    from rgs.cli.service import _settings, database_url

    return await database_url(_settings(ns))


async def _maintain(ns: argparse.Namespace) -> tuple[dict[str, object], bool]:
    from rgs.journal.partitions import maintain

    report = await maintain(await _url(ns), now=datetime.now(UTC),
                            months_ahead=ns.months_ahead, retention_months=ns.retention_months,
                            past_retention=ns.past_retention, dry_run=ns.dry_run,
                            lock_timeout_ms=ns.lock_timeout_ms, attempts=ns.attempts,
                            pause_s=ns.pause)
    return report.as_dict(), report.ok


async def _status(ns: argparse.Namespace) -> dict[str, object]:
    from rgs.journal.partitions import status

    return await status(await _url(ns), now=datetime.now(UTC), months_ahead=ns.months_ahead,
                        retention_months=ns.retention_months)


def _database(exc: Exception) -> UserError:
    return UserError(f"cannot reach the journal: {exc}; give --database-url or set "
                     "RGS_DATABASE_URL (run `rgs migrate` first)")


def run_maintain(ns: argparse.Namespace) -> int:
    """Carry out ``rgs partitions maintain``."""
    import asyncpg

    _check(ns)
    try:
        out, ok = asyncio.run(_maintain(ns))
    except (OSError, asyncpg.PostgresError) as exc:
        raise _database(exc) from exc
    if ns.json:
        print(json.dumps(out))
        return 0 if ok else 1
    if not out["partitioned"]:
        print("the journal is not partitioned (the default install): nothing to do; "
              "partitioning is the scale-out path, ops/scale-out.md")
        return 0
    actions = out["actions"]
    assert isinstance(actions, list)
    verb = "would " if ns.dry_run else ""
    for a in actions:
        state = "failed: " + a["error"] if a["error"] else ("planned" if ns.dry_run else "done")
        print(f"{verb}{a['action']} {a['partition']} [{a['from'][:10]}, {a['to'][:10]}) "
              f"of {a['table']}: {state}")
    print(f"{len(actions)} steps{' (dry run: nothing changed)' if ns.dry_run else ''}; "
          f"partitions reach {str(out['ahead_until'])[:10]}; months that ended by "
          f"{str(out['retention_cutoff'])[:10]} leave")
    return 0 if ok else 1


def run_status(ns: argparse.Namespace) -> int:
    """Carry out ``rgs partitions status``."""
    import asyncpg

    _check(ns)
    try:
        out = asyncio.run(_status(ns))
    except (OSError, asyncpg.PostgresError) as exc:
        raise _database(exc) from exc
    if ns.json:
        print(json.dumps(out))
        return 0
    if not out["partitioned"]:
        print("the journal is not partitioned (the default install): nothing to maintain")
        return 0
    tables = out["tables"]
    assert isinstance(tables, list)
    for t in tables:
        warn = "  DEFAULT PARTITION HAS ROWS" if t["default_has_rows"] else ""
        print(f"{t['table']} by {t['column']}: {t['partitions']} months from "
              f"{str(t['oldest'])[:10]}, covered until {t['covered_until'][:10]}, "
              f"~{t['rows_estimate']} rows, {len(t['pending'])} steps due{warn}")
    for name in out["detached_awaiting_archive"]:  # type: ignore[attr-defined]
        print(f"detached, to archive and drop: {name}")
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    p.add_argument("--retention-months", type=int, default=72,
                   help="keep game records this many months (default 72, ops/dr.md; at least "
                        f"{REGULATORS_MINIMUM_MONTHS})")
    p.add_argument("--months-ahead", type=int, default=3,
                   help="partitions after this month's to have ready (default 3)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``partitions`` with ``maintain`` and ``status``."""
    p = sub.add_parser("partitions", help="create the journal's monthly partitions ahead and "
                       "detach those past retention", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    inner = p.add_subparsers(dest="partitions_command", metavar="ACTION", required=True)
    m = inner.add_parser("maintain", help="create months ahead, detach months past retention")
    _common(m)
    m.add_argument("--past-retention", choices=("detach", "drop"), default="detach",
                   help="detach a month past retention and keep it for the archive (default), "
                        "or drop it")
    m.add_argument("--dry-run", action="store_true", help="print the steps, change nothing")
    m.add_argument("--lock-timeout-ms", type=int, default=1000,
                   help="give up a step's lock after this long (game calls queue behind it)")
    m.add_argument("--attempts", type=int, default=5, help="tries per step (default 5)")
    m.add_argument("--pause", type=float, default=2.0, help="seconds between tries")
    m.set_defaults(func=run_maintain)
    s = inner.add_parser("status", help="the partitions, how far ahead, what is due")
    _common(s)
    s.set_defaults(func=run_status)
