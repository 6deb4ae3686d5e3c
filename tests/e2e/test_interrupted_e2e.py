"""Interrupted rounds against real processes (issue 23): a round its player abandons is
completed by the RGS after its operator's time (dev-operator: 60 minutes, completed by the
sweeper), or left to the operator (other-operator), who lists its open rounds and resolves one
by hand, complete or void; every wallet to the cent.

Time is not waited for: a round's last step is moved back in the journal, which is what an
hour passing is to the sweeper.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from datetime import UTC, timedelta

import asyncpg
import grpc
import pytest
from e2e_clients import Clients
from test_operators_e2e import OTHER_OPERATOR, OTHER_WALLET_AUTH, STAND_WINS, _state
from test_play_e2e import OPERATOR, WALLET_AUTH, error_info

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

pytestmark = pytest.mark.asyncio(loop_scope="session")

_ids = itertools.count()
STAKE = 1000


async def _abandoned_round(c: Clients, control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub,
                           wallet_auth: object, key: object, brand: str) -> tuple[str, str]:
    """A new player of ``brand`` deals T-9 against the dealer's 6 and goes away; (player id,
    round id)."""
    pid = f"gone-{next(_ids)}-{int(time.time())}"
    await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
        player_id=pid, currency="EUR", balance=10_000)), metadata=wallet_auth)
    s = await c.operators[0].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id=brand, player_id=pid), metadata=key)
    dealt = (await c.games[0].Deal(bj.DealRequest(
        request_id="d1", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=STAKE)],
        forced_cards=STAND_WINS), metadata=(("authorization", f"Bearer {s.session_token}"),)
    )).round
    assert dealt.status == bj.ROUND_STATUS_PLAYER_TURN
    return pid, dealt.round_id


async def _age(c: Clients, round_id: str, by: timedelta) -> None:
    conn = await asyncpg.connect(c.rgs_db)
    try:
        await conn.execute("UPDATE rgs.rounds SET updated_at = updated_at - $2::interval "
                           "WHERE round_id = $1", round_id, by)
    finally:
        await conn.close()


async def _open(c: Clients, key: object, brand: str = "", idle_s: int = 0
                ) -> dict[str, op.OpenRound]:
    listed = await c.operators[1].ListOpenRounds(op.ListOpenRoundsRequest(
        brand_id=brand, idle_seconds=idle_s, page_size=100), metadata=key)
    return {r.round.round_id: r for r in listed.rounds}


async def test_an_abandoned_round_is_completed_after_its_operators_time_another_left_to_it(
        e2e: Clients) -> None:
    dev_pid, dev_round = await _abandoned_round(e2e, e2e.control, WALLET_AUTH, OPERATOR,
                                                "demo-casino")
    other_pid, other_round = await _abandoned_round(e2e, e2e.other_control, OTHER_WALLET_AUTH,
                                                    OTHER_OPERATOR, "other-casino")
    # Both listed by their own operators only, just dealt: dev-operator's to be completed an
    # hour after its last step, other-operator's left to it.
    dev_open, other_open = await _open(e2e, OPERATOR), await _open(e2e, OTHER_OPERATOR)
    assert dev_round in dev_open and other_round not in dev_open
    assert other_round in other_open and dev_round not in other_open
    listed = dev_open[dev_round]
    assert listed.round.player_id == dev_pid and listed.round.total_staked == STAKE
    assert listed.idle_seconds < 60
    assert (listed.completes_at.ToDatetime(tzinfo=UTC) - listed.last_step_at.ToDatetime(
        tzinfo=UTC)) == timedelta(minutes=60)
    assert not other_open[other_round].HasField("completes_at")
    assert dev_round not in await _open(e2e, OPERATOR, idle_s=3600)

    # An hour and a minute pass for both.
    for r in (dev_round, other_round):
        await _age(e2e, r, timedelta(minutes=61))
    assert dev_round in await _open(e2e, OPERATOR, idle_s=3600)
    deadline = time.monotonic() + 40  # the replicas sweep every 10 s
    while dev_round in await _open(e2e, OPERATOR) and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    got = await e2e.operators[0].GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=dev_pid, round_id=dev_round), metadata=OPERATOR)
    assert got.round.status == "settled"
    # Stood on 19: the dealer's 6-7 draws the 9 and busts; the win is paid.
    assert (got.round.total_staked, got.round.total_paid) == (STAKE, 2 * STAKE)
    balance, txns = await _state(e2e.control, WALLET_AUTH, dev_pid)
    assert balance == 10_000 + STAKE
    assert _moves(txns) == [("credit", 2 * STAKE), ("debit", STAKE)]
    # The audit trail says who completed it and why; the other operator does not see the row.
    row = await _audit_row(e2e, OPERATOR, dev_round)
    assert row is not None and (row.actor, row.action) == ("system", "round.resolved")
    assert "60 minutes after its last step" in row.reason
    assert (row.details["by"], row.details["total_paid"]) == ("policy", str(2 * STAKE))
    assert await _audit_row(e2e, OTHER_OPERATOR, dev_round) is None
    # The same pass looked at other-operator's round and left it: still open, its stake held.
    assert other_round in await _open(e2e, OTHER_OPERATOR, idle_s=3600)
    assert (await _state(e2e.other_control, OTHER_WALLET_AUTH, other_pid))[0] == 10_000 - STAKE


async def test_the_operator_resolves_an_open_round_by_hand_complete_or_void(
        e2e: Clients) -> None:
    pid, rid = await _abandoned_round(e2e, e2e.other_control, OTHER_WALLET_AUTH,
                                      OTHER_OPERATOR, "other-casino")
    req = op.ResolveRoundRequest(request_id="r1", brand_id="other-casino", player_id=pid,
                                 round_id=rid, resolution=op.RESOLUTION_COMPLETE,
                                 reason="player disconnected; completed per policy")
    # Another operator cannot name it; a bad request is refused with its reason.
    for bad, key, reason in (
            (req, OPERATOR, "BRAND_NOT_FOUND"),
            (op.ResolveRoundRequest(**{**_fields(req), "resolution": 0}), OTHER_OPERATOR,
             "INVALID_RESOLUTION"),
            (op.ResolveRoundRequest(**{**_fields(req), "reason": ""}), OTHER_OPERATOR,
             "INVALID_REASON")):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await e2e.operators[0].ResolveRound(bad, metadata=key)
        assert error_info(err.value).reason == reason
    done = (await e2e.operators[0].ResolveRound(req, metadata=OTHER_OPERATOR)).round
    assert done.status == "settled" and (done.total_staked, done.total_paid) == (STAKE,
                                                                                 2 * STAKE)
    again = (await e2e.operators[1].ResolveRound(req, metadata=OTHER_OPERATOR)).round
    assert (again.status, again.total_paid) == ("settled", 2 * STAKE)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.operators[0].ResolveRound(op.ResolveRoundRequest(
            **{**_fields(req), "request_id": "r2"}), metadata=OTHER_OPERATOR)
    assert error_info(err.value).reason == "ROUND_FINISHED"
    balance, txns = await _state(e2e.other_control, OTHER_WALLET_AUTH, pid)
    assert balance == 10_000 + STAKE
    assert _moves(txns) == [("credit", 2 * STAKE), ("debit", STAKE)]
    assert rid not in await _open(e2e, OTHER_OPERATOR)
    row = await _audit_row(e2e, OTHER_OPERATOR, rid)
    assert row is not None and row.actor == "operator:other-operator"
    assert row.reason == "player disconnected; completed per policy"

    # VOID: every stake back, nothing paid.
    pid2, rid2 = await _abandoned_round(e2e, e2e.other_control, OTHER_WALLET_AUTH,
                                        OTHER_OPERATOR, "other-casino")
    voided = (await e2e.operators[1].ResolveRound(op.ResolveRoundRequest(
        request_id="v1", brand_id="other-casino", player_id=pid2, round_id=rid2,
        resolution=op.RESOLUTION_VOID, reason="dispute: the player's connection failed"),
        metadata=OTHER_OPERATOR)).round
    # A void's total_paid is what went back: the stake, by rollback (no credit).
    assert (voided.status, voided.total_paid) == ("voided", STAKE)
    balance, txns = await _state(e2e.other_control, OTHER_WALLET_AUTH, pid2)
    assert balance == 10_000
    assert _moves(txns) == [("debit", STAKE), ("rollback", STAKE)]


async def _audit_row(c: Clients, key: object, round_id: str) -> op.AuditRecord | None:
    """The newest audit row about a round that the operator of ``key`` lists."""
    rows = await c.operators[0].ListAuditRecords(op.ListAuditRecordsRequest(page_size=100),
                                                 metadata=key)
    return next((r for r in rows.records if r.subject == f"round:{round_id}"), None)


def _fields(m: op.ResolveRoundRequest) -> dict[str, object]:
    return {f.name: v for f, v in m.ListFields()}


def _moves(txns: list[sandbox_pb2.Transaction]) -> list[tuple[str, int]]:
    """(kind, amount) of the wallet's transactions, sorted."""
    return sorted((sandbox_pb2.TransactionKind.Name(t.kind).removeprefix(
        "TRANSACTION_KIND_").lower(), t.amount) for t in txns)
