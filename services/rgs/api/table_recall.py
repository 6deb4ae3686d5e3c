"""A shared table's round in the operator's player round list and recall
(``rgs.operator.v1.RoundRecord``, as solo rounds are): the whole table's steps, each player
named as the operator's recall of the table round names them (its own players with their ids,
the others by display name only), and this player's own totals and wallet movements."""

from __future__ import annotations

import json
from datetime import datetime

from google.protobuf.json_format import MessageToDict
from google.protobuf.timestamp_pb2 import Timestamp

from rgs.api.converters import ACTION_NUMBERS, round_record_to_proto
from rgs.api.table_messages import recall_events
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.service.model import Movement, RoundSummary
from rgs.service.tables.recall import PlayerTableRound

#: An action's name in a recall step, as solo rounds' steps give it (``hit``, ``double``).
_ACTION_NAMES = {number: action.value for action, number in ACTION_NUMBERS.items()}


def recall_to_proto(r: RoundSummary | PlayerTableRound) -> op.RoundRecord:
    """A round of the player round list or recall, played alone or at a table."""
    return table_round_record(r) if isinstance(r, PlayerTableRound) else round_record_to_proto(r)


def _step(index: int, ev: tb.TableEvent) -> op.RoundStep:
    kind = ev.WhichOneof("event") or ""
    body = getattr(ev, kind) if kind else None
    step = op.RoundStep(index=index, kind=kind)
    if body is None:
        return step
    fields = {f.name for f in body.DESCRIPTOR.fields}
    step.seat = int(getattr(body, "seat", 0)) if "seat" in fields else 0
    step.hand = int(getattr(body, "hand", 0)) if "hand" in fields else 0
    step.card = str(getattr(body, "card", "")) if "card" in fields else ""
    if "action" in fields:
        step.action = _ACTION_NAMES.get(body.action, "")
    for money in ("payout", "stake_added", "amount"):
        if money in fields and getattr(body, money):
            step.amount = int(getattr(body, money))
            break
    step.detail_json = json.dumps(MessageToDict(body, preserving_proto_field_name=True),
                                  sort_keys=True)
    return step


def _movement(m: Movement) -> op.WalletMovement:
    return op.WalletMovement(transaction_id=m.transaction_id, kind=m.kind.value,
                             amount=m.amount, status=m.status.value,
                             balance_after=m.balance_after or 0)


def table_round_record(t: PlayerTableRound) -> op.RoundRecord:
    """One player's table round."""
    r = t.round
    operator, _, player_id = t.money.player_key.partition("/")
    rec = op.RoundRecord(
        round_id=r.round_id, brand_id=t.brand_id, player_id=player_id, session_id=t.session_id,
        variant_id=r.variant, status=r.status, currency=t.currency,
        total_staked=t.money.staked, total_paid=t.money.paid,
        total_refunded=t.money.refunded, table_id=r.table_id,
        forced_cards=r.fair is not None and not r.fair.verifiable,
        steps=[_step(i, e) for i, e in enumerate(recall_events(r.table_id, r, operator))],
        movements=[_movement(m) for m in t.money.movements])
    if t.free_bet is not None:
        rec.free_bet.CopyFrom(op.RoundFreeBet(grant_id=t.free_bet.grant_id,
                                              value=t.free_bet.value, seat=t.free_bet.seat))
    rec.started_at.CopyFrom(_ts(t.started_at))  # when the player's first stake moved
    if r.finished_at is not None:
        rec.finished_at.CopyFrom(_ts(r.finished_at))
    if r.fair is not None:
        f = r.fair
        rec.fair.CopyFrom(op.RoundFairness(
            verifiable=f.verifiable, commitment=f.commitment, client_seed=f.client_seed,
            round_number=f.round_number, decks=f.decks,
            server_seed=f.server_seed if r.finished else ""))
    else:
        rec.fair.CopyFrom(op.RoundFairness(verifiable=False))
    return rec


def _ts(when: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(when)
    return ts
