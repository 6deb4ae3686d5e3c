"""Operator keys rotated and revoked without a restart, over the real bootstrap with in-memory
adapters: a second key works beside the first, a revoked key is refused as an unknown one, the
keys file's dropped keys are revoked, every change is in the audit trail and no key is."""

from __future__ import annotations

from datetime import timedelta

import pytest
from service_fakes import Clock, Harness, harness

from rgs.bootstrap import Governance
from rgs.journal.memory_audit import MemoryAuditTrail
from rgs.journal.memory_operator_keys import MemoryOperatorKeys
from rgs.service.audit import SYSTEM, Action, AuditRecord, verify_chain
from rgs.service.errors import InvalidRequest, NotFound, Unauthenticated
from rgs.service.fingerprints import sha256_hex
from rgs.service.operator_keys import KEY_PREFIX, OperatorKeyRotation

pytestmark = pytest.mark.asyncio

ADMIN = "admin:ops"


def _gov(h: Harness) -> Governance:
    assert h.app.governance is not None
    return h.app.governance


def _no_secret(rows: list[AuditRecord], *keys: str) -> None:
    for r in rows:
        text = repr(r)
        for key in keys:
            assert key not in text
            assert sha256_hex(key) not in text  # only the 12-character key id


async def test_a_second_key_works_beside_the_first_and_a_revoked_one_is_refused_as_unknown(
        ) -> None:
    h = await harness()
    keys = _gov(h).operator_keys
    first = await keys.create(ADMIN, operator_id="dev-operator", label="cashier 2026",
                              expires_at=None)
    second = await keys.create(ADMIN, operator_id="dev-operator", label="cashier 2027",
                               expires_at=h.clock.now + timedelta(days=30))
    assert first.key.startswith(KEY_PREFIX) and first.key != second.key
    assert first.stored.key_id == sha256_hex(first.key)[:12]
    assert await h.app.office.authenticate(first.key) == "dev-operator"
    assert await h.app.office.authenticate(second.key) == "dev-operator"

    gone = await keys.revoke(ADMIN, operator_id="dev-operator", key_id=first.stored.key_id,
                             reason="rotated to cashier 2027")
    assert (gone.revoked_by, gone.revoke_reason) == (ADMIN, "rotated to cashier 2027")
    with pytest.raises(Unauthenticated) as refused:
        await h.app.office.authenticate(first.key)
    with pytest.raises(Unauthenticated) as unknown:
        await h.app.office.authenticate("rgsop_" + "x" * 40)
    # Refused exactly as a key that never existed: nothing tells a caller which keys exist.
    assert (refused.value.reason, str(refused.value)) == (unknown.value.reason,
                                                          str(unknown.value))
    assert refused.value.reason == "INVALID_API_KEY"
    assert await h.app.office.authenticate(second.key) == "dev-operator"

    listed = await keys.keys_of("dev-operator")
    assert [(k.label, k.live(h.clock.now)) for k in listed] == [
        ("cashier 2026", False), ("cashier 2027", True)]
    assert listed[1].expires_at is not None and listed[0].expires_at is None

    rows = [r for r in _gov(h).audit.stored  # type: ignore[attr-defined]
            if r.entry.subject.startswith("operator_key:")]
    assert [(r.entry.action, r.entry.actor, r.entry.subject) for r in rows] == [
        (Action.KEY_ADDED, ADMIN, f"operator_key:{first.stored.key_id}"),
        (Action.KEY_ADDED, ADMIN, f"operator_key:{second.stored.key_id}"),
        (Action.KEY_REVOKED, ADMIN, f"operator_key:{first.stored.key_id}")]
    assert rows[2].entry.reason == "rotated to cashier 2027"
    assert all(r.entry.operator_id == "dev-operator" for r in rows)
    _no_secret(rows, first.key, second.key)
    assert (await verify_chain(_gov(h).audit.rows())).intact


async def test_every_bad_request_is_refused_with_its_reason_and_changes_nothing() -> None:
    h = await harness()
    keys = _gov(h).operator_keys
    made = await keys.create(ADMIN, operator_id="dev-operator", label="a", expires_at=None)
    before = len(_gov(h).audit.stored)  # type: ignore[attr-defined]
    cases: list[tuple[type[Exception], str, object]] = [
        (NotFound, "OPERATOR_NOT_FOUND",
         keys.create(ADMIN, operator_id="nobody", label="x", expires_at=None)),
        (InvalidRequest, "INVALID_LABEL",
         keys.create(ADMIN, operator_id="dev-operator", label="", expires_at=None)),
        (InvalidRequest, "INVALID_END_TIME",
         keys.create(ADMIN, operator_id="dev-operator", label="x",
                     expires_at=h.clock.now - timedelta(seconds=1))),
        (InvalidRequest, "INVALID_KEY_ID",
         keys.revoke(ADMIN, operator_id="dev-operator", key_id="ABC", reason="r")),
        (InvalidRequest, "INVALID_REASON",
         keys.revoke(ADMIN, operator_id="dev-operator", key_id=made.stored.key_id, reason="")),
        # Another operator's key is not found under this one.
        (NotFound, "API_KEY_NOT_FOUND",
         keys.revoke(ADMIN, operator_id="other-operator", key_id=made.stored.key_id,
                     reason="r")),
        (NotFound, "OPERATOR_NOT_FOUND", keys.keys_of("nobody")),
    ]
    for kind, reason, call in cases:
        with pytest.raises(kind) as refused:
            await call  # type: ignore[misc]
        assert refused.value.reason == reason  # type: ignore[attr-defined]
    assert len(_gov(h).audit.stored) == before  # type: ignore[attr-defined]
    assert await h.app.office.authenticate(made.key) == "dev-operator"
    await keys.revoke(ADMIN, operator_id="dev-operator", key_id=made.stored.key_id, reason="r")
    with pytest.raises(NotFound) as again:  # revoked once only
        await keys.revoke(ADMIN, operator_id="dev-operator", key_id=made.stored.key_id,
                          reason="r")
    assert again.value.reason == "API_KEY_NOT_FOUND"


async def test_a_key_dropped_from_the_keys_file_is_revoked_by_the_system_and_recorded() -> None:
    clock = Clock()
    audit = MemoryAuditTrail(clock)
    live: dict[str, str] = {}
    rotation = OperatorKeyRotation(MemoryOperatorKeys(clock, live), audit, clock,
                                   {"op-a", "op-b"})
    a, b, b2 = "op-a-key-0123456789", "op-b-key-0123456789", "op-b-key-new-456789"
    assert await rotation.sync_file({"op-a": a, "op-b": b}) == (2, 0)
    assert await rotation.sync_file({"op-a": a, "op-b": b}) == (0, 0)  # nothing changed
    assert set(live) == {sha256_hex(a), sha256_hex(b)}
    # The rotation through the file: the new key added, the old one dropped, in one change.
    assert await rotation.sync_file({"op-a": a, "op-b": b2}) == (1, 1)
    assert set(live) == {sha256_hex(a), sha256_hex(b2)}
    rows = list(audit.stored)
    assert [(r.entry.action, r.entry.actor, r.entry.subject) for r in rows] == [
        (Action.KEY_ADDED, SYSTEM, f"operator_key:{sha256_hex(a)[:12]}"),
        (Action.KEY_ADDED, SYSTEM, f"operator_key:{sha256_hex(b)[:12]}"),
        (Action.KEY_ADDED, SYSTEM, f"operator_key:{sha256_hex(b2)[:12]}"),
        (Action.KEY_REVOKED, SYSTEM, f"operator_key:{sha256_hex(b)[:12]}")]
    assert rows[3].entry.reason == "no longer in the operator keys file"
    _no_secret(rows, a, b, b2)
    # A key the administrator made is not the file's to revoke.
    made = await rotation.create(ADMIN, operator_id="op-a", label="x", expires_at=None)
    assert await rotation.sync_file({"op-a": a, "op-b": b2}) == (0, 0)
    assert sha256_hex(made.key) in live
