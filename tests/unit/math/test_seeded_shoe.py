"""The simulation's shoe deals every round exactly what a fresh ``ShoeSource`` on the full shoe
and ``rng.randrange`` deals: the same cards for the same seed, round after round (its inline
copy of ``Random._randbelow`` and its swap instead of a pop are checked here)."""

from __future__ import annotations

import random

import pytest

from rgs.engine import Shoe, ShoeExhausted, ShoeSource
from rgs.math.seeded_shoe import SeededShoe


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_every_round_deals_what_a_fresh_shoe_source_deals(decks: int) -> None:
    full = Shoe.of_decks(decks).cards()
    for seed in range(5):
        shoe, reference = SeededShoe(full, random.Random(seed)), random.Random(seed)
        lengths = random.Random(100 + seed)
        for _ in range(200):
            cards = lengths.choice([1, 2, 4, 6, 9, 15, 40])
            fresh = ShoeSource(Shoe(full), reference.randrange)
            shoe.next_round()
            assert [shoe.draw() for _ in range(cards)] == [fresh.draw() for _ in range(cards)]


def test_a_round_may_draw_the_whole_shoe_and_then_no_more() -> None:
    full = Shoe.of_decks(1).cards()
    shoe, reference = SeededShoe(full, random.Random(3)), random.Random(3)
    for _ in range(3):  # and the next round has all 52 again
        fresh = ShoeSource(Shoe(full), reference.randrange)
        shoe.next_round()
        drawn = [shoe.draw() for _ in range(52)]
        assert drawn == [fresh.draw() for _ in range(52)]
        assert sorted(drawn) == sorted(full)
        with pytest.raises(ShoeExhausted):
            shoe.draw()


def test_next_round_before_the_first_round_changes_nothing() -> None:
    full = Shoe.of_decks(6).cards()
    once, twice = SeededShoe(full, random.Random(9)), SeededShoe(full, random.Random(9))
    twice.next_round()
    twice.next_round()
    assert [once.draw() for _ in range(20)] == [twice.draw() for _ in range(20)]
