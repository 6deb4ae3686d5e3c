"""Rounds the replay tests replay: a split and a double played over native gRPC with forced
cards (a player's session, as a game client would), and what the replay endpoint answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from web_stack import OPERATOR, Web

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op

#: classic-resplit: 8S 8D against the dealer's 5H (hole TC). Split: the first 8 gets 3H (11) and
#: doubles into 9C (20); the second gets TH (18) and stands; the dealer's 15 draws KS and busts.
SPLIT_DOUBLE_CARDS = ("8S", "5H", "8D", "TC", "3H", "9C", "TH", "KS")
SPLIT_DOUBLE_ACTIONS = ((0, bj.ACTION_SPLIT), (0, bj.ACTION_DOUBLE), (1, bj.ACTION_STAND))
#: 10.00 bet, 10.00 more for the split and 10.00 for the double; the doubled 20 wins 40.00,
#: the 18 wins 20.00.
SPLIT_DOUBLE_STAKED, SPLIT_DOUBLE_PAID = 3000, 6000


@dataclass(frozen=True)
class PlayedRound:
    """A round played by ``player_id`` of demo-casino with its session token."""

    player_id: str
    round_id: str
    session_token: str


async def play_split_double(web: Web, *, forced: bool = True) -> PlayedRound:
    """The split-and-double round (``forced``: with its forced cards; else a fair round of the
    certified RNG that stands on its first two cards)."""
    pid = await web.new_player()
    token = await web.session_token(pid)
    md = (("authorization", f"Bearer {token}"),)
    game: blackjack_pb2_grpc.BlackjackServiceAsyncStub = web.game
    view = (await game.Deal(bj.DealRequest(
        request_id=f"d-{pid}", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=1000)],
        forced_cards=SPLIT_DOUBLE_CARDS if forced else (), client_seed="" if forced else "support"),
        metadata=md)).round
    actions = SPLIT_DOUBLE_ACTIONS if forced else ()
    for i, (hand, action) in enumerate(actions):
        view = (await game.Act(bj.ActRequest(request_id=f"a{i}-{pid}", round_id=view.round_id,
                                             expected_seq=view.seq, seat=1, hand=hand,
                                             action=action), metadata=md)).round
    while view.status == bj.ROUND_STATUS_INSURANCE:
        view = (await game.Act(bj.ActRequest(
            request_id=f"i-{pid}-{view.seq}", round_id=view.round_id, expected_seq=view.seq,
            seat=1, action=bj.ACTION_DECLINE_INSURANCE), metadata=md)).round
    while view.status == bj.ROUND_STATUS_PLAYER_TURN:
        hand = next(h.index for b in view.boxes for h in b.hands if h.allowed)
        view = (await game.Act(bj.ActRequest(
            request_id=f"s-{pid}-{view.seq}", round_id=view.round_id, expected_seq=view.seq,
            seat=1, hand=hand, action=bj.ACTION_STAND), metadata=md)).round
    assert view.status == bj.ROUND_STATUS_SETTLED, view
    return PlayedRound(player_id=pid, round_id=view.round_id, session_token=token)


async def replay_link(web: Web, played: PlayedRound, ttl_seconds: int = 0,
                      language: str = "") -> op.CreateRoundReplayResponse:
    """CreateRoundReplay for the round, as demo-casino's operator (opening in ``language``;
    empty: the browser's)."""
    resp: op.CreateRoundReplayResponse = await web.operator.CreateRoundReplay(
        op.CreateRoundReplayRequest(brand_id="demo-casino", player_id=played.player_id,
                                    round_id=played.round_id, ttl_seconds=ttl_seconds,
                                    language=language),
        metadata=OPERATOR)
    return resp


async def read_replay(web: Web, token: str) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON) of the replay endpoint for a link's token."""
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        resp = await client.post("/replay/round", json={"token": token})
    answer: dict[str, Any] = resp.json()
    return resp.status_code, answer
