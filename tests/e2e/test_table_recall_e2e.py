"""Table rounds in the operator's recall, against real servers and both operators' wallets.

- GetTableRound shows every money movement of the calling operator's players: stakes,
  payments, and refunds (a Bet Behind on a seat that sat out), and a round with only Bet
  Behind stakes (each returned, nothing dealt) is found, as ``not_dealt``.
- ListPlayerRounds and GetPlayerRound include a player's table rounds beside their solo rounds,
  newest first across both, each with the player's own totals and movements and the whole
  table's steps, the other operator's players by display name only.

Every amount is asserted against the wallets.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from e2e_servers import ROOT
from google.protobuf.json_format import MessageToJson
from test_table_seats_e2e import _until_balance
from test_tables_e2e import DEV, OTHER, START, Player, Tables, _player, _table, tables_stack

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from support.databases import DatabaseTemplates
from support.errors import error_reason
from support.tables import events_until, kind

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: Seat 1 gets TS 9H (19), the dealer 7S TD (17): seat 1 wins.
ONE_SEAT_WINS = ["TS", "7S", "9H", "TD"]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def recall(database_templates: DatabaseTemplates, tmp_path_factory: Any
                 ) -> AsyncIterator[Tables]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("recall")), [
            {**_table("vip-recall", betting_s=30.0, decision_s=1.0)},
            {**_table("vip-undealt", betting_s=1.0, decision_s=1.0)}], replicas=2) as t:
        yield t


async def _round_of(t: Tables, p: Player, table_id: str, start: int) -> str:
    seen = await events_until(t.tables[1], p.md, table_id, "round_finished", from_seq=start)
    return seen[-1].round_finished.round_id


async def test_recall_shows_every_movement_refunds_included_and_rounds_dealt_no_card(
        recall: Tables) -> None:
    t, tid = recall, "vip-recall"
    a, b = await _player(t, "dev-operator"), await _player(t, "dev-operator")
    c = await _player(t, "other-operator")
    for p, seat in ((a, 1), (b, 3)):
        await t.tables[0].TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=seat),
                                   metadata=p.md)
    start = (await t.tables[0].PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid,
             bets=[tb.Bet(seat=1, stake=1000)]), metadata=a.md)).result.seq
    # C bets behind A (plays) and behind B, who sits the round out (C's is returned).
    await t.tables[1].PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000, behind=True), tb.Bet(seat=3, stake=2000, behind=True)]),
        metadata=c.md)
    # ... and so does B's own Bet Behind on A's seat plus one of A's on B's: dev-operator's.
    await t.tables[0].PlaceBets(tb.PlaceBetsRequest(request_id="bb", table_id=tid, bets=[
        tb.Bet(seat=3, stake=1500, behind=True)]), metadata=a.md)
    await t.tables[0].DealNow(tb.DealNowRequest(request_id="dn", table_id=tid,
                                                forced_cards=ONE_SEAT_WINS), metadata=a.md)
    round_id = await _round_of(t, a, tid, start)
    await _until_balance(t, a, START - 1000 + 2000)  # A's behind on B returned, A's seat won
    await _until_balance(t, c, START - 1000 + 2000)

    dev = await t.tables[0].GetTableRound(tb.GetTableRoundRequest(table_id=tid,
                                                                  round_id=round_id),
                                          metadata=DEV)
    assert dev.table_id == tid and dev.status == "settled"
    # A only: B had no money in the round. A's stake played, A's Bet Behind was returned.
    assert [(s.player_id, s.staked, s.paid, s.refunded) for s in dev.players] == [
        (a.pid, 1000, 2000, 1500)]
    kinds = sorted((m.kind, m.amount) for m in dev.movements)
    assert kinds == [("credit", 2000), ("debit", 1000), ("debit", 1500), ("rollback", 1500)]
    assert {m.player_id for m in dev.movements} == {a.pid}
    rollback, = (m for m in dev.movements if m.kind == "rollback")
    assert rollback.debit_transaction_id in {m.transaction_id for m in dev.movements
                                             if m.kind == "debit"}
    # The other operator sees its own player's money and not dev-operator's.
    other = await t.tables[1].GetTableRound(tb.GetTableRoundRequest(table_id=tid,
                                                                    round_id=round_id),
                                            metadata=OTHER)
    assert [(s.player_id, s.staked, s.paid, s.refunded) for s in other.players] == [
        (c.pid, 1000, 2000, 2000)]
    text = MessageToJson(other)
    assert a.pid not in text and b.pid not in text
    assert await b.balance(t) == START


async def test_a_round_of_bet_behinds_only_is_recalled_with_its_refunds(recall: Tables) -> None:
    t, tid = recall, "vip-undealt"
    seated, behind = await _player(t, "dev-operator"), await _player(t, "other-operator")
    await t.tables[0].TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=2),
                               metadata=seated.md)
    start = (await t.tables[1].PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid,
             bets=[tb.Bet(seat=2, stake=2500, behind=True)]), metadata=behind.md)).result.seq
    seen = await events_until(t.tables[0], behind.md, tid, "betting_closed", from_seq=start)
    round_id = next(e.betting_closed.round_id for e in seen if kind(e) == "betting_closed")
    await _until_balance(t, behind, START)
    # The journal marks the debit rolled back just after the wallet's answer to the rollback
    # is recorded (two writes): read the recall once both are in.
    for _ in range(100):
        got = await t.tables[0].GetTableRound(tb.GetTableRoundRequest(table_id=tid,
                                                                      round_id=round_id),
                                              metadata=OTHER)
        if all(m.status != "booked" for m in got.movements):
            break
        await asyncio.sleep(0.1)
    assert got.status == "not_dealt" and got.fair.server_seed  # revealed: it dealt no card
    assert [(s.player_id, s.staked, s.paid, s.refunded) for s in got.players] == [
        (behind.pid, 0, 0, 2500)]
    assert sorted((m.kind, m.amount, m.status) for m in got.movements) == [
        ("debit", 2500, "rolled_back"), ("rollback", 2500, "applied")]
    # dev-operator had no money in it: not its round.
    with pytest.raises(grpc.aio.AioRpcError) as not_ours:
        await t.tables[0].GetTableRound(tb.GetTableRoundRequest(table_id=tid,
                                                                round_id=round_id),
                                        metadata=DEV)
    assert error_reason(not_ours.value) == "ROUND_NOT_FOUND"


async def test_the_player_round_list_and_recall_include_table_rounds(recall: Tables) -> None:
    t, tid = recall, "vip-recall"
    a, c = await _player(t, "dev-operator"), await _player(t, "other-operator")
    game = blackjack_pb2_grpc.BlackjackServiceStub(t.channels[0])

    async def solo(n: int) -> str:
        dealt = (await game.Deal(bj.DealRequest(
            request_id=f"solo-{n}", variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=1000)], forced_cards=["TS", "7S", "9H", "TD"]),
            metadata=a.md)).round
        await game.Act(bj.ActRequest(request_id=f"stand-{n}", round_id=dealt.round_id,
                                     expected_seq=dealt.seq, seat=1, hand=0,
                                     action=bj.ACTION_STAND), metadata=a.md)
        return dealt.round_id

    first_solo = await solo(1)
    await asyncio.sleep(0.05)
    await t.tables[0].TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=5),
                               metadata=a.md)
    start = (await t.tables[0].PlaceBets(tb.PlaceBetsRequest(request_id="t1", table_id=tid,
             bets=[tb.Bet(seat=5, stake=1000)]), metadata=a.md)).result.seq
    await t.tables[1].PlaceBets(tb.PlaceBetsRequest(request_id="cb", table_id=tid, bets=[
        tb.Bet(seat=5, stake=1000, behind=True)]), metadata=c.md)
    await t.tables[0].DealNow(tb.DealNowRequest(request_id="dn1", table_id=tid,
                                                forced_cards=ONE_SEAT_WINS), metadata=a.md)
    table_round = await _round_of(t, a, tid, start)
    await asyncio.sleep(0.05)
    last_solo = await solo(2)
    await _until_balance(t, a, START + 3 * 1000)  # three rounds of 10.00 won

    listing = await t.operators[1].ListPlayerRounds(op.ListPlayerRoundsRequest(
        brand_id="demo-casino", player_id=a.pid, page_size=2), metadata=DEV)
    assert [r.round_id for r in listing.rounds] == [last_solo, table_round]
    at_table = listing.rounds[1]
    assert at_table.table_id == tid and listing.rounds[0].table_id == ""
    assert (at_table.status, at_table.total_staked, at_table.total_paid,
            at_table.total_refunded) == ("settled", 1000, 2000, 0)
    assert sorted((m.kind, m.amount) for m in at_table.movements) == [("credit", 2000),
                                                                      ("debit", 1000)]
    assert at_table.player_id == a.pid and at_table.brand_id == "demo-casino"
    steps = [s.kind for s in at_table.steps]
    assert "card_dealt" in steps and "hand_settled" in steps and "behind_placed" not in steps
    text = MessageToJson(at_table)
    assert c.pid not in text and "other-operator" not in text  # C by display name only
    page2 = await t.operators[0].ListPlayerRounds(op.ListPlayerRoundsRequest(
        brand_id="demo-casino", player_id=a.pid, page_size=2,
        page_token=listing.next_page_token), metadata=DEV)
    assert [r.round_id for r in page2.rounds] == [first_solo] and not page2.next_page_token
    one = await t.operators[0].GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=a.pid, round_id=table_round), metadata=DEV)
    assert one.round == at_table
    # Not at another brand of the operator, nor for the other operator.
    for brand, md, pid in (("demo-casino-hints", DEV, a.pid), ("other-casino", OTHER, c.pid)):
        if brand == "other-casino":
            theirs = await t.operators[0].GetPlayerRound(op.GetPlayerRoundRequest(
                brand_id=brand, player_id=pid, round_id=table_round), metadata=md)
            assert theirs.round.total_staked == 1000 and a.pid not in MessageToJson(theirs)
            continue
        with pytest.raises(grpc.aio.AioRpcError) as elsewhere:
            await t.operators[0].GetPlayerRound(op.GetPlayerRoundRequest(
                brand_id=brand, player_id=pid, round_id=table_round), metadata=md)
        assert error_reason(elsewhere.value) == "ROUND_NOT_FOUND"


async def test_a_table_round_in_the_players_recall_verifies_whole(recall: Tables,
                                                                   tmp_path: Path) -> None:
    """An RNG-dealt table round (the seat stands when its second runs out), as the operator's
    GetPlayerRound gives it: `rgs verify` says FAIR; with its payout raised, NOT VERIFIED."""
    t, tid = recall, "vip-recall"
    a = await _player(t, "dev-operator")
    await t.tables[0].TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=7),
                               metadata=a.md)
    start = (await t.tables[0].PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid,
             bets=[tb.Bet(seat=7, stake=1000)]), metadata=a.md)).result.seq
    await t.tables[0].DealNow(tb.DealNowRequest(request_id="dn", table_id=tid), metadata=a.md)
    round_id = await _round_of(t, a, tid, start)
    one = await t.operators[0].GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=a.pid, round_id=round_id), metadata=DEV)
    await _until_balance(t, a, START - one.round.total_staked + one.round.total_paid)
    assert one.round.fair.verifiable and one.round.fair.server_seed
    doc = json.loads(MessageToJson(one, preserving_proto_field_name=True))
    honest = tmp_path / "table-round.json"
    honest.write_text(json.dumps(doc))
    ok = subprocess.run([sys.executable, "-m", "rgs", "verify", str(honest)], cwd=ROOT,
                        capture_output=True, text=True, check=False,
                        env={**os.environ, "PYTHONPATH": str(ROOT / "services")})
    assert ok.returncode == 0 and "FAIR" in ok.stdout, ok.stdout + ok.stderr
    assert "replayed whole" in ok.stdout, ok.stdout
    print(ok.stdout)
    doc["round"]["total_paid"] = str(int(one.round.total_paid) + 1000)
    for step in doc["round"]["steps"]:
        if step["kind"] == "hand_settled":
            detail = json.loads(step["detail_json"])
            detail["payout"] = str(int(detail.get("payout", 0)) + 1000)
            step["detail_json"] = json.dumps(detail)
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(doc))
    bad = subprocess.run([sys.executable, "-m", "rgs", "verify", str(tampered)], cwd=ROOT,
                         capture_output=True, text=True, check=False,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "services")})
    assert bad.returncode == 1, bad.stdout + bad.stderr
    print(bad.stdout)
