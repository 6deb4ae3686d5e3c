"""What the table shows everyone: its snapshot and its public events (no hole card before it is
turned over, no player key: players are shown by their id)."""

from __future__ import annotations

import json
from typing import Any

from rgs.codec import encode_event, event_kind, to_jsonable
from rgs.engine import CardDealt, Event, Round
from rgs.service.tables import fairness
from rgs.service.tables.model import TableState


def event(kind: str, **fields: Any) -> tuple[str, str]:
    """A table event (kind, payload JSON)."""
    return kind, json.dumps(fields, separators=(",", ":"), sort_keys=True, default=str)


def round_events(events: tuple[Event, ...] | list[Event]) -> list[tuple[str, str]]:
    """Engine events as public table events; the hole card is shown face down."""
    out = []
    for e in events:
        if isinstance(e, CardDealt) and e.face_down:
            out.append(event("card_dealt", card="", seat=None, hand=0, face_down=True))
        else:
            out.append((event_kind(e), encode_event(e)))
    return out


def snapshot(table_id: str, seq: int, state: TableState, rnd: Round | None) -> str:
    """The table as a watcher first sees it (then its events above ``seq``)."""
    data = {
        "table_id": table_id,
        "seq": seq,
        "phase": state.phase.value,
        "round_id": state.round_id,
        "round_no": state.round_no,
        "deadline": state.deadline.isoformat() if state.deadline else None,
        "seats": [{"seat": s.seat, "player_id": s.who.player_id, "hot": s.hot}
                  for s in state.seats],
        "bets": [{"seat": b.seat, "stake": b.stake, "perfect_pairs": b.perfect_pairs,
                  "twenty_one_plus_three": b.twenty_one_plus_three,
                  "twenty_plus": b.twenty_plus, "deal_now": b.deal_now,
                  "client_seed": b.client_seed} for b in state.bets],
        "behind": [{"seat": b.seat, "player_id": b.who.player_id, "stake": b.stake,
                    "follow_double": b.follow_double, "follow_split": b.follow_split,
                    "insurance": b.insurance.value} for b in state.behind],
        "round": to_jsonable(rnd.view()) if rnd is not None else None,
        **fairness.snapshot_fields(state),
    }
    return json.dumps(data, separators=(",", ":"), sort_keys=True)
