"""What the table shows everyone: its snapshot and its public events (no hole card before it is
turned over, no player key: players are shown by their id). A snapshot made for a player whose
brand turns hints on also carries the exact value of every open decision
(:mod:`rgs.service.advice`): the same for every viewer, shown only to those brands' players."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from rgs.codec import encode_event, event_kind, to_jsonable
from rgs.engine import Action, CardDealt, Event, Round
from rgs.service import advice
from rgs.service.model import Hint
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


#: The keys a hints snapshot adds to an open decision's allowed action.
HINT_KEYS = ("expected_value", "best", "fair_value")


def snapshot(table_id: str, seq: int, state: TableState, rnd: Round | None, *,
             hints: bool = False) -> str:
    """The table as a watcher first sees it (then its events above ``seq``); with ``hints``
    (the caller's brand turns them on) each open decision's allowed actions carry their exact
    value."""
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
        "round": _round(rnd, hints) if rnd is not None else None,
        **fairness.snapshot_fields(state),
    }
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def _round(rnd: Round, hints: bool) -> dict[str, Any]:
    """The round's view; with ``hints``, every allowed action of an open decision (a box's
    insurance, the hand to act) with ``expected_value`` (main bets), ``best`` and, on Cash Out,
    ``fair_value`` (minor units), as :func:`rgs.service.advice.hints` computes them."""
    view = rnd.view()
    data: dict[str, Any] = to_jsonable(view)
    if not hints:
        return data
    by_decision = {(h.seat, h.hand, h.action.value): h for h in advice.hints(rnd.rules, view)}
    for box in data["boxes"]:
        lists = [(0, box["insurance_allowed"])]
        lists += [(hand["index"], hand["allowed"]) for hand in box["hands"]]
        for index, allowed in lists:
            for a in allowed:
                h = by_decision.get((box["seat"], index, a["action"]))
                if h is None:
                    continue
                a["expected_value"] = float(h.expected_value)
                a["best"] = h.best
                if h.action is Action.CASH_OUT:
                    a["fair_value"] = h.fair_value
    return data


def without_hints(snapshot_json: str) -> str:
    """A snapshot with any decision values taken out (a stored answer replayed to a player
    whose brand does not show them)."""
    data = json.loads(snapshot_json)
    found = False
    for box in (data.get("round") or {}).get("boxes", []):
        for allowed in (box["insurance_allowed"], *(h["allowed"] for h in box["hands"])):
            for a in allowed:
                for k in HINT_KEYS:
                    found = a.pop(k, None) is not None or found
    if not found:
        return snapshot_json
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def hints_of(round_json: dict[str, Any]) -> tuple[Hint, ...]:
    """The decision values a snapshot's round carries (none without hints): what a client
    reads back into :class:`~rgs.service.model.Hint` to show them as a solo round's."""
    out = []
    for box in round_json.get("boxes", []):
        lists = [(0, box.get("insurance_allowed", []))]
        lists += [(h["index"], h.get("allowed", [])) for h in box.get("hands", [])]
        for index, allowed in lists:
            out += [Hint(seat=box["seat"], hand=index, action=Action(a["action"]),
                         expected_value=Fraction(a["expected_value"]), best=bool(a.get("best")),
                         fair_value=int(a.get("fair_value", 0)))
                    for a in allowed if "expected_value" in a]
    return tuple(out)
