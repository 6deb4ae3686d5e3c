"""Each table event is rendered once per replica for the watchers it does not name
(rgs.api.table_messages.RenderedEvents); a watcher it names gets its own rendering, with "you"."""

from __future__ import annotations

import orjson

from rgs.api.table_messages import RenderedEvents, event_to_proto
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
