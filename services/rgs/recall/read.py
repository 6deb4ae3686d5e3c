"""A round's recall read back into the engine's events: what the recall says happened, in order.

Three forms of recall (``docs/rng.md``, "How a player or auditor verifies"):

* a solo round (``GetPlayerRound``, ``RoundRecord``): its ``steps``, each carrying the whole
  engine event in ``detail_json``; the step's own fields (card, seat, hand, action, amount) must
  say what that event says (:func:`rgs.api.converters.step_to_proto` writes them from it);
* a shared table round of this release (``GetTableRound``): typed ``events``
  (``rgs.table.v1.TableEvent`` as JSON). They show the players by name, and the opening shows
  the seats and their players but not the stakes: each bet is read from the round's own
  settlement — a box's main bet is what its hands were settled on less what its decisions added
  (doubles, splits), a side bet's stake is on its settlement, a Bet Behind's like a box's. Those
  bets are then replayed, so a recall whose stakes and payouts do not fit the rules still fails;
* a shared table round of an earlier release: ``events_json``, the engine events as JSON;
* a shared table round in the operator's player recall (``GetPlayerRound``, with
  ``table_id``): its ``steps``, each one table event (the kind, and the message in
  ``detail_json``), read as the typed events are; the only money it checks is the player's own.

Everything here is about the recall's form; what the events must be is the engine's
(:mod:`rgs.recall.check` replays them).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from rgs.api.converters import ACTIONS, OUTCOMES, SIDE_BETS, step_to_proto
from rgs.codec import CodecError, decode_event
from rgs.engine import (
    Action,
    BehindBet,
    BehindFollowSkipped,
    BehindInsuranceSettled,
    BehindSettled,
    BehindStakeAdded,
    BoxBet,
    CardBurned,
    CardDealt,
    DealerPeeked,
    EngineError,
    Event,
    HandSettled,
    HoleCardRevealed,
    InsuranceSettled,
    PlayerActed,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    SideBetKind,
    SideBetSettled,
    TableLimits,
)
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.rng.verify import RecallFormatError, get

#: The limits a table round is replayed under: a typed recall does not carry the table's, and
#: limits only refuse bets before a deal (the bets of a dealt round were taken).
ANY_STAKE = TableLimits(main_min=1, main_max=2**62, side_min=1, side_max=2**62)

_OUTCOME_OF = {n: o for o, n in OUTCOMES.items()}
_SIDE_OF = {n: k for k, n in SIDE_BETS.items()}
#: The step fields step_to_proto writes from the event, as a player reads them.
_STEP_FIELDS = ("kind", "seat", "hand", "card", "action", "amount")


@dataclass(frozen=True, slots=True, kw_only=True)
class Share:
    """A player's money in the round as the recall states it (a table recall's ``players``)."""

    player_id: str
    staked: int
    paid: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Recalled:
    """What a recall says a round did."""

    variant: str
    status: str
    #: ISO 4217 code of the amounts ("" when the recall does not say: a table round).
    currency: str
    #: The round's events as the recall gives them, in order, in the engine's form.
    events: tuple[Event, ...]
    #: Where each event is in the recall ("step 3", "event 4"), for the reader to find it.
    places: tuple[str, ...]
    #: A typed table recall: it shows no totals on ``round_settled`` and no rounding remainder.
    typed: bool = False
    #: How to name each player key of the events ("Ann (player p-7)").
    names: Mapping[str, str] = field(default_factory=dict)
    #: The recall's totals (a solo round's ``total_staked``, ``total_paid``).
    totals: tuple[int, int] | None = None
    #: The players' money the recall states (a table round's ``players``).
    shares: tuple[Share, ...] = ()
    #: Where the recall contradicts itself (a step's fields against its event).
    contradictions: tuple[str, ...] = ()

    def key_of(self, player_id: str) -> str | None:
        """The player key of the events that a share's player id names."""
        if self.typed:
            return f"id:{player_id}" if f"id:{player_id}" in self.names else None
        found = [k for k in self.names if k.partition("/")[2] == player_id]
        return found[0] if len(found) == 1 else None


def read(record: Mapping[str, Any]) -> Recalled:
    """The recall of one round (a RoundRecord or a GetTableRound answer), read."""
    typed = get(record, "events")
    if isinstance(typed, list):
        return _typed(record, typed)
    if get(record, "table_id") and isinstance(get(record, "steps"), list):
        return _table_steps(record)
    legacy = get(record, "events_json")
    if legacy is not None:
        return _legacy(record, legacy)
    return _solo(record)


def _int(value: Any, what: str) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError) as exc:
        raise RecallFormatError(f"{what} is not a whole number") from exc


def _decode(kind: str, payload: Any, where: str) -> Event:
    try:
        return decode_event(kind, payload)
    except (CodecError, EngineError, ValueError, TypeError) as exc:
        raise RecallFormatError(f"{where} ({kind}) cannot be read: {exc}") from exc


def _names(events: Sequence[Event]) -> dict[str, str]:
    out: dict[str, str] = {}
    for e in events:
        if isinstance(e, RoundStarted):
            for b in e.boxes:
                for key in (b.player, *(x.player for x in b.behind)):
                    if key:
                        out[key] = f"player {key.partition('/')[2] or key}"
    return out


# --------------------------------------------------------------------------- solo


def _solo(record: Mapping[str, Any]) -> Recalled:
    steps = get(record, "steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, Mapping) for s in steps):
        raise RecallFormatError("`steps` is not a list of round steps")
    events, places, contradictions = [], [], []
    for raw in sorted(steps, key=lambda s: _int(get(s, "index", 0), "a step's index")):
        try:
            step = json_format.ParseDict(raw, op.RoundStep(), ignore_unknown_fields=True)
        except json_format.ParseError as exc:
            raise RecallFormatError(f"a step is not a RoundStep: {exc}") from exc
        where = f"step {step.index}"
        if not step.detail_json:
            raise RecallFormatError(f"{where} ({step.kind or 'no kind'}) has no detail_json: "
                                    "save the whole GetPlayerRound answer")
        e = _decode(step.kind, step.detail_json, where)
        shown = step_to_proto(step.index, e)
        for name in _STEP_FIELDS:
            if getattr(step, name) != getattr(shown, name):
                contradictions.append(
                    f"{where} of the recall shows {name} {getattr(step, name)!r}, but its "
                    f"detail_json says {getattr(shown, name)!r}: the recall contradicts itself")
                break
        events.append(e)
        places.append(where)
    return Recalled(
        variant=str(get(record, "variant_id", "")), status=str(get(record, "status", "")),
        currency=str(get(record, "currency", "")), events=tuple(events), places=tuple(places),
        names=_names(events), contradictions=tuple(contradictions),
        totals=(_int(get(record, "total_staked", 0), "total_staked"),
                _int(get(record, "total_paid", 0), "total_paid")))


# --------------------------------------------------------------------------- tables


def _shares(record: Mapping[str, Any]) -> tuple[Share, ...]:
    raw = get(record, "players", [])
    if not isinstance(raw, list) or not all(isinstance(x, Mapping) for x in raw):
        raise RecallFormatError("`players` is not a list of {player_id, staked, paid}")
    return tuple(Share(player_id=str(get(x, "player_id", "")),
                       staked=_int(get(x, "staked", 0), "a player's staked"),
                       paid=_int(get(x, "paid", 0), "a player's paid")) for x in raw)


def _legacy(record: Mapping[str, Any], events_json: object) -> Recalled:
    """An earlier release's ``events_json``: a JSON array of the engine's [kind, fields]."""
    data = events_json
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise RecallFormatError(f"`events_json` is not JSON ({exc.msg})") from exc
    if not isinstance(data, list):
        raise RecallFormatError("`events_json` is not a JSON array of [kind, fields]")
    events = []
    for i, item in enumerate(data):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], Mapping)):
            raise RecallFormatError(f"event {i} of `events_json` is not [kind, fields]")
        events.append(_decode(item[0], dict(item[1]), f"event {i} of `events_json`"))
    return Recalled(variant=str(get(record, "variant_id", "")),
                    status=str(get(record, "status", "")), currency="",
                    events=tuple(events), places=tuple(f"event {i}" for i in range(len(events))),
                    names=_names(events), shares=_shares(record))


def _who(p: tb.TablePlayer) -> tuple[str, str]:
    """A player's key in the rebuilt events, and how to name them."""
    if p.player_id:
        return f"id:{p.player_id}", f"{p.display_name or 'player'} (player {p.player_id})"
    return f"name:{p.display_name}", p.display_name or "a player"


def _action(value: int, where: str) -> Action:
    action = ACTIONS.get(value)
    if action is None:
        raise RecallFormatError(f"{where} names no known action")
    return action


def _typed_event(m: tb.TableEvent, where: str, names: dict[str, str]) -> Event | None:
    """One typed event in the engine's form (None: a table event that is not the round's)."""
    kind = m.WhichOneof("event")
    if kind is None:
        return None
    d = getattr(m, kind)

    def player() -> str:
        key, name = _who(d.player)
        names.setdefault(key, name)
        return key

    if kind == "round_started":
        players = list(d.players)
        if len(players) != len(d.seats):
            raise RecallFormatError(f"{where}: round_started names {len(d.seats)} seats and "
                                    f"{len(players)} players")
        boxes = []
        for seat, p in zip(d.seats, players, strict=True):
            key, name = _who(p)
            names.setdefault(key, name)
            boxes.append(BoxBet(seat=seat, stake=0, player=key))
        return RoundStarted(variant="", boxes=tuple(boxes), limits=ANY_STAKE)
    if kind == "card_dealt":
        return CardDealt(card=d.card, seat=d.seat if d.HasField("seat") else None, hand=d.hand,
                         face_down=d.face_down)
    if kind == "hole_card_revealed":
        return HoleCardRevealed(card=d.card)
    if kind == "card_burned":
        return CardBurned(card=d.card, seat=d.seat, hand=d.hand)
    if kind == "dealer_peeked":
        return DealerPeeked(blackjack=d.blackjack)
    if kind == "player_acted":
        return PlayerActed(seat=d.seat, hand=d.hand, action=_action(d.action, where),
                           stake_added=d.stake_added)
    if kind == "insurance_settled":
        return InsuranceSettled(seat=d.seat, stake=d.stake, payout=d.payout)
    if kind == "side_bet_settled":
        side = _SIDE_OF.get(d.kind)
        if side is None:
            raise RecallFormatError(f"{where} names no known side bet")
        return SideBetSettled(seat=d.seat, kind=side, stake=d.stake, line=d.line, pays=d.pays,
                              payout=d.payout)
    if kind in ("hand_settled", "behind_settled"):
        outcome = _OUTCOME_OF.get(d.outcome)
        if outcome is None:
            raise RecallFormatError(f"{where} names no known outcome")
        if kind == "hand_settled":
            return HandSettled(seat=d.seat, hand=d.hand, outcome=outcome, stake=d.stake,
                               payout=d.payout)
        return BehindSettled(seat=d.seat, hand=d.hand, player=player(), outcome=outcome,
                             stake=d.stake, payout=d.payout)
    if kind == "behind_stake_added":
        return BehindStakeAdded(seat=d.seat, hand=d.hand, player=player(),
                                action=_action(d.action, where), amount=d.amount)
    if kind == "behind_follow_skipped":
        return BehindFollowSkipped(seat=d.seat, hand=d.hand, player=player(),
                                   action=_action(d.action, where))
    if kind == "behind_insurance_settled":
        return BehindInsuranceSettled(seat=d.seat, player=player(), stake=d.stake,
                                      payout=d.payout)
    if kind == "round_settled":
        return RoundSettled(total_staked=0, total_paid=0)  # the typed event shows no totals
    if kind == "round_voided":
        return RoundVoided(reason=d.reason, total_staked=0, total_refunded=0)
    return None  # the table's own events (seats, betting, time-outs...): not the round's


def _table_steps(record: Mapping[str, Any]) -> Recalled:
    """A shared table's round in the operator's player recall (a RoundRecord with
    ``table_id``): each step's ``detail_json`` is its table event's message, the totals the
    player's own."""
    raw: list[Any] = []
    for s in get(record, "steps", []):
        if not isinstance(s, Mapping):
            raise RecallFormatError("`steps` is not a list of round steps")
        kind = str(get(s, "kind", ""))
        try:
            detail = json.loads(str(get(s, "detail_json", "") or "{}"))
        except json.JSONDecodeError as exc:
            raise RecallFormatError(f"step {get(s, 'index', '?')}'s detail_json is not JSON "
                                    f"({exc.msg})") from exc
        raw.append({"seq": _int(get(s, "index", 0), "a step's index") + 1, kind: detail})
    own = {"player_id": get(record, "player_id", ""), "staked": get(record, "total_staked", 0),
           "paid": get(record, "total_paid", 0)}
    return _typed({**record, "players": [own]}, raw)


def _typed(record: Mapping[str, Any], raw: list[Any]) -> Recalled:
    if not all(isinstance(e, Mapping) for e in raw):
        raise RecallFormatError("`events` is not a list of table events")
    names: dict[str, str] = {}
    events: list[Event] = []
    places: list[str] = []
    msgs = []
    for e in raw:
        try:
            msgs.append(json_format.ParseDict(e, tb.TableEvent(), ignore_unknown_fields=True))
        except json_format.ParseError as exc:
            raise RecallFormatError(f"an event is not a TableEvent: {exc}") from exc
    for m in sorted(msgs, key=lambda m: m.seq):
        where = f"event {m.seq}"
        if m.WhichOneof("event") == "card_dealt" and not m.card_dealt.card:
            raise RecallFormatError(f"{where} deals no card")
        got = _typed_event(m, where, names)
        if got is not None:
            events.append(got)
            places.append(where)
    variant = str(get(record, "variant_id", ""))
    if events and isinstance(events[0], RoundStarted):
        events[0] = RoundStarted(variant=variant, boxes=_bets(events[0], events),
                                 limits=ANY_STAKE)
    return Recalled(variant=variant, status=str(get(record, "status", "")), currency="",
                    events=tuple(events), places=tuple(places), typed=True, names=names,
                    shares=_shares(record))


_ADDS_TO_HAND = frozenset({Action.DOUBLE, Action.POWER_DOUBLE, Action.SPLIT,
                           Action.POWER_SPLIT})


def _bets(start: RoundStarted, events: Sequence[Event]) -> tuple[BoxBet, ...]:
    """The boxes' bets of a typed recall, read from the round's settlement (module doc): each
    stake is what was settled less what the decisions added. A bet that cannot be read is 0,
    which the engine refuses (a recall without its settlement cannot be replayed)."""
    main: dict[int, int] = defaultdict(int)
    sides: dict[tuple[int, SideBetKind], int] = {}
    behind: dict[tuple[int, str], int] = defaultdict(int)
    behind_order: dict[int, list[str]] = defaultdict(list)
    follows: dict[tuple[int, str], set[str]] = defaultdict(set)
    for e in events:
        if isinstance(e, HandSettled):
            main[e.seat] += e.stake
        elif isinstance(e, PlayerActed) and e.action in _ADDS_TO_HAND:
            main[e.seat] -= e.stake_added
        elif isinstance(e, SideBetSettled):
            sides[(e.seat, e.kind)] = e.stake
        elif isinstance(e, BehindSettled):
            if e.player not in behind_order[e.seat]:
                behind_order[e.seat].append(e.player)
            behind[(e.seat, e.player)] += e.stake
        elif isinstance(e, (BehindStakeAdded, BehindFollowSkipped)) and e.action is not \
                Action.INSURE:
            if isinstance(e, BehindStakeAdded):
                behind[(e.seat, e.player)] -= e.amount
            follows[(e.seat, e.player)].add(
                "double" if e.action in (Action.DOUBLE, Action.POWER_DOUBLE) else "split")
    return tuple(BoxBet(
        seat=b.seat, stake=main[b.seat], player=b.player,
        twenty_plus=sides.get((b.seat, SideBetKind.TWENTY_PLUS), 0),
        perfect_pairs=sides.get((b.seat, SideBetKind.PERFECT_PAIRS), 0),
        twenty_one_plus_three=sides.get((b.seat, SideBetKind.TWENTY_ONE_PLUS_THREE), 0),
        behind=tuple(BehindBet(player=p, stake=behind[(b.seat, p)],
                               follow_double="double" in follows[(b.seat, p)],
                               follow_split="split" in follows[(b.seat, p)])
                     for p in behind_order[b.seat]))
        for b in start.boxes)
