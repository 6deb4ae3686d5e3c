"""``rgs admin operator-key``: an operator's API keys from the command line, straight on the
journal database (the same use case as AdminService's CreateOperatorKey, ListOperatorKeys and
RevokeOperatorKey; recorded in the audit trail under ``system``). docs/operators.md has the
rotation procedure.

    rgs admin operator-key create --operator acme --label "cashier 2027" [--expires-at ISO]
    rgs admin operator-key list --operator acme
    rgs admin operator-key revoke --operator acme --key-id 1a2b3c4d5e6f --reason rotated

An operator is known here once it has a key (its first comes from RGS_OPERATOR_KEYS_FILE or
CreateOperatorKey on a replica, which knows the platform file's operators).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import datetime

from rgs.cli.common import UserError


async def _run(ns: argparse.Namespace) -> list[str]:
    from rgs.bootstrap import utc_now
    from rgs.cli.audit import _pool
    from rgs.journal.audit import PostgresAuditTrail
    from rgs.journal.operator_keys import PostgresOperatorKeys
    from rgs.service.audit import SYSTEM
    from rgs.service.operator_keys import OperatorKeyRotation

    pool = await _pool(ns)
    try:
        known = {str(r[0]) for r in await pool.fetch(
            "SELECT DISTINCT operator_id FROM operator_api_keys")}
        keys = OperatorKeyRotation(PostgresOperatorKeys(pool), PostgresAuditTrail(pool, utc_now),
                                   utc_now, known)
        if ns.key_command == "create":
            expires = datetime.fromisoformat(ns.expires_at) if ns.expires_at else None
            made = await keys.create(SYSTEM, operator_id=ns.operator, label=ns.label,
                                     expires_at=expires)
            print(f"key id {made.stored.key_id} for {ns.operator} stored (hashed); the key is "
                  "shown only now", file=sys.stderr)
            return [made.key]
        if ns.key_command == "revoke":
            gone = await keys.revoke(SYSTEM, operator_id=ns.operator, key_id=ns.key_id,
                                     reason=ns.reason)
            return [f"revoked {gone.key_id} ({gone.label})"]
        now = utc_now()
        return [f"{k.key_id}  {'live' if k.live(now) else 'dead'}  {k.source or '-'}  "
                f"created {k.created_at.isoformat(timespec='seconds')}  "
                f"expires {k.expires_at.isoformat(timespec='seconds') if k.expires_at else '-'}"
                f"  revoked {k.revoked_at.isoformat(timespec='seconds') if k.revoked_at else '-'}"
                f"  {k.label}" for k in await keys.keys_of(ns.operator)]
    finally:
        await pool.close()


def run(ns: argparse.Namespace) -> int:
    """Carry out ``rgs admin operator-key ...``."""
    from rgs.service.errors import ServiceError
    from rgs.service.ports import JournalError

    try:
        lines = asyncio.run(_run(ns))
    except ServiceError as exc:
        raise UserError(f"{exc} ({exc.reason})") from exc
    except ValueError as exc:
        raise UserError(f"--expires-at: {exc}") from exc
    except (JournalError, OSError) as exc:
        raise UserError(f"cannot reach the operator keys: {exc}; give --database-url or set "
                        "RGS_DATABASE_URL (run `rgs migrate` first)") from exc
    for line in lines:
        print(line)
    return 0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``operator-key`` under ``rgs admin``."""
    p = commands.add_parser("operator-key", help="create, list and revoke operator API keys")
    sub = p.add_subparsers(dest="key_command", metavar="COMMAND", required=True)
    c = sub.add_parser("create", help="make a new key for an operator (printed once)")
    c.add_argument("--label", required=True, help="who or what the key is for")
    c.add_argument("--expires-at", help="ISO 8601 time with offset when the key stops working")
    sub.add_parser("list", help="an operator's keys by key id, revoked and expired ones too")
    r = sub.add_parser("revoke", help="revoke a key: refused from the next call on every replica")
    r.add_argument("--key-id", required=True, help="12 hex characters, as `list` shows")
    r.add_argument("--reason", required=True, help="why (recorded in the audit trail)")
    for each in sub.choices.values():
        each.add_argument("--operator", required=True, help="the operator id")
        each.add_argument("--database-url",
                          help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
        each.set_defaults(func=run)
