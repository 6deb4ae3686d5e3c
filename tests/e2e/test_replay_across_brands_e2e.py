"""A stored answer stays in the brand it was given in (issue 22), against real server processes:
one player of dev-operator at demo-casino-hints (exact decision values on) and at demo-casino
(none). Found by a hostile probe: a Deal or Act resent from the demo-casino session with the
request id of the hints round's call answered that round's stored view, decision values
included, while GetRound of that round from demo-casino said ROUND_NOT_FOUND."""

from __future__ import annotations

import grpc
import pytest
from e2e_clients import Clients
from google.protobuf.message import Message
from test_hints_e2e import HINTS_BRAND, _session
from test_play_e2e import error_info, new_player, wallet_balance

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj

pytestmark = pytest.mark.asyncio(loop_scope="session")

PAIR = ["8S", "6H", "8D", "9C", "3D", "2C"]  # 8,8 v 6: split, the first hand (8+3) still to act


def _values_shown(view: bj.RoundView) -> int:
    """How many decision values a view carries (insurance and playing decisions)."""
    return sum(a.HasField("expected_value") or a.best
               for b in view.boxes
               for a in (*b.insurance_allowed, *(x for h in b.hands for x in h.allowed)))


async def _refused(call: object, request: Message, md: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call(request, metadata=md)  # type: ignore[operator]
    return err.value


async def test_a_request_id_replayed_from_another_brand_gets_no_answer_of_that_brand(
        e2e: Clients) -> None:
    pid = await new_player(e2e)
    hints, plain = await _session(e2e, pid, HINTS_BRAND), await _session(e2e, pid, "demo-casino")
    game, other = e2e.games
    deal = bj.DealRequest(request_id=f"x-deal-{pid}", variant_id="classic-resplit",
                          boxes=[bj.BoxBet(seat=1, stake=1000)], forced_cards=PAIR)
    dealt = (await game.Deal(deal, metadata=hints)).round
    act = bj.ActRequest(request_id=f"x-act-{pid}", round_id=dealt.round_id,
                        expected_seq=dealt.seq, seat=1, hand=0, action=bj.ACTION_SPLIT)
    split = (await game.Act(act, metadata=hints)).round
    assert _values_shown(dealt) and _values_shown(split)  # the hints brand shows them
    before = await wallet_balance(e2e, pid)
    assert before == 100_000 - 2000

    # The same requests, byte for byte, from the player's demo-casino session (either replica).
    for call, request in ((other.Deal, deal), (other.Act, act), (game.Deal, deal)):
        err = await _refused(call, request, plain)
        assert err.code() == grpc.StatusCode.ALREADY_EXISTS, err.details()
        assert error_info(err).reason == "REQUEST_ID_REUSED"
        assert "brand" in (err.details() or "")  # says why an identical request is refused
        assert dealt.round_id not in (err.details() or "")
    assert await wallet_balance(e2e, pid) == before
    # Nothing was dealt at demo-casino, and the hints round stays out of its sight.
    for round_id in ("", dealt.round_id):
        err = await _refused(other.GetRound, bj.GetRoundRequest(round_id=round_id), plain)
        assert error_info(err).reason == "ROUND_NOT_FOUND"

    # In its own brand, the replay is answered as before: the stored view, values included.
    assert (await other.Deal(deal, metadata=hints)).round == dealt
    assert (await other.Act(act, metadata=hints)).round == split

    # Settle too: finished at the hints brand, its replay from demo-casino is refused.
    settle = bj.SettleRequest(request_id=f"x-settle-{pid}", round_id=dealt.round_id)
    settled = (await game.Settle(settle, metadata=hints)).round
    assert settled.status == bj.ROUND_STATUS_SETTLED
    paid = await wallet_balance(e2e, pid)
    err = await _refused(other.Settle, settle, plain)
    assert error_info(err).reason == "REQUEST_ID_REUSED"
    assert await wallet_balance(e2e, pid) == paid
    assert (await other.Settle(settle, metadata=hints)).round == settled

    # The demo-casino session plays on with ids of its own.
    fresh = (await other.Deal(bj.DealRequest(
        request_id=f"y-deal-{pid}", variant_id="classic-resplit",
        boxes=[bj.BoxBet(seat=1, stake=1000)], forced_cards=PAIR), metadata=plain)).round
    assert fresh.round_id != dealt.round_id and not _values_shown(fresh)
    assert await wallet_balance(e2e, pid) == paid - 1000
