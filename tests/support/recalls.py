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
