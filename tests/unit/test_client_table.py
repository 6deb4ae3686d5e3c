"""The shared-table terminal client: drawing a table snapshot, event lines, typed commands, and
a watcher that resumes after the last event it saw (a scripted stream stands in for the server;
the real one is in tests/e2e/test_table_terminal_e2e.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest

from rgs.client import render
from rgs.client.table import TablePlayer
from rgs.engine import Action, BoxBet, Round, SequenceSource
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.service.tables import public
from rgs.service.tables.model import Seat, TablePhase, TableState, Who
from rgs.variants import VARIANTS

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _state(seq: int = 5, **extra: Any) -> dict[str, Any]:
    return {"table_id": "vip-1", "seq": seq, "phase": "betting", "round_id": "r1",
            "round_no": 4, "deadline": (NOW + timedelta(seconds=7.2)).isoformat(),
            "seats": [{"seat": 1, "player_id": "ann", "hot": 2},
                      {"seat": 3, "player_id": "bob", "hot": 0}],
            "bets": [{"seat": 1, "stake": 1000, "perfect_pairs": 100,
                      "twenty_one_plus_three": 0, "twenty_plus": 0, "deal_now": True}],
            "behind": [{"seat": 1, "player_id": "bob", "stake": 500, "follow_double": True,
                        "follow_split": False, "insurance": "ask"}],
            "round": None, **extra}


def test_a_snapshot_shows_every_seat_its_bets_behinds_hot_players_and_time_left() -> None:
    text = render.shared_table(_state(), me="bob", seats=4, currency="EUR", view=None, now=NOW)
    assert text.splitlines() == [
        "Table vip-1  round 4  betting open  (8 s left)",
        "  Seat 1: ann  hot 2  bet 10.00 EUR + PP 1.00 EUR  [Deal Now]",
        "      behind: bob (you) 5.00 EUR (follows doubles, insurance ask)",
        "  Seat 2: (free)",
        "  Seat 3: bob (you)",
        "  Seat 4: (free)",
    ]



def test_the_commitment_shows_while_the_round_is_open_and_the_seed_once_it_ended() -> None:
    fair = {"verifiable": True, "commitment": "c0" * 32, "round_number": 4, "decks": 8,
            "client_seed": "", "seat_seeds": [], "next_commitment": "d1" * 32,
            "server_seed": ""}
    text = render.shared_table(_state(fair=fair, next_commitment="d1" * 32), me="bob",
                               seats=1, currency="EUR", view=None, now=NOW)
    assert f"  Fair round 4: commitment {'c0' * 32}" in text.splitlines()
    idle = _state(phase="idle", fair=None, next_commitment="d1" * 32,
                  last_round={"round_id": "r1", "fair": {**fair, "server_seed": "5e" * 32}})
    lines = render.shared_table(idle, me="bob", seats=1, currency="EUR", view=None,
                                now=NOW).splitlines()
    assert f"  Next round's commitment: {'d1' * 32}" in lines
    assert f"  Last round r1: server seed {'5e' * 32}" in lines
    ev = render.table_event
    assert f"commitment SHA-256(server seed) = {'c0' * 32}" in str(
        ev("betting_opened", {"fair": fair}, "EUR"))
    assert "client seed (none)" in str(ev("betting_closed", {"fair": fair}, "EUR"))
    over = str(ev("round_finished", {"results": [], "fair": {**fair, "server_seed": "5e" * 32}},
                  "EUR"))
    assert f"server seed {'5e' * 32}" in over and "rgs verify" in over
    assert "does not verify" in str(ev("round_finished", {"results": [], "fair": {
        **fair, "verifiable": False}}, "EUR"))

def test_events_read_as_lines_and_quiet_ones_are_left_out() -> None:
    ev = render.table_event
    assert ev("behind_placed", {"player_id": "bob", "seat": 1, "stake": 500}, "EUR") == \
        "bob bets 5.00 EUR behind seat 1"
    assert ev("player_acted", {"seat": 1, "hand": 0, "action": "double"}, "EUR") == \
        "Seat 1 hand 1: double"
    assert ev("round_finished", {"results": [
        {"player_id": "ann", "staked": 2100, "paid": 4000}]}, "EUR") == \
        "Round over: ann staked 21.00 EUR paid 40.00 EUR"
    assert ev("card_dealt", {"card": "TC", "seat": None, "hand": 0}, "EUR") == \
        "Dealer gets 10♣"
    assert ev("card_dealt", {"card": "", "seat": None, "face_down": True}, "EUR") == \
        "Dealer: hole card, face down"
    assert ev("card_dealt", {"card": "5H", "seat": 3, "hand": 1}, "EUR", ascii_only=True) == \
        "Seat 3 hand 2 gets 5H"
    assert ev("dealer_peeked", {"blackjack": False}, "EUR") is None


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


def _event(seq: int, kind: str, **payload: Any) -> tb.WatchTableResponse:
    return tb.WatchTableResponse(event=tb.TableEvent(seq=seq, kind=kind,
                                                     payload_json=json.dumps(payload)))


class _Stub:
    def __init__(self) -> None:
        self.requests: list[tb.WatchTableRequest] = []

    def WatchTable(self, req: tb.WatchTableRequest, **_: Any) -> _Call:
        self.requests.append(req)
        if len(self.requests) == 1:
            return _Call([tb.WatchTableResponse(snapshot=tb.TableSnapshot(
                seq=5, state_json=json.dumps(_state()))),
                _event(6, "seat_taken", seat=2, player_id="cy"),
                _event(7, "bet_placed", seat=2, player_id="cy", stake=1000)], drop=True)
        # The resumed stream repeats nothing the server was asked to skip; the client would
        # drop a repeat anyway.
        return _Call([_event(7, "bet_placed", seat=2, player_id="cy", stake=1000),
                      _event(8, "deal_now", seat=2, player_id="cy")], drop=False)


def _player(stub: _Stub, out: list[str], keys: list[str] | None = None) -> TablePlayer:
    table = tb.TableInfo(table_id="vip-1", variant_id="vip-platinum", seats=7, currency="EUR",
                         main_min=1000, main_max=500000)
    feed = iter(keys or [])

    def ask(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return TablePlayer(stub=stub, token="t", table=table, player_id="bob",  # type: ignore[arg-type]
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
    assert lines == ["  · cy sits at seat 2", "  · cy bets 10.00 EUR on seat 2",
                     "  · connection lost (UNAVAILABLE); resuming after event 7…",
                     "  · cy (seat 2) pressed Deal Now"]


@pytest.mark.parametrize(("words", "message"), [
    (["bet", "10"], "take a seat first"),
    (["behind", "1"], "behind N AMOUNT"),
    (["behind", "1", "5", "ins", "maybe"], "ins takes never, always or ask"),
    (["bet"], "take a seat first"),
    (["x"], "'x' is not a command"),
])
async def test_bad_commands_say_what_to_type(words: list[str], message: str) -> None:
    player = _player(_Stub(), [])
    player.state = {**_state(), "seats": []}
    with pytest.raises(ValueError, match=message):
        await player.command(words)


async def test_the_loop_draws_the_table_reads_keys_and_leaves_on_q() -> None:
    out: list[str] = []
    player = _player(_Stub(), out, ["?", "", "q", "never read"])
    assert await player.run() == 0
    text = "\n".join(out)
    assert "Table vip-1 (vip-platinum, 7 seats): bets 10.00 EUR to 5,000.00 EUR" in text
    assert text.count("Commands:") == 2  # the help, then again for "?"
    assert "  Seat 1: ann  hot 2  bet 10.00 EUR + PP 1.00 EUR  [Deal Now]" in text
    assert out[-1] == "bye"


def _playing(hints: bool) -> dict[str, Any]:
    """A table whose round waits for bob (seat 3: 9 2 against a 6); the snapshot as the server
    makes it for a player whose brand shows hints, or for one whose brand does not."""
    rnd = Round.deal(VARIANTS["vip-platinum"], SequenceSource(["9S", "6D", "2C", "KD"]),
                     [BoxBet(seat=3, stake=1000, player="op/bob")])
    bob = Who(player_key="op/bob", operator_id="op", brand_id="b", player_id="bob",
              session_id="s")
    state = TableState(phase=TablePhase.PLAYING, round_id="r1", round_no=4,
                       seats=(Seat(seat=3, who=bob),))
    return dict(json.loads(public.snapshot("vip-1", 9, state, rnd, hints=hints)))


def test_the_decision_shows_each_choices_value_and_the_best_when_the_brand_shows_them() -> None:
    out: list[str] = []
    player = _player(_Stub(), out)
    player.state = _playing(hints=True)
    player.draw()
    player.draw()
    turn = [x for x in out if x.startswith("Your turn")]
    values = {h.action: h for h in public.hints_of(player.state["round"])}
    assert len(turn) == 2 and f"[d] double (10.00 EUR) EV " \
        f"{float(values[Action.DOUBLE].expected_value):+.3f} ★" in turn[0]
    assert f"[s] stand EV {float(values[Action.STAND].expected_value):+.3f}  " in turn[0]
    assert "\n".join(out).count("EV: what a decision returns") == 1  # said once
    out.clear()
    player.state = _playing(hints=False)
    player.draw()
    turn = [x for x in out if x.startswith("Your turn")]
    assert len(turn) == 1 and "[d] double (10.00 EUR)" in turn[0] and "EV" not in turn[0]
