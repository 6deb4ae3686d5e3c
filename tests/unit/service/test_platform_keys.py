"""The platform file's operator keys: each by its SHA-256 or by a secret reference (never the
key written in the file), hashed on load, applied when the file's content changes, each change
an audit row; a file that does not load changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from service_fakes import Clock

from rgs.journal.memory_audit import MemoryAuditTrail
from rgs.journal.memory_operator_keys import MemoryOperatorKeys
from rgs.platform_file import DEFAULT_PLATFORM_FILE, PlatformError, load_platform
from rgs.platform_keys import PlatformKeys
from rgs.service.audit import Action
from rgs.service.fingerprints import sha256_hex
from rgs.service.operator_keys import OperatorKeyRotation

KEY = "platform-key-0123456789abcdef"


def _write(tmp: Path, keys: list[dict[str, Any]] | None, text: str | None = None) -> Path:
    doc = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    doc["operators"][0]["api_keys"] = keys or []
    for secret in DEFAULT_PLATFORM_FILE.parent.glob("*.wallet-key"):
        (tmp / secret.name).write_bytes(secret.read_bytes())
    path = tmp / "platform.json"
    path.write_text(text if text is not None else json.dumps(doc), "utf-8")
    return path


def test_a_key_is_given_by_its_hash_or_a_reference_and_never_literally(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OP_KEY", KEY)
    loaded = load_platform(_write(tmp_path, [
        {"sha256": "ab" * 32, "label": "old"}, {"key": {"env": "OP_KEY"}}]))
    first = next(iter(loaded.operators.values()))
    assert [(k.key_hash, k.label) for k in first.api_keys] == [
        ("ab" * 32, "old"), (sha256_hex(KEY), "platform file")]
    for bad, says in (([{"key": KEY}], "secret"), ([{"label": "x"}], "exactly one"),
                      ([{"sha256": "AB"}], "api_keys[0].sha256")):
        with pytest.raises(PlatformError) as err:
            load_platform(_write(tmp_path, bad))
        assert says in str(err.value) and KEY not in str(err.value)


async def test_the_keys_are_applied_when_the_file_changes_and_each_change_audited(
        tmp_path: Path) -> None:
    clock = Clock()
    audit, live = MemoryAuditTrail(clock), dict[str, str]()
    store = MemoryOperatorKeys(clock, live)
    path = _write(tmp_path, [{"sha256": sha256_hex(KEY)}])
    operators = set(load_platform(path).operators)
    keys = PlatformKeys(path, OperatorKeyRotation(store, audit, clock, operators),
                        load=load_platform, interval_s=0)
    assert await keys.refresh() == (1, 0) and sha256_hex(KEY) in live
    assert await keys.refresh() is None  # unchanged: nothing read from the store
    _write(tmp_path, None, text="{ not json")
    assert await keys.refresh() is None and sha256_hex(KEY) in live
    _write(tmp_path, [])
    assert await keys.refresh() == (0, 1) and sha256_hex(KEY) not in live
    rows = [(r.entry.action, r.entry.reason) async for r in audit.rows()]
    assert rows == [(Action.KEY_ADDED, ""), (Action.KEY_REVOKED, "no longer in the platform file")]
