"""Monthly partitions of the journal's growing tables: created ahead of the calendar, and
detached (or dropped) once wholly past the retention period.

The default install is **unpartitioned**: :func:`maintain` then says so and changes nothing.
Partitioning is the scale-out path (``ops/scale-out.md``, step 2): ``rounds`` and
``round_events`` become tables partitioned by range of the round's start time (``created_at``,
``round_created_at``), one partition a month named ``<table>_YYYY_MM``, with a ``DEFAULT``
partition so a late clock never fails a deal. During the switch the new parents are called
``rounds_p`` and ``round_events_p``; either name is maintained.

What a run does, each step in its own short transaction under ``lock_timeout`` (a partition
DDL takes the parent's ``ACCESS EXCLUSIVE`` lock for an instant; waiting for it would queue
every game call behind it, so it gives up after ``lock_timeout_ms`` and tries again a few
times, then reports the step as failed for the next run):

* **create** the partitions of this month and the next ``months_ahead`` that no partition
  covers yet (a month whose rows already went to the default partition fails with a clear
  error: ``ops/runbooks/RgsPartitionMaintenanceFailing.md`` says how to move them);
* **detach** every monthly partition whose end is at least ``retention_months`` in the past,
  events before their rounds (the events' foreign key names the rounds); the detached table
  stays, without its foreign keys, to be archived (``pg_dump --table``) and dropped by the
  archive procedure; with ``past_retention="drop"`` it is dropped in the same transaction.

A partition whose range ends inside the retention period is never touched, and neither is the
default partition or a range this module did not lay out (open-ended ``MINVALUE``/``MAXVALUE``).
:func:`plan` is the pure decision, :func:`maintain` carries it out (or only prints it with
``dry_run``), :func:`inspect` reads the catalog for both and for ``rgs partitions status``.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal

import asyncpg

from rgs.journal.migrate import SCHEMA

GROWING = ("round_events", "rounds")
"""The journal's growing tables, referencing before referenced: a month leaves events first."""

PastRetention = Literal["detach", "drop"]
Kind = Literal["create", "detach", "drop"]

_BOUND = re.compile(r"FOR VALUES FROM \('([^']+)'\) TO \('([^']+)'\)")

Q_PARENTS = """
SELECT c.relname AS parent, a.attname AS column_name, c.oid AS oid
FROM pg_partitioned_table p
JOIN pg_class c ON c.oid = p.partrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = p.partattrs[0]
WHERE n.nspname = $1 AND p.partstrat = 'r' AND p.partnatts = 1 AND c.relname = ANY($2::text[])
"""

Q_PARTITIONS = """
SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound,
       greatest(c.reltuples, 0)::bigint AS rows_estimate
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = $1 ORDER BY c.relname
"""

Q_FOREIGN_KEYS = """
SELECT conname FROM pg_constraint
WHERE conrelid = $1::regclass AND contype = 'f' AND conparentid = 0
"""


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _qualified(name: str) -> str:
    return f"{_ident(SCHEMA)}.{_ident(name)}"


def month_start(when: datetime) -> datetime:
    """The first instant (UTC) of ``when``'s month."""
    when = when.astimezone(UTC)
    return datetime(when.year, when.month, 1, tzinfo=UTC)


def add_months(when: datetime, months: int) -> datetime:
    """``when`` (the first of a month) moved by ``months`` calendar months."""
    index = when.year * 12 + when.month - 1 + months
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Partition:
    """One partition: a time range ``[start, end)``, or the default (both ``None``)."""

    name: str
    start: datetime | None
    end: datetime | None
    rows_estimate: int = 0

    @property
    def is_default(self) -> bool:
        return self.start is None and self.end is None


@dataclass(frozen=True, slots=True)
class PartitionedTable:
    """A growing table partitioned by range of one time column, with its partitions."""

    parent: str
    base: str
    column: str
    partitions: tuple[Partition, ...]

    def ranged(self) -> list[Partition]:
        return [p for p in self.partitions if p.start is not None and p.end is not None]

    def covers(self, start: datetime, end: datetime) -> bool:
        """True when some partition's range meets ``[start, end)``."""
        return any(p.start is not None and p.end is not None and p.start < end and start < p.end
                   for p in self.partitions)

    @property
    def default(self) -> Partition | None:
        return next((p for p in self.partitions if p.is_default), None)


@dataclass(frozen=True, slots=True)
class Action:
    """One step of a maintenance run; ``error`` is empty when it was done (or, in a dry run,
    would be attempted)."""

    kind: Kind
    parent: str
    partition: str
    start: datetime
    end: datetime
    done: bool = False
    error: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"action": self.kind, "table": f"{SCHEMA}.{self.parent}",
                "partition": f"{SCHEMA}.{self.partition}", "from": self.start.isoformat(),
                "to": self.end.isoformat(), "done": self.done, "error": self.error}


@dataclass(slots=True)
class MaintenanceReport:
    """What a run found and did. ``partitioned`` is False on the default (unpartitioned)
    install, where nothing is done; ``ok`` is False when any step failed."""

    partitioned: bool
    tables: list[str]
    dry_run: bool
    retention_cutoff: datetime
    ahead_until: datetime
    actions: list[Action] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(a.error for a in self.actions)

    def as_dict(self) -> dict[str, object]:
        return {"partitioned": self.partitioned, "tables": self.tables, "dry_run": self.dry_run,
                "ok": self.ok, "retention_cutoff": self.retention_cutoff.isoformat(),
                "ahead_until": self.ahead_until.isoformat(),
                "actions": [a.as_dict() for a in self.actions]}


def _parse_bound(bound: str) -> tuple[datetime | None, datetime | None] | None:
    """``(start, end)`` of a partition bound, ``(None, None)`` for DEFAULT, ``None`` for a
    bound this module does not manage (MINVALUE, MAXVALUE, not a time)."""
    if bound.strip() == "DEFAULT":
        return None, None
    m = _BOUND.fullmatch(bound.strip())
    if not m:
        return None
    try:
        return datetime.fromisoformat(m[1]), datetime.fromisoformat(m[2])
    except ValueError:
        return None


async def inspect(conn: asyncpg.Connection) -> list[PartitionedTable]:
    """The growing tables that are partitioned by range of one column, with their partitions
    (an empty list on the unpartitioned journal)."""
    names = [n for base in GROWING for n in (base, f"{base}_p")]
    async with conn.transaction():
        await conn.execute("SET LOCAL TIME ZONE 'UTC'")
        parents = await conn.fetch(Q_PARENTS, SCHEMA, names)
        found: dict[str, PartitionedTable] = {}
        for row in parents:
            parts = []
            for p in await conn.fetch(Q_PARTITIONS, row["oid"]):
                bound = _parse_bound(p["bound"] or "")
                if bound is None:
                    continue
                parts.append(Partition(p["name"], bound[0], bound[1], int(p["rows_estimate"])))
            parent = str(row["parent"])
            found[parent] = PartitionedTable(parent=parent, base=parent.removesuffix("_p"),
                                             column=str(row["column_name"]),
                                             partitions=tuple(parts))
    return [found[n] for n in names if n in found]


def retention_cutoff(now: datetime, retention_months: int) -> datetime:
    """The first of the month ``retention_months`` calendar months before ``now``'s month: a
    partition whose range ends at or before it holds only records older than the retention
    period, whatever the day of the month."""
    return add_months(month_start(now), -retention_months)


def plan(tables: list[PartitionedTable], *, now: datetime, months_ahead: int,
         retention_months: int, past_retention: PastRetention = "detach") -> list[Action]:
    """The steps that bring ``tables`` to "this month and ``months_ahead`` more exist, nothing
    wholly older than ``retention_months`` is attached": creations first (referenced tables
    before referencing ones), then the months past retention, oldest first, events before
    rounds."""
    if months_ahead < 0 or retention_months < 1:
        raise ValueError("months_ahead must be 0 or more and retention_months 1 or more")
    first = month_start(now)
    cutoff = retention_cutoff(now, retention_months)
    creates: list[Action] = []
    for t in reversed(tables):
        for k in range(months_ahead + 1):
            start = add_months(first, k)
            end = add_months(start, 1)
            if not t.covers(start, end):
                creates.append(Action("create", t.parent,
                                      f"{t.base}_{start.year:04d}_{start.month:02d}", start, end))
    leaving: list[Action] = []
    for t in tables:
        for p in t.ranged():
            assert p.start is not None and p.end is not None
            if p.end <= cutoff:
                leaving.append(Action(past_retention, t.parent, p.name, p.start, p.end))
    order = {t.parent: i for i, t in enumerate(tables)}
    leaving.sort(key=lambda a: (a.start, order[a.parent]))
    return creates + leaving


def _statements(action: Action) -> list[str]:
    parent, child = _qualified(action.parent), _qualified(action.partition)
    if action.kind == "create":
        return [f"CREATE TABLE {child} PARTITION OF {parent} FOR VALUES FROM "
                f"('{action.start.isoformat()}') TO ('{action.end.isoformat()}')"]
    return [f"ALTER TABLE {parent} DETACH PARTITION {child}"]


async def _carry_out(conn: asyncpg.Connection, action: Action, *, lock_timeout_ms: int,
                     statement_timeout_ms: int) -> None:
    async with conn.transaction():
        await conn.execute(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
        await conn.execute(f"SET LOCAL statement_timeout = {int(statement_timeout_ms)}")
        for sql in _statements(action):
            await conn.execute(sql)
        if action.kind == "create":
            return
        child = _qualified(action.partition)
        if action.kind == "drop":
            await conn.execute(f"DROP TABLE {child}")
            return
        # A detached events table keeps its foreign key to the rounds' parent, which would
        # then refuse to let that month's rounds go: the archive needs no foreign key.
        for fk in await conn.fetch(Q_FOREIGN_KEYS, child):
            await conn.execute(f"ALTER TABLE {child} DROP CONSTRAINT {_ident(fk['conname'])}")


def _why(action: Action, exc: asyncpg.PostgresError) -> str:
    if isinstance(exc, asyncpg.CheckViolationError) and action.kind == "create":
        return (f"rows of {action.start:%Y-%m} are in the default partition of "
                f"{SCHEMA}.{action.parent}: move them into a new partition by hand "
                f"(ops/runbooks/RgsPartitionMaintenanceFailing.md); {exc}")
    return f"{type(exc).__name__}: {exc}"


async def maintain(database_url: str, *, now: datetime, months_ahead: int = 3,
                   retention_months: int = 72, past_retention: PastRetention = "detach",
                   dry_run: bool = False, lock_timeout_ms: int = 1000, attempts: int = 5,
                   pause_s: float = 2.0, statement_timeout_ms: int = 60_000
                   ) -> MaintenanceReport:
    """Create the months ahead and detach (or drop) the months past retention of the journal
    at ``database_url``, each step in its own transaction; a step that cannot take its locks
    within ``lock_timeout_ms`` is retried ``attempts`` times ``pause_s`` apart, then reported
    failed and the run goes on with the next one."""
    conn = await asyncpg.connect(database_url, statement_cache_size=0)
    try:
        tables = await inspect(conn)
        report = MaintenanceReport(
            partitioned=bool(tables), tables=[f"{SCHEMA}.{t.parent}" for t in tables],
            dry_run=dry_run, retention_cutoff=retention_cutoff(now, retention_months),
            ahead_until=add_months(month_start(now), months_ahead + 1))
        steps = plan(tables, now=now, months_ahead=months_ahead,
                     retention_months=retention_months, past_retention=past_retention)
        if dry_run:
            report.actions = steps
            return report
        failed_months: set[datetime] = set()
        for action in steps:
            if action.kind != "create" and action.start in failed_months:
                report.actions.append(replace(action, error=(
                    "skipped: an earlier table's partition of this month did not leave")))
                continue
            error = ""
            for attempt in range(1, attempts + 1):
                try:
                    await _carry_out(conn, action, lock_timeout_ms=lock_timeout_ms,
                                     statement_timeout_ms=statement_timeout_ms)
                    error = ""
                    break
                except asyncpg.LockNotAvailableError:
                    error = (f"could not take the locks on {SCHEMA}.{action.parent} within "
                             f"{lock_timeout_ms} ms, {attempts} times: game calls held them; "
                             "the next run tries again")
                    if attempt < attempts:
                        await asyncio.sleep(pause_s)
                except asyncpg.PostgresError as exc:
                    error = _why(action, exc)
                    break
            if error and action.kind != "create":
                failed_months.add(action.start)
            report.actions.append(replace(action, done=not error, error=error))
        return report
    finally:
        await conn.close()



Q_DETACHED = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind = 'r' AND NOT c.relispartition
  AND c.relname ~ '^(rounds|round_events)_[0-9]{4}_[0-9]{2}$' ORDER BY c.relname
"""


async def status(database_url: str, *, now: datetime, months_ahead: int = 3,
                 retention_months: int = 72) -> dict[str, object]:
    """The partitions as they are: per table the months attached, how far ahead they reach,
    what a run would do, whether the default partition holds rows (maintenance stopped for
    too long, or a clock far off), and detached months still waiting for their archive."""
    conn = await asyncpg.connect(database_url, statement_cache_size=0)
    try:
        tables = await inspect(conn)
        steps = plan(tables, now=now, months_ahead=months_ahead,
                     retention_months=retention_months) if tables else []
        out: list[dict[str, object]] = []
        for t in tables:
            ranged = sorted(t.ranged(), key=lambda p: p.start or now)
            reach = month_start(now)
            while t.covers(reach, add_months(reach, 1)):
                reach = add_months(reach, 1)
            default = t.default
            default_rows = bool(default and await conn.fetchval(
                f"SELECT EXISTS (SELECT 1 FROM {_qualified(default.name)})"))
            out.append({
                "table": f"{SCHEMA}.{t.parent}", "column": t.column,
                "partitions": len(ranged),
                "oldest": ranged[0].start.isoformat() if ranged and ranged[0].start else None,
                "covered_until": reach.isoformat(),
                "default_partition": f"{SCHEMA}.{default.name}" if default else None,
                "default_has_rows": default_rows,
                "rows_estimate": sum(p.rows_estimate for p in t.partitions),
                "pending": [a.as_dict() for a in steps if a.parent == t.parent]})
        detached = [f"{SCHEMA}.{r['relname']}" for r in await conn.fetch(Q_DETACHED, SCHEMA)]
    finally:
        await conn.close()
    return {"partitioned": bool(tables), "retention_months": retention_months,
            "retention_cutoff": retention_cutoff(now, retention_months).isoformat(),
            "tables": out, "detached_awaiting_archive": detached}
