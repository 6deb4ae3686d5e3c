"""A seat's life, the pure rules (rgs.service.tables.seats): when a seat is given back, what
goes back with it, and what keeps it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from rgs.engine import TableLimits
from rgs.service.tables import seats
from rgs.service.tables.model import (
    Behind,
    Seat,
    SeatBet,
    SeatRelease,
    TableConfig,
    TablePhase,
    TableState,
    Watching,
    Who,
)
from rgs.service.tables.turns import Step

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CFG = TableConfig(id="vip", variant="vip-platinum", seats=7, currency="EUR",
                  limits=TableLimits(main_min=1000, main_max=500000, side_min=100,
                                     side_max=50000),
                  brands=("b",), betting_s=15, decision_s=15, sit_out_rounds=3, away_s=60)


def _who(name: str, session: str = "s") -> Who:
    return Who(player_key=f"op/{name}", operator_id="op", brand_id="b", player_id=name,
               session_id=f"{session}-{name}")


def _seat(n: int, name: str, *, seen_s_ago: float = 0, expires_in_s: float = 3600,
          **more: object) -> Seat:
    return Seat(seat=n, who=_who(name), seen_at=NOW - timedelta(seconds=seen_s_ago),
                expires_at=NOW + timedelta(seconds=expires_in_s), **more)  # type: ignore[arg-type]


def test_a_seat_is_given_back_when_its_player_is_away_and_kept_while_they_watch() -> None:
    s = TableState(seats=(_seat(1, "ann", seen_s_ago=61), _seat(2, "bob", seen_s_ago=61),
                          _seat(3, "cy", seen_s_ago=59)))
    watching = {"op/bob": Watching(player_key="op/bob", seen_at=NOW - timedelta(seconds=3))}
    assert seats.idle_seats(CFG, s, watching, NOW) == {1: SeatRelease.AWAY}


def test_a_seat_with_its_bet_in_play_is_never_given_back_for_being_away() -> None:
    s = TableState(phase=TablePhase.PLAYING, round_id="r",
                   seats=(_seat(1, "ann", seen_s_ago=600, expires_in_s=-5),),
                   bets=(SeatBet(seat=1, stake=1000),))
    assert seats.idle_seats(CFG, s, {}, NOW) == {}
    # ... and when the round is over (the bet gone), it is.
    assert seats.idle_seats(CFG, replace(s, phase=TablePhase.IDLE, bets=()), {}, NOW) == {
        1: SeatRelease.SESSION_EXPIRED}


def test_an_expired_session_gives_the_seat_back_unless_a_newer_one_watches() -> None:
    s = TableState(seats=(_seat(1, "ann", expires_in_s=-1), _seat(2, "bob", expires_in_s=-1)))
    newer = {"op/bob": Watching(player_key="op/bob", seen_at=NOW,
                                expires_at=NOW + timedelta(hours=4))}
    assert seats.idle_seats(CFG, s, newer, NOW) == {1: SeatRelease.SESSION_EXPIRED}


def test_sit_outs_count_dealt_rounds_in_a_row_and_a_bet_resets_them() -> None:
    s = TableState(phase=TablePhase.BETTING, round_id="r",
                   seats=(_seat(1, "ann", sat_out=2), _seat(2, "bob", sat_out=1),
                          _seat(3, "cy", sat_out=2)),
                   bets=(SeatBet(seat=3, stake=1000),))
    after, gone = seats.count_sit_outs(CFG, s)
    assert {x.seat: x.sat_out for x in after.seats} == {1: 3, 2: 2, 3: 0}
    assert gone == {1: SeatRelease.SAT_OUT}


def test_a_seat_given_back_while_bets_are_taken_returns_its_bets_behind() -> None:
    behind = Behind(seat=1, who=_who("dee"), stake=500, debit="r9:bb1xdee:debit")
    other = Behind(seat=2, who=_who("eve"), stake=700, debit="r9:bb2xeve:debit")
    s = TableState(phase=TablePhase.BETTING, round_id="r9",
                   seats=(_seat(1, "ann"), _seat(2, "bob")), behind=(behind, other))
    step = Step(state=s)
    after = seats.release(CFG, s, {1: SeatRelease.LEFT}, step)
    assert [x.seat for x in after.seats] == [2] and after.behind == (other,)
    (key, refund), = step.movements
    assert key == "op/dee" and refund.amount == 500
    assert refund.debit_transaction_id == "r9:bb1xdee:debit"  # the rollback of its debit
    kinds = [k for k, _ in step.events]
    assert kinds == ["seat_left", "behind_refunded"]


def test_touch_marks_the_seat_seen_and_plays_it_with_the_players_newest_session() -> None:
    s = TableState(seats=(_seat(1, "ann", seen_s_ago=50), _seat(2, "bob", seen_s_ago=50)))
    later = NOW + timedelta(hours=4)
    fresh = _who("ann", session="new")
    after = seats.touch(s, fresh, now=NOW, expires_at=later)
    ann, bob = after.seats
    assert ann.who == fresh and ann.seen_at == NOW and ann.expires_at == later
    assert bob == s.seats[1]
    assert seats.touch(s, _who("zed"), now=NOW, expires_at=later) is s


def test_the_seats_left_during_a_round_are_the_ones_marked_leaving() -> None:
    s = TableState(seats=(_seat(1, "ann", leaving=True), _seat(2, "bob")))
    assert seats.leaving(s) == {1: SeatRelease.LEFT}
