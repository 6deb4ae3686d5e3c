"""The engine's event builders make the very values their classes' constructors make: a builder
takes every field of its class by name, and what it builds is equal, of the same class, hashes
alike and stays frozen. A field added to an event class fails here until its builder sets it."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from fractions import Fraction

import pytest

from rgs.engine import Action, HandSettled, Outcome, PlayerActed, RoundSettled
from rgs.engine.builders import hand_settled, player_acted, round_settled

#: Each builder, its class, and distinct values for every field.
CASES: list[tuple[Callable[..., object], type, dict[str, object]]] = [
    (hand_settled, HandSettled, {"seat": 3, "hand": 1, "outcome": Outcome.BLACKJACK,
                                 "stake": 101, "payout": 252, "rounded_off": Fraction(1, 2)}),
    (round_settled, RoundSettled, {"total_staked": 350, "total_paid": 700}),
    (player_acted, PlayerActed, {"seat": 7, "hand": 2, "action": Action.DOUBLE,
                                 "stake_added": 500}),
]


@pytest.mark.parametrize(("build", "cls", "values"), CASES)
def test_a_builder_takes_every_field_of_its_class(build: Callable[..., object], cls: type,
                                                  values: dict[str, object]) -> None:
    names = [f.name for f in dataclasses.fields(cls)]
    assert list(inspect.signature(build).parameters) == names
    assert sorted(values) == sorted(names)


@pytest.mark.parametrize(("build", "cls", "values"), CASES)
def test_a_builder_makes_what_the_constructor_makes(build: Callable[..., object], cls: type,
                                                    values: dict[str, object]) -> None:
    built, made = build(**values), cls(**values)
    assert type(built) is cls
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    assert dataclasses.asdict(built) == values  # type: ignore[call-overload]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, next(iter(values)), 0)
