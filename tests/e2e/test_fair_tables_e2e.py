"""Provably fair rounds at shared tables (issue 17) against real processes: three RGS replicas,
two operators' sandbox wallets, PostgreSQL. For the VIP Platinum and the electronic table: the
commitment shown before the first bet and in ``betting_opened`` is SHA-256 of the seed the
round is dealt from; the seed is in no snapshot, event, command answer or recall before the
round ends, and then in all of them; the cards the journal recorded are
:func:`rgs.rng.fair.card_order` of the revealed seeds; any other seed gives another order;
``rgs verify`` passes the recall and fails a tampered one; each player's money is exact. Then
the replica driving a table's clock is SIGKILLed mid-round and the round, continued by another
replica, still verifies."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import grpc
import pytest
import pytest_asyncio
from google.protobuf.json_format import MessageToJson
from test_tables_e2e import (
    DEV,
    OTHER,
    START,
    Player,
    Tables,
    _balances,
    _events_until,
    _player,
    _snapshot,
    _table,
    _until,
    tables_stack,
)

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.recall.verify import verify_document
from rgs.rng.fair import card_order, table_client_seed
from rgs.variants import VARIANTS
from support.databases import DatabaseTemplates
from support.recalls import TABLE_TAMPERING
from support.tables import as_dict, as_json, kind, shown_as

pytestmark = pytest.mark.asyncio(loop_scope="session")

ANN_SEED, BOB_SEED = "ann's lucky seed", "bob: 42"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def fair_tables(database_templates: DatabaseTemplates, tmp_path_factory: Any
                      ) -> AsyncIterator[tuple[Tables, Path]]:
    logs = Path(tmp_path_factory.mktemp("fair-tables"))
    async with tables_stack(database_templates, logs, [
            _table("vip-fair", decision_s=1.0), _table("vip-fair-kill", decision_s=3.0),
            {"id": "electronic-fair", "variant": "electronic-h17", "seats": 5,
             "currency": "EUR", "brands": ["demo-casino"], "betting_s": 30.0,
             "decision_s": 1.0}]) as t:
        yield t, logs


async def _stored_state(t: Tables, tid: str) -> dict[str, Any]:
    """The table's state as the journal holds it (the secret seeds included)."""
    conn = await asyncpg.connect(t.rgs_db)
    try:
        text = await conn.fetchval("SELECT state::text FROM rgs.game_tables WHERE table_id = $1",
                                   tid)
    finally:
        await conn.close()
    state: dict[str, Any] = json.loads(text)
    return state


def _json(msg: object) -> str:
    return MessageToJson(msg, preserving_proto_field_name=True)  # type: ignore[arg-type]


def _cards(recall: tb.GetTableRoundResponse) -> list[str]:
    return [e.card_dealt.card for e in recall.events if kind(e) == "card_dealt"]


def _results(e: tb.TableEvent) -> dict[str, tuple[int, int]]:
    """A round_finished event's results by the player's id (the watcher is dev-operator's, so
    it names its own players by the pseudonyms shown_as gives)."""
    return {r.player.display_name: (r.staked, r.paid) for r in e.round_finished.results}


async def _recall(stub: table_pb2_grpc.TableServiceAsyncStub, tid: str, round_id: str,
                  key: Any = DEV) -> tb.GetTableRoundResponse | None:
    try:
        return await stub.GetTableRound(tb.GetTableRoundRequest(table_id=tid,
                                                                round_id=round_id),
                                        metadata=key)
    except grpc.aio.AioRpcError as exc:
        if exc.code() is grpc.StatusCode.NOT_FOUND:
            return None  # not dealt yet
        raise


async def _after_betting(stub: table_pb2_grpc.TableServiceAsyncStub, md: Any, tid: str,
                         round_id: str) -> dict[str, Any]:
    """The table's snapshot once betting on ``round_id`` has closed (the round in play, or
    over already when it ended at the deal)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        snap = as_dict(await _snapshot(stub, md, tid))
        if snap.get("round_id", "") != round_id or snap["phase"] != "TABLE_PHASE_BETTING":
            return snap
        await asyncio.sleep(0.05)
    raise AssertionError(f"betting on {round_id} did not close")


def _rgs_verify(path: Path, doc: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    path.write_text(json.dumps(doc))
    return subprocess.run([sys.executable, "-m", "rgs", "verify", str(path), "--json"],
                          capture_output=True, text=True, check=False)


def _check_recall_verifies(recall: tb.GetTableRoundResponse, tmp: Path) -> None:
    """``rgs verify`` passes the recall JSON, replayed whole, and fails it with one card or a
    seat seed changed, and with each tampering of the hostile probe (issue 22) that applies to
    the round."""
    doc = json.loads(_json(recall))
    run = _rgs_verify(tmp / f"{recall.round_id}.json", doc)
    assert run.returncode == 0, (run.stdout, run.stderr)
    assert json.loads(run.stdout)["fair"] is True
    assert "replayed whole" in run.stdout
    probed = set()
    for name, (tamper, says) in TABLE_TAMPERING.items():
        bad = json.loads(json.dumps(doc))
        if tamper(bad):
            verdict, = verify_document(bad)
            assert not verdict.fair and says in " ".join(verdict.lines), (name, verdict.lines)
            probed.add(name)
    assert {"last dealt card removed", "two cards swapped between seats", "a payout inflated",
            "a hand's outcome changed", "a player's money inflated"} <= probed
    events = json.loads(json.dumps(doc["events"]))
    first = next(e["card_dealt"] for e in events if "card_dealt" in e)
    first["card"] = "AS" if first["card"] != "AS" else "KD"
    run = _rgs_verify(tmp / "tampered-card.json", {**doc, "events": events})
    assert run.returncode == 1 and "card 1 dealt was" in run.stdout
    if doc["fair"].get("seat_seeds"):
        fair = json.loads(json.dumps(doc["fair"]))
        fair["seat_seeds"][0]["client_seed"] += "!"
        run = _rgs_verify(tmp / "tampered-seed.json", {**doc, "fair": fair})
        assert run.returncode == 1 and "is not the one the seats" in run.stdout


@pytest.mark.parametrize(("tid", "variant"), [("vip-fair", "vip-platinum"),
                                              ("electronic-fair", "electronic-h17")])
async def test_a_table_round_deals_the_committed_order_and_reveals_its_seed_only_at_the_end(
        fair_tables: tuple[Tables, Path], tmp_path: Path, tid: str, variant: str) -> None:
    t, logs = fair_tables
    a, b = await _player(t, "dev-operator"), await _player(t, "dev-operator")
    c = await _player(t, "other-operator") if variant == "vip-platinum" else None
    stub = t.tables[0]
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=1), metadata=a.md)
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=3), metadata=b.md)
    # Idle: the next round's commitment is shown before anyone bets.
    idle = await _snapshot(t.tables[1], a.md, tid)
    committed = idle.next_commitment
    assert idle.phase == tb.TABLE_PHASE_IDLE and len(committed) == 64
    start_seq = idle.seq

    shown: list[str] = []  # everything players were shown before the round ended
    with pytest.raises(grpc.aio.AioRpcError) as refused:  # a bad client seed loses nothing
        await stub.PlaceBets(tb.PlaceBetsRequest(request_id="bad", table_id=tid, bets=[
            tb.Bet(seat=1, stake=1000)], client_seed="é"), metadata=a.md)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert await a.balance(t) == START
    side = 100 if variant == "vip-platinum" else 0  # a Perfect Pairs bet where there is one
    r = await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000, perfect_pairs=side)], client_seed=ANN_SEED), metadata=a.md)
    shown.append(as_json(r.result.snapshot))
    secret = (await _stored_state(t, tid))["fair"]["server_seed"]
    assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == committed
    r = await t.tables[1].PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=3, stake=2000)], client_seed=BOB_SEED), metadata=b.md)
    shown.append(as_json(r.result.snapshot))
    stakes = {a.pid: 1000 + side, b.pid: 2000}
    players = [a, b]
    if c is not None:
        r = await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
            tb.Bet(seat=1, stake=1000, behind=True, follow_double=True, follow_split=True)]),
            metadata=c.md)
        shown.append(as_json(r.result.snapshot))
        stakes[c.pid] = 1000
        players.append(c)
    watcher = asyncio.create_task(_events_until(t.tables[2], a.md, tid, "round_finished",
                                                from_seq=start_seq))
    for p in (a, b):
        r = await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid), metadata=p.md)
        shown.append(as_json(r.result.snapshot))
    round_id = json.loads(shown[0])["round_id"]
    # While the round is in play its snapshot shows the commitment, never the seed (and the
    # operator's recall finds no round before it is settled).
    during = await _after_betting(t.tables[2], b.md, tid, round_id)
    if during.get("round_id") == round_id:  # (a round ended at the deal shows its seed now)
        shown.append(json.dumps(during))
        assert during["fair"]["commitment"] == committed
        assert "server_seed" not in during["fair"] and "dealt_cards" not in during["fair"]
    seen = await watcher
    for text in (*shown, *(as_json(e) for e in seen[:-1])):
        assert secret not in text
    opened = next(e.betting_opened for e in seen if kind(e) == "betting_opened")
    assert opened.fair.commitment == committed and opened.fair.server_seed == ""
    closed = next(e.betting_closed for e in seen if kind(e) == "betting_closed")
    client_seed = table_client_seed([(1, ANN_SEED), (3, BOB_SEED)])
    assert closed.fair.client_seed == client_seed
    finished = seen[-1].round_finished
    assert finished.fair.server_seed == secret

    # After: the seed is in the recall, and the recorded cards are the documented order.
    recall = await _recall(t.tables[1], tid, round_id)
    assert recall is not None and recall.status == "settled"
    f = recall.fair
    assert (f.verifiable, f.server_seed, f.commitment, f.client_seed) == (
        True, secret, committed, client_seed)
    assert [(s.seat, s.client_seed) for s in f.seat_seeds] == [(1, ANN_SEED), (3, BOB_SEED)]
    assert (f.round_number, f.decks) == (opened.round_no, VARIANTS[variant].decks)
    cards = _cards(recall)
    n = len(cards)
    seed = bytes.fromhex(secret)
    assert n >= 5 and cards == card_order(seed, client_seed, f.round_number, f.decks)[:n]
    # round_finished (and the idle snapshot's last_round) list the same cards in shoe order
    assert list(finished.fair.dealt_cards) == cards
    # Any other seed, client seed or round number gives another order.
    for other in (card_order(bytes(32), client_seed, f.round_number, f.decks),
                  card_order(seed, table_client_seed([(1, ANN_SEED), (3, "bob: 43")]),
                             f.round_number, f.decks),
                  card_order(seed, "", f.round_number, f.decks),
                  card_order(seed, client_seed, f.round_number + 1, f.decks)):
        assert other[:n] != cards
    _check_recall_verifies(recall, tmp_path)
    after = await _snapshot(stub, a.md, tid)
    assert after.last_round.round_id == round_id and after.last_round.fair == finished.fair
    # ... with the round as it ended, until the next round is dealt
    assert after.last_round.round.round_id == round_id
    assert after.last_round.round.status == bj.ROUND_STATUS_SETTLED
    assert after.next_commitment == f.next_commitment != committed

    # Money, per player: the wallets moved by exactly the results, and recall agrees. (The
    # watcher, a, is dev-operator's: every player is named by a pseudonym, a as "you".)
    ops = {a.pid: "dev-operator", b.pid: "dev-operator",
           **({c.pid: "other-operator"} if c is not None else {})}
    by_name = _results(seen[-1])
    if c is not None:  # (a Bet Behind player's result is theirs to see: c's own stream)
        by_name |= _results((await _events_until(stub, c.md, tid, "round_finished",
                                                 from_seq=start_seq))[-1])
    results = {pid: by_name[shown_as(tid, ops[pid], pid)] for pid in ops}
    assert {pid: st for pid, (st, _) in results.items()} == {
        pid: st for pid, st in stakes.items() if pid in results}
    assert set(results) == set(stakes)
    await _until(lambda: _balances(t, *players),
                 tuple(START - results[p.pid][0] + results[p.pid][1] for p in players))
    assert {(s.player_id, s.staked, s.paid) for s in recall.players} == {
        (p.pid, *results[p.pid]) for p in (a, b)}
    if c is not None:
        theirs = await _recall(t.tables[0], tid, round_id, OTHER)
        assert theirs is not None
        assert [(s.player_id, s.staked, s.paid) for s in theirs.players] == [
            (c.pid, *results[c.pid])]
        assert theirs.fair == recall.fair

    # The next round takes the commitment shown after this one, as the next round number.
    await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b2", table_id=tid, bets=[
        tb.Bet(seat=1, stake=1000)]), metadata=a.md)
    nxt = (await _snapshot(stub, a.md, tid)).fair
    assert (nxt.commitment, nxt.round_number) == (f.next_commitment, f.round_number + 1)
    await stub.DealNow(tb.DealNowRequest(request_id="d2", table_id=tid), metadata=a.md)
    await _events_until(stub, a.md, tid, "round_finished", from_seq=seen[-1].seq)
    # No replica ever logged a seed.
    for log in logs.glob("*.log"):
        assert secret not in log.read_text(errors="replace"), log


async def test_forced_cards_at_a_table_are_marked_and_never_verify(
        fair_tables: tuple[Tables, Path]) -> None:
    t, _ = fair_tables
    tid = "electronic-fair"
    a = await _player(t, "dev-operator")
    stub = t.tables[1]
    await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=2), metadata=a.md)
    start = (await _snapshot(stub, a.md, tid)).seq
    r = await stub.PlaceBets(tb.PlaceBetsRequest(request_id="b", table_id=tid, bets=[
        tb.Bet(seat=2, stake=500)], client_seed="x"), metadata=a.md)
    round_id = r.result.snapshot.round_id
    await stub.DealNow(tb.DealNowRequest(request_id="d", table_id=tid, forced_cards=[
        "TS", "6S", "TD", "9C", "6C"]), metadata=a.md)  # 20; the dealer's 6 9 draws 6: 21
    seen = await _events_until(stub, a.md, tid, "round_finished", from_seq=start)
    assert seen[-1].round_finished.fair.verifiable is False
    recall = await _recall(stub, tid, round_id)
    assert recall is not None and not recall.fair.verifiable
    verdict, = verify_document(json.loads(_json(recall)))
    assert not verdict.fair and "no provably fair seeds" in " ".join(verdict.lines)
    assert _results(seen[-1]) == {shown_as(tid, "dev-operator", a.pid): (500, 0)}
    await _until(lambda: _balances(t, a), (START - 500,))


async def _clock_holder(t: Tables, tid: str) -> int:
    conn = await asyncpg.connect(t.rgs_db)
    try:
        holder = await conn.fetchval(
            "SELECT holder FROM rgs.leases WHERE kind = 'table' AND key = $1 "
            "AND expires_at > clock_timestamp()", tid)
    finally:
        await conn.close()
    pid = int(str(holder).split("/")[1])
    return next(i for i, r in enumerate(t.stack.replicas) if r.proc.pid == pid)


async def test_a_round_continued_after_the_clock_holder_is_killed_still_verifies(
        fair_tables: tuple[Tables, Path], tmp_path: Path) -> None:
    """Last in this module: it SIGKILLs a replica. The round is in play when its clock's
    holder dies; another replica takes the clock over, rebuilds the round from the journal and
    the stored seeds, times the decisions out and deals the dealer's cards from the same order."""
    t, _ = fair_tables
    tid = "vip-fair-kill"
    a, b = await _player(t, "dev-operator"), await _player(t, "dev-operator")
    players: list[Player] = [a, b]
    killed = False
    spent = dict.fromkeys((a.pid, b.pid), 0)
    paid = dict.fromkeys((a.pid, b.pid), 0)
    for attempt in range(6):  # until a round is dealt into play (not ended at the deal)
        live = next(i for i, r in enumerate(t.stack.replicas) if r.proc.poll() is None)
        stub = t.tables[live]
        if attempt == 0:
            for seat, p in ((1, a), (3, b)):
                await stub.TakeSeat(tb.TakeSeatRequest(request_id="s", table_id=tid, seat=seat),
                                    metadata=p.md)
        start = (await _snapshot(stub, a.md, tid)).seq
        r = await stub.PlaceBets(tb.PlaceBetsRequest(request_id=f"b{attempt}", table_id=tid,
                                                     bets=[tb.Bet(seat=1, stake=1000)],
                                                     client_seed="a"), metadata=a.md)
        await stub.PlaceBets(tb.PlaceBetsRequest(request_id=f"b{attempt}", table_id=tid,
                                                 bets=[tb.Bet(seat=3, stake=1000)]),
                             metadata=b.md)
        round_id = r.result.snapshot.round_id
        for p in players:
            await stub.DealNow(tb.DealNowRequest(request_id=f"d{attempt}", table_id=tid),
                               metadata=p.md)
        during = await _after_betting(stub, a.md, tid, round_id)
        if not killed and during.get("round_id") == round_id \
                and during["phase"] in ("TABLE_PHASE_INSURANCE", "TABLE_PHASE_PLAYING"):
            holder = await _clock_holder(t, tid)
            t.stack.replicas[holder].proc.kill()  # SIGKILL while the seats decide
            killed = True
            if holder == live:
                # not poll(): a process just sent SIGKILL is not reaped yet and looks alive
                live = next(i for i, r in enumerate(t.stack.replicas)
                            if i != holder and r.proc.poll() is None)
                stub = t.tables[live]
        seen = await _events_until(stub, a.md, tid, "round_finished", from_seq=start,
                                   timeout=40)
        names = {shown_as(tid, "dev-operator", p.pid): p.pid for p in players}
        for x in seen[-1].round_finished.results:
            spent[names[x.player.display_name]] += x.staked
            paid[names[x.player.display_name]] += x.paid
        recall = await _recall(stub, tid, round_id)
        assert recall is not None and recall.status == "settled" and recall.fair.verifiable
        verdict, = verify_document(json.loads(_json(recall)))
        assert verdict.fair, verdict.lines
        if killed:
            _check_recall_verifies(recall, tmp_path)
            break
    assert killed, "no round was dealt into play in six tries"
    await _until(lambda: _balances(t, a, b),
                 (START - spent[a.pid] + paid[a.pid], START - spent[b.pid] + paid[b.pid]))
