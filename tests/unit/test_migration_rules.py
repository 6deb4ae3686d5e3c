"""New migrations change the schema without rewriting or long-locking a table.

The journal is online while it migrates (expand/contract, ops/database.md); a statement that
rewrites a table or scans it under an ACCESS EXCLUSIVE lock stops every call for as long as it
takes on a production-sized journal (and rgs.sqlmigrate's lock_timeout/statement_timeout then
fail it). The forms below are refused in every migration after the ones listed in HISTORY,
which were applied to small journals before this rule and are kept as they are (a migration
already applied is never edited).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MIGRATION_DIRS = (ROOT / "services" / "rgs" / "journal" / "migrations",
                  ROOT / "services" / "sandbox_wallet" / "migrations")

FORBIDDEN = {
    "changes a column's type (rewrites the table)":
        r"\bALTER\s+COLUMN\s+\w+\s+(SET\s+DATA\s+)?TYPE\b",
    "adds a column with a volatile default (rewrites the table)":
        r"\bADD\s+COLUMN\b[^;]*\bDEFAULT\s+(now|clock_timestamp|random|gen_random_uuid|"
        r"nextval|uuid_generate_v4)\s*\(",
    "adds a serial or stored generated column (rewrites the table)":
        r"\bADD\s+COLUMN\b[^;]*\b(BIGSERIAL|SERIAL|SMALLSERIAL|GENERATED\s+ALWAYS\s+AS\s*\()",
    "VACUUM FULL / CLUSTER (rewrite under ACCESS EXCLUSIVE)": r"\b(VACUUM\s+FULL|CLUSTER)\b",
    "moves or re-logs a table (rewrites it)":
        r"\bSET\s+(TABLESPACE|LOGGED|UNLOGGED|WITHOUT\s+OIDS)\b",
    "sets NOT NULL on an existing column (scans under ACCESS EXCLUSIVE; add a CHECK NOT VALID, "
    "VALIDATE it, then SET NOT NULL)": r"\bALTER\s+COLUMN\s+\w+\s+SET\s+NOT\s+NULL\b",
    "adds a CHECK or FOREIGN KEY constraint without NOT VALID (scans under lock; add NOT VALID "
    "then VALIDATE CONSTRAINT)":
        r"\bADD\s+CONSTRAINT\s+\w+\s+(CHECK|FOREIGN\s+KEY)\b(?![^;]*\bNOT\s+VALID\b)",
    "adds a primary key to an existing table (builds its index under ACCESS EXCLUSIVE)":
        r"\bALTER\s+TABLE\b[^;]*\bADD\s+PRIMARY\s+KEY\b",
    "UPDATEs or DELETEs a whole table in one statement (backfill in batches instead)":
        r"\b(UPDATE\s+\w+(\s+\w+)?\s+SET|DELETE\s+FROM\s+\w+)\b(?![^;]*\bWHERE\b)",
}
HISTORY = {
    ("journal", 10): "re-keyed idempotency_records and backfilled scope and brand_id in "
                     "whole-table UPDATEs (a small journal then)",
    ("journal", 86): "replaced table_rounds' status CHECK with a validated one",
}


def _migrations() -> list[tuple[str, int, Path]]:
    out = []
    for d in MIGRATION_DIRS:
        kind = "journal" if d.parent.name == "journal" else "wallet"
        for p in sorted(d.glob("[0-9][0-9][0-9][0-9]_*.sql")):
            out.append((kind, int(p.name[:4]), p))
    return out


def _sql(path: Path) -> str:
    """The statements without comments (the forms may be named in a comment)."""
    return re.sub(r"--[^\n]*", "", path.read_text("utf-8"))


@pytest.mark.parametrize(("kind", "version", "path"), _migrations(),
                         ids=[f"{k}-{p.name}" for k, _, p in _migrations()])
def test_no_migration_rewrites_or_long_locks_a_table(kind: str, version: int, path: Path) -> None:
    found = [why for why, pattern in FORBIDDEN.items()
             if re.search(pattern, _sql(path), re.I | re.S)]
    if (kind, version) in HISTORY:
        assert found, f"{path.name} is listed in HISTORY but breaks no rule: remove it there"
        return
    assert not found, f"{path.name}: {'; '.join(found)}"


def test_the_rules_catch_each_form() -> None:
    samples = {
        "ALTER TABLE t ALTER COLUMN a TYPE bigint;": 1,
        "ALTER TABLE t ADD COLUMN a timestamptz NOT NULL DEFAULT now();": 1,
        "ALTER TABLE t ADD COLUMN a text NOT NULL DEFAULT '';": 0,
        "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0);": 1,
        "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0) NOT VALID;": 0,
        "UPDATE t SET a = 1;": 1,
        "UPDATE t SET a = 1 WHERE id < 100;": 0,
        "VACUUM FULL t;": 1,
        "CREATE INDEX IF NOT EXISTS i ON t (a);": 0,
    }
    for sql, n in samples.items():
        hits = sum(1 for p in FORBIDDEN.values() if re.search(p, sql, re.I | re.S))
        assert hits == n, sql
