"""The journal codec round-trips every engine event type and the stored play result."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from fractions import Fraction
from typing import Any

import pytest

from rgs.codec import (
    CodecError,
    decode_event,
    decode_value,
    encode_event,
    encode_value,
    event_kind,
    event_types,
)
from rgs.engine import (
    Action,
    BoxBet,
    CardBurned,
    CardDealt,
    DealerPeeked,
    ForcedCards,
    HandSettled,
    HoleCardRevealed,
    InsuranceOffer,
    InsuranceSettled,
    Outcome,
    PlayerActed,
    Round,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    SideBetKind,
    SideBetSettled,
    TableLimits,
)
from rgs.service.model import PlayResult
from rgs.variants import find_variant

SAMPLES = [
    RoundStarted(variant="vip-platinum", boxes=(
        BoxBet(seat=1, stake=500, perfect_pairs=100, twenty_one_plus_three=200,
               insurance_offer=InsuranceOffer.ONLY_ON_PLAYER_BLACKJACK, safety_net=False),
        BoxBet(seat=3, stake=1000)), limits=TableLimits(main_min=100, main_max=5000)),
    CardDealt(card="AS", seat=1, hand=0),
    CardDealt(card="KD", seat=None, face_down=True),
    HoleCardRevealed(card="KD"),
    CardBurned(card="5C", seat=1, hand=1),
    DealerPeeked(blackjack=False),
    PlayerActed(seat=1, hand=2, action=Action.POWER_REPLACE, stake_added=500),
    InsuranceSettled(seat=1, stake=250, payout=750),
    SideBetSettled(seat=1, kind=SideBetKind.PERFECT_PAIRS, stake=100, line="perfect", pays=25,
                   payout=2600),
    HandSettled(seat=1, hand=0, outcome=Outcome.BLACKJACK, stake=105, payout=262,
                rounded_off=Fraction(1, 2)),
    RoundSettled(total_staked=1000, total_paid=2500),
    RoundVoided(reason="shoe error", total_staked=1000, total_refunded=1000),
]


def _example(tp: Any) -> Any:
    """A value of any journal field type, built from its type hints (covers event types added
    to the engine later without a hand-written sample)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _example(next(a for a in typing.get_args(tp) if a is not type(None)))
    if origin is tuple:
        return (_example(typing.get_args(tp)[0]),)
    if origin is frozenset:
        return frozenset({_example(typing.get_args(tp)[0])})
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: _example(hints[f.name]) for f in dataclasses.fields(tp)})
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return list(tp)[-1]
    return {int: 7, str: "AS", bool: True, Fraction: Fraction(1, 3)}[tp]


def test_hand_written_samples_are_real_event_kinds() -> None:
    assert {event_kind(e) for e in SAMPLES} <= set(event_types())


@pytest.mark.parametrize("kind", sorted(event_types()))
def test_every_event_type_round_trips(kind: str) -> None:
    event = _example(event_types()[kind])
    assert decode_event(kind, encode_event(event)) == event


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_event_round_trips_through_json(event: object) -> None:
    assert decode_event(event_kind(event), encode_event(event)) == event  # type: ignore[arg-type]


def test_money_never_passes_through_a_float() -> None:
    text = encode_event(SAMPLES[9])
    assert '"rounded_off":"1/2"' in text and "." not in text


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(CodecError):
        decode_event("card_teleported", "{}")


def test_play_result_with_a_live_view_round_trips() -> None:
    rnd = Round.deal(find_variant("classic-resplit"), ForcedCards(["8S", "AH", "8D", "KC"]),
                     [BoxBet(seat=1, stake=100)])
    result = PlayResult(round_id="ab" * 16, view=rnd.view(), balance=9_900, currency="EUR")
    assert decode_value(PlayResult, encode_value(result)) == result


def test_request_fingerprints_keep_the_bytes_earlier_releases_stored() -> None:
    """A retry after an upgrade is matched by its fingerprint: the stored form moved to orjson,
    the fingerprint form must not (ASCII escapes, the standard library's float spelling)."""
    from rgs.service.fingerprints import request_hash
    from rgs.service.model import DealCommand

    command = DealCommand(request_id="ré-1", variant_id="classic-resplit",
                          boxes=(BoxBet(seat=1, stake=250),), client_seed="grüß 1e-05")
    # computed by the release before the change (main at 3bcd41e); a Deal's fingerprint leaves
    # out the fields added since while they are empty, as GameService.deal does
    assert request_hash("deal", command, added=("client_seed", "free_bet_id")) == (
        "5a5ef1664bcb4f4e63bd9203152b1e7501de66394712d2c662e3ff5214686b22")


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_rows_written_by_earlier_releases_still_decode(event: object) -> None:
    """Earlier releases stored the standard library's JSON; the stored form is now orjson's.
    Both decode to the same event, and a standard JSON reader reads the new form."""
    import json

    from rgs.codec import to_jsonable

    old = json.dumps(to_jsonable(event), separators=(",", ":"), sort_keys=True)
    assert decode_event(event_kind(event), old) == event  # type: ignore[arg-type]
    assert json.loads(encode_event(event)) == json.loads(old)  # type: ignore[arg-type]
