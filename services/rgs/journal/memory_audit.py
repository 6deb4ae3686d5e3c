"""In-memory fakes of the audit trail, the controls' store and the administrator keys, for
tests and builds without PostgreSQL. They keep the PostgreSQL adapters' contract (the
contract suite runs on both): appends serialised, a change and its row one step."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from rgs.service.audit import (
    AuditEntry,
    AuditPage,
    AuditRecord,
    change_to_record,
    next_record,
)
from rgs.service.controls import GameControl
from rgs.service.ports import Clock


class MemoryAuditTrail:
    """The audit log in a list (tests tamper with ``stored``)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = asyncio.Lock()
        self.stored: list[AuditRecord] = []

    def _append(self, entry: AuditEntry) -> AuditRecord:
        rec = next_record(self.stored[-1] if self.stored else None, self._clock(), entry)
        self.stored.append(rec)
        return rec

    async def record(self, entry: AuditEntry) -> AuditRecord:
        """Append one row."""
        async with self._lock:
            return self._append(entry)

    async def record_change(self, entry: AuditEntry, *, first_action: str
                            ) -> AuditRecord | None:
        """Append unless the subject's latest row has the same details."""
        async with self._lock:
            last = next((r for r in reversed(self.stored)
                         if r.entry.subject == entry.subject), None)
            todo = change_to_record(last, entry, first_action)
            return None if todo is None else self._append(todo)

    async def page(self, *, operator_id: str | None, before: int, limit: int) -> AuditPage:
        """Rows newest first."""
        rows = [r for r in reversed(self.stored)
                if (operator_id is None or r.entry.operator_id == operator_id)
                and (before == 0 or r.seq < before)][:limit + 1]
        records = tuple(rows[:limit])
        return AuditPage(records=records,
                         next_before=records[-1].seq if len(rows) > limit else 0)

    async def rows(self) -> AsyncIterator[AuditRecord]:
        """Every row in chain order."""
        for r in list(self.stored):
            yield r


class MemoryControls:
    """Controls and administrator keys in dicts, recording into a :class:`MemoryAuditTrail`."""

    def __init__(self, audit: MemoryAuditTrail) -> None:
        self._audit = audit
        self.stored: dict[str, GameControl] = {}
        self.admin_keys: dict[str, str] = {}

    async def controls(self) -> list[GameControl]:
        """Every stored control."""
        return list(self.stored.values())

    async def put(self, control: GameControl, audit: AuditEntry) -> None:
        """Set a control and record it."""
        self.stored[control.key] = control
        await self._audit.record(audit)

    async def remove(self, key: str, audit: AuditEntry) -> bool:
        """Lift a control and record it (nothing when there was none)."""
        if self.stored.pop(key, None) is None:
            return False
        await self._audit.record(audit)
        return True

    async def admin_for_key(self, key_hash: str) -> str | None:
        """The label of an administrator key hash."""
        return self.admin_keys.get(key_hash)

    async def add_admin_key(self, key_hash: str, label: str) -> bool:
        """Store an administrator key hash; whether it is new."""
        if key_hash in self.admin_keys:
            return False
        self.admin_keys[key_hash] = label
        return True
