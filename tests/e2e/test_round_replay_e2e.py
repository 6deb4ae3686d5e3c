"""Round replay links across replicas and at a shared table, against real processes (two RGS
replicas, each with its browser edge, both operators' sandbox wallets, PostgreSQL):

- a link one replica issued opens on the other replica's edge (the secret is shared; nothing is
  stored), and the other replica refuses it altered;
- a table round's replay shows the calling operator's player with their id and money (to the
  cent of the wallet) and the other operator's player by display name only: no other
  operator's player id, operator id or brand anywhere in the answer; each operator's link opens
  its own player's side of the round.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import pytest_asyncio
from e2e_servers import free_port, start_stack
from test_table_seats_e2e import _until_balance
from test_tables_e2e import DEV, OTHER, START, Player, Tables, _player, _table

from rgs.bootstrap import add_dev_operator_keys
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc
from rgs.journal.postgres import PostgresJournal
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2_grpc
from support.databases import RGS_TEMPLATE, SANDBOX_WALLET_TEMPLATE, DatabaseTemplates
from support.tables import events_until

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: Seats 2 and 5 each get two tens (20), the dealer 7S KD (17): both seats win.
BOTH_WIN = ["TS", "TH", "7S", "TD", "TC", "KD"]
TABLE = "vip-replay"


class Replay(Tables):
    """The stack and each replica's browser edge address."""

    web: list[str]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def replay(database_templates: DatabaseTemplates, tmp_path_factory: Any
                 ) -> AsyncIterator[Replay]:
    rgs_name, rgs_db = await database_templates.fresh(RGS_TEMPLATE)
    dev_name, dev_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    other_name, other_db = await database_templates.fresh(SANDBOX_WALLET_TEMPLATE)
    journal = await PostgresJournal.connect(rgs_db, min_size=1, max_size=1)
    await add_dev_operator_keys(journal)
    await journal.close()
    ports = [free_port(), free_port()]
    stack = await start_stack(
        rgs_db=rgs_db, wallet_dbs={"dev-operator": dev_db, "other-operator": other_db},
        replicas=2, logs=Path(tmp_path_factory.mktemp("replay")),
        env={"RGS_RECONCILE_MIN_AGE_S": "1", "RGS_RECONCILE_INTERVAL_S": "1"},
        tables=[_table(TABLE, betting_s=30.0, decision_s=1.0)],
        each_env=[{"RGS_WEB_LISTEN": f"127.0.0.1:{p}"} for p in ports])
    channels = [grpc.aio.insecure_channel(p.target) for p in stack.replicas]
    wallet_channels = {k: grpc.aio.insecure_channel(w.target) for k, w in stack.wallets.items()}
    try:
        t = Replay(stack=stack, tables=[table_pb2_grpc.TableServiceStub(c) for c in channels],
                   operators=[operator_pb2_grpc.OperatorServiceStub(c) for c in channels],
                   controls={k: sandbox_pb2_grpc.SandboxControlServiceStub(c)
                             for k, c in wallet_channels.items()},
                   rgs_db=rgs_db, channels=channels)
        t.web = [f"http://127.0.0.1:{p}" for p in ports]
        yield t
    finally:
        for c in (*channels, *wallet_channels.values()):
            await c.close()
        stack.stop()
        for name in (rgs_name, dev_name, other_name):
            database_templates.discard(name)


async def _read(base: str, url: str) -> tuple[int, dict[str, Any]]:
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        resp = await client.post("/replay/round", json={"token": url.split("#", 1)[1]})
    answer: dict[str, Any] = resp.json()
    return resp.status_code, answer


async def _link(t: Replay, replica: int, md: Any, brand: str, pid: str, round_id: str) -> str:
    resp = await t.operators[replica].CreateRoundReplay(op.CreateRoundReplayRequest(
        brand_id=brand, player_id=pid, round_id=round_id), metadata=md)
    return str(resp.url)


async def test_a_link_from_one_replica_opens_on_the_other(replay: Replay) -> None:
    a = await _player(replay, "dev-operator")
    game = blackjack_pb2_grpc.BlackjackServiceStub(replay.channels[0])
    dealt = (await game.Deal(bj.DealRequest(
        request_id="solo", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=1000)],
        forced_cards=["TS", "7S", "9H", "TD"]), metadata=a.md)).round
    await game.Act(bj.ActRequest(request_id="stand", round_id=dealt.round_id,
                                 expected_seq=dealt.seq, seat=1, action=bj.ACTION_STAND),
                   metadata=a.md)
    url = await _link(replay, 0, DEV, "demo-casino", a.pid, dealt.round_id)
    assert url.startswith(f"{replay.web[0]}/replay#")
    recall = (await replay.operators[1].GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=a.pid, round_id=dealt.round_id), metadata=DEV)).round
    for base in replay.web:
        status, answer = await _read(base, url)
        assert status == 200, (base, answer)
        assert answer["round"]["roundId"] == dealt.round_id
        assert (int(answer["round"]["totalStaked"]), int(answer["round"]["totalPaid"])) == (
            recall.total_staked, recall.total_paid) == (1000, 2000)
    assert await a.balance(replay) == START + 1000
    status, answer = await _read(replay.web[1], url[:-1] + ("A" if url[-1] != "A" else "B"))
    assert (status, answer["reason"]) == (403, "REPLAY_LINK_INVALID")


async def _seat_and_bet(t: Replay, p: Player, seat: int, n: str) -> int:
    await t.tables[0].TakeSeat(tb.TakeSeatRequest(request_id=f"seat-{n}", table_id=TABLE,
                                                  seat=seat), metadata=p.md)
    placed = await t.tables[1].PlaceBets(tb.PlaceBetsRequest(
        request_id=f"bet-{n}", table_id=TABLE, bets=[tb.Bet(seat=seat, stake=1000)]),
        metadata=p.md)
    return int(placed.result.seq)


async def test_a_table_rounds_replay_shows_the_other_operators_player_by_name_only(
        replay: Replay) -> None:
    a, c = await _player(replay, "dev-operator"), await _player(replay, "other-operator")
    start = await _seat_and_bet(replay, a, 2, "a")
    await _seat_and_bet(replay, c, 5, "c")
    await replay.tables[1].DealNow(tb.DealNowRequest(request_id="dn-c", table_id=TABLE),
                                   metadata=c.md)
    await replay.tables[0].DealNow(tb.DealNowRequest(request_id="dn", table_id=TABLE,
                                                     forced_cards=BOTH_WIN), metadata=a.md)
    seen = await events_until(replay.tables[1], a.md, TABLE, "round_finished", from_seq=start,
                              timeout=30.0)
    round_id = seen[-1].round_finished.round_id
    await _until_balance(replay, a, START + 1000)
    await _until_balance(replay, c, START + 1000)
    dev_url = await _link(replay, 1, DEV, "demo-casino", a.pid, round_id)
    status, answer = await _read(replay.web[0], dev_url)
    assert status == 200, answer
    rnd = answer["round"]
    assert rnd["tableId"] == TABLE and rnd["playerId"] == a.pid
    assert (int(rnd["totalStaked"]), int(rnd["totalPaid"])) == (1000, 2000)
    assert sorted((m["kind"], int(m["amount"])) for m in rnd["movements"]) == [
        ("credit", 2000), ("debit", 1000)]
    text = json.dumps(answer)
    assert c.pid not in text and "other-operator" not in text and "other-casino" not in text
    started = next(json.loads(s["detailJson"]) for s in rnd["steps"]
                   if s["kind"] == "round_started")
    who = dict(zip(started["seats"], started["players"], strict=True))
    assert who[2]["player_id"] == a.pid
    assert "player_id" not in who[5] and who[5]["display_name"].startswith("Player ")
    # The other operator's link to the same round: its own player's side, nothing of dev's.
    other_url = await _link(replay, 0, OTHER, "other-casino", c.pid, round_id)
    status, theirs = await _read(replay.web[1], other_url)
    assert status == 200 and theirs["round"]["playerId"] == c.pid
    assert a.pid not in json.dumps(theirs) and "demo-casino" not in json.dumps(theirs)
