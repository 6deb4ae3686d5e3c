"""Free bets against real processes: the operator grants through one replica, the player
stakes the free bet on the other, doubles with their own money and wins; the sandbox wallet's
ledger shows exactly the documented amounts (docs/freebets.md), to the cent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import grpc
import pytest
from e2e_clients import Clients
from google.protobuf.timestamp_pb2 import Timestamp
from test_play_e2e import OPERATOR, START, WALLET_AUTH, error_info, new_player, session

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")

CLASSIC = "classic-resplit"
#: 5-6 against 6-T: double on 11 draws a T (21); the dealer's 16 draws a 9 and busts.
DOUBLE_ON_11 = ("5S", "6H", "6D", "TC", "TS", "9H")


def _tomorrow() -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(datetime.now(UTC) + timedelta(days=1))
    return ts


async def test_a_free_bet_doubled_and_won_credits_thirty_of_forty(e2e: Clients) -> None:
    pid = await new_player(e2e)
    grant = op.GrantFreeBetsRequest(grant_id=f"welcome-{pid}", brand_id="demo-casino",
                                    player_id=pid, value=1000, count=2, variant_ids=[CLASSIC],
                                    expires_at=_tomorrow())
    granted = (await e2e.operators[0].GrantFreeBets(grant, metadata=OPERATOR)).grant
    again = (await e2e.operators[1].GrantFreeBets(grant, metadata=OPERATOR)).grant
    assert granted == again and (granted.currency, granted.left) == ("EUR", 2)
    md = await session(e2e, pid, replica=1)
    offered = (await e2e.games[0].ListVariants(bj.ListVariantsRequest(), metadata=md)).free_bets
    assert [(f.grant_id, f.value, f.left, list(f.variant_ids)) for f in offered] == [
        (grant.grant_id, 1000, 2, [CLASSIC])]
    with pytest.raises(grpc.aio.AioRpcError) as mismatch:
        await e2e.games[1].Deal(bj.DealRequest(
            request_id="d0", variant_id=CLASSIC, boxes=[bj.BoxBet(seat=1, stake=500)],
            forced_cards=DOUBLE_ON_11, free_bet_id=grant.grant_id), metadata=md)
    assert mismatch.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(mismatch.value).reason == "FREE_BET_VALUE_MISMATCH"
    dealt = (await e2e.games[1].Deal(bj.DealRequest(
        request_id="d1", variant_id=CLASSIC, boxes=[bj.BoxBet(seat=1, stake=1000)],
        forced_cards=DOUBLE_ON_11, free_bet_id=grant.grant_id), metadata=md)).round
    assert dealt.balance == START  # the free stake debits nothing
    done = (await e2e.games[0].Act(bj.ActRequest(
        request_id="a1", round_id=dealt.round_id, expected_seq=dealt.seq, seat=1, hand=0,
        action=bj.ACTION_DOUBLE), metadata=md)).round
    assert done.status == bj.ROUND_STATUS_SETTLED
    assert [(f.grant_id, f.left) for f in done.free_bets] == [(grant.grant_id, 1)]
    ledger = (await e2e.control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
        player_id=pid), metadata=WALLET_AUTH)).transactions
    moves = [(t.kind, t.amount, t.promotional) for t in ledger if t.round_id == dealt.round_id]
    # The double's 10.00 is the player's; the 20.00 hand wins 40.00, less the free 10.00; the
    # credit is marked promotional.
    assert moves == [(sandbox_pb2.TRANSACTION_KIND_DEBIT, 1000, False),
                     (sandbox_pb2.TRANSACTION_KIND_CREDIT, 3000, True)]
    player = (await e2e.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                          metadata=WALLET_AUTH)).player
    assert player.balance == START + 2000
    report = (await e2e.operators[1].ListFreeBetGrants(op.ListFreeBetGrantsRequest(
        player_id=pid), metadata=OPERATOR)).grants
    assert [(g.grant_id, g.count, g.used, g.left, g.paid, g.status) for g in report] == [
        (grant.grant_id, 2, 1, 1, 3000, "active")]
    with pytest.raises(grpc.aio.AioRpcError) as used:
        await e2e.operators[0].RevokeFreeBets(op.RevokeFreeBetsRequest(
            grant_id=grant.grant_id), metadata=OPERATOR)
    assert error_info(used.value).reason == "FREE_BET_USED"
    recalled = (await e2e.operators[1].GetPlayerRound(op.GetPlayerRoundRequest(
        brand_id="demo-casino", player_id=pid, round_id=dealt.round_id),
        metadata=OPERATOR)).round
    assert (recalled.free_bet.grant_id, recalled.free_bet.value, recalled.free_bet.seat) == (
        grant.grant_id, 1000, 1)


async def test_an_unused_grant_is_revoked_and_then_refused_at_deal(e2e: Clients) -> None:
    pid = await new_player(e2e)
    grant = op.GrantFreeBetsRequest(grant_id=f"oops-{pid}", brand_id="demo-casino",
                                    player_id=pid, value=1000, count=1, expires_at=_tomorrow())
    await e2e.operators[0].GrantFreeBets(grant, metadata=OPERATOR)
    revoked = (await e2e.operators[1].RevokeFreeBets(op.RevokeFreeBetsRequest(
        grant_id=grant.grant_id, reason="wrong player"), metadata=OPERATOR)).grant
    assert (revoked.status, revoked.left) == ("revoked", 0)
    md = await session(e2e, pid)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await e2e.games[0].Deal(bj.DealRequest(
            request_id="d1", variant_id=CLASSIC, boxes=[bj.BoxBet(seat=1, stake=1000)],
            forced_cards=DOUBLE_ON_11, free_bet_id=grant.grant_id), metadata=md)
    assert error_info(refused.value).reason == "FREE_BET_REVOKED"
    player = (await e2e.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                          metadata=WALLET_AUTH)).player
    assert player.balance == START


async def test_a_free_bet_win_retried_after_a_wallet_failure_is_still_promotional(
        e2e: Clients) -> None:
    pid = await new_player(e2e)
    grant = op.GrantFreeBetsRequest(grant_id=f"retry-{pid}", brand_id="demo-casino",
                                    player_id=pid, value=1000, count=1, expires_at=_tomorrow())
    await e2e.operators[0].GrantFreeBets(grant, metadata=OPERATOR)
    md = await session(e2e, pid)
    await e2e.control.SetFault(sandbox_pb2.SetFaultRequest(fault=sandbox_pb2.Fault(
        kind=sandbox_pb2.FAULT_KIND_ERROR, method=sandbox_pb2.WALLET_METHOD_CREDIT,
        player_id=pid, error_reason="WALLET_UNAVAILABLE", remaining=1)), metadata=WALLET_AUTH)
    # T-9 against 6-7, the dealer draws 9: standing wins 20.00, of which 10.00 is credited.
    dealt = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d1", variant_id=CLASSIC, boxes=[bj.BoxBet(seat=1, stake=1000)],
        forced_cards=("TS", "6H", "9D", "7C", "9S"), free_bet_id=grant.grant_id),
        metadata=md)).round
    won = (await e2e.games[0].Act(bj.ActRequest(
        request_id="a1", round_id=dealt.round_id, expected_seq=dealt.seq, seat=1, hand=0,
        action=bj.ACTION_STAND), metadata=md)).round
    assert won.payment_pending  # the credit stays in the outbox, read back from the journal
    settled = (await e2e.games[1].Settle(bj.SettleRequest(
        request_id="s1", round_id=dealt.round_id), metadata=md)).round
    assert not settled.payment_pending
    ledger = (await e2e.control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
        player_id=pid), metadata=WALLET_AUTH)).transactions
    assert [(t.kind, t.amount, t.promotional) for t in ledger] == [
        (sandbox_pb2.TRANSACTION_KIND_CREDIT, 1000, True)]
    player = (await e2e.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                          metadata=WALLET_AUTH)).player
    assert player.balance == START + 1000
