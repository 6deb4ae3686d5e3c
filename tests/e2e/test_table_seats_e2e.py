"""Seats that come back, and seats given back: two operators' players on three RGS replicas.

- A player who leaves with a bet in play keeps the seat until the round ends (the bet plays on),
  then it is given back (``seat_left`` LEFT).
- A seat that sits out ``sit_out_rounds`` dealt rounds in a row is given back (SAT_OUT).
- A seat whose player neither watches nor acts for ``away_s`` is given back (AWAY), the Bet
  Behinds on it returned at once; a player who watches (on any replica) keeps theirs.
- A player back with a new session finds the seat marked as theirs and plays on with it;
  another operator's player with the same player id does not.
- The hostile probe's void-every-round: a Bet Behind on a seat whose player leaves is returned,
  so its bettor taking that seat and betting on it never voids the round.
- Watching a table the session's brand does not offer, or in another currency, is refused as
  sitting there is.

Every wallet is read from the sandbox wallets and asserted to the cent.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from test_tables_e2e import (
    DEV,
    OTHER,
    START,
    WALLET_AUTH,
    Player,
    Tables,
    _player,
    _table,
    tables_stack,
)

from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.databases import DatabaseTemplates
from support.errors import error_reason
from support.tables import events_until, kind, snapshot

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: One seat's cards against the dealer: the seat gets TS 9H (19), the dealer 7S TD (17).
ONE_SEAT_WINS = ["TS", "7S", "9H", "TD"]
#: Two seats: both 19 against the dealer's 17.
TWO_SEATS_WIN = ["TS", "TC", "7S", "9H", "9C", "TD"]


def _seats_table(table_id: str, **more: Any) -> dict[str, Any]:
    return {**_table(table_id, betting_s=30.0, decision_s=1.0), "sit_out_rounds": 2,
            "away_s": 3.0, **more}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def seats(database_templates: DatabaseTemplates, tmp_path_factory: Any
                ) -> AsyncIterator[Tables]:
    async with tables_stack(database_templates, Path(tmp_path_factory.mktemp("seats")), [
            _seats_table("vip-leave"), _seats_table("vip-sitout"), _seats_table("vip-away"),
            _seats_table("vip-back", away_s=120.0), _seats_table("vip-void"),
            {**_seats_table("vip-dev-only"), "brands": ["demo-casino"]}]) as t:
        yield t


async def _take(t: Tables, p: Player, table_id: str, seat: int, replica: int = 0) -> None:
    await t.tables[replica].TakeSeat(tb.TakeSeatRequest(
        request_id=f"seat-{table_id}-{seat}", table_id=table_id, seat=seat), metadata=p.md)


async def _bet(t: Tables, p: Player, table_id: str, rid: str, *bets: tb.Bet,
               replica: int = 0) -> tb.PlaceBetsResponse:
    return await t.tables[replica].PlaceBets(tb.PlaceBetsRequest(
        request_id=rid, table_id=table_id, bets=list(bets)), metadata=p.md)


async def _deal(t: Tables, p: Player, table_id: str, rid: str,
                cards: list[str] | None = None) -> None:
    await t.tables[0].DealNow(tb.DealNowRequest(request_id=rid, table_id=table_id,
                                                forced_cards=cards or []), metadata=p.md)


@contextlib.asynccontextmanager
async def _watching(t: Tables, p: Player, table_id: str, replica: int) -> AsyncIterator[None]:
    """``p`` keeps a WatchTable stream open on ``replica`` while the block runs."""
    call = t.tables[replica].WatchTable(tb.WatchTableRequest(table_id=table_id), metadata=p.md)

    async def drain() -> None:
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
            async for _ in call:
                pass
    task = asyncio.create_task(drain())
    try:
        yield
    finally:
        call.cancel()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def _seat_left(events: list[tb.TableEvent]) -> dict[int, int]:
    return {e.seat_left.seat: e.seat_left.reason for e in events if kind(e) == "seat_left"}


async def test_a_player_who_leaves_with_a_bet_in_play_keeps_the_seat_until_the_round_ends(
        seats: Tables) -> None:
    t, tid = seats, "vip-leave"
    a, b = await _player(t, "dev-operator"), await _player(t, "other-operator")
    await _take(t, a, tid, 1)
    start = (await _bet(t, a, tid, "b1", tb.Bet(seat=1, stake=1000))).result.seq
    await _bet(t, b, tid, "b1", tb.Bet(seat=1, stake=1000, behind=True), replica=1)
    left = await t.tables[2].LeaveSeat(tb.LeaveSeatRequest(request_id="leave", table_id=tid,
                                                           seat=1), metadata=a.md)
    mine = next(s for s in left.result.snapshot.seats if s.seat == 1)
    assert mine.player.you and mine.leaving  # still A's, given back after the round
    assert [b.seat for b in left.result.snapshot.bets] == [1]
    await _deal(t, a, tid, "dn", ONE_SEAT_WINS)
    # A decides nothing: the hand stands when its second runs out, 19 beats 17.
    seen = await events_until(t.tables[1], b.md, tid, "seat_left", from_seq=start)
    kinds = [kind(e) for e in seen]
    assert kinds.index("round_finished") < kinds.index("seat_left")
    assert "decision_timed_out" in kinds
    assert _seat_left(seen) == {1: tb.SEAT_RELEASE_LEFT}
    assert (await snapshot(t.tables[0], b.md, tid)).seats == []
    await _until_balance(t, a, START + 1000)  # paid after the clock's commit
    await _until_balance(t, b, START + 1000)


async def test_a_seat_that_sits_out_the_tables_rounds_in_a_row_is_given_back(
        seats: Tables) -> None:
    t, tid = seats, "vip-sitout"
    idle, bettor = await _player(t, "dev-operator"), await _player(t, "other-operator")
    await _take(t, idle, tid, 2)
    await _take(t, bettor, tid, 3, replica=1)
    async with _watching(t, idle, tid, 2):  # watching: never away, only sitting out
        seq = 0
        for n in (1, 2):
            r = await _bet(t, bettor, tid, f"b{n}", tb.Bet(seat=3, stake=1000), replica=1)
            seq = seq or r.result.seq
            await _deal(t, bettor, tid, f"dn{n}", ONE_SEAT_WINS)
            seen = await events_until(t.tables[0], idle.md, tid, "round_finished",
                                      from_seq=r.result.seq)
            after = await snapshot(t.tables[0], bettor.md, tid)
            if n == 1:
                assert _seat_left(seen) == {}
                assert {s.seat: s.sat_out for s in after.seats} == {2: 1, 3: 0}
        # The second round's betting close gave seat 2 back, before any card.
        kinds = [kind(e) for e in seen]
        assert _seat_left(seen) == {2: tb.SEAT_RELEASE_SAT_OUT}
        assert kinds.index("betting_closed") < kinds.index("seat_left") < kinds.index(
            "card_dealt")
        assert [s.seat for s in after.seats] == [3]
    await _until_balance(t, bettor, START + 2 * 1000)
    assert await idle.balance(t) == START


async def test_an_away_players_seat_is_given_back_with_its_bet_behind_and_a_watchers_is_kept(
        seats: Tables) -> None:
    t, tid = seats, "vip-away"
    away, watcher = await _player(t, "dev-operator"), await _player(t, "dev-operator")
    behind, observer = await _player(t, "other-operator"), await _player(t, "other-operator")
    await _take(t, away, tid, 4)
    await _take(t, watcher, tid, 5, replica=1)
    async with _watching(t, watcher, tid, 2):  # on another replica than the clock's, maybe
        # A Bet Behind on the away player's seat opens betting; nobody bets on a seat.
        start = (await _bet(t, behind, tid, "bb", tb.Bet(seat=4, stake=1500, behind=True),
                            replica=2)).result.seq
        assert await behind.balance(t) == START - 1500
        # (its refund is the bettor's to see)
        seen = await events_until(t.tables[1], behind.md, tid, "behind_refunded",
                                  from_seq=start, timeout=20)
        assert _seat_left(seen) == {4: tb.SEAT_RELEASE_AWAY}
        refunded = [e.behind_refunded for e in seen if kind(e) == "behind_refunded"]
        assert [(r.seat, r.amount, r.reason) for r in refunded] == [(4, 1500,
                                                                     "seat_released")]
        await asyncio.sleep(4.0)  # longer than away_s: the watcher's seat stays
        snap = await snapshot(t.tables[0], observer.md, tid)
        assert [s.seat for s in snap.seats] == [5]
    # The watcher stops watching (and does nothing): the seat is given back too.
    gone = await events_until(t.tables[0], observer.md, tid, "seat_left", from_seq=snap.seq,
                              timeout=20)
    assert _seat_left(gone) == {5: tb.SEAT_RELEASE_AWAY}
    await _until_balance(t, behind, START)
    assert await away.balance(t) == START and await watcher.balance(t) == START


async def _until_balance(t: Tables, p: Player, want: int, timeout: float = 15.0) -> None:
    """The refunds after a commit go in the background: wait for the wallet to show them."""
    async with asyncio.timeout(timeout):
        while await p.balance(t) != want:
            await asyncio.sleep(0.2)


async def test_a_player_back_with_a_new_session_finds_the_seat_theirs_and_plays_on(
        seats: Tables) -> None:
    t, tid = seats, "vip-back"
    first = await _player(t, "dev-operator")
    await _take(t, first, tid, 1)
    start = (await _bet(t, first, tid, "b1", tb.Bet(seat=1, stake=1000))).result.seq
    # The same player comes back on a new page with a new session (another replica).
    made = await t.operators[1].CreateSession(op.CreateSessionRequest(
        request_id="again", brand_id="demo-casino", player_id=first.pid, currency="EUR"),
        metadata=DEV)
    back = Player(operator="dev-operator", pid=first.pid,
                  md=(("authorization", f"Bearer {made.session_token}"),))
    snap = await snapshot(t.tables[1], back.md, tid)
    assert [(s.seat, s.player.you) for s in snap.seats] == [(1, True)]
    assert [(b.seat, b.stake) for b in snap.bets] == [(1, 1000)]
    # The same player id at the other operator is someone else: not "you".
    await t.controls["other-operator"].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id=first.pid, currency="EUR", balance=START)),
        metadata=WALLET_AUTH["other-operator"])
    twin_s = await t.operators[0].CreateSession(op.CreateSessionRequest(
        request_id="twin", brand_id="other-casino", player_id=first.pid, currency="EUR"),
        metadata=OTHER)
    twin = Player(operator="other-operator", pid=first.pid,
                  md=(("authorization", f"Bearer {twin_s.session_token}"),))
    assert [s.player.you for s in (await snapshot(t.tables[2], twin.md, tid)).seats] == [False]
    with pytest.raises(grpc.aio.AioRpcError) as not_theirs:
        await t.tables[2].TakeSeat(tb.TakeSeatRequest(request_id="t", table_id=tid, seat=1),
                                   metadata=twin.md)
    assert error_reason(not_theirs.value) == "SEAT_TAKEN"
    # TakeSeat on the seat they hold gives it back to them: no new seat_taken event.
    again = await t.tables[1].TakeSeat(tb.TakeSeatRequest(request_id="again", table_id=tid,
                                                          seat=1), metadata=back.md)
    assert again.result.seq == snap.seq
    with pytest.raises(grpc.aio.AioRpcError) as other_seat:
        await t.tables[1].TakeSeat(tb.TakeSeatRequest(request_id="two", table_id=tid, seat=2),
                                   metadata=back.md)
    assert error_reason(other_seat.value) == "ALREADY_SEATED"
    assert "you hold seat 1" in (other_seat.value.details() or "")
    # Deal Now and the round's decisions are theirs with the new session.
    await t.tables[1].DealNow(tb.DealNowRequest(request_id="dn", table_id=tid,
                                                forced_cards=ONE_SEAT_WINS), metadata=back.md)
    due = await events_until(t.tables[1], back.md, tid, "decision_due", from_seq=start)
    round_id = next(e.betting_closed.round_id for e in due if kind(e) == "betting_closed")
    await t.tables[1].Act(tb.ActRequest(request_id="stand", table_id=tid, round_id=round_id,
                                        seat=1, hand=0, action="stand"), metadata=back.md)
    done = await events_until(t.tables[1], back.md, tid, "round_finished", from_seq=start)
    assert not any(kind(e) == "decision_timed_out" for e in done)
    assert [(r.player.you, r.staked, r.paid) for r in done[-1].round_finished.results] == [
        (True, 1000, 2000)]
    await _until_balance(t, first, START + 1000)
    assert await twin.balance(t) == START


async def test_a_bet_behind_on_a_seat_its_player_leaves_is_returned_and_never_voids_the_round(
        seats: Tables) -> None:
    """The probe: X bets behind Y's seat 6; Y leaves; X leaves seat 5, takes seat 6 and bets
    on it. The previous release took every call and voided the round at betting close."""
    t, tid = seats, "vip-void"
    x, y = await _player(t, "other-operator"), await _player(t, "dev-operator")
    z = await _player(t, "dev-operator")
    await _take(t, z, tid, 1)
    await _take(t, x, tid, 5, replica=1)
    await _take(t, y, tid, 6, replica=2)
    start = (await _bet(t, z, tid, "bz", tb.Bet(seat=1, stake=1000))).result.seq
    await _bet(t, x, tid, "bx", tb.Bet(seat=6, stake=1000, behind=True), replica=1)
    left = await t.tables[2].LeaveSeat(tb.LeaveSeatRequest(request_id="l", table_id=tid,
                                                           seat=6), metadata=y.md)
    assert [b.seat for b in left.result.snapshot.behind] == []  # returned with the seat
    await t.tables[1].LeaveSeat(tb.LeaveSeatRequest(request_id="l", table_id=tid, seat=5),
                                metadata=x.md)
    await _take(t, x, tid, 6, replica=1)
    await _bet(t, x, tid, "bx2", tb.Bet(seat=6, stake=1000), replica=1)
    await _deal(t, z, tid, "dz", TWO_SEATS_WIN)
    await t.tables[1].DealNow(tb.DealNowRequest(request_id="dx", table_id=tid), metadata=x.md)
    # (x's refund is x's to see)
    seen = await events_until(t.tables[0], x.md, tid, "round_finished", from_seq=start)
    kinds = [kind(e) for e in seen]
    assert "round_voided" not in kinds
    assert next(e.betting_closed.seats for e in seen if kind(e) == "betting_closed") == [1, 6]
    refunded = [e.behind_refunded for e in seen if kind(e) == "behind_refunded"]
    assert [(r.seat, r.amount, r.reason) for r in refunded] == [(6, 1000, "seat_released")]
    # Both seats' 19 beat the dealer's 17 (both stood when their time ran out).
    await _until_balance(t, x, START + 1000)
    await _until_balance(t, z, START + 1000)
    assert await y.balance(t) == START


async def test_watching_a_table_is_refused_as_sitting_there_is(seats: Tables) -> None:
    t = seats
    other = await _player(t, "other-operator")
    for call in (t.tables[0].WatchTable(tb.WatchTableRequest(table_id="vip-dev-only"),
                                        metadata=other.md),):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            async for _ in call:
                pass
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error_reason(refused.value) == "TABLE_NOT_OFFERED"
    # A USD session of other-casino (which plays EUR and USD) at an EUR table.
    await t.controls["other-operator"].CreatePlayer(sandbox_pb2.CreatePlayerRequest(
        player=sandbox_pb2.Player(player_id="usd-watcher", currency="USD", balance=START)),
        metadata=WALLET_AUTH["other-operator"])
    usd = await t.operators[0].CreateSession(op.CreateSessionRequest(
        request_id="usd", brand_id="other-casino", player_id="usd-watcher", currency="USD"),
        metadata=OTHER)
    with pytest.raises(grpc.aio.AioRpcError) as wrong:
        async for _ in t.tables[1].WatchTable(tb.WatchTableRequest(table_id="vip-away"),
                                              metadata=(("authorization",
                                                         f"Bearer {usd.session_token}"),)):
            pass
    assert wrong.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_reason(wrong.value) == "WRONG_CURRENCY"
