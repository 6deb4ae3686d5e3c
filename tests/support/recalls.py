"""Round recalls as the operator gets them, made offline: a round played by the engine on the card
order of given seeds (the service's own fair source), turned into a ``GetPlayerRound`` answer or
a ``GetTableRound`` answer by the very converters the servers use
(:func:`rgs.api.converters.round_record_to_proto`, :func:`rgs.api.table_messages.recall_events`)
and printed as JSON the way grpcurl and ``MessageToJson`` print them."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.json_format import MessageToJson

from rgs.api.converters import round_record_to_proto
from rgs.api.table_messages import recall_events
from rgs.codec import encode_event, event_kind
from rgs.engine import BoxBet, Round, TableLimits
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.rng.fair import commitment, fair_source, table_client_seed
from rgs.service.model import FairRecord, RoundSummary, StoredRound
from rgs.service.tables.model import TableFair
from rgs.service.tables.ports import RoundRecord
from rgs.variants import VARIANTS

SEED = bytes(range(32))
OPERATOR = "dev-operator"

#: Plays a dealt round to its end (a strategy: the round's decisions).
Play = Callable[[Round], None]


def stand_all(rnd: Round) -> None:
    """Decline insurance, then stand every hand."""
    while not rnd.finished:
        for box in rnd.view().boxes:
            if box.insurance_allowed:
                rnd.insure(box.seat, take=False)
        if rnd.to_act is not None:
            rnd.stand(*rnd.to_act)


def _json(msg: Any, proto_names: bool = True) -> dict[str, Any]:
    """As grpcurl prints it (the proto's field names), or with JSON's camelCase names."""
    return dict(json.loads(MessageToJson(msg, preserving_proto_field_name=proto_names)))


def solo_recall(variant: str, boxes: Sequence[BoxBet], play: Play = stand_all, *,
                seed: bytes = SEED, client_seed: str = "", round_number: int = 1,
                currency: str = "EUR", proto_names: bool = True) -> dict[str, Any]:
    """A settled solo round's GetPlayerRound answer as JSON (``proto_names``: the proto's field
    names, as grpcurl prints them; else camelCase)."""
    rules = VARIANTS[variant]
    rnd = Round.deal(rules, fair_source(seed, client_seed, round_number, rules.decks),
                     list(boxes))
    play(rnd)
    stored = StoredRound(
        round_id=f"r-{variant}-{round_number}", player_key=f"{OPERATOR}/p-1", session_id="s-1",
        operator_id=OPERATOR, brand_id="demo-casino", player_id="p-1", currency=currency,
        variant=variant, seq=rnd.seq, status=rnd.phase.value, forced_cards=(),
        total_staked=rnd.total_staked, total_paid=rnd.total_paid, events=rnd.events,
        fair=FairRecord(server_seed=seed.hex(), commitment=commitment(seed),
                        client_seed=client_seed, round_number=round_number, decks=rules.decks,
                        next_commitment=commitment(bytes(32))))
    rec = round_record_to_proto(RoundSummary(round=stored, movements=()))
    return _json(op.GetPlayerRoundResponse(round=rec), proto_names)


def table_round(variant: str, boxes: Sequence[BoxBet], play: Play = stand_all, *,
                seed: bytes = SEED, seat_seeds: Sequence[tuple[int, str]] = (),
                round_no: int = 12) -> tuple[Round, RoundRecord]:
    """A shared table round played to its end, and its journal row."""
    rules = VARIANTS[variant]
    client = table_client_seed(seat_seeds)
    rnd = Round.deal(rules, fair_source(seed, client, round_no, rules.decks), list(boxes),
                     TableLimits(main_min=100, main_max=100_000, side_min=100,
                                 side_max=10_000))
    play(rnd)
    money = rnd.money_by_player()
    fair = TableFair(server_seed=seed.hex(), commitment=commitment(seed), round_number=round_no,
                     decks=rules.decks, client_seed=client, seat_seeds=tuple(seat_seeds),
                     next_commitment=commitment(bytes(32)), verifiable=True)
    keys = {b.player for b in boxes} | {x.player for b in boxes for x in b.behind}
    rec = RoundRecord(
        round_id=f"t-{variant}-{round_no}", round_no=round_no, variant=variant,
        status=rnd.phase.value, table_id="vip-1",
        events=tuple((event_kind(e), encode_event(e)) for e in rnd.events), fair=fair,
        players=tuple((k, k.partition("/")[0], *money[k]) for k in sorted(keys)),
        names=tuple((k, f"Nick {k.partition('/')[2]}") for k in sorted(keys)))
    return rnd, rec


def table_recall(rec: RoundRecord, operator: str = OPERATOR, *,
                 typed: bool = True) -> dict[str, Any]:
    """The GetTableRound answer ``operator`` gets, as JSON (``typed``: this release's events;
    else an earlier release's ``events_json``, the engine's events)."""
    f = rec.fair
    assert f is not None
    msg = tb.GetTableRoundResponse(
        round_id=rec.round_id, round_no=rec.round_no, variant_id=rec.variant,
        status=rec.status,
        players=[tb.PlayerShare(player_id=key.partition("/")[2], staked=staked, paid=paid)
                 for key, op_id, staked, paid in rec.players if op_id == operator],
        fair=tb.TableFairness(
            verifiable=True, commitment=f.commitment, client_seed=f.client_seed,
            round_number=f.round_number, decks=f.decks, server_seed=f.server_seed,
            next_commitment=f.next_commitment,
            seat_seeds=[tb.SeatClientSeed(seat=s, client_seed=c) for s, c in f.seat_seeds]))
    if typed:
        msg.events.extend(recall_events(rec.table_id, rec, operator))
        return _json(msg)
    doc = _json(msg)
    doc["events_json"] = json.dumps([[k, json.loads(p)] for k, p in rec.events])
    return doc


# --------------------------------------------------------------------------- tampering
#
# What a hostile probe did to recalls that the release checking only the cards' order passed
# as FAIR. Each changes the recall the way a careful forger would (a solo step's own fields,
# its detail_json and the round's totals alike) and says whether the recall had what it
# changes.

Tamper = Callable[[dict[str, Any]], bool]


def _steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = doc["round"]["steps"]
    return steps


def detail(step: dict[str, Any]) -> dict[str, Any]:
    """A solo step's event (its detail_json)."""
    d: dict[str, Any] = json.loads(step["detail_json"])
    return d


def set_step(step: dict[str, Any], **fields: Any) -> None:
    """Change a solo step's event: its detail and its own fields alike."""
    d = detail(step)
    d.update(fields)
    step["detail_json"] = json.dumps(d, sort_keys=True)
    for name in ("hand", "card"):
        if name in fields:
            step[name] = fields[name]
    if "seat" in fields:
        step["seat"] = fields["seat"] or 0
    if "payout" in fields:
        step["amount"] = str(fields["payout"])


def _pay_more(doc: dict[str, Any], more: int) -> None:
    """Add ``more`` to what a solo round paid, everywhere it is stated."""
    rnd = doc["round"]
    rnd["total_paid"] = str(int(rnd.get("total_paid", 0)) + more)
    last = next(s for s in _steps(doc) if s["kind"] == "round_settled")
    set_step(last, total_paid=detail(last)["total_paid"] + more)


def _solo_drop_last_card(doc: dict[str, Any]) -> bool:
    steps = _steps(doc)
    del steps[max(i for i, s in enumerate(steps) if s["kind"] == "card_dealt")]
    return True


def _solo_swap_seats(doc: dict[str, Any]) -> bool:
    cards = [s for s in _steps(doc) if s["kind"] == "card_dealt"]
    first = cards[0]
    other = next(s for s in cards if detail(s)["seat"] != detail(first)["seat"])
    a, b = detail(first), detail(other)
    set_step(first, seat=b["seat"], hand=b["hand"])
    set_step(other, seat=a["seat"], hand=a["hand"])
    return True


def _solo_inflate_payout(doc: dict[str, Any]) -> bool:
    hand = next(s for s in _steps(doc) if s["kind"] == "hand_settled")
    more = detail(hand)["payout"] + 100
    set_step(hand, payout=detail(hand)["payout"] + more)
    _pay_more(doc, more)
    return True


def _solo_change_outcome(doc: dict[str, Any]) -> bool:
    hand = next(s for s in _steps(doc) if s["kind"] == "hand_settled")
    d = detail(hand)
    lost = d["outcome"] in ("lose", "bust")
    outcome, payout = ("win", 2 * d["stake"]) if lost else ("lose", 0)
    set_step(hand, outcome=outcome, payout=payout)
    _pay_more(doc, payout - d["payout"])
    return True


def _solo_inflate_side_bet(doc: dict[str, Any]) -> bool:
    side = next((s for s in _steps(doc) if s["kind"] == "side_bet_settled"), None)
    if side is None:
        return False
    d = detail(side)
    payout = 26 * d["stake"] if d["line"] == "lose" else 2 * d["payout"]
    set_step(side, line="perfect_pair" if d["line"] == "lose" else d["line"], pays=25,
             payout=payout)
    _pay_more(doc, payout - d["payout"])
    return True


#: Each probe on a solo recall: (tamper, words the verdict must name it with).
SOLO_TAMPERING: dict[str, tuple[Tamper, str]] = {
    "last dealt card removed": (_solo_drop_last_card, "the recall leaves out card "),
    "two cards swapped between seats": (_solo_swap_seats, "card 1 ("),
    "a payout inflated": (_solo_inflate_payout, "the recall says seat 1"),
    "a hand's outcome changed": (_solo_change_outcome, "the recall says seat 1"),
    "a side bet's payout inflated": (_solo_inflate_side_bet, "side bet: stake"),
}


def _events(doc: dict[str, Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = doc["events"]
    return events


def _table_drop_last_card(doc: dict[str, Any]) -> bool:
    events = _events(doc)
    del events[max(i for i, e in enumerate(events) if "card_dealt" in e)]
    return True


def _table_swap_seats(doc: dict[str, Any]) -> bool:
    cards = [e["card_dealt"] for e in _events(doc) if "card_dealt" in e]
    other = next(c for c in cards if c.get("seat") != cards[0].get("seat"))
    for name in ("seat", "hand"):
        a, b = cards[0].pop(name, None), other.pop(name, None)
        if b is not None:
            cards[0][name] = b
        if a is not None:
            other[name] = a
    return True


def _table_hand(doc: dict[str, Any]) -> dict[str, Any]:
    hand: dict[str, Any] = next(e["hand_settled"] for e in _events(doc) if "hand_settled" in e)
    return hand


def _table_inflate_payout(doc: dict[str, Any]) -> bool:
    hand = _table_hand(doc)
    hand["payout"] = str(2 * int(hand.get("payout", 0)) + 100)
    return True


def _table_change_outcome(doc: dict[str, Any]) -> bool:
    hand = _table_hand(doc)
    if hand.get("outcome") in ("OUTCOME_LOSE", "OUTCOME_BUST"):
        hand["outcome"], hand["payout"] = "OUTCOME_WIN", str(2 * int(hand["stake"]))
    else:
        hand["outcome"], hand["payout"] = "OUTCOME_LOSE", "0"
    return True


def _table_inflate_side_bet(doc: dict[str, Any]) -> bool:
    side = next((e["side_bet_settled"] for e in _events(doc) if "side_bet_settled" in e), None)
    if side is None:
        return False
    if side.get("line") == "lose":
        side.update(line="perfect_pair", pays=25, payout=str(26 * int(side["stake"])))
    else:
        side["payout"] = str(2 * int(side["payout"]))
    return True


def _table_inflate_share(doc: dict[str, Any]) -> bool:
    if not doc.get("players"):
        return False
    doc["players"][0]["paid"] = str(int(doc["players"][0].get("paid", 0)) + 1000)
    return True


#: Each probe on a table recall (typed events): (tamper, words the verdict must name it with).
TABLE_TAMPERING: dict[str, tuple[Tamper, str]] = {
    "last dealt card removed": (_table_drop_last_card, "the recall leaves out card "),
    "two cards swapped between seats": (_table_swap_seats, "card 1 ("),
    "a payout inflated": (_table_inflate_payout, "the recall says seat "),
    "a hand's outcome changed": (_table_change_outcome, "the recall says seat "),
    "a side bet's payout inflated": (_table_inflate_side_bet, "side bet: stake"),
    "a player's money inflated": (_table_inflate_share, "was paid"),
}
