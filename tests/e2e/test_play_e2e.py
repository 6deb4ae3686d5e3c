"""Scripted rounds of every variant over gRPC against real server processes: the round view,
the journal (through game recall) and the wallet balance, to the cent."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from e2e_clients import Clients
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)
WALLET_AUTH = (("authorization", "Bearer sandbox-wallet-dev-key"),)
START = 100_000
_ids = itertools.count()


def error_info(err: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo a refusal carries (fails the test when there is none)."""
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for d in status.details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    return info
    raise AssertionError(f"no ErrorInfo on {err.code()} {err.details()}")


async def new_player(c: Clients, balance: int = START, currency: str = "EUR") -> str:
    pid = f"e2e-{next(_ids)}"
    await c.control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
        player_id=pid, currency=currency, balance=balance)), metadata=WALLET_AUTH)
    return pid


async def wallet_balance(c: Clients, pid: str) -> int:
    resp = await c.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                     metadata=WALLET_AUTH)
    return int(resp.player.balance)


async def session(c: Clients, pid: str, replica: int = 0) -> tuple[tuple[str, str], ...]:
    resp = await c.operators[replica].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid), metadata=OPERATOR)
    return (("authorization", f"Bearer {resp.session_token}"),)


@dataclass(frozen=True)
class Scenario:
    """A scripted round: forced cards, bets, decisions and the exact money."""

    variant: str
    cards: tuple[str, ...]
    boxes: tuple[bj.BoxBet, ...]
    actions: tuple[tuple[int, int, bj.Action.ValueType], ...]
    staked: int
    paid: int
    outcomes: tuple[bj.Outcome.ValueType, ...]
    side_lines: tuple[str, ...] = field(default=())
    #: The Cash Out offer is part of the payout: read from the view (the table is the math
    #: module's, regenerated as it improves), then checked everywhere else to the cent.
    plus_cash_out_offer: bool = False


SCENARIOS = [
    Scenario("vegas-20-plus", ("KS", "6H", "QD", "9C", "7S"),
             (bj.BoxBet(seat=1, stake=1000, twenty_plus=100),),
             ((1, 0, bj.ACTION_STAND),), staked=1100, paid=2400,
             outcomes=(bj.OUTCOME_WIN,), side_lines=("player_wins",)),
    Scenario("classic-resplit", ("8S", "5H", "8D", "TC", "TH", "9H", "KS"),
             (bj.BoxBet(seat=1, stake=1000),),
             ((1, 0, bj.ACTION_SPLIT), (1, 0, bj.ACTION_STAND), (1, 1, bj.ACTION_STAND)),
             staked=2000, paid=4000, outcomes=(bj.OUTCOME_WIN, bj.OUTCOME_WIN)),
    Scenario("electronic-h17", ("TS", "TH", "6D", "7C"), (bj.BoxBet(seat=1, stake=1000),),
             ((1, 0, bj.ACTION_SURRENDER),), staked=1000, paid=500,
             outcomes=(bj.OUTCOME_SURRENDER,)),
    Scenario("electronic-h17", ("TS", "9H", "AD", "TD", "9C", "7C"),
             (bj.BoxBet(seat=1, stake=1000), bj.BoxBet(seat=2, stake=500)),
             ((1, 0, bj.ACTION_INSURE), (2, 0, bj.ACTION_DECLINE_INSURANCE),
              (1, 0, bj.ACTION_STAND), (2, 0, bj.ACTION_STAND)),
             staked=2000, paid=2500, outcomes=(bj.OUTCOME_WIN, bj.OUTCOME_PUSH)),
    Scenario("power", ("5S", "9C", "6H", "TD", "8S"), (bj.BoxBet(seat=1, stake=1000),),
             ((1, 0, bj.ACTION_POWER_DOUBLE), (1, 0, bj.ACTION_POWER_KEEP)),
             staked=2000, paid=4000, outcomes=(bj.OUTCOME_WIN,)),
    Scenario("vip-platinum", ("7H", "7S", "7D", "9C"),
             (bj.BoxBet(seat=1, stake=1000, perfect_pairs=100, twenty_one_plus_three=100),),
             ((1, 0, bj.ACTION_CASH_OUT),), staked=1200, paid=1300 + 3100,
             outcomes=(bj.OUTCOME_CASHED_OUT,), side_lines=("coloured_pair", "three_of_a_kind"),
             plus_cash_out_offer=True),
]


async def _recorded(e2e: Clients, pid: str, round_id: str) -> Any:
    """The operator's record of a settled round once the win's wallet answer is written: the
    replica that paid it writes it within a moment (rgs.journal.late_answers), meanwhile the
    row reads pending."""
    for _ in range(50):
        rec = (await e2e.operators[1].GetPlayerRound(op.GetPlayerRoundRequest(
            brand_id="demo-casino", player_id=pid, round_id=round_id),
            metadata=OPERATOR)).round
        if "pending" not in {m.status for m in rec.movements}:
            return rec
        await asyncio.sleep(0.05)
    return rec


@pytest.mark.parametrize("sc", SCENARIOS, ids=[f"{i}-{s.variant}" for i, s in
                                                enumerate(SCENARIOS)])
async def test_scripted_round_settles_to_the_cent_in_view_journal_and_wallet(
        e2e: Clients, sc: Scenario) -> None:
    pid = await new_player(e2e)
    md = await session(e2e, pid)
    game = e2e.games[0]
    dealt = (await game.Deal(bj.DealRequest(request_id="d", variant_id=sc.variant,
                                            boxes=sc.boxes, forced_cards=sc.cards),
                             metadata=md)).round
    stake = sum(b.stake + b.twenty_plus + b.perfect_pairs + b.twenty_one_plus_three
                for b in sc.boxes)
    assert dealt.balance == START - stake and dealt.currency == "EUR"
    assert dealt.status in (bj.ROUND_STATUS_PLAYER_TURN, bj.ROUND_STATUS_INSURANCE)
    paid = sc.paid
    if sc.plus_cash_out_offer:
        offer = next(a.offer for a in dealt.boxes[0].hands[0].allowed
                     if a.action == bj.ACTION_CASH_OUT)
        assert 0 < offer < 1000
        paid += offer
    view = dealt
    for i, (seat, hand, action) in enumerate(sc.actions):
        view = (await game.Act(bj.ActRequest(request_id=f"a{i}", round_id=dealt.round_id,
                                             expected_seq=view.seq, seat=seat, hand=hand,
                                             action=action), metadata=md)).round
    assert view.status == bj.ROUND_STATUS_SETTLED and not view.payment_pending
    assert (view.total_staked, view.total_paid) == (sc.staked, paid)
    assert tuple(h.outcome for b in view.boxes for h in b.hands) == sc.outcomes
    assert tuple(s.line for b in view.boxes for s in b.side_bets) == sc.side_lines
    assert view.balance == START - sc.staked + paid
    assert await wallet_balance(e2e, pid) == START - sc.staked + paid
    rec = await _recorded(e2e, pid, dealt.round_id)
    assert rec.forced_cards and rec.status == "settled" and rec.finished_at.seconds > 0
    assert [s.card for s in rec.steps if s.kind == "card_dealt"] == list(sc.cards)
    assert [s.action for s in rec.steps if s.kind == "player_acted"] == [
        bj.Action.Name(a).removeprefix("ACTION_").lower() for _, _, a in sc.actions]
    debits = sum(m.amount for m in rec.movements if m.kind == "debit")
    credits = sum(m.amount for m in rec.movements if m.kind == "credit")
    assert (debits, credits) == (sc.staked, paid)
    assert {m.status for m in rec.movements} <= {"booked", "applied"}


async def test_calls_alternating_between_two_replicas_play_one_consistent_round(
        e2e: Clients) -> None:
    pid = await new_player(e2e)
    md = await session(e2e, pid, replica=1)
    view = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=500)],
        forced_cards=["5S", "6H", "4D", "TC"]), metadata=md)).round
    steps = 0
    while view.status != bj.ROUND_STATUS_SETTLED:
        game = e2e.games[(steps + 1) % 2]
        action = bj.ACTION_HIT if view.boxes[0].hands[0].total < 17 else bj.ACTION_STAND
        view = (await game.Act(bj.ActRequest(
            request_id=f"a{steps}", round_id=view.round_id, expected_seq=view.seq,
            seat=view.to_act.seat, hand=view.to_act.hand, action=action), metadata=md)).round
        again = (await e2e.games[steps % 2].GetRound(bj.GetRoundRequest(
            round_id=view.round_id), metadata=md)).round
        assert again.seq == view.seq and list(again.boxes[0].hands[0].cards) == list(
            view.boxes[0].hands[0].cards)
        steps += 1
    cards = list(view.boxes[0].hands[0].cards) + list(view.dealer_cards)
    assert len(cards) == len(set(cards)) or len(cards) <= 6 * 52
    assert await wallet_balance(e2e, pid) == START - view.total_staked + view.total_paid


async def test_stale_client_and_reused_request_id_are_refused_with_error_info(
        e2e: Clients) -> None:
    pid = await new_player(e2e)
    md = await session(e2e, pid)
    game = e2e.games[0]
    dealt = (await game.Deal(bj.DealRequest(request_id="d", variant_id="classic-resplit",
                                            boxes=[bj.BoxBet(seat=1, stake=100)],
                                            forced_cards=["TS", "6H", "9D", "7C", "9S"]),
                             metadata=md)).round
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.games[1].Act(bj.ActRequest(request_id="a", round_id=dealt.round_id,
                                             expected_seq=dealt.seq + 5, seat=1,
                                             action=bj.ACTION_STAND), metadata=md)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    info = error_info(err.value)
    assert (info.reason, info.domain) == ("STALE_SEQ", "rgs")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await game.Deal(bj.DealRequest(request_id="d", variant_id="classic-resplit",
                                       boxes=[bj.BoxBet(seat=1, stake=200)]), metadata=md)
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS
    same = (await e2e.games[1].Deal(bj.DealRequest(
        request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=100)],
        forced_cards=["TS", "6H", "9D", "7C", "9S"]), metadata=md)).round
    assert same == dealt
    assert await wallet_balance(e2e, pid) == START - 100


async def test_insufficient_funds_refuses_cleanly_and_changes_nothing(e2e: Clients) -> None:
    pid = await new_player(e2e, balance=50)
    md = await session(e2e, pid)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.games[0].Deal(bj.DealRequest(request_id="d", variant_id="classic-resplit",
                                               boxes=[bj.BoxBet(seat=1, stake=100)]),
                                metadata=md)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "INSUFFICIENT_FUNDS"
    assert await wallet_balance(e2e, pid) == 50
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.games[1].GetRound(bj.GetRoundRequest(), metadata=md)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    # Asked whether there is one to resume (the web table on start): no round, no error.
    asked = await e2e.games[1].GetRound(bj.GetRoundRequest(if_unfinished=True), metadata=md)
    assert not asked.HasField("round")
    # A round asked for by id is still NOT_FOUND with the flag (it names one that is not).
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.games[1].GetRound(bj.GetRoundRequest(round_id="r-missing",
                                                       if_unfinished=True), metadata=md)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


async def test_other_operators_cannot_see_a_players_rounds(e2e: Clients) -> None:
    pid = await new_player(e2e)
    md = await session(e2e, pid)
    dealt = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=100)]),
        metadata=md)).round
    other = (("authorization", "Bearer rgs-other-operator-key"),)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.operators[0].GetPlayerRound(op.GetPlayerRoundRequest(
            brand_id="demo-casino", player_id=pid, round_id=dealt.round_id), metadata=other)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    own = await e2e.operators[0].ListPlayerRounds(op.ListPlayerRoundsRequest(
        brand_id="demo-casino", player_id=pid), metadata=OPERATOR)
    assert [r.round_id for r in own.rounds] == [dealt.round_id]
    # The hole card of an unfinished round does not leak through recall.
    if dealt.status != bj.ROUND_STATUS_SETTLED and dealt.dealer_hole_hidden:
        dealt_cards = [s for s in own.rounds[0].steps if s.kind == "card_dealt"]
        assert len(dealt_cards) == 3


async def test_health_and_reflection_are_served(e2e: Clients) -> None:
    ch = e2e.channels[0]
    health = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(
        service="rgs.blackjack.v1.BlackjackService"))
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(ch)
    responses = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(
        list_services="")]))
    names = set()
    async for resp in responses:
        names = {s.name for s in resp.list_services_response.service}
        break
    assert {"rgs.blackjack.v1.BlackjackService", "rgs.operator.v1.OperatorService"} <= names


async def test_two_processes_receiving_the_same_deal_at_once_execute_it_once(
        e2e: Clients) -> None:
    pid = await new_player(e2e)
    md = await session(e2e, pid)
    req = bj.DealRequest(request_id="same", variant_id="electronic-h17",
                         boxes=[bj.BoxBet(seat=1, stake=700), bj.BoxBet(seat=2, stake=300)])
    first, second = await asyncio.gather(e2e.games[0].Deal(req, metadata=md),
                                         e2e.games[1].Deal(req, metadata=md))
    assert first.round == second.round
    txns = await e2e.control.ListTransactions(sandbox_pb2.ListTransactionsRequest(
        player_id=pid), metadata=WALLET_AUTH)
    debits = [t for t in txns.transactions if t.kind == sandbox_pb2.TRANSACTION_KIND_DEBIT]
    assert [(t.transaction_id, t.amount) for t in debits] == [
        (f"{first.round.round_id}:1:debit", 1000)]
    assert await wallet_balance(e2e, pid) == START - 1000 + first.round.total_paid


async def test_operator_voids_an_unfinished_round_and_every_stake_comes_back(
        e2e: Clients) -> None:
    pid = await new_player(e2e)
    md = await session(e2e, pid)
    dealt = (await e2e.games[0].Deal(bj.DealRequest(
        request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=2500)],
        forced_cards=["TS", "6H", "9D", "7C"]), metadata=md)).round
    assert await wallet_balance(e2e, pid) == START - 2500
    voided = (await e2e.operators[1].VoidRound(op.VoidRoundRequest(
        request_id="v", brand_id="demo-casino", player_id=pid, round_id=dealt.round_id,
        reason="table malfunction"), metadata=OPERATOR)).round
    assert voided.status == "voided" and voided.steps[-1].kind == "round_voided"
    assert [(m.kind, m.amount, m.status) for m in voided.movements] == [
        ("debit", 2500, "rolled_back"), ("rollback", 2500, "applied")]
    assert await wallet_balance(e2e, pid) == START
    view = (await e2e.games[0].GetRound(bj.GetRoundRequest(round_id=dealt.round_id),
                                        metadata=md)).round
    assert view.status == bj.ROUND_STATUS_VOIDED


async def test_the_balance_is_known_before_the_first_round(e2e: Clients) -> None:
    """Balance before the first round: CreateSession's answer carries it, GetBalance and
    ListVariants give it, each as the operator's wallet holds it (and moving no money)."""
    pid = await new_player(e2e, balance=12_345)
    resp = await e2e.operators[0].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid), metadata=OPERATOR)
    assert resp.HasField("balance") and resp.balance == 12_345
    md = (("authorization", f"Bearer {resp.session_token}"),)
    got = await e2e.games[1].GetBalance(bj.GetBalanceRequest(), metadata=md)
    assert (got.balance, got.currency) == (12_345, "EUR")
    listed = await e2e.games[0].ListVariants(bj.ListVariantsRequest(), metadata=md)
    assert listed.HasField("balance") and listed.balance == 12_345
    assert await wallet_balance(e2e, pid) == 12_345
