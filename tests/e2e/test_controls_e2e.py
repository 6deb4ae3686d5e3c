"""Game controls and the audit trail against real processes: a stack of its own (two RGS
replicas over one PostgreSQL journal, the sandbox wallets), its controls read every half
second (RGS_CONTROLS_REFRESH_S).

Pinned: a variant disabled through one replica refuses Deals on the other within seconds while
the round in play there finishes and pays, to the cent; a table disabled refuses seats; the
administrator's maintenance reaches every operator, with its end time; the keys do not pass for
each other; ``rgs audit verify`` finds the chain intact, then names a tampered row and a
removed one.
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

import asyncpg
import grpc
import pytest
import pytest_asyncio
from e2e_servers import ROOT, Stack, start_stack
from google.protobuf.timestamp_pb2 import Timestamp
from test_play_e2e import OPERATOR, WALLET_AUTH, error_info

from rgs.bootstrap import DEV_ADMIN_KEY, add_dev_operator_keys, utc_now
from rgs.generated.admin.v1 import admin_pb2 as adm
from rgs.generated.admin.v1 import admin_pb2_grpc
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.audit import PostgresAuditTrail, open_pool
from rgs.journal.controls import PostgresControls
from rgs.journal.migrate import SCHEMA
from rgs.journal.postgres import PostgresJournal
from rgs.service.admin import AdminAccess
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates

pytestmark = pytest.mark.asyncio(loop_scope="session")

ADMIN = (("authorization", f"Bearer {DEV_ADMIN_KEY}"),)
OTHER_OPERATOR = (("authorization", "Bearer rgs-other-operator-key"),)
CLASSIC = "classic-resplit"
#: T-9 against 6-7: the round waits for the player's decision; standing wins 1 to 1.
STAND_WINS = ("TS", "6H", "9D", "7C", "9S")
START = 100_000
#: How long a change may take to reach the other replica here (refresh every 0.5 s).
REACH_S = 15.0


@dataclass
class ControlStack:
    stack: Stack
    games: list[blackjack_pb2_grpc.BlackjackServiceAsyncStub]
    operators: list[operator_pb2_grpc.OperatorServiceAsyncStub]
    admins: list[admin_pb2_grpc.AdminServiceAsyncStub]
    tables: list[table_pb2_grpc.TableServiceAsyncStub]
    wallet: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    rgs_db: str


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def cs(database_templates: DatabaseTemplates, tmp_path_factory: pytest.TempPathFactory
             ) -> AsyncIterator[ControlStack]:
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
    logs = tmp_path_factory.mktemp("controls")
    stack = await start_stack(rgs_db=rgs_db, wallet_dbs={"dev-operator": wallet_db,
                                                         "other-operator": other_db},
                              replicas=2, logs=logs, env={"RGS_CONTROLS_REFRESH_S": "0.5"})
    channels = [grpc.aio.insecure_channel(p.target) for p in stack.replicas]
    wallet_channel = grpc.aio.insecure_channel(stack.wallet.target)
    try:
        yield ControlStack(
            stack=stack, rgs_db=rgs_db,
            games=[blackjack_pb2_grpc.BlackjackServiceStub(c) for c in channels],
            operators=[operator_pb2_grpc.OperatorServiceStub(c) for c in channels],
            admins=[admin_pb2_grpc.AdminServiceStub(c) for c in channels],
            tables=[table_pb2_grpc.TableServiceStub(c) for c in channels],
            wallet=sandbox_pb2_grpc.SandboxControlServiceStub(wallet_channel))
    finally:
        for c in (*channels, wallet_channel):
            await c.close()
        stack.stop()
        for name in (rgs_name, wallet_name, other_name):
            database_templates.discard(name)


async def _player(cs: ControlStack, pid: str, replica: int) -> tuple[tuple[str, str], ...]:
    await cs.wallet.CreatePlayer(sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
        player_id=pid, currency="EUR", balance=START)), metadata=WALLET_AUTH)
    s = await cs.operators[replica].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid), metadata=OPERATOR)
    return (("authorization", f"Bearer {s.session_token}"),)


async def _balance(cs: ControlStack, pid: str) -> int:
    got = await cs.wallet.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                    metadata=WALLET_AUTH)
    return int(got.player.balance)


async def _until(what: str, check: Callable[[], Awaitable[bool]]) -> float:
    """Seconds until ``check`` holds (fails past REACH_S)."""
    start = time.monotonic()
    while not await check():
        assert time.monotonic() - start < REACH_S, f"{what} not seen within {REACH_S} s"
        await asyncio.sleep(0.1)
    return time.monotonic() - start


async def _refused(call: Awaitable[object]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value


def _deal(request_id: str) -> bj.DealRequest:
    return bj.DealRequest(request_id=request_id, variant_id=CLASSIC,
                          boxes=[bj.BoxBet(seat=1, stake=100)], forced_cards=STAND_WINS)


async def test_a_variant_disabled_on_one_replica_refuses_deals_on_the_other_while_the_round_in_play_finishes(  # noqa: E501
        cs: ControlStack) -> None:
    alice = await _player(cs, "ctl-alice", 1)
    bob = await _player(cs, "ctl-bob", 1)
    in_play = (await cs.games[1].Deal(_deal("d1"), metadata=alice)).round
    assert in_play.status == bj.ROUND_STATUS_PLAYER_TURN
    set_ = await cs.operators[0].SetGameControl(op.SetGameControlRequest(
        brand_id="demo-casino", variant_id=CLASSIC, mode=op.CONTROL_MODE_DISABLED,
        message="Back at 18:00", reason="suspected shuffle fault"), metadata=OPERATOR)
    assert set_.changed and set_.control.set_by == "operator:dev-operator"

    async def disabled_on_1() -> bool:
        listed = await cs.games[1].ListVariants(bj.ListVariantsRequest(), metadata=bob)
        return {v.id: v.availability.state for v in listed.variants}[CLASSIC] == "disabled"
    await _until("the control on replica 1", disabled_on_1)
    err = await _refused(cs.games[1].Deal(_deal("d2"), metadata=bob))
    info = error_info(err)
    assert (err.code(), info.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_DISABLED")
    assert "Back at 18:00" in (err.details() or "")
    assert info.metadata["message"] == "Back at 18:00"
    # The round in play finishes on either replica and pays: 100 staked, 200 back.
    done = (await cs.games[0].Act(bj.ActRequest(
        request_id="a1", round_id=in_play.round_id, expected_seq=in_play.seq, seat=1,
        action=bj.ACTION_STAND), metadata=alice)).round
    assert done.status == bj.ROUND_STATUS_SETTLED and not done.payment_pending
    assert (done.total_staked, done.total_paid) == (100, 200)
    assert await _balance(cs, "ctl-alice") == START + 100
    assert await _balance(cs, "ctl-bob") == START  # refused: nothing taken
    # The operator sees its control; the other operator does not.
    mine = await cs.operators[1].ListGameControls(op.ListGameControlsRequest(),
                                                 metadata=OPERATOR)
    assert [(c.scope.brand_id, c.scope.variant_id, c.message) for c in mine.controls] == [
        ("demo-casino", CLASSIC, "Back at 18:00")]
    theirs = await cs.operators[1].ListGameControls(op.ListGameControlsRequest(),
                                                   metadata=OTHER_OPERATOR)
    assert list(theirs.controls) == []
    # Enabled through replica 1, replica 0 deals again.
    lifted = await cs.operators[1].SetGameControl(op.SetGameControlRequest(
        brand_id="demo-casino", variant_id=CLASSIC, mode=op.CONTROL_MODE_ENABLED,
        reason="fault cleared"), metadata=OPERATOR)
    assert lifted.changed and not lifted.HasField("control")
    carol = await _player(cs, "ctl-carol", 0)

    async def open_on_0() -> bool:
        listed = await cs.games[0].ListVariants(bj.ListVariantsRequest(), metadata=carol)
        return {v.id: v.availability.state for v in listed.variants}[CLASSIC] == "open"
    await _until("the lifted control on replica 0", open_on_0)
    dealt = (await cs.games[0].Deal(_deal("d3"), metadata=carol)).round
    assert dealt.total_staked == 100 and await _balance(cs, "ctl-carol") == START - 100


async def test_a_disabled_table_refuses_a_seat_and_a_bet(cs: ControlStack) -> None:
    dave = await _player(cs, "ctl-dave", 0)
    frank = await _player(cs, "ctl-frank", 0)
    await cs.tables[0].TakeSeat(tb.TakeSeatRequest(request_id="t0", table_id="electronic-1",
                                                   seat=2), metadata=frank)
    await cs.operators[0].SetGameControl(op.SetGameControlRequest(
        table_id="electronic-1", mode=op.CONTROL_MODE_DISABLED, message="closed",
        reason="dealer change"), metadata=OPERATOR)

    async def table_disabled() -> bool:
        listed = await cs.tables[1].ListTables(tb.ListTablesRequest(), metadata=dave)
        return {t.table_id: t.availability.state for t in listed.tables} == {
            "electronic-1": "disabled", "vip-1": "open"}
    await _until("the table control on replica 1", table_disabled)
    err = await _refused(cs.tables[1].TakeSeat(tb.TakeSeatRequest(
        request_id="t1", table_id="electronic-1", seat=1), metadata=dave))
    assert error_info(err).reason == "GAME_DISABLED"
    # A replayed TakeSeat gets its answer (the seat stands); the player seated before may not
    # bet; leaving is allowed; no money moved.
    again = await cs.tables[1].TakeSeat(tb.TakeSeatRequest(
        request_id="t0", table_id="electronic-1", seat=2), metadata=frank)
    assert again.result.seq > 0
    err = await _refused(cs.tables[1].PlaceBets(tb.PlaceBetsRequest(
        request_id="b1", table_id="electronic-1", bets=[tb.Bet(seat=2, stake=100)]),
        metadata=frank))
    assert error_info(err).reason == "GAME_DISABLED"
    await cs.tables[1].LeaveSeat(tb.LeaveSeatRequest(request_id="l1", table_id="electronic-1",
                                                     seat=2), metadata=frank)
    assert await _balance(cs, "ctl-frank") == START
    await cs.operators[0].SetGameControl(op.SetGameControlRequest(
        table_id="electronic-1", mode=op.CONTROL_MODE_ENABLED, reason="back"),
        metadata=OPERATOR)


async def test_maintenance_by_the_administrator_and_the_keys_apart(cs: ControlStack) -> None:
    err = await _refused(cs.admins[0].ListGameControls(adm.ListGameControlsRequest(),
                                                       metadata=OPERATOR))
    assert (err.code(), error_info(err).reason) == (grpc.StatusCode.UNAUTHENTICATED,
                                                    "INVALID_ADMIN_KEY")
    err = await _refused(cs.operators[0].ListGameControls(op.ListGameControlsRequest(),
                                                          metadata=ADMIN))
    assert error_info(err).reason == "INVALID_API_KEY"
    eve = await _player(cs, "ctl-eve", 1)
    ends = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    ts = Timestamp()
    ts.FromDatetime(ends)
    await cs.admins[0].SetGameControl(adm.SetGameControlRequest(
        scope=op.ControlScope(), mode=op.CONTROL_MODE_MAINTENANCE, message="upgrade",
        ends_at=ts, reason="release 2.1"), metadata=ADMIN)

    async def maintenance_on_1() -> bool:
        listed = await cs.games[1].ListVariants(bj.ListVariantsRequest(), metadata=eve)
        return all(v.availability.state == "maintenance" for v in listed.variants)
    await _until("maintenance on replica 1", maintenance_on_1)
    err = await _refused(cs.games[1].Deal(_deal("d1"), metadata=eve))
    info = error_info(err)
    assert info.reason == "MAINTENANCE"
    assert info.metadata["ends_at"] == ends.isoformat(timespec="seconds")
    seen = await cs.operators[1].ListGameControls(op.ListGameControlsRequest(),
                                                 metadata=OTHER_OPERATOR)
    assert [(c.authority, c.set_by, c.ends_at.seconds) for c in seen.controls] == [
        ("admin", "admin", ts.seconds)]
    await cs.admins[1].SetGameControl(adm.SetGameControlRequest(
        scope=op.ControlScope(), mode=op.CONTROL_MODE_ENABLED, reason="done"), metadata=ADMIN)
    await _until("the end of maintenance on replica 1",
                 lambda: _not(maintenance_on_1()))
    await cs.games[1].Deal(_deal("d2"), metadata=eve)
    assert await _balance(cs, "ctl-eve") == START - 100


async def _not(check: Awaitable[bool]) -> bool:
    return not await check


def _verify(db: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rgs", "audit", "verify", "--database-url", db, *extra],
        capture_output=True, text=True, timeout=120, check=False, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(Path(ROOT) / "services")})


async def _tamper(db: str, sql: str, *args: object) -> None:
    conn = await asyncpg.connect(db)
    try:
        async with conn.transaction():
            await conn.execute(f"ALTER TABLE {SCHEMA}.audit_log DISABLE TRIGGER "
                               "audit_log_append_only")
            await conn.execute(sql, *args)
            await conn.execute(f"ALTER TABLE {SCHEMA}.audit_log ENABLE TRIGGER "
                               "audit_log_append_only")
    finally:
        await conn.close()


async def test_the_audit_trail_lists_each_operators_rows_and_verify_names_tampering(
        cs: ControlStack) -> None:
    mine = await cs.operators[0].ListAuditRecords(op.ListAuditRecordsRequest(page_size=100),
                                                  metadata=OPERATOR)
    actions = [(r.action, r.actor) for r in mine.records]
    assert ("control.set", "operator:dev-operator") in actions
    assert ("control.cleared", "operator:dev-operator") in actions
    assert {r.operator_id for r in mine.records} == {"dev-operator"}
    everything = await cs.admins[1].ListAuditRecords(adm.ListAuditRecordsRequest(
        page_size=100), metadata=ADMIN)
    by_action = [r.action for r in everything.records]
    # Two replicas started at once over one platform file: one row says it was loaded.
    assert by_action.count("configuration.loaded") == 1
    assert by_action.count("admin_key.added") == 1
    assert "control.set" in by_action and "key.added" in by_action
    rows = len(everything.records)

    ok = _verify(cs.rgs_db)
    assert (ok.returncode, ok.stdout.split("(")[0].strip()) == (0, f"chain intact, {rows} rows")
    quiet = _verify(cs.rgs_db, "--json")
    assert json.loads(quiet.stdout)["intact"] is True and quiet.stderr == ""

    target = everything.records[-4]  # a row in the middle (newest first)
    await _tamper(cs.rgs_db, f"UPDATE {SCHEMA}.audit_log SET reason = 'nothing happened' "
                             "WHERE seq = $1", target.seq)
    broken = _verify(cs.rgs_db)
    assert broken.returncode == 1
    assert f"chain BROKEN at row {target.seq}: row {target.seq} was altered" in broken.stdout
    as_json = json.loads(_verify(cs.rgs_db, "--json").stdout)
    assert (as_json["intact"], as_json["broken_at"]) == (False, target.seq)

    await _tamper(cs.rgs_db, f"UPDATE {SCHEMA}.audit_log SET reason = $1 WHERE seq = $2",
                  target.reason, target.seq)
    assert _verify(cs.rgs_db).returncode == 0
    await _tamper(cs.rgs_db, f"DELETE FROM {SCHEMA}.audit_log WHERE seq = $1", target.seq)
    removed = _verify(cs.rgs_db)
    assert removed.returncode == 1
    assert f"row {target.seq} was removed" in removed.stdout
