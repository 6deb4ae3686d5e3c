"""Provably fair table rounds, the pure parts (rgs.service.tables.fairness and what a table
shows): which seed a round takes, the client seed fixed at close, the card order, and that the
server seed appears in no snapshot or event before the round ends."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from google.protobuf.json_format import MessageToJson

from rgs.api.table_messages import view_to_proto
from rgs.bootstrap import CertifiedCards
from rgs.codec import decode_value, encode_value
from rgs.rng.fair import card_order, commitment, table_client_seed
from rgs.service.tables import fairness, public
from rgs.service.tables.model import (
    Revealed,
    Seat,
    SeatBet,
    TablePhase,
    TableState,
    Who,
)

OLD, ROUND_FRESH, NEXT = bytes(range(32)), bytes(range(1, 33)), bytes(range(2, 34))
WHO = Who(player_key="op/ann", operator_id="op", brand_id="b", player_id="ann", session_id="s")


def _betting(state: TableState) -> TableState:
    fair, next_seed = fairness.open_round(state, round_no=state.round_no + 1, decks=8,
                                          fresh=(ROUND_FRESH, NEXT))
    return replace(state, phase=TablePhase.BETTING, round_no=state.round_no + 1,
                   round_id="r7", fair=fair, next_seed=next_seed,
                   seats=(Seat(seat=1, who=WHO),),
                   bets=(SeatBet(seat=1, stake=1000, client_seed="ann's seed"),))


def test_a_round_takes_the_tables_committed_seed_and_commits_a_fresh_next_one() -> None:
    idle = TableState(round_no=6, next_seed=OLD.hex())
    assert fairness.next_commitment(idle) == commitment(OLD)
    s = _betting(idle)
    assert s.fair is not None
    assert (s.fair.server_seed, s.fair.commitment) == (OLD.hex(), commitment(OLD))
    assert (s.fair.round_number, s.fair.decks) == (7, 8)
    assert s.next_seed == NEXT.hex() and s.fair.next_commitment == commitment(NEXT)
    # A table without a committed seed (one opened before provably fair tables) uses fresh[0].
    fresh = _betting(TableState(round_no=6))
    assert fresh.fair is not None and fresh.fair.server_seed == ROUND_FRESH.hex()


def test_closing_fixes_the_client_seed_and_the_order_is_rgs_rng_fairs() -> None:
    s = _betting(TableState(next_seed=OLD.hex()))
    assert s.fair is not None and s.fair.client_seed == ""
    bets = (SeatBet(seat=3, stake=1, client_seed="bob"), SeatBet(seat=1, stake=1,
                                                                  client_seed="ann"),
            SeatBet(seat=2, stake=1))
    closed = fairness.close(s.fair, bets, forced=False)
    assert closed.seat_seeds == ((1, "ann"), (3, "bob"))
    assert closed.client_seed == table_client_seed([(1, "ann"), (3, "bob")])
    assert closed.verifiable
    src = fairness.source(CertifiedCards(), closed)
    assert [src.draw() for _ in range(20)] == card_order(OLD, closed.client_seed, 1, 8)[:20]
    assert not fairness.close(s.fair, bets, forced=True).verifiable


def _shown(seq: int, state: TableState) -> dict[str, Any]:
    """The snapshot a player receives, as JSON."""
    msg = view_to_proto(public.view("t", seq, state, None), "op/ann")
    return dict(json.loads(MessageToJson(msg, preserving_proto_field_name=True)))


def test_the_seed_is_in_no_snapshot_or_event_until_the_round_ends() -> None:
    s = _betting(TableState(next_seed=OLD.hex()))
    assert s.fair is not None
    closed = replace(s, fair=fairness.close(s.fair, s.bets, forced=False))
    for state in (TableState(next_seed=OLD.hex()), s, closed):
        text = json.dumps(_shown(3, state))
        assert OLD.hex() not in text and NEXT.hex() not in text
    snap = _shown(3, closed)
    assert snap["fair"]["commitment"] == commitment(OLD)
    assert snap["fair"].get("server_seed", "") == ""
    assert snap["next_commitment"] == commitment(NEXT)
    assert snap["bets"][0]["client_seed"] == "ann's seed"
    assert closed.fair is not None
    shown = fairness.public(closed.fair, revealed=False)
    assert OLD.hex() not in json.dumps(shown)
    # Once it ended: the idle table reveals it and keeps the next seed secret and committed.
    idle = fairness.idle_after(closed, seats=closed.seats, fair=closed.fair)
    assert idle.phase is TablePhase.IDLE and idle.next_seed == NEXT.hex() and idle.fair is None
    assert idle.revealed == Revealed(round_id="r7", fair=closed.fair)
    after = _shown(9, idle)
    assert after["last_round"]["fair"]["server_seed"] == OLD.hex()
    assert "fair" not in after and after["next_commitment"] == commitment(NEXT)
    assert NEXT.hex() not in json.dumps(after)


def test_the_state_keeps_its_seeds_through_the_journal_codec_and_reads_old_rows() -> None:
    s = _betting(TableState(next_seed=OLD.hex()))
    assert decode_value(TableState, encode_value(s)) == s
    old_row = json.loads(encode_value(TableState(round_no=4)))
    for name in ("next_seed", "fair", "revealed"):
        old_row.pop(name)
    assert decode_value(TableState, json.dumps(old_row)) == TableState(round_no=4)
