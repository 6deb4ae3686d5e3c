"""Jurisdiction profiles against the sandbox's real processes (issue 23): demo-casino-uk plays
under ukgc. A Deal 1 s after the last round's start is refused ROUND_TOO_SOON with the wait left
(by either replica: no client gets round it by calling another), one after 5 s is dealt; every
view carries the session's start, elapsed time, stakes, pay and net position, exact to the
wallet; a reality check blocks the next round until acknowledged; the wallet's word on the
player keeps its own reason and takes nothing. demo-casino (none) deals again at once and
shows no position, as before."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from e2e_clients import Clients
from test_play_e2e import OPERATOR, WALLET_AUTH, error_info, new_player, wallet_balance

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")

UK = "demo-casino-uk"
STAND_WINS = ["TS", "6H", "9D", "7C", "9S"]  # 19 v 6+7, the dealer draws 9 and busts: pays 2x
Md = tuple[tuple[str, str], ...]


async def _session(c: Clients, pid: str, brand: str = UK, reality_check_s: int = 0,
                   replica: int = 0) -> Md:
    resp = await c.operators[replica].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}-{brand}", brand_id=brand, player_id=pid,
        reality_check_interval_s=reality_check_s), metadata=OPERATOR)
    return (("authorization", f"Bearer {resp.session_token}"),)


def _deal(rid: str, stake: int = 1_000) -> bj.DealRequest:
    return bj.DealRequest(request_id=rid, variant_id="classic-resplit",
                          boxes=[bj.BoxBet(seat=1, stake=stake)], forced_cards=STAND_WINS)


async def _won_round(c: Clients, md: Md, rid: str, replica: int = 0) -> list[bj.RoundView]:
    """Deal STAND_WINS and stand: the views of the Deal, the Act and a GetRound."""
    game = c.games[replica]
    dealt = (await game.Deal(_deal(rid), metadata=md)).round
    done = (await game.Act(bj.ActRequest(
        request_id=f"a-{rid}", round_id=dealt.round_id, expected_seq=dealt.seq, seat=1,
        hand=0, action=bj.ACTION_STAND), metadata=md)).round
    read = (await game.GetRound(bj.GetRoundRequest(round_id=dealt.round_id),
                                metadata=md)).round
    return [dealt, done, read]


async def _refused(call: object) -> bj.RoundView | grpc.aio.AioRpcError:
    try:
        return (await call).round  # type: ignore[misc, attr-defined, no-any-return]
    except grpc.aio.AioRpcError as err:
        return err


async def test_a_deal_1_s_after_the_last_start_is_refused_and_one_after_5_s_is_dealt(
        e2e: Clients) -> None:
    pid = await new_player(e2e, currency="GBP")
    md = await _session(e2e, pid)
    started = time.monotonic()
    await _won_round(e2e, md, f"r1-{pid}")
    await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
    for replica in (0, 1):  # neither replica deals it
        err = await _refused(e2e.games[replica].Deal(_deal(f"r2-{pid}"), metadata=md))
        assert isinstance(err, grpc.aio.AioRpcError)
        info = error_info(err)
        assert (err.code(), info.reason) == (grpc.StatusCode.FAILED_PRECONDITION,
                                             "ROUND_TOO_SOON")
        assert 3_000 < int(info.metadata["wait_ms"]) <= 5_000  # from the commit of the start
    assert await wallet_balance(e2e, pid) == 101_000  # nothing taken for the refusals
    await asyncio.sleep(max(0.0, 5.5 - (time.monotonic() - started)))
    second = await _refused(e2e.games[1].Deal(_deal(f"r2-{pid}"), metadata=md))
    assert isinstance(second, bj.RoundView) and second.status == bj.ROUND_STATUS_PLAYER_TURN
    assert await wallet_balance(e2e, pid) == 100_000


async def test_every_view_carries_the_sessions_time_and_net_position(e2e: Clients) -> None:
    pid = await new_player(e2e, currency="GBP")
    md = await _session(e2e, pid)
    dealt, done, read = await _won_round(e2e, md, f"p1-{pid}")
    for view, paid in ((dealt, 0), (done, 2_000), (read, 2_000)):
        assert view.HasField("session")
        assert (view.session.total_staked, view.session.total_paid,
                view.session.net_position) == (1_000, paid, paid - 1_000)
        assert view.session.started_at.seconds > 0 and 0 <= view.session.elapsed_s < 60
    assert done.result == bj.RESULT_CLASS_WIN and dealt.result == bj.RESULT_CLASS_UNSPECIFIED
    assert await wallet_balance(e2e, pid) == 100_000 + done.session.net_position


async def test_a_reality_check_blocks_the_next_round_until_acknowledged(e2e: Clients) -> None:
    pid = await new_player(e2e, currency="GBP")
    md = await _session(e2e, pid, reality_check_s=3)
    started = time.monotonic()
    dealt = (await e2e.games[0].Deal(_deal(f"c1-{pid}"), metadata=md)).round
    await asyncio.sleep(max(0.0, 5.5 - (time.monotonic() - started)))
    done = (await e2e.games[0].Act(bj.ActRequest(  # the round in play finishes
        request_id=f"a-c1-{pid}", round_id=dealt.round_id, expected_seq=dealt.seq, seat=1,
        hand=0, action=bj.ACTION_STAND), metadata=md)).round
    assert done.status == bj.ROUND_STATUS_SETTLED
    err = await _refused(e2e.games[1].Deal(_deal(f"c2-{pid}"), metadata=md))
    assert isinstance(err, grpc.aio.AioRpcError)
    assert error_info(err).reason == "REALITY_CHECK_DUE"
    assert int(error_info(err).metadata["elapsed_s"]) >= 5
    ack = await e2e.games[1].AcknowledgeRealityCheck(bj.AcknowledgeRealityCheckRequest(),
                                                     metadata=md)
    assert (ack.session.total_staked, ack.session.total_paid) == (1_000, 2_000)
    again = await _refused(e2e.games[0].Deal(_deal(f"c2-{pid}"), metadata=md))
    assert isinstance(again, bj.RoundView) and again.status == bj.ROUND_STATUS_PLAYER_TURN


async def test_a_self_excluded_player_is_refused_player_excluded_and_nothing_is_taken(
        e2e: Clients) -> None:
    pid = await new_player(e2e, currency="GBP")
    md = await _session(e2e, pid)
    await e2e.control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
        kind=sandbox_pb2.FAULT_KIND_ERROR, method=sandbox_pb2.WALLET_METHOD_DEBIT,
        player_id=pid, error_reason="PLAYER_EXCLUDED")), metadata=WALLET_AUTH)
    err = await _refused(e2e.games[0].Deal(_deal(f"x1-{pid}"), metadata=md))
    assert isinstance(err, grpc.aio.AioRpcError)
    info = error_info(err)
    assert (err.code(), info.reason, info.metadata["wallet_reason"]) == (
        grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_EXCLUDED", "PLAYER_EXCLUDED")
    assert await wallet_balance(e2e, pid) == 100_000
    missing = await _refused(e2e.games[0].GetRound(bj.GetRoundRequest(), metadata=md))
    assert isinstance(missing, grpc.aio.AioRpcError)
    assert missing.code() == grpc.StatusCode.NOT_FOUND


async def test_a_brand_under_none_deals_again_at_once_and_shows_no_position(
        e2e: Clients) -> None:
    pid = await new_player(e2e)
    md = await _session(e2e, pid, brand="demo-casino")
    first = await _won_round(e2e, md, f"n1-{pid}")
    second = await _won_round(e2e, md, f"n2-{pid}")
    assert not any(v.HasField("session") for v in (*first, *second))
    assert await wallet_balance(e2e, pid) == 102_000
