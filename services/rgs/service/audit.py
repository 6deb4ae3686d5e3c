"""The audit trail: who changed what, when and why (N.J.A.C. 13:69O-3.1(b), AGCO 4.01-4.02).

Every control change, void, manual resolution, key change and configuration change is recorded
through the :class:`AuditTrail` port, in an append-only, hash-chained log: each row's hash is
the SHA-256 of the previous row's hash and this row's canonical fields (:func:`row_hash`), so a
row altered or removed breaks the chain at the first row that no longer fits
(:func:`verify_chain`). Adapters: PostgreSQL (``rgs.journal.audit``) and an in-memory fake
(``rgs.journal.memory_audit``); both serialise appends, so two replicas never fork the chain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Protocol

GENESIS = "0" * 64
"""The previous hash of the first row."""


class Action:
    """The recorded actions' names (the log's ``action`` column)."""

    CONTROL_SET = "control.set"
    CONTROL_CLEARED = "control.cleared"
    ROUND_VOIDED = "round.voided"
    ROUND_RESOLVED = "round.resolved"
    KEY_ADDED = "key.added"
    KEY_REVOKED = "key.revoked"
    ADMIN_KEY_ADDED = "admin_key.added"
    CONFIGURATION_LOADED = "configuration.loaded"
    CONFIGURATION_CHANGED = "configuration.changed"
    SOFTWARE_NOT_AUTHENTIC = "software.not_authentic"
    FREE_BET_GRANTED = "free_bet.granted"
    FREE_BET_REVOKED = "free_bet.revoked"


SYSTEM = "system"
"""The actor of what the platform did by itself (a configuration loaded, the sweeper's void)."""


def operator_actor(operator_id: str) -> str:
    """The actor name of an operator's call (its API key)."""
    return f"operator:{operator_id}"


def admin_actor(label: str) -> str:
    """The actor name of an administrator's call (its key's label)."""
    return f"admin:{label}"


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditEntry:
    """What is recorded: who, about what, why, and the facts of the change."""

    actor: str
    action: str
    #: What the change concerns, e.g. ``variant:brand-a/classic``, ``round:<id>``.
    subject: str
    reason: str = ""
    #: The operator the row belongs to (it lists it); "" for the platform's own rows.
    operator_id: str = ""
    details: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditRecord:
    """One row of the log as stored."""

    seq: int
    at: datetime
    entry: AuditEntry
    prev_hash: str
    hash: str


def canonical(seq: int, at: datetime, entry: AuditEntry) -> str:
    """The row's fields as hashed: one JSON text, keys sorted, the time in UTC microseconds."""
    return json.dumps({
        "seq": seq, "at": at.astimezone(UTC).isoformat(timespec="microseconds"),
        "actor": entry.actor, "operator_id": entry.operator_id, "action": entry.action,
        "subject": entry.subject, "reason": entry.reason, "details": dict(entry.details),
    }, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_hash(prev_hash: str, seq: int, at: datetime, entry: AuditEntry) -> str:
    """SHA-256 (lower-case hex) over the previous row's hash and this row's canonical fields."""
    return hashlib.sha256(f"{prev_hash}\n{canonical(seq, at, entry)}".encode()).hexdigest()


def next_record(last: AuditRecord | None, at: datetime, entry: AuditEntry) -> AuditRecord:
    """The row that follows ``last`` (None: the first row)."""
    seq = 1 if last is None else last.seq + 1
    prev = GENESIS if last is None else last.hash
    at = at.astimezone(UTC)
    return AuditRecord(seq=seq, at=at, entry=entry, prev_hash=prev,
                       hash=row_hash(prev, seq, at, entry))


def details_text(details: Mapping[str, str]) -> str:
    """How the details are stored (the canonical JSON of :func:`canonical`'s)."""
    return json.dumps(dict(details), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def change_to_record(last: AuditRecord | None, entry: AuditEntry, first_action: str
                     ) -> AuditEntry | None:
    """What :meth:`AuditTrail.record_change` appends after ``last`` (the subject's latest
    row): nothing when its details are the same, the entry under ``first_action`` when the
    subject has no row yet, else the entry."""
    if last is None:
        return replace(entry, action=first_action)
    if dict(last.entry.details) == dict(entry.details):
        return None
    return entry


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainReport:
    """What :func:`verify_chain` found."""

    rows: int
    #: The last row's hash (keep it elsewhere: a removed last row leaves no gap after it).
    head: str
    #: The first row at fault and what is wrong with it (None: the chain is intact).
    broken_at: int | None = None
    problem: str = ""

    @property
    def intact(self) -> bool:
        """Whether every row is as it was written and none is missing."""
        return self.broken_at is None


async def verify_chain(rows: AsyncIterator[AuditRecord],
                       progress: Callable[[int], None] | None = None) -> ChainReport:
    """Walk the log in order and name the first row altered (its hash no longer fits its
    fields) or removed (the next row's ``seq`` skips, or its previous hash is another row's)."""
    count, prev_hash, expected = 0, GENESIS, 1
    async for r in rows:
        if r.seq != expected:
            missing = (f"row {expected} was removed" if r.seq > expected
                       else f"row {r.seq} is out of order")
            return ChainReport(rows=count, head=prev_hash, broken_at=expected, problem=missing)
        if r.prev_hash != prev_hash:
            return ChainReport(rows=count, head=prev_hash, broken_at=r.seq,
                               problem=f"row {r.seq} does not follow row {r.seq - 1} "
                                       "(its previous hash differs)")
        if row_hash(r.prev_hash, r.seq, r.at, r.entry) != r.hash:
            return ChainReport(rows=count, head=prev_hash, broken_at=r.seq,
                               problem=f"row {r.seq} was altered (its hash no longer fits "
                                       "its fields)")
        count, prev_hash, expected = count + 1, r.hash, r.seq + 1
        if progress is not None and count % 1000 == 0:
            progress(count)
    return ChainReport(rows=count, head=prev_hash)


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditPage:
    """Rows newest first, and where the next page starts (0: none)."""

    records: tuple[AuditRecord, ...]
    next_before: int = 0


class AuditTrail(Protocol):
    """The audit log port."""

    async def record(self, entry: AuditEntry) -> AuditRecord:
        """Append one row (serialised: concurrent appends never fork the chain)."""
        ...

    async def record_change(self, entry: AuditEntry, *, first_action: str
                            ) -> AuditRecord | None:
        """Append ``entry`` unless the latest row of its subject has the same details (a
        platform file loaded again unchanged): None then; with ``first_action`` instead of
        the entry's when the subject has no row yet. The check and the append are one step
        (two replicas starting at once record one change)."""
        ...

    async def page(self, *, operator_id: str | None, before: int, limit: int) -> AuditPage:
        """Rows newest first, of ``operator_id`` (None: every row), with ``seq`` below
        ``before`` (0: from the newest)."""
        ...

    def rows(self) -> AsyncIterator[AuditRecord]:
        """Every row in chain order (for :func:`verify_chain`)."""
        ...
