"""Many operators on one RGS, against real processes: each operator's own sandbox wallet process,
the same player id at both, playing at once (issue 12).

Rules pinned: every wallet call goes to the session's operator's wallet and names the operator
and brand; the same player id at two operators is two players; each wallet sees only its own
operator's transactions, to the cent.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest
from e2e_clients import Clients
from test_play_e2e import OPERATOR, WALLET_AUTH

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc

pytestmark = pytest.mark.asyncio(loop_scope="session")

OTHER_OPERATOR = (("authorization", "Bearer rgs-other-operator-key"),)
OTHER_WALLET_AUTH = (("authorization", "Bearer sandbox-wallet-other-key"),)
#: classic-resplit: T-9 against 6-7, the dealer draws 9 and busts; standing wins 1 to 1.
STAND_WINS = ("TS", "6H", "9D", "7C", "9S")
_ids = itertools.count()


async def _player_at_both(c: Clients, balance: int) -> str:
    pid = f"twin-{next(_ids)}"
    for control, auth in ((c.control, WALLET_AUTH), (c.other_control, OTHER_WALLET_AUTH)):
        await control.CreatePlayer(sandbox_pb2.CreatePlayerRequest(player=sandbox_pb2.Player(
            player_id=pid, currency="EUR", balance=balance)), metadata=auth)
    return pid


async def _state(control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub, auth: object,
                 pid: str) -> tuple[int, list[sandbox_pb2.Transaction]]:
    player = await control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=pid),
                                     metadata=auth)
    txns = await control.ListTransactions(sandbox_pb2.ListTransactionsRequest(player_id=pid),
                                          metadata=auth)
    return int(player.player.balance), list(txns.transactions)


async def _play(c: Clients, replica: int, key: object, brand: str, pid: str, stake: int,
                rounds: int) -> list[str]:
    s = await c.operators[replica].CreateSession(op.CreateSessionRequest(
        request_id=f"s-{brand}-{pid}", brand_id=brand, player_id=pid), metadata=key)
    md = (("authorization", f"Bearer {s.session_token}"),)
    ids = []
    for i in range(rounds):
        dealt = (await c.games[replica].Deal(bj.DealRequest(
            request_id=f"d{i}", variant_id="classic-resplit",
            boxes=[bj.BoxBet(seat=1, stake=stake)], forced_cards=STAND_WINS),
            metadata=md)).round
        done = (await c.games[replica].Settle(bj.SettleRequest(
            request_id=f"st{i}", round_id=dealt.round_id), metadata=md)).round
        assert done.status == bj.ROUND_STATUS_SETTLED and not done.payment_pending
        assert (done.total_staked, done.total_paid) == (stake, 2 * stake)
        ids.append(dealt.round_id)
    return ids


async def test_another_operator_cannot_move_a_players_money_at_this_operators_wallet(
        e2e: Clients) -> None:
    """Found: with rgs-other-operator-key, CreateSession for other-casino and demo-alice, Deal
    5000, Settle moved demo-alice's balance at the demo-casino wallet (a 5000 debit and a 10000
    credit): every operator's calls went to the one wallet."""
    pid = await _player_at_both(e2e, 100_000)
    await _play(e2e, 0, OTHER_OPERATOR, "other-casino", pid, 5000, rounds=1)
    dev_balance, dev_txns = await _state(e2e.control, WALLET_AUTH, pid)
    other_balance, other_txns = await _state(e2e.other_control, OTHER_WALLET_AUTH, pid)
    assert (dev_balance, dev_txns) == (100_000, [])
    assert other_balance == 100_000 - 5000 + 10_000
    assert {(t.operator_id, t.brand_id) for t in other_txns} == {
        ("other-operator", "other-casino")}


async def test_the_same_player_id_at_two_operators_plays_at_once_each_wallet_its_own(
        e2e: Clients) -> None:
    pid = await _player_at_both(e2e, 200_000)
    dev_rounds, other_rounds = await asyncio.gather(
        _play(e2e, 0, OPERATOR, "demo-casino", pid, 1000, rounds=4),
        _play(e2e, 1, OTHER_OPERATOR, "other-casino", pid, 2500, rounds=4))
    dev_balance, dev_txns = await _state(e2e.control, WALLET_AUTH, pid)
    other_balance, other_txns = await _state(e2e.other_control, OTHER_WALLET_AUTH, pid)
    assert dev_balance == 200_000 + 4 * 1000
    assert other_balance == 200_000 + 4 * 2500
    assert {t.round_id for t in dev_txns} == set(dev_rounds)
    assert {t.round_id for t in other_txns} == set(other_rounds)
    assert {(t.operator_id, t.brand_id) for t in dev_txns} == {("dev-operator", "demo-casino")}
    assert {(t.operator_id, t.brand_id) for t in other_txns} == {
        ("other-operator", "other-casino")}
    assert sum(t.balance_change for t in dev_txns) == 4 * 1000
    assert sum(t.balance_change for t in other_txns) == 4 * 2500
    # Recall is per operator too: neither operator sees the other's rounds of "the same" id.
    mine = await e2e.operators[0].ListPlayerRounds(op.ListPlayerRoundsRequest(
        brand_id="demo-casino", player_id=pid), metadata=OPERATOR)
    assert {r.round_id for r in mine.rounds} == set(dev_rounds)
