"""Each table event is rendered once per replica for the watchers it does not name
(rgs.api.table_messages.RenderedEvents); a watcher it names gets its own rendering, with "you"."""

from __future__ import annotations

import orjson

from rgs.api.table_messages import RenderedEvents, event_to_proto, without_superseded_totals
from rgs.service.tables.model import TableEvent

ANN = "dev-operator/ann"


def _event(seq: int, key: str) -> TableEvent:
    payload = orjson.dumps({"seat": 2, "player": {"key": key, "name": "Ann"}}).decode()
    return TableEvent(table_id="vip-1", seq=seq, kind="seat_taken", payload=payload)


def test_an_event_is_rendered_once_for_everyone_it_does_not_name() -> None:
    rendered = RenderedEvents()
    e = _event(7, ANN)
    for_bob = rendered.for_viewer(e, "dev-operator/bob")
    assert rendered.for_viewer(e, "other-operator/cy") is for_bob  # the shared rendering
    assert for_bob is not None and for_bob == event_to_proto(e, "dev-operator/bob")
    assert not for_bob.seat_taken.player.you


def test_the_player_an_event_names_gets_it_with_you_marked() -> None:
    rendered = RenderedEvents()
    e = _event(8, ANN)
    rendered.for_viewer(e, "dev-operator/bob")
    mine = rendered.for_viewer(e, ANN)
    assert mine is not None and mine.seat_taken.player.you and mine == event_to_proto(e, ANN)
    odd = 'dev-operator/a"b'  # a key JSON escapes: always rendered for its player
    theirs = rendered.for_viewer(_event(9, odd), odd)
    assert theirs is not None and theirs.seat_taken.player.you


def _finished(seq: int, keys: list[str]) -> TableEvent:
    """A crowded round's end: two seats, then a Bet Behind result for each of ``keys`` (the
    second seat's player also betting behind seat 1)."""
    results = [{"player": {"key": ANN, "name": "Ann"}, "staked": 1000, "paid": 2000,
                "seated": True},
               {"player": {"key": keys[0], "name": "Bo"}, "staked": 500, "paid": 0,
                "seated": False},
               {"player": {"key": "dev-operator/seat2", "name": "Cy"}, "staked": 1000,
                "paid": 0, "seated": True}]
    results += [{"player": {"key": k, "name": f"P{i}"}, "staked": 100 + i, "paid": 0,
                 "seated": False} for i, k in enumerate(keys)]
    payload = orjson.dumps({"round_id": "r9", "results": results, "hot": []}).decode()
    return TableEvent(table_id="vip-1", seq=seq, kind="round_finished", payload=payload)


def test_a_crowded_rounds_end_is_the_same_for_each_player_as_rendered_alone() -> None:
    # The round's results are read once for all its players (a thousand Bet Behind players
    # each named in it), and each still gets the seats' results and their own, in order.
    keys = [f"other-operator/b{i}" for i in range(50)]
    e = _finished(11, keys)
    rendered = RenderedEvents()
    for viewer in (keys[0], keys[7], ANN, "dev-operator/seat2", "dev-operator/nobody"):
        got = rendered.for_viewer(e, viewer)
        assert got is not None and got == event_to_proto(e, viewer)
    mine = rendered.for_viewer(e, keys[0])
    assert mine is not None
    assert [(r.staked, r.player.you) for r in mine.round_finished.results] == [
        (1000, False), (500, True), (1000, False), (100, True)]


def test_a_batch_keeps_only_its_newest_bet_behind_totals() -> None:
    def ev(seq: int, kind: str) -> TableEvent:
        return TableEvent(table_id="vip-1", seq=seq, kind=kind, payload="{}")
    batch = [ev(1, "behind_totals"), ev(2, "seat_taken"), ev(3, "behind_totals"),
             ev(4, "betting_closed")]
    assert [e.seq for e in without_superseded_totals(batch)] == [2, 3, 4]
    assert [e.seq for e in without_superseded_totals(batch[:2])] == [1, 2]
    assert without_superseded_totals([]) == []
