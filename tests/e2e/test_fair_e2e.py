"""Provably fair rounds over gRPC against real server processes, PostgreSQL and the sandbox
wallet: the commitment is shown before the bet, the seed only after the round, and the cards
the journal recorded are the recomputed order for every variant (`rgs verify` agrees)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import asyncpg
import grpc
import pytest
from e2e_clients import Clients
from google.protobuf.json_format import MessageToJson
from test_play_e2e import OPERATOR, START, error_info, new_player, wallet_balance

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.journal.migrate import SCHEMA
from rgs.recall.verify import verify_document
from rgs.rng.fair import card_order
from rgs.variants import VARIANTS
from support.recalls import SOLO_TAMPERING

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _open(c: Clients, pid: str) -> tuple[tuple[tuple[str, str], ...], str]:
    resp = await c.operators[0].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid), metadata=OPERATOR)
    return (("authorization", f"Bearer {resp.session_token}"),), resp.next_commitment


async def _recall(c: Clients, pid: str, round_id: str) -> op.GetPlayerRoundResponse:
    return await c.operators[1].GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=pid, round_id=round_id), metadata=OPERATOR)


async def _stored_seed(c: Clients, round_id: str) -> str:
    conn = await asyncpg.connect(c.rgs_db, server_settings={"search_path": SCHEMA})
    try:
        seed: str = await conn.fetchval(
            "SELECT server_seed FROM round_seeds WHERE round_id = $1", round_id)
    finally:
        await conn.close()
    return seed


def _json(msg: object) -> str:
    return MessageToJson(msg, preserving_proto_field_name=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_a_fair_round_deals_the_committed_order_and_reveals_its_seed_only_when_settled(
        e2e: Clients, variant: str) -> None:
    pid = await new_player(e2e)
    md, committed = await _open(e2e, pid)
    listed = await e2e.games[1].ListVariants(bj.ListVariantsRequest(), metadata=md)
    assert len(committed) == 64 and listed.next_commitment == committed
    dealt = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d", variant_id=variant, boxes=[bj.BoxBet(seat=1, stake=1000)],
        client_seed=f"my seed for {variant}"), metadata=md)).round
    f = dealt.fair
    assert f.verifiable and f.commitment == committed and f.round_number == 1
    assert f.client_seed == f"my seed for {variant}" and f.decks == VARIANTS[variant].decks
    assert f.next_commitment not in ("", committed)
    seed = await _stored_seed(e2e, dealt.round_id)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == committed
    if dealt.status != bj.ROUND_STATUS_SETTLED:
        # Secret while the round is open: in no view, no recall, on no replica.
        assert f.server_seed == ""
        again = (await e2e.games[1].GetRound(bj.GetRoundRequest(round_id=dealt.round_id),
                                             metadata=md)).round
        open_recall = await _recall(e2e, pid, dealt.round_id)
        for shown in (dealt, again, open_recall):
            assert seed not in _json(shown) and seed.encode() not in shown.SerializeToString()
        assert not verify_document(json.loads(_json(open_recall)))[0].fair
        # Settled on the other replica, which continues the round from the stored seed.
        final = (await e2e.games[1].Settle(bj.SettleRequest(
            request_id="s", round_id=dealt.round_id), metadata=md)).round
    else:
        final = dealt
    assert final.status == bj.ROUND_STATUS_SETTLED and final.fair.server_seed == seed
    assert await wallet_balance(e2e, pid) == START - 1000 + final.total_paid
    recall = await _recall(e2e, pid, dealt.round_id)
    assert recall.round.fair.server_seed == seed
    dealt_cards = [s.card for s in recall.round.steps if s.kind == "card_dealt"]
    assert dealt_cards == card_order(bytes.fromhex(seed), f"my seed for {variant}", 1,
                                     VARIANTS[variant].decks)[:len(dealt_cards)]
    # The settled view lists the same cards in the order they left the shoe (open: none).
    if dealt.status != bj.ROUND_STATUS_SETTLED:
        assert not f.dealt_cards
    assert list(final.fair.dealt_cards) == dealt_cards
    verdict, = verify_document(json.loads(_json(recall)))
    assert verdict.fair, verdict.lines
    # The next round uses the commitment published with this one, as round 2.
    second = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d2", variant_id=variant, boxes=[bj.BoxBet(seat=1, stake=1000)]),
        metadata=md)).round
    assert (second.fair.commitment, second.fair.round_number) == (f.next_commitment, 2)
    assert second.fair.client_seed == ""


async def test_rgs_verify_passes_a_true_recall_and_names_the_difference_in_a_tampered_one(
        e2e: Clients, tmp_path: Path) -> None:
    pid = await new_player(e2e)
    md, _ = await _open(e2e, pid)
    dealt = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d", variant_id="vip-platinum", boxes=[bj.BoxBet(
            seat=1, stake=1000, perfect_pairs=100, twenty_one_plus_three=100)]),
        metadata=md)).round
    if dealt.status != bj.ROUND_STATUS_SETTLED:
        await e2e.games[0].Settle(bj.SettleRequest(request_id="s", round_id=dealt.round_id),
                                  metadata=md)
    doc = json.loads(_json(await _recall(e2e, pid, dealt.round_id)))
    good = tmp_path / "round.json"
    good.write_text(json.dumps(doc))
    run = subprocess.run([sys.executable, "-m", "rgs", "verify", str(good)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert f"round {dealt.round_id}: FAIR" in run.stdout
    assert "replayed whole (VIP Platinum Blackjack, 1 box)" in run.stdout
    assert "2 side bets" in run.stdout and f" {doc['round']['currency']}" in run.stdout

    # The hostile probe's tamperings (issue 22), each passed as FAIR when only the cards'
    # order was checked.
    for name, (tamper, says) in SOLO_TAMPERING.items():
        bad_doc = json.loads(json.dumps(doc))
        assert tamper(bad_doc), name
        verdict, = verify_document(bad_doc)
        assert not verdict.fair and says in " ".join(verdict.lines), (name, verdict.lines)

    first = next(s for s in doc["round"]["steps"] if s["kind"] == "card_dealt")
    first["card"] = "AS" if first["card"] != "AS" else "KD"  # the player's first card
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(doc))
    run = subprocess.run([sys.executable, "-m", "rgs", "verify", str(bad), "--json"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1
    out = json.loads(run.stdout)
    assert out["fair"] is False and "card 1 dealt was" in " ".join(out["rounds"][0]["lines"])


async def test_forced_card_rounds_are_marked_and_never_verify(e2e: Clients) -> None:
    pid = await new_player(e2e)
    md, committed = await _open(e2e, pid)
    dealt = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=1000)],
        forced_cards=["TS", "TH", "9D", "7C"]), metadata=md)).round
    assert not dealt.fair.verifiable and dealt.fair.commitment == ""
    final = (await e2e.games[0].Settle(bj.SettleRequest(
        request_id="s", round_id=dealt.round_id), metadata=md)).round
    assert final.status == bj.ROUND_STATUS_SETTLED and final.fair.server_seed == ""
    recall = await _recall(e2e, pid, dealt.round_id)
    verdict, = verify_document(json.loads(_json(recall)))
    assert not verdict.fair and "forced cards" in verdict.lines[0]
    # The committed seed was not spent: the next fair round uses it.
    nxt = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d2", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=1000)]),
        metadata=md)).round
    assert nxt.fair.commitment == committed and nxt.fair.round_number == 1


async def test_a_voided_round_reveals_its_seed_and_verifies(e2e: Clients) -> None:
    pid = await new_player(e2e)
    md, _ = await _open(e2e, pid)
    for attempt in range(20):  # until a deal leaves the round open (no dealer or player BJ)
        dealt = (await e2e.games[0].Deal(bj.DealRequest(
            request_id=f"d{attempt}", variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=1000)]), metadata=md)).round
        if dealt.status != bj.ROUND_STATUS_SETTLED:
            break
    assert dealt.status != bj.ROUND_STATUS_SETTLED and dealt.fair.server_seed == ""
    voided = (await e2e.operators[1].VoidRound(op.VoidRoundRequest(
        request_id="v", brand_id="demo-casino", player_id=pid, round_id=dealt.round_id,
        reason="table malfunction"), metadata=OPERATOR)).round
    assert voided.status == "voided"
    assert voided.fair.server_seed == await _stored_seed(e2e, dealt.round_id)
    verdict, = verify_document(json.loads(_json(op.GetPlayerRoundResponse(round=voided))))
    assert verdict.fair, verdict.lines
    view = (await e2e.games[0].GetRound(bj.GetRoundRequest(round_id=dealt.round_id),
                                        metadata=md)).round
    assert view.fair.server_seed == voided.fair.server_seed
    # the cards dealt before the void, in order: the first of the order its seeds give
    assert len(view.fair.dealt_cards) >= 3 and list(view.fair.dealt_cards) == card_order(
        bytes.fromhex(view.fair.server_seed), view.fair.client_seed, view.fair.round_number,
        view.fair.decks)[:len(view.fair.dealt_cards)]


async def test_a_malformed_client_seed_is_refused_before_any_money_moves(e2e: Clients) -> None:
    pid = await new_player(e2e)
    md, _ = await _open(e2e, pid)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await e2e.games[0].Deal(bj.DealRequest(
            request_id="d", variant_id="power", boxes=[bj.BoxBet(seat=1, stake=1000)],
            client_seed="é" * 3), metadata=md)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(info.value).reason == "INVALID_CLIENT_SEED"
    assert await wallet_balance(e2e, pid) == START
