"""What a player at a shared table is shown of the other players' Bet Behinds (issue 27): the
seats' totals, their own Bet Behinds, the seated players' results and their own; another
player's Bet Behind events are not sent to them. Nothing names another operator's player
by id."""

from __future__ import annotations

import json

from rgs.api.table_messages import RenderedEvents, event_to_proto, for_viewer, view_to_proto
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.service.tables import public
from rgs.service.tables.announce import announcement, at_close
from rgs.service.tables.model import (
    Behind,
    Seat,
    SeatBet,
    TableEvent,
    TablePhase,
    TableState,
    Who,
)
from rgs.service.tables.turns import View

T = "vip-1"
SEATED = Who(player_key="op-a/ann", operator_id="op-a", brand_id="a", player_id="ann",
             session_id="s", name="Ann")


def _who(key: str) -> Who:
    op, _, pid = key.partition("/")
    return Who(player_key=key, operator_id=op, brand_id="b", player_id=pid, session_id="s")


BACKERS = [_who(f"op-{'ab'[i % 2]}/backer-{i}") for i in range(6)]
STATE = TableState(
    phase=TablePhase.BETTING, round_no=3, round_id="r3",
    seats=(Seat(seat=1, who=SEATED),), bets=(SeatBet(seat=1, stake=1000),),
    behind=tuple(Behind(seat=1 if i < 4 else 2, who=w, stake=1000 * (i + 1))
                 for i, w in enumerate(BACKERS)))


def _event(kind: str, **fields: object) -> TableEvent:
    k, payload = public.event(kind, **fields)
    return TableEvent(table_id=T, seq=7, kind=k, payload=payload)


def test_a_snapshot_shows_the_viewers_own_bets_behind_and_every_seats_totals() -> None:
    view = public.view(T, 5, STATE, None)
    me = BACKERS[1]
    snap = view_to_proto(view, me.player_key)
    assert [(b.seat, b.stake, b.player.you) for b in snap.behind] == [(1, 2000, True)]
    assert [(t.seat, t.bettors, t.staked) for t in snap.behind_totals] == [
        (1, 4, 1000 + 2000 + 3000 + 4000), (2, 2, 5000 + 6000)]
    # The seated player is shown (by name), the other Bet Behind players are not.
    assert [s.player.display_name for s in snap.seats] == ["Ann"]
    text = snap.SerializeToString()
    for other in (w for w in BACKERS if w is not me):
        assert other.player_id.encode() not in text
        assert public.name_of(T, other).encode() not in text


def test_another_players_bet_behind_event_is_not_sent_to_them() -> None:
    mine, theirs = BACKERS[0], BACKERS[1]
    rendered = RenderedEvents()
    ev = _event("behind_placed", seat=1, player=public.player(T, theirs), stake=2000,
                follow_double=False, follow_split=False, insurance="never")
    assert event_to_proto(ev, mine.player_key) is None
    assert rendered.for_viewer(ev, mine.player_key) is None
    own = event_to_proto(ev, theirs.player_key)
    assert own is not None and own.seq == 7
    assert own.WhichOneof("event") == "behind_placed" and own.behind_placed.player.you
    own = rendered.for_viewer(ev, theirs.player_key)
    assert own is not None and own.WhichOneof("event") == "behind_placed"
    settled = _event("behind_settled", seat=1, hand=0, stake=2000, payout=4000,
                     outcome="win", player=public.player(T, theirs))
    assert event_to_proto(settled, mine.player_key) is None
    decided = _event("insurance_decided", seat=1, behind=True, take=True,
                     player=public.player(T, theirs))
    assert event_to_proto(decided, mine.player_key) is None
    # A seat's own decision is everyone's.
    seat = _event("insurance_decided", seat=1, behind=False, take=True,
                  player=public.player(T, SEATED))
    shown = RenderedEvents().for_viewer(seat, mine.player_key)  # (the same number as above)
    assert shown is not None and shown.WhichOneof("event") == "insurance_decided"


def test_round_results_list_the_seated_players_and_the_viewers_own() -> None:
    results = [{"player": public.player(T, SEATED), "staked": 1000, "paid": 2000,
                "seated": True}]
    results += [{"player": public.player(T, w), "staked": 1000, "paid": 2000, "seated": False}
                for w in BACKERS]
    data = {"round_id": "r3", "results": results, "hot": []}
    me = BACKERS[2].player_key
    kept = for_viewer("round_finished", data, me)
    assert kept is not None
    assert [r["player"]["key"] for r in kept["results"]] == [SEATED.player_key, me]
    shown = event_to_proto(TableEvent(table_id=T, seq=9, kind="round_finished",
                                      payload=json.dumps(data)), me)
    assert [(r.player.display_name == "Ann", r.player.you)
            for r in shown.round_finished.results] == [(True, False), (False, True)]
    # A result of a release before `seated` is everyone's, as it was.
    old = {**data, "results": [{k: v for k, v in r.items() if k != "seated"}
                               for r in results]}
    assert len((for_viewer("round_finished", old, me) or {})["results"]) == 7


def test_the_totals_are_announced_once_per_change_of_the_round() -> None:
    first = announcement(View(table_id=T, seq=5, state=STATE, round=None))
    assert first is not None
    kind, payload = first.step.events[0]
    assert kind == "behind_totals" and json.loads(payload) == {
        "round_id": "r3", "seats": [{"seat": 1, "bettors": 4, "staked": 10000},
                                    {"seat": 2, "bettors": 2, "staked": 11000}]}
    after = first.step.state
    assert announcement(View(table_id=T, seq=6, state=after, round=None)) is None
    shown = event_to_proto(TableEvent(table_id=T, seq=6, kind=kind, payload=payload),
                           BACKERS[0].player_key)
    assert [(x.seat, x.bettors, x.staked) for x in shown.behind_totals.seats] == [
        (1, 4, 10000), (2, 2, 11000)]
    # The next round's same totals are announced again; nothing while not betting.
    again = TableState(**{**{f: getattr(after, f) for f in after.__dataclass_fields__},
                          "round_id": "r4"})
    assert announcement(View(table_id=T, seq=6, state=again, round=None)) is not None
    playing = TableState(phase=TablePhase.PLAYING, round_id="r3", behind=STATE.behind)
    assert announcement(View(table_id=T, seq=6, state=playing, round=None)) is None
    # Betting closes: the totals of the Bet Behinds dealt are announced if they changed.
    assert at_close(after, STATE.behind) == (None, after)
    closing, remembered = at_close(after, STATE.behind[:4])
    assert closing is not None and json.loads(closing[1])["seats"] == [
        {"seat": 1, "bettors": 4, "staked": 10000}]
    assert remembered.announced == ((1, 4, 10000),)
    assert at_close(STATE, ()) == (None, STATE)
    assert tb.TableEvent.DESCRIPTOR.fields_by_name["behind_totals"].number == 38


def _batch(*events: tuple[str, dict[str, object]]) -> list[TableEvent]:
    out = []
    for seq, (kind, fields) in enumerate(events, start=20):
        k, payload = public.event(kind, **fields)
        out.append(TableEvent(table_id=T, seq=seq, kind=k, payload=payload))
    return out


def test_a_batch_is_one_shared_message_for_every_watcher_it_does_not_name() -> None:
    """A round's end: the seat's results, every Bet Behind's own insurance decision and
    settlement, the totals twice. Each watcher gets exactly what the event-by-event rendering
    gives them; every watcher the batch does not name gets one message made once."""
    batch = _batch(
        ("behind_totals", {"round_id": "r3", "seats": [{"seat": 1, "bettors": 4,
                                                        "staked": 10_000}]}),
        *(("insurance_decided", {"seat": 1, "player": public.player(T, w), "behind": True,
                                 "take": i % 2 == 0}) for i, w in enumerate(BACKERS)),
        ("insurance_decided", {"seat": 1, "player": public.player(T, SEATED),
                               "behind": False, "take": True}),
        *(("behind_settled", {"seat": 1, "hand": 0, "player": public.player(T, w),
                              "outcome": "win", "stake": 1000, "payout": 2000})
          for w in BACKERS),
        ("behind_totals", {"round_id": "r3", "seats": [{"seat": 1, "bettors": 5,
                                                        "staked": 11_000}]}))
    rendered = RenderedEvents()

    def one_by_one(viewer: str) -> list[bytes]:
        kept = [e for e in batch if e.kind != "behind_totals" or e is batch[-1]]
        return [m.SerializeToString() for e in kept
                if (m := event_to_proto(e, viewer)) is not None]

    outsider = "op-c/watcher"
    shared = rendered.for_batch(batch, outsider)
    assert shared is not None
    assert [m.SerializeToString() for m in shared.events] == one_by_one(outsider)
    # The seat's decision and the newest totals only: no Bet Behind's own event.
    assert [m.WhichOneof("event") for m in shared.events] == ["insurance_decided",
                                                             "behind_totals"]
    assert rendered.for_batch(list(batch), "op-c/another") is shared  # made once
    for w in (*BACKERS, SEATED):
        mine = rendered.for_batch(batch, w.player_key)
        assert mine is not None and mine is not shared
        assert [m.SerializeToString() for m in mine.events] == one_by_one(w.player_key)
    own = rendered.for_batch(batch, BACKERS[2].player_key)
    assert own is not None
    assert [(m.WhichOneof("event"), m.insurance_decided.player.you) for m in own.events
            if m.WhichOneof("event") == "insurance_decided"] == [
        ("insurance_decided", True), ("insurance_decided", False)]
    assert rendered.for_batch([], outsider) is None
    assert rendered.for_batch(batch[1:3], outsider) is None  # two Bet Behinds' own: nothing
