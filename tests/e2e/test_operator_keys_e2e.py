"""Operator keys rotated and revoked without a restart, against real processes: two RGS
replicas over one PostgreSQL journal, the sandbox wallets.

Pinned: a second key works beside the first; the first, revoked through replica 0, is refused
by replica 1 within seconds (INVALID_API_KEY, as an unknown key) while the second still works;
a key past its expiry is refused; the keys file applied again (what ``rgs migrate`` does)
revokes the key it no longer has; the platform file, rewritten under the running replicas,
makes its keys live and revokes those it drops (two live at once while it lists both);
``rgs admin operator-key`` creates, lists and revokes on the
database while the replicas run; every change is an audit row naming the key by its id; no
key is in the audit trail or in any process's log.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from e2e_servers import ROOT, Stack, start_stack
from google.protobuf.timestamp_pb2 import Timestamp
from test_play_e2e import error_info

from rgs.bootstrap import DEV_ADMIN_KEY, add_dev_operator_keys, add_operator_keys_file, utc_now
from rgs.generated.admin.v1 import admin_pb2 as adm
from rgs.generated.admin.v1 import admin_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.journal.audit import PostgresAuditTrail, open_pool
from rgs.journal.controls import PostgresControls
from rgs.journal.postgres import PostgresJournal
from rgs.service.admin import AdminAccess
from rgs.service.fingerprints import sha256_hex
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates

pytestmark = pytest.mark.asyncio(loop_scope="session")

ADMIN = (("authorization", f"Bearer {DEV_ADMIN_KEY}"),)
#: How long a revocation may take to reach the other replica (it reads the row on every call).
REACH_S = 5.0


@dataclass
class KeyStack:
    stack: Stack
    operators: list[operator_pb2_grpc.OperatorServiceAsyncStub]
    admins: list[admin_pb2_grpc.AdminServiceAsyncStub]
    rgs_db: str
    logs: Path


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def ks(database_templates: DatabaseTemplates, tmp_path_factory: pytest.TempPathFactory
             ) -> AsyncIterator[KeyStack]:
    rgs_name, rgs_db = await database_templates.fresh(RGS_TEMPLATE)
    wallet_name, wallet_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    other_name, other_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
    pool = await open_pool(rgs_db)
    audit = PostgresAuditTrail(pool, utc_now)
    await add_dev_operator_keys(journal, audit)
    await AdminAccess(PostgresControls(pool, utc_now), audit).add_key(DEV_ADMIN_KEY, "e2e ops")
    await journal.close()
    await pool.close()
    logs = tmp_path_factory.mktemp("keys")
    stack = await start_stack(rgs_db=rgs_db, wallet_dbs={"dev-operator": wallet_db,
                                                         "other-operator": other_db},
                              replicas=2, logs=logs, env={"RGS_PLATFORM_RELOAD_S": "0.3"})
    channels = [grpc.aio.insecure_channel(p.target) for p in stack.replicas]
    try:
        yield KeyStack(stack=stack, rgs_db=rgs_db, logs=logs,
                       operators=[operator_pb2_grpc.OperatorServiceStub(c) for c in channels],
                       admins=[admin_pb2_grpc.AdminServiceStub(c) for c in channels])
    finally:
        for c in channels:
            await c.close()
        stack.stop()
        for name in (rgs_name, wallet_name, other_name):
            database_templates.discard(name)


def _bearer(key: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {key}"),)


async def _works(ks: KeyStack, replica: int, key: str) -> bool:
    """Whether an operator call with ``key`` is answered (refused: INVALID_API_KEY)."""
    try:
        await ks.operators[replica].ListGameControls(op.ListGameControlsRequest(),
                                                     metadata=_bearer(key))
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.UNAUTHENTICATED
        assert error_info(err).reason == "INVALID_API_KEY"
        return False
    return True


async def _until(what: str, check: Callable[[], Awaitable[bool]]) -> float:
    start = time.monotonic()
    while not await check():
        assert time.monotonic() - start < REACH_S, f"{what} not seen within {REACH_S} s"
        await asyncio.sleep(0.1)
    return time.monotonic() - start


async def _refused_on(ks: KeyStack, replica: int, key: str) -> bool:
    return not await _works(ks, replica, key)


async def _key_rows(ks: KeyStack) -> list[op.AuditRecord]:
    page = await ks.admins[1].ListAuditRecords(adm.ListAuditRecordsRequest(page_size=100),
                                               metadata=ADMIN)
    return [r for r in reversed(page.records) if r.subject.startswith("operator_key:")]


async def test_a_key_revoked_on_one_replica_is_refused_on_the_other_while_the_new_one_works(
        ks: KeyStack) -> None:
    old = await ks.admins[0].CreateOperatorKey(adm.CreateOperatorKeyRequest(
        operator_id="dev-operator", label="cashier 2026"), metadata=ADMIN)
    new = await ks.admins[0].CreateOperatorKey(adm.CreateOperatorKeyRequest(
        operator_id="dev-operator", label="cashier 2027"), metadata=ADMIN)
    assert old.operator_key.key_id == sha256_hex(old.key)[:12]
    # Both live at once, on both replicas.
    for replica in (0, 1):
        assert await _works(ks, replica, old.key)
        assert await _works(ks, replica, new.key)
    gone = await ks.admins[0].RevokeOperatorKey(adm.RevokeOperatorKeyRequest(
        operator_id="dev-operator", key_id=old.operator_key.key_id,
        reason="rotated to cashier 2027"), metadata=ADMIN)
    assert (gone.operator_key.live, gone.operator_key.revoked_by) == (False, "admin:e2e ops")
    await _until("the revocation on replica 1", lambda: _refused_on(ks, 1, old.key))
    assert await _works(ks, 1, new.key)
    assert not await _works(ks, 0, old.key)
    listed = await ks.admins[1].ListOperatorKeys(adm.ListOperatorKeysRequest(
        operator_id="dev-operator"), metadata=ADMIN)
    by_id = {k.key_id: k for k in listed.keys}
    assert by_id[old.operator_key.key_id].revoke_reason == "rotated to cashier 2027"
    assert by_id[new.operator_key.key_id].live
    assert [k.source for k in listed.keys if k.key_id in by_id].count("admin") == 2
    # An operator key is no administrator key: it manages no keys.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ks.admins[0].ListOperatorKeys(adm.ListOperatorKeysRequest(
            operator_id="dev-operator"), metadata=_bearer(new.key))
    assert error_info(err.value).reason == "INVALID_ADMIN_KEY"
    rows = [(r.action, r.actor, r.subject, r.reason) for r in await _key_rows(ks)]
    assert rows[-3:] == [
        ("key.added", "admin:e2e ops", f"operator_key:{old.operator_key.key_id}", ""),
        ("key.added", "admin:e2e ops", f"operator_key:{new.operator_key.key_id}", ""),
        ("key.revoked", "admin:e2e ops", f"operator_key:{old.operator_key.key_id}",
         "rotated to cashier 2027")]
    await _no_secret(ks, old.key, new.key)


async def test_a_key_past_its_expiry_is_refused(ks: KeyStack) -> None:
    ends = Timestamp()
    ends.FromDatetime(datetime.now(UTC) + timedelta(seconds=2))
    short = await ks.admins[1].CreateOperatorKey(adm.CreateOperatorKeyRequest(
        operator_id="other-operator", label="short-lived", expires_at=ends), metadata=ADMIN)
    assert await _works(ks, 0, short.key)
    await asyncio.sleep(2.1)
    await _until("the expiry on replica 0", lambda: _refused_on(ks, 0, short.key))
    assert not await _works(ks, 1, short.key)
    listed = await ks.admins[0].ListOperatorKeys(adm.ListOperatorKeysRequest(
        operator_id="other-operator"), metadata=ADMIN)
    expired = next(k for k in listed.keys if k.key_id == short.operator_key.key_id)
    assert (expired.live, expired.HasField("revoked_at")) == (False, False)
    await _no_secret(ks, short.key)


async def test_the_keys_file_applied_again_revokes_the_key_it_no_longer_has(
        ks: KeyStack, tmp_path: Path) -> None:
    first, second = "file-key-first-0123456789", "file-key-second-0123456789"
    keys_file = tmp_path / "operator-keys.json"
    keys_file.write_text(json.dumps({"dev-operator": first}))
    assert await add_operator_keys_file(ks.rgs_db, keys_file) == 1
    assert await _works(ks, 1, first)
    # The rotation through the file: the new key in, the old one out; replicas keep running.
    keys_file.write_text(json.dumps({"dev-operator": second}))
    await add_operator_keys_file(ks.rgs_db, keys_file)
    await _until("the file's revocation on replica 1", lambda: _refused_on(ks, 1, first))
    assert await _works(ks, 0, second)
    rows = [(r.action, r.actor, r.subject, r.reason) for r in await _key_rows(ks)]
    assert rows[-3:] == [
        ("key.added", "system", f"operator_key:{sha256_hex(first)[:12]}", ""),
        ("key.added", "system", f"operator_key:{sha256_hex(second)[:12]}", ""),
        ("key.revoked", "system", f"operator_key:{sha256_hex(first)[:12]}",
         "no longer in the operator keys file")]
    await _no_secret(ks, first, second)


def _with_keys(ks: KeyStack, keys: list[dict[str, object]] | None, *, broken: bool = False
               ) -> None:
    """Rewrite the replicas' platform file (as a ConfigMap update does: a new file renamed in
    place) with ``keys`` as dev-operator's api_keys."""
    path, first = ks.logs / "platform.json", ks.logs / "platform.first.json"
    if not first.exists():
        first.write_text(path.read_text("utf-8"), "utf-8")
    doc = json.loads(first.read_text("utf-8"))
    for operator in doc["operators"]:
        if operator["id"] == "dev-operator":
            operator.pop("api_keys", None)
            if keys is not None:
                operator["api_keys"] = keys
    fresh = path.with_suffix(".new")
    fresh.write_text("{ not json" if broken else json.dumps(doc), "utf-8")
    fresh.replace(path)


async def _both_work(ks: KeyStack, key: str) -> bool:
    return await _works(ks, 0, key) and await _works(ks, 1, key)


async def _both_refuse(ks: KeyStack, key: str) -> bool:
    return not await _works(ks, 0, key) and not await _works(ks, 1, key)


async def test_the_platform_file_rotates_keys_on_running_replicas(ks: KeyStack,
                                                                  tmp_path: Path) -> None:
    old, new = "platform-key-old-0123456789", "platform-key-new-0123456789"
    secret = tmp_path / "new-key"
    secret.write_text(new + "\n")
    # The old key by its hash (nothing secret in the file), then both during the rotation: the
    # new one by a secret reference, hashed as the file is read.
    _with_keys(ks, [{"sha256": sha256_hex(old), "label": "cashier 2026"}])
    await _until("the file's key on both replicas", lambda: _both_work(ks, old))
    _with_keys(ks, [{"sha256": sha256_hex(old), "label": "cashier 2026"},
                    {"key": {"file": str(secret)}, "label": "cashier 2027"}])
    await _until("the second key on both replicas", lambda: _both_work(ks, new))
    assert await _both_work(ks, old)  # two live at once
    # A file that does not load changes nothing.
    _with_keys(ks, None, broken=True)
    await asyncio.sleep(1.0)
    assert await _both_work(ks, old) and await _both_work(ks, new)
    # The old key dropped from the file: refused on both replicas, with no restart.
    _with_keys(ks, [{"key": {"file": str(secret)}, "label": "cashier 2027"}])
    await _until("the old key's revocation on both replicas", lambda: _both_refuse(ks, old))
    assert await _both_work(ks, new)
    rows = [(r.action, r.actor, r.subject, r.reason) for r in await _key_rows(ks)
            if r.subject in (f"operator_key:{sha256_hex(k)[:12]}" for k in (old, new))]
    # Each change recorded once, though both replicas applied the file.
    assert rows == [
        ("key.added", "system", f"operator_key:{sha256_hex(old)[:12]}", ""),
        ("key.added", "system", f"operator_key:{sha256_hex(new)[:12]}", ""),
        ("key.revoked", "system", f"operator_key:{sha256_hex(old)[:12]}",
         "no longer in the platform file")]
    logs = "".join(p.read_text("utf-8", "replace") for p in ks.logs.glob("*.log"))
    assert "does not load (operator keys unchanged)" in logs
    _with_keys(ks, None)
    await _until("the file's last key revoked", lambda: _both_refuse(ks, new))
    await _no_secret(ks, old, new)


def _cli(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rgs", "admin", "operator-key", *args, "--operator",
         "other-operator", "--database-url", db],
        capture_output=True, text=True, timeout=120, check=False, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(Path(ROOT) / "services")})


async def test_the_command_line_creates_lists_and_revokes_while_the_replicas_run(
        ks: KeyStack) -> None:
    made = _cli(ks.rgs_db, "create", "--label", "from the cli")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    key_id = sha256_hex(key)[:12]
    assert key_id in made.stderr and key not in made.stderr
    assert await _works(ks, 0, key)
    listed = _cli(ks.rgs_db, "list")
    assert listed.returncode == 0, listed.stderr
    line = next(li for li in listed.stdout.splitlines() if li.startswith(key_id))
    assert " live " in line and "from the cli" in line and key not in listed.stdout
    gone = _cli(ks.rgs_db, "revoke", "--key-id", key_id, "--reason", "cli rotation")
    assert gone.returncode == 0, gone.stderr
    await _until("the command line's revocation on replica 1", lambda: _refused_on(ks, 1, key))
    again = _cli(ks.rgs_db, "revoke", "--key-id", key_id, "--reason", "cli rotation")
    assert again.returncode != 0 and "API_KEY_NOT_FOUND" in again.stderr
    rows = [(r.action, r.actor, r.subject, r.reason) for r in await _key_rows(ks)]
    assert rows[-2:] == [("key.added", "system", f"operator_key:{key_id}", ""),
                         ("key.revoked", "system", f"operator_key:{key_id}", "cli rotation")]
    await _no_secret(ks, key)


async def _no_secret(ks: KeyStack, *keys: str) -> None:
    page = await ks.admins[0].ListAuditRecords(adm.ListAuditRecordsRequest(page_size=100),
                                               metadata=ADMIN)
    text = str(page) + "".join(p.read_text("utf-8", "replace") for p in ks.logs.glob("*.log"))
    for key in keys:
        assert key not in text
        assert sha256_hex(key) not in text
