"""The shared-table terminal client: drawing a table snapshot, event lines, typed commands, and
a watcher that resumes after the last event it saw (a scripted stream stands in for the server;
the real one is in tests/e2e/test_table_terminal_e2e.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest

from rgs.api.table_messages import view_to_proto
from rgs.engine import Action, BoxBet, Round, SequenceSource
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.math.hints import HintTables
from rgs.service import advice
from rgs.service.tables import public
from rgs.service.tables.model import Seat, TablePhase, TableState, Who
from rgs.terminal import table_render as draw
from rgs.terminal.table import TablePlayer
from rgs.variants import VARIANTS

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _state(seq: int = 5, *, phase: int = tb.TABLE_PHASE_BETTING,
           **extra: Any) -> tb.TableSnapshot:
    """A table as the server sends it to bob (who sits at seat 3 and bets behind seat 1)."""
    snap = tb.TableSnapshot(
        table_id="vip-1", seq=seq, phase=phase, round_id="r1", round_no=4,
        seats=[tb.Seat(seat=1, player=tb.TablePlayer(display_name="Lucky Ann"), hot=2),
               tb.Seat(seat=3, player=tb.TablePlayer(display_name="Player 0B0B", you=True))],
        bets=[tb.SeatBet(seat=1, stake=1000, perfect_pairs=100, deal_now=True)],
        behind=[tb.BehindBet(seat=1, player=tb.TablePlayer(display_name="Player 0B0B",
                                                           you=True),
                             stake=500, follow_double=True,
                             insurance=tb.BEHIND_INSURANCE_ASK)], **extra)
    snap.deadline.FromDatetime(NOW + timedelta(seconds=7.2))
    return snap


def test_a_snapshot_shows_every_seat_its_bets_behinds_hot_players_and_time_left() -> None:
    text = draw.shared_table(_state(), seats=4, currency="EUR", now=NOW, balance=123456)
    assert text.splitlines() == [
        "Table vip-1  round 4  betting open  (8 s left)  |  your balance 1,234.56 EUR",
        "  Seat 1: Lucky Ann  won 2 in a row  bet 10.00 EUR + PP 1.00 EUR  [Deal Now]",
        "      behind: Player 0B0B (you) 5.00 EUR (follows doubles, insurance ask)",
        "  Seat 2: (free)",
        "  Seat 3: Player 0B0B (you)",
        "  Seat 4: (free)",
    ]
    assert draw.my_seat(_state()) == 3


def _fair(**extra: Any) -> tb.TableFairness:
    return tb.TableFairness(verifiable=True, commitment="c0" * 32, round_number=4, decks=8,
                            next_commitment="d1" * 32, **extra)


def _ev(seq: int = 1, **event: Any) -> tb.TableEvent:
    return tb.TableEvent(seq=seq, **event)


def test_the_commitment_shows_while_the_round_is_open_and_the_seed_once_it_ended() -> None:
    text = draw.shared_table(_state(fair=_fair(), next_commitment="d1" * 32),
                             seats=1, currency="EUR", now=NOW)
    assert "  Fair round 4: commitment c0c0c0c0…" in text.splitlines()
    idle = _state(phase=tb.TABLE_PHASE_IDLE, next_commitment="d1" * 32,
                  last_round=tb.LastRound(round_id="r1", fair=_fair(server_seed="5e" * 32)))
    lines = draw.shared_table(idle, seats=1, currency="EUR", now=NOW).splitlines()
    assert "  Next round's commitment d1d1d1d1… (type f: in full)" in lines
    assert "  Last round r1: server seed 5e5e5e5e… (type f: in full, how to check)" in lines
    assert "    " + "5e" * 32 in draw.fairness_full(idle.last_round).splitlines()
    ev = draw.table_event
    assert f"commitment = SHA-256(server seed):\n      {'c0' * 32}" in str(
        ev(_ev(betting_opened=tb.BettingOpened(fair=_fair())), "EUR"))
    assert "client seed (none)" in str(ev(_ev(betting_closed=tb.BettingClosed(fair=_fair())),
                                          "EUR"))
    over = str(ev(_ev(round_finished=tb.RoundFinished(fair=_fair(server_seed="5e" * 32))),
                  "EUR"))
    assert f"\n      {'5e' * 32}\n" in over and "rgs verify" in over and "support" in over
    assert "does not verify" in str(ev(_ev(round_finished=tb.RoundFinished(
        fair=tb.TableFairness(commitment="c0" * 32, verifiable=False))), "EUR"))


def test_events_read_as_a_player_says_them_and_quiet_ones_are_left_out() -> None:
    ev = draw.table_event
    bob = tb.TablePlayer(display_name="Player 0B0B", you=True)
    ann = tb.TablePlayer(display_name="Lucky Ann")
    assert ev(_ev(behind_placed=tb.BehindPlaced(player=bob, seat=1, stake=500)), "EUR") == \
        "You bet 5.00 EUR behind seat 1"
    assert ev(_ev(bet_placed=tb.BetPlaced(player=ann, seat=1, stake=500)), "EUR") == \
        "Lucky Ann bets 5.00 EUR on seat 1"
    assert ev(_ev(player_acted=tb.PlayerActed(seat=1, hand=0, action=bj.ACTION_DOUBLE,
                                              stake_added=1000)), "EUR") == \
        "Seat 1 doubled (+10.00 EUR)"
    assert ev(_ev(round_finished=tb.RoundFinished(results=[
        tb.PlayerResult(player=ann, staked=2100, paid=4000),
        tb.PlayerResult(player=bob, staked=500, paid=0)])), "EUR") == \
        "Round over: Lucky Ann staked 21.00 EUR, paid 40.00 EUR; you staked 5.00 EUR, paid " \
        "0.00 EUR\n    your net for the round: -5.00 EUR"
    assert ev(_ev(card_dealt=tb.CardDealt(card="TC")), "EUR") == "The dealer gets 10♣"
    assert ev(_ev(card_dealt=tb.CardDealt(face_down=True)), "EUR") == \
        "The dealer's hole card, face down"
    assert ev(_ev(card_dealt=tb.CardDealt(card="5H", seat=3, hand=1)), "EUR",
              ascii_only=True) == "Seat 3 hand 2 gets 5H"
    assert ev(_ev(dealer_peeked=tb.DealerPeeked(blackjack=False)), "EUR") is None
    assert ev(_ev(), "EUR") is None  # a kind this client does not know: skipped


class _Call:
    """A scripted server stream: its items, then optionally a dropped connection."""

    def __init__(self, items: list[tb.WatchTableResponse], drop: bool) -> None:
        self.items, self.drop = items, drop

    def __aiter__(self) -> AsyncIterator[tb.WatchTableResponse]:
        return self._gen()

    async def _gen(self) -> AsyncIterator[tb.WatchTableResponse]:
        for item in self.items:
            yield item
        if self.drop:
            raise grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(),
                                       grpc.aio.Metadata(), "replica gone")
        await asyncio.Event().wait()  # a live stream: nothing more for now

    def cancel(self) -> bool:
        return True


CY = tb.TablePlayer(display_name="Cy")


def _event(seq: int, **event: Any) -> tb.WatchTableResponse:
    return tb.WatchTableResponse(event=tb.TableEvent(seq=seq, **event))


class _Stub:
    def __init__(self) -> None:
        self.requests: list[tb.WatchTableRequest] = []
        self.left: list[tb.LeaveSeatRequest] = []

    async def LeaveSeat(self, req: tb.LeaveSeatRequest, **_: Any) -> tb.LeaveSeatResponse:
        self.left.append(req)
        return tb.LeaveSeatResponse()

    def WatchTable(self, req: tb.WatchTableRequest, **_: Any) -> _Call:
        self.requests.append(req)
        if len(self.requests) == 1:
            return _Call([tb.WatchTableResponse(snapshot=_state()),
                          _event(6, seat_taken=tb.SeatTaken(seat=2, player=CY)),
                          _event(7, bet_placed=tb.BetPlaced(seat=2, player=CY, stake=1000))],
                         drop=True)
        # The resumed stream repeats nothing the server was asked to skip; the client would
        # drop a repeat anyway.
        return _Call([_event(7, bet_placed=tb.BetPlaced(seat=2, player=CY, stake=1000)),
                      _event(8, deal_now=tb.DealNowPressed(seat=2, player=CY))], drop=False)


def _player(stub: _Stub, out: list[str], keys: list[str] | None = None) -> TablePlayer:
    table = tb.TableInfo(table_id="vip-1", variant_id="vip-platinum", seats=7, currency="EUR",
                         main_min=1000, main_max=500000)
    feed = iter(keys or [])

    def ask(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return TablePlayer(stub=stub, token="t", table=table,  # type: ignore[arg-type]
                       ask=ask, say=out.append, retry_s=0.01)


async def test_a_dropped_watch_resumes_after_the_last_event_seen_nothing_twice() -> None:
    stub, out = _Stub(), []
    player = _player(stub, out)
    task = asyncio.create_task(player.watch())
    for _ in range(200):
        if player.last_seq == 8:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert [r.HasField("from_seq") for r in stub.requests] == [False, True]
    assert stub.requests[1].from_seq == 7
    lines = [x for x in out if x.startswith("  · ")]
    assert lines == ["  · Cy took seat 2", "  · Cy bets 10.00 EUR on seat 2",
                     "  · connection lost (UNAVAILABLE); resuming after event 7…",
                     "  · Cy is ready (seat 2)"]


@pytest.mark.parametrize(("words", "message"), [
    (["bet", "10"], "take a seat first"),
    (["behind", "1"], "behind N AMOUNT"),
    (["behind", "1", "5", "ins", "maybe"], "ins takes never, always or ask"),
    (["bet"], "take a seat first"),
    (["x"], "'x' is not a command"),
])
async def test_bad_commands_say_what_to_type(words: list[str], message: str) -> None:
    player = _player(_Stub(), [])
    player.snap = _state()
    del player.snap.seats[:]
    with pytest.raises(ValueError, match=message):
        await player.command(words)


async def test_the_loop_draws_the_table_reads_keys_and_asks_on_q_with_a_bet_in_play() -> None:
    out: list[str] = []
    # bob's Bet Behind is on the table: q asks, "n" stays, then q and "y" leave.
    stub = _Stub()
    player = _player(stub, out, ["?", "", "q", "n", "q", "y", "never read"])
    assert await player.run() == 0
    text = "\n".join(out)
    # "y": bob's seat (no bet of his on it: his bet is behind seat 1) is left, then he goes.
    assert [r.seat for r in stub.left] == [3]
    assert "You left seat 3." in out
    assert "Table vip-1 (vip-platinum, 7 seats): bets 10.00 EUR to 5,000.00 EUR" in text
    assert text.count("Commands:") == 2  # the help, then again for "?"
    assert "  Seat 1: Lucky Ann  won 2 in a row  bet 10.00 EUR + PP 1.00 EUR  [Deal Now]" in text
    assert out[-1] == "bye"


def _playing(hints: bool) -> tb.TableSnapshot:
    """A table whose round waits for bob (seat 3: 9 2 against a 6); the snapshot as the server
    makes it for bob with hints on, or off."""
    rnd = Round.deal(VARIANTS["vip-platinum"], SequenceSource(["9S", "6D", "2C", "KD"]),
                     [BoxBet(seat=3, stake=1000, player="op/bob")])
    bob = Who(player_key="op/bob", operator_id="op", brand_id="b", player_id="bob",
              session_id="s")
    state = TableState(phase=TablePhase.PLAYING, round_id="r1", round_no=4,
                       seats=(Seat(seat=3, who=bob),))
    return view_to_proto(public.view("vip-1", 9, state, rnd, hints=HintTables() if hints else None,
                                     currency="EUR"),
                         "op/bob")


def test_the_decision_shows_each_choices_value_and_the_best_when_the_brand_shows_them() -> None:
    out: list[str] = []
    player = _player(_Stub(), out)
    player.snap = _playing(hints=True)
    player.draw()
    player.draw()
    turn = [x for x in out if x.startswith("Your turn")]
    values = {h.action: h for h in advice.hints(HintTables(), VARIANTS["vip-platinum"], Round.deal(
        VARIANTS["vip-platinum"], SequenceSource(["9S", "6D", "2C", "KD"]),
        [BoxBet(seat=3, stake=1000, player="op/bob")]).view())}
    assert len(turn) == 2 and f"[d] double (10.00 EUR) EV " \
        f"{float(values[Action.DOUBLE].expected_value):+.3f} ★" in turn[0]
    assert f"[s] stand EV {float(values[Action.STAND].expected_value):+.3f}  " in turn[0]
    assert "\n".join(out).count("EV: what a decision returns") == 1  # said once
    out.clear()
    player.snap = _playing(hints=False)
    player.draw()
    turn = [x for x in out if x.startswith("Your turn")]
    assert len(turn) == 1 and "[d] double (10.00 EUR)" in turn[0] and "EV" not in turn[0]
