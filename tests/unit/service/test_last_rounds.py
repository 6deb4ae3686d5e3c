"""ListVariants returns the player's last settled round of each variant: the stakes and the win
a client needs to offer Rebet and Ride Bet (electronic-h17's buttons, any variant's Rebet)."""

from __future__ import annotations

import grpc
from service_fakes import harness
from test_api_errors import OPERATOR

from rgs.bootstrap import serve
from rgs.config import load_settings
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc


async def test_list_variants_carries_the_last_settled_round_of_each_variant() -> None:
    h = await harness(test_mode=True)
    running = await serve(load_settings(listen="127.0.0.1:0"), h.app)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        ops = operator_pb2_grpc.OperatorServiceStub(channel)
        game = blackjack_pb2_grpc.BlackjackServiceStub(channel)
        made = await ops.CreateSession(op.CreateSessionRequest(
            request_id="s1", brand_id="demo-casino", player_id="alice"), metadata=OPERATOR)
        md = (("authorization", f"Bearer {made.session_token}"),)
        assert list((await game.ListVariants(bj.ListVariantsRequest(), metadata=md))
                    .last_rounds) == []
        # 20+ bet on a stood twenty that beats a dealer 16 + 9: main pays 2x, bonus 3 to 1
        box = bj.BoxBet(seat=1, stake=300, twenty_plus=100)
        first = await game.Deal(bj.DealRequest(
            request_id="d1", variant_id="vegas-20-plus", boxes=[box],
            forced_cards=["TS", "6H", "KD", "TC", "9S"]), metadata=md)
        await game.Act(bj.ActRequest(request_id="a1", round_id=first.round.round_id,
                                     expected_seq=first.round.seq, seat=1, hand=0,
                                     action=bj.ACTION_STAND), metadata=md)
        # an unfinished round of another variant is not offered for Rebet
        await game.Deal(bj.DealRequest(request_id="d2", variant_id="classic-resplit",
                                       boxes=[bj.BoxBet(seat=1, stake=100)],
                                       forced_cards=["9S", "6H", "7D", "TC"]), metadata=md)
        listed = await game.ListVariants(bj.ListVariantsRequest(), metadata=md)
        (last,) = listed.last_rounds
        assert (last.variant_id, last.round_id) == ("vegas-20-plus", first.round.round_id)
        assert (last.total_staked, last.total_paid) == (400, 1000)
        assert [(b.seat, b.stake, b.twenty_plus) for b in last.boxes] == [(1, 300, 100)]
        assert last.boxes[0].insurance_offer == bj.INSURANCE_OFFER_ALWAYS
    finally:
        await channel.close()
        await running.stop(grace=None)
