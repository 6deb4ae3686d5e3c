"""The back office against real processes (issue 24): two operators' players play solo rounds
and one shared table round; the movements listing, ``sandbox-wallet export``, ``rgs reconcile``
and ``rgs report ggr`` agree to the cent with each sandbox wallet's ledger, and every mismatch
seeded into an export is found.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf.timestamp_pb2 import Timestamp
from test_operators_e2e import STAND_WINS
from test_tables_e2e import DEV, OTHER, START, WALLET_AUTH, Player, Tables, _player, tables_stack

from rgs.finance import movements
from rgs.finance.wallet_export import COLUMNS
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.journal.audit import open_pool
from rgs.service.model import MovementStatus, is_open
from rgs.wallet.port import MoneyKind
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.errors import error_reason
from support.tables import events_until

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = "ledger-vip"
#: classic-resplit: T-7 against 6-T; standing on 17, the dealer's 16 draws a ten and busts.
BUST = ("TS", "6H", "7D", "TC", "TH")
#: The free bet player B stakes in one more solo round (its only movement the win's credit).
FREE_STAKE = 1000


def _table() -> dict[str, Any]:
    return {"id": TABLE, "variant": "vip-platinum", "seats": 7, "currency": "EUR",
            "limits": {"main_min": 1000, "main_max": 500000, "side_min": 100,
                       "side_max": 50000},
            "brands": ["demo-casino", "other-casino"], "betting_s": 30.0, "decision_s": 1.0}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def played(database_templates: DatabaseTemplates, tmp_path_factory: Any
                 ) -> AsyncIterator[tuple[Tables, list[Player], datetime, datetime]]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("ledger")),
                            [_table()], replicas=1) as t:
        start = datetime.now(UTC) - timedelta(seconds=1)
        a, b = await _player(t, "dev-operator"), await _player(t, "dev-operator")
        c = await _player(t, "other-operator")
        game = blackjack_pb2_grpc.BlackjackServiceStub(t.channels[0])
        for p, stake in ((a, 1000), (b, 2500), (c, 700)):
            for i, cards in enumerate((STAND_WINS, BUST, STAND_WINS)):
                dealt = (await game.Deal(bj.DealRequest(
                    request_id=f"d{i}", variant_id="classic-resplit",
                    boxes=[bj.BoxBet(seat=1, stake=stake)], forced_cards=cards),
                    metadata=p.md)).round
                await game.Settle(bj.SettleRequest(request_id=f"st{i}",
                                                   round_id=dealt.round_id), metadata=p.md)
        expires = Timestamp()
        expires.FromDatetime(datetime.now(UTC) + timedelta(days=1))
        await t.operators[0].GrantFreeBets(op.GrantFreeBetsRequest(
            grant_id="finance-free", brand_id="demo-casino", player_id=b.pid, value=FREE_STAKE,
            count=1, expires_at=expires), metadata=DEV)
        free = (await game.Deal(bj.DealRequest(
            request_id="dfree", variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=FREE_STAKE)], forced_cards=STAND_WINS,
            free_bet_id="finance-free"), metadata=b.md)).round
        await game.Settle(bj.SettleRequest(request_id="stfree", round_id=free.round_id),
                          metadata=b.md)
        tables = t.tables[0]
        for p, seat in ((a, 1), (c, 3)):
            await tables.TakeSeat(tb.TakeSeatRequest(request_id="seat", table_id=TABLE,
                                                     seat=seat), metadata=p.md)
        seq = (await tables.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=TABLE, bets=[
            tb.Bet(seat=1, stake=1000, perfect_pairs=100)]), metadata=a.md)).result.seq
        await tables.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=TABLE, bets=[
            tb.Bet(seat=3, stake=2000)]), metadata=c.md)
        watch = asyncio.create_task(events_until(tables, a.md, TABLE, "round_finished",
                                                 from_seq=seq, timeout=60))
        for p in (a, c):
            await tables.DealNow(tb.DealNowRequest(request_id="dn", table_id=TABLE),
                                 metadata=p.md)
        await watch
        pool = await open_pool(t.rgs_db, max_size=1)
        try:
            async with asyncio.timeout(30):  # every credit reaches its wallet
                while await _open_movements(pool, start):
                    await asyncio.sleep(0.2)
        finally:
            await pool.close()
        await asyncio.sleep(0.5)
        yield t, [a, b, c], start, datetime.now(UTC) + timedelta(seconds=1)


async def _open_movements(pool: Any, start: datetime) -> int:
    return len([m for op_id in ("dev-operator", "other-operator")
                async for m in movements.every(pool, op_id, start, datetime.now(UTC))
                if is_open(MoneyKind(m.kind), MovementStatus(m.status))])


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          timeout=120, check=False, env=dict(os.environ))


def _export(t: Tables, operator: str, start: datetime, end: datetime, fmt: str,
            out: Path) -> Path:
    done = _cli("sandbox_wallet", "export", "--operator-id", operator, "--from",
                start.isoformat(), "--to", end.isoformat(), "--format", fmt, "--output",
                str(out), "--database-url", t.stack.wallet_dbs[operator])
    assert done.returncode == 0, done.stderr
    return out


def _reconcile(t: Tables, operator: str, start: datetime, end: datetime, export: Path
               ) -> tuple[int, dict[str, Any]]:
    done = _cli("rgs", "reconcile", "--operator", operator, "--from", start.isoformat(),
                "--to", end.isoformat(), "--wallet-export", str(export), "--database-url",
                t.rgs_db, "--json")
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


async def _ledger(t: Tables, p: Player) -> list[sandbox_pb2.Transaction]:
    got = await t.controls[p.operator].ListTransactions(
        sandbox_pb2.ListTransactionsRequest(player_id=p.pid), metadata=WALLET_AUTH[p.operator])
    return list(got.transactions)


async def test_each_operators_movements_reconcile_with_its_wallets_export(
        played: tuple[Tables, list[Player], datetime, datetime], tmp_path: Path) -> None:
    t, players, start, end = played
    for operator, fmt in (("dev-operator", "csv"), ("other-operator", "json")):
        export = _export(t, operator, start, end, fmt, tmp_path / f"{operator}.{fmt}")
        code, out = _reconcile(t, operator, start, end, export)
        assert (code, out["mismatches"]) == (0, [])
        mine = [p for p in players if p.operator == operator]
        wallet_rows = sum([len(await _ledger(t, p)) for p in mine])
        assert out["wallet_rows"] == wallet_rows > 0
        assert out["matched"] >= wallet_rows


async def test_each_movement_keeps_the_wallets_own_reference(
        played: tuple[Tables, list[Player], datetime, datetime]) -> None:
    t, players, start, end = played
    pool = await open_pool(t.rgs_db, max_size=1)
    try:
        listed = {m.transaction_id: m for op_id in ("dev-operator", "other-operator")
                  async for m in movements.every(pool, op_id, start, end)}
    finally:
        await pool.close()
    ledger = {x.transaction_id: x.wallet_transaction_id for p in players
              for x in await _ledger(t, p)}
    # Every movement the wallet applied, solo and at the table, lists the wallet's reference.
    assert ledger and set(ledger) <= set(listed)
    assert {txn: listed[txn].wallet_reference for txn in ledger} == ledger
    assert all(ref.startswith("sw-") for ref in ledger.values())
    assert {listed[txn].at_table for txn in ledger} == {True, False}
    assert {listed[txn].kind for txn in ledger} >= {"debit", "credit"}


async def test_every_mismatch_seeded_into_an_export_is_found(
        played: tuple[Tables, list[Player], datetime, datetime], tmp_path: Path) -> None:
    t, _, start, end = played
    export = _export(t, "dev-operator", start, end, "csv", tmp_path / "w.csv")
    rows = list(csv.DictReader(io.StringIO(export.read_text())))
    debits = [r for r in rows if r["kind"] == "debit" and r["status"] == "applied"]
    credits = [r for r in rows if r["kind"] == "credit"]
    missing, amount, currency, status, details, reference = (
        credits[0], debits[0], debits[1], debits[2], debits[3], debits[4])
    rows.remove(missing)
    amount["amount"] = str(int(amount["amount"]) + 1)
    currency["currency"] = "USD"
    status["status"] = "rolled_back"
    details["player_id"] = "someone-else"
    reference["wallet_reference"] = "sw-elsewhere"
    rows.append(dict(credits[1]))                                    # duplicate
    rows.append({**credits[1], "transaction_id": "nowhere:settle:credit"})  # missing in RGS
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=COLUMNS)
    w.writeheader()
    w.writerows(rows)
    seeded = tmp_path / "seeded.csv"
    seeded.write_text(out.getvalue())
    code, got = _reconcile(t, "dev-operator", start, end, seeded)
    assert code == 1
    found = {(m["kind"], m["transaction_id"]) for m in got["mismatches"]}
    assert found == {("missing_at_wallet", missing["transaction_id"]),
                     ("amount_differs", amount["transaction_id"]),
                     ("currency_differs", currency["transaction_id"]),
                     ("status_differs", status["transaction_id"]),
                     ("details_differ", details["transaction_id"]),
                     ("reference_differs", reference["transaction_id"]),
                     ("duplicate", credits[1]["transaction_id"]),
                     ("missing_in_rgs", "nowhere:settle:credit")}


async def test_the_ggr_report_equals_the_movements_and_each_wallets_ledger(
        played: tuple[Tables, list[Player], datetime, datetime]) -> None:
    t, players, start, end = played
    day = start.date()
    for operator in ("dev-operator", "other-operator"):
        done = _cli("rgs", "report", "ggr", "--operator", operator, "--from",
                    (day - timedelta(days=1)).isoformat(), "--to",
                    (day + timedelta(days=1)).isoformat(), "--database-url", t.rgs_db,
                    "--json", "--reporting-currency", "EUR")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        lines = report["lines"]
        staked = sum(g["staked"] for g in lines)
        paid = sum(g["paid"] for g in lines)
        # The wallet's ledger: debits not rolled back, and credits, per player to the cent.
        wallet_staked = wallet_paid = 0
        for p in (p for p in players if p.operator == operator):
            txns = await _ledger(t, p)
            p_staked = sum(x.amount for x in txns
                           if x.kind == sandbox_pb2.TRANSACTION_KIND_DEBIT
                           and not x.rolled_back_by)
            p_paid = sum(x.amount for x in txns
                         if x.kind == sandbox_pb2.TRANSACTION_KIND_CREDIT)
            assert await p.balance(t) == START - p_staked + p_paid
            wallet_staked, wallet_paid = wallet_staked + p_staked, wallet_paid + p_paid
        assert (staked, paid) == (wallet_staked, wallet_paid) and staked > 0
        # The movements listing, page by page through its cursor, says the same.
        listed, cursor = [], ""
        while True:
            page = _cli("rgs", "movements", "--operator", operator, "--from", start.isoformat(),
                        "--to", end.isoformat(), "--limit", "7", "--database-url", t.rgs_db,
                        "--json", *(("--cursor", cursor) if cursor else ()))
            assert page.returncode == 0, page.stderr
            got = json.loads(page.stdout)
            listed += got["movements"]
            if not (cursor := got["next_cursor"]):
                break
        assert len({m["transaction_id"] for m in listed}) == len(listed) > 7
        assert sum(m["amount"] for m in listed
                   if (m["kind"], m["status"]) == ("debit", "booked")) == staked
        assert sum(m["amount"] for m in listed
                   if (m["kind"], m["status"]) == ("credit", "applied")) == paid
        # B's free stake is kept apart: in no staked (the wallet never saw it), counted once,
        # in the solo group of the day its round's first movement (the win's credit) was written.
        free = FREE_STAKE if operator == "dev-operator" else 0
        assert report["total"] == {"currency": "EUR", "staked": staked, "paid": paid,
                                   "ggr": staked - paid, "free_bet_staked": free}
        assert [g["free_bet_staked"] for g in lines if g["free_bet_staked"]] == (
            [free] if free else [])
        assert all(not g["table_id"] for g in lines if g["free_bet_staked"])
        # Solo and table apart: the table line names its table; every group's RTP is paid/staked.
        assert Counter(bool(g["table_id"]) for g in lines) == Counter({False: 1, True: 1})
        for g in lines:
            assert g["ggr"] == g["staked"] - g["paid"]
            assert g["rtp"] == pytest.approx(g["paid"] / g["staked"], abs=1e-6)
        solo = next(g for g in lines if not g["table_id"])
        assert solo["rounds"] == 3 * len([p for p in players if p.operator == operator]) + (
            1 if free else 0)


async def test_the_finance_rpcs_answer_what_the_commands_print_and_only_the_callers_players(
        played: tuple[Tables, list[Player], datetime, datetime]) -> None:
    t, players, start, end = played
    stub = t.operators[0]
    for operator, key in (("dev-operator", DEV), ("other-operator", OTHER)):
        request = op.ListMovementsRequest(page_size=5)
        request.from_time.FromDatetime(start)
        request.to_time.FromDatetime(end)
        listed: list[op.Movement] = []
        while True:
            page = await stub.ListMovements(request, metadata=key)
            listed += page.movements
            if not page.next_page_token:
                break
            request.page_token = page.next_page_token
        cli = _cli("rgs", "movements", "--operator", operator, "--from", start.isoformat(),
                   "--to", end.isoformat(), "--limit", "5000", "--database-url", t.rgs_db,
                   "--json")
        printed = json.loads(cli.stdout)["movements"]
        assert [(m.transaction_id, m.amount, m.status) for m in listed] == [
            (m["transaction_id"], m["amount"], m["status"]) for m in printed]
        mine = {p.pid for p in players if p.operator == operator}
        assert {m.player_id for m in listed} == mine
        assert {bool(m.table_id) for m in listed} == {False, True}
        day = start.date().isoformat()
        report = await stub.GetGgrReport(op.GetGgrReportRequest(
            from_day=day, to_day=day, reporting_currency="EUR"), metadata=key)
        done = _cli("rgs", "report", "ggr", "--operator", operator, "--from", day, "--to", day,
                    "--database-url", t.rgs_db, "--json", "--reporting-currency", "EUR")
        want = json.loads(done.stdout)
        assert [(g.staked, g.paid, g.ggr, g.rounds, g.players) for g in report.lines] == [
            (g["staked"], g["paid"], g["ggr"], g["rounds"], g["players"])
            for g in want["lines"]]
        assert (report.total.staked, report.total.ggr, report.total.free_bet_staked) == (
            want["total"]["staked"], want["total"]["ggr"], want["total"]["free_bet_staked"])
        assert [g.free_bet_staked for g in report.lines] == [
            g["free_bet_staked"] for g in want["lines"]]
    bad = op.ListMovementsRequest()
    bad.from_time.FromDatetime(end)
    bad.to_time.FromDatetime(start)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.ListMovements(bad, metadata=DEV)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_reason(refused.value) == "INVALID_TIME_WINDOW"
    with pytest.raises(grpc.aio.AioRpcError) as no_rate:
        await stub.GetGgrReport(op.GetGgrReportRequest(
            from_day=start.date().isoformat(), to_day=start.date().isoformat(),
            reporting_currency="USD"), metadata=DEV)
    assert error_reason(no_rate.value) == "INVALID_RATES"
