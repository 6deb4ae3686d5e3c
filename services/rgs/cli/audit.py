"""``rgs audit verify`` and ``rgs admin add-key``: the audit trail's check and the platform
administrator's keys (docs/controls.md).

    rgs audit verify                       # "chain intact, N rows" (exit 0) or the first row
    rgs audit verify --json                #   altered or removed (exit 1); one JSON object
    rgs audit journal                      # rounds replay, movements match (rgs.cli.audit_journal)
    rgs admin add-key --label ops-alice    # prints a new administrator key (stored hashed)
    rgs admin operator-key create|list|revoke   # operators' keys (rgs.cli.operator_keys)

Both read the journal database from ``--database-url`` or ``RGS_DATABASE_URL`` (in development,
a local PostgreSQL as ``rgs serve`` finds it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from rgs.cli.common import Progress, UserError


async def _pool(ns: argparse.Namespace) -> Any:
    from rgs.cli.service import _settings, database_url
    from rgs.journal.audit import open_pool

    settings = _settings(ns)
    return await open_pool(await database_url(settings),
                           pool_mode=settings.database_pool_mode, max_size=1)


async def _verify(ns: argparse.Namespace) -> dict[str, object]:
    from rgs.bootstrap import utc_now
    from rgs.journal.audit import PostgresAuditTrail
    from rgs.service.audit import verify_chain

    pool = await _pool(ns)
    try:
        total = int(await pool.fetchval("SELECT count(*) FROM audit_log"))
        progress = Progress(total, "audit rows checked", quiet=ns.json)
        report = await verify_chain(PostgresAuditTrail(pool, utc_now).rows(), progress)
        progress.close()
    finally:
        await pool.close()
    return {"intact": report.intact, "rows": report.rows, "head": report.head,
            "broken_at": report.broken_at, "problem": report.problem}


def run_verify(ns: argparse.Namespace) -> int:
    """Carry out ``rgs audit verify``; 0 when the chain is intact, 1 when it is not."""
    from rgs.service.ports import JournalError

    try:
        out = asyncio.run(_verify(ns))
    except (JournalError, OSError) as exc:
        raise UserError(f"cannot read the audit trail: {exc}; give --database-url or set "
                        "RGS_DATABASE_URL (run `rgs migrate` first)") from exc
    if ns.json:
        print(json.dumps(out))
    elif out["intact"]:
        print(f"chain intact, {out['rows']} rows (head {out['head']})")
    else:
        print(f"chain BROKEN at row {out['broken_at']}: {out['problem']} "
              f"({out['rows']} rows before it intact)")
    return 0 if out["intact"] else 1


async def _add_key(ns: argparse.Namespace) -> str:
    from rgs.bootstrap import utc_now
    from rgs.journal.audit import PostgresAuditTrail
    from rgs.journal.controls import PostgresControls
    from rgs.service.admin import AdminAccess, new_admin_key

    pool = await _pool(ns)
    try:
        key = new_admin_key()
        await AdminAccess(PostgresControls(pool, utc_now), PostgresAuditTrail(pool, utc_now)
                          ).add_key(key, ns.label)
    finally:
        await pool.close()
    return key


def run_add_key(ns: argparse.Namespace) -> int:
    """Carry out ``rgs admin add-key``: print a new administrator key, stored hashed."""
    from rgs.service.ports import JournalError

    if not 1 <= len(ns.label) <= 64:
        raise UserError("--label must be 1-64 characters (who holds the key)")
    try:
        key = asyncio.run(_add_key(ns))
    except (JournalError, OSError) as exc:
        raise UserError(f"cannot store the key: {exc}; give --database-url or set "
                        "RGS_DATABASE_URL (run `rgs migrate` first)") from exc
    print(key)
    print(f"administrator key for {ns.label} stored (hashed); it is shown only now",
          file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rgs audit`` and ``rgs admin``."""
    p = sub.add_parser("audit", help="check the hash-chained audit trail")
    commands = p.add_subparsers(dest="audit_command", metavar="COMMAND", required=True)
    v = commands.add_parser("verify", help="check every row of the audit trail's chain",
                            description="Walk the audit trail in order and recompute every "
                                        "row's hash; name the first row altered or removed.")
    v.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    v.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    v.set_defaults(func=run_verify)
    from rgs.cli.audit_journal import register as register_journal
    register_journal(commands)
    p = sub.add_parser("admin", help="the platform administrator's keys")
    commands = p.add_subparsers(dest="admin_command", metavar="COMMAND", required=True)
    a = commands.add_parser("add-key", help="make and store a new administrator key")
    a.add_argument("--label", required=True, help="who holds the key (kept, and named in "
                                                  "the audit trail)")
    a.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    a.set_defaults(func=run_add_key)
    from rgs.cli.operator_keys import register as register_operator_keys
    register_operator_keys(commands)
