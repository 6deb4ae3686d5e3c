"""The seeds of a provably fair round checked from its recall JSON, offline (the RNG's part of
``rgs verify``; :mod:`rgs.recall.verify` checks the round whole and is what the command runs).

The input is one round of the operator's recall, as JSON: a ``RoundRecord`` (of a
``GetPlayerRound`` answer or a ``ListPlayerRounds`` page) or a shared table round's
``GetTableRound`` answer (its cards are the ``card_dealt`` events of ``events``, and its client
seed must be the one its seats' client seeds make; a recall of an earlier release's
``events_json`` is read too). Field names may be the proto's (``server_seed``, as grpcurl prints
them) or JSON's camelCase (``serverSeed``); fields at their default value may be missing, and
64-bit integers may be strings, as proto3 JSON writes them.

The seeds check out when the round is verifiable (not forced cards), its server seed is
revealed (it is settled or voided), SHA-256 of the seed is its commitment, and the cards of its
``card_dealt`` steps, in order, are the first cards of :func:`rgs.rng.fair.card_order` of its
seeds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rgs.rng.fair import FairInputError, check_round, table_client_seed

_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")


class RecallFormatError(ValueError):
    """The JSON is not a round recall ``rgs verify`` understands (the message says why)."""


def camel(name: str) -> str:
    """``server_seed`` → ``serverSeed`` (proto3 JSON's field names)."""
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def get(obj: Mapping[str, Any], name: str, default: Any = None) -> Any:
    """A field by its proto name or its JSON (camelCase) name."""
    if name in obj:
        return obj[name]
    return obj.get(camel(name), default)



@dataclass(frozen=True, slots=True, kw_only=True)
class FairInputs:
    """A round's revealed inputs of :func:`rgs.rng.fair.card_order`."""

    server_seed: bytes
    client_seed: str
    round_number: int
    decks: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SeedCheck:
    """The outcome of checking a round's seeds and the order of its dealt cards."""

    ok: bool
    #: What was checked or what differs, one line each.
    lines: tuple[str, ...]
    #: The round's revealed inputs; None when it has none to check (not verifiable, seed not
    #: revealed, malformed).
    inputs: FairInputs | None = None


def _table_cards(events: object) -> list[str]:
    """The cards of a table round's ``card_dealt`` events (``events_json``: a JSON array of
    ``[kind, fields]``, in journal order)."""
    if isinstance(events, str):
        try:
            events = json.loads(events)
        except json.JSONDecodeError as exc:
            raise RecallFormatError(f"`events_json` is not JSON ({exc.msg})") from exc
    if not isinstance(events, list):
        raise RecallFormatError("`events_json` is not a JSON array of [kind, fields]")
    cards = []
    for i, item in enumerate(events):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], Mapping)):
            raise RecallFormatError(f"event {i} of `events_json` is not [kind, fields]")
        if item[0] == "card_dealt":
            card = item[1].get("card", "")
            if not isinstance(card, str) or not card:
                raise RecallFormatError(f"event {i} deals no card")
            cards.append(card)
    return cards


def _typed_table_cards(events: object) -> list[str]:
    """The cards of a table round's typed events (``GetTableRound.events``: each an object
    with its ``seq`` and one event, ``card_dealt`` among them), in their order."""
    if not isinstance(events, list) or not all(isinstance(e, Mapping) for e in events):
        raise RecallFormatError("`events` is not a list of table events")
    cards = []
    for i, e in enumerate(sorted(events, key=lambda e: int(get(e, "seq", 0)))):
        dealt = get(e, "card_dealt")
        if dealt is None:
            continue
        card = get(dealt, "card", "") if isinstance(dealt, Mapping) else ""
        if not isinstance(card, str) or not card:
            raise RecallFormatError(f"event {i} deals no card")
        cards.append(card)
    return cards


def is_table_round(record: Mapping[str, Any]) -> bool:
    """Whether a record is a shared table round's recall (``GetTableRound``)."""
    return get(record, "events_json") is not None or isinstance(get(record, "events"), list)


def dealt_cards(record: Mapping[str, Any]) -> list[str]:
    """The cards of the round's ``card_dealt`` steps (a table round's: events), in journal
    order."""
    typed = get(record, "events")
    if isinstance(typed, list):
        return _typed_table_cards(typed)
    events = get(record, "events_json")
    if events is not None:
        return _table_cards(events)
    steps = get(record, "steps", [])
    if not isinstance(steps, list):
        raise RecallFormatError("`steps` is not a list")
    ordered = sorted((s for s in steps if isinstance(s, Mapping)),
                     key=lambda s: int(get(s, "index", 0)))
    cards = []
    for s in ordered:
        if get(s, "kind") == "card_dealt":
            card = get(s, "card", "")
            if not isinstance(card, str) or not card:
                raise RecallFormatError(f"step {get(s, 'index', 0)} deals no card")
            cards.append(card)
    return cards


def check_seeds(record: Mapping[str, Any]) -> SeedCheck:
    """Check one round record's seeds and the order of its dealt cards."""
    def no(*lines: str) -> SeedCheck:
        return SeedCheck(ok=False, lines=lines)

    fair = get(record, "fair")
    if get(record, "forced_cards", False):
        return no("dealt with forced cards (test mode): such a round never verifies")
    if not isinstance(fair, Mapping) or not get(fair, "verifiable", False):
        return no("the round has no provably fair seeds (forced cards, or dealt before "
                  "provably fair rounds); nothing to verify")
    seed = str(get(fair, "server_seed", ""))
    status = get(record, "status", "")
    if not seed:
        return no(f"the server seed is not revealed yet (status {status or 'unknown'}): "
                  "verify again once the round is settled or voided")
    if not _HEX64.match(seed):
        return no("the server seed is not 64 hexadecimal characters")
    published = str(get(fair, "commitment", ""))
    client_seed = str(get(fair, "client_seed", ""))
    seats_ok, seats_line = True, ""
    dealt = dealt_cards(record)  # a malformed card list is not a recall (RecallFormatError)
    try:
        if is_table_round(record):  # a table round (GetTableRound)
            seats_ok, seats_line = _check_seat_seeds(fair, client_seed)
        inputs = FairInputs(server_seed=bytes.fromhex(seed), client_seed=client_seed,
                            round_number=int(get(fair, "round_number", 0)),
                            decks=int(get(fair, "decks", 0)))
        check = check_round(server_seed=inputs.server_seed, published=published,
                            client_seed=client_seed, round_number=inputs.round_number,
                            decks=inputs.decks, dealt=dealt)
    except RecallFormatError:
        raise
    except (FairInputError, ValueError) as exc:
        return no(f"the recall's seeds are malformed: {exc}")
    lines = (seats_line, *check.lines) if seats_line else check.lines
    return SeedCheck(ok=seats_ok and check.ok, lines=lines, inputs=inputs)


def _check_seat_seeds(fair: Mapping[str, Any], client_seed: str) -> tuple[bool, str]:
    """A table round's client seed must be the one its seats' seeds make: (ok, what)."""
    raw = get(fair, "seat_seeds", [])
    if not isinstance(raw, list) or not all(isinstance(x, Mapping) for x in raw):
        raise RecallFormatError("`seat_seeds` is not a list of {seat, client_seed}")
    pairs = [(int(get(x, "seat", 0)), str(get(x, "client_seed", ""))) for x in raw]
    combined = table_client_seed(pairs)
    if combined != client_seed:
        return False, (f"the client seed {client_seed or '(empty)'} is not the one the seats' "
                       f"seeds make ({combined or '(empty)'})")
    if not pairs:
        return True, "no seat gave a client seed: the round's client seed is empty"
    seats = ", ".join(f"seat {n}" for n, _ in pairs)
    return True, f"client seed = SHA-256 of the seeds of {seats} = {combined}"
