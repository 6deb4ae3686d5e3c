"""The card chi-square battery on provably fair card orders (rgs.rng.fair) at a larger volume
than the unit tier: every order from its own seed, as live rounds get them."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import MutableSequence

import pytest

from rgs.engine import CardSource, Shoe
from rgs.rng.cardstats import (
    deal_rounds,
    pair_tests,
    position_test,
    rank_suit_card_tests,
    shuffle_position_test,
)
from rgs.rng.fair import card_order, fair_source
from rgs.variants import find_variant

pytestmark = pytest.mark.slow

ALPHA = 0.001


def _seed(tag: bytes, i: int) -> bytes:
    return hashlib.sha256(tag + i.to_bytes(8, "big")).digest()


def test_fair_full_orders_put_every_card_at_every_position_equally_often() -> None:
    counter = itertools.count()

    def shuffle(cards: MutableSequence[str]) -> None:
        i = next(counter)
        cards[:] = card_order(_seed(b"fair-slow-shuffle", i), "", i + 1, 1)

    result = shuffle_position_test(shuffle, 20_000)
    assert result.p_value >= ALPHA, result


def test_fair_rounds_deal_uniform_cards_positions_and_pairs_through_the_engine() -> None:
    vip = find_variant("vip-platinum")
    counter = itertools.count()

    def source_for(shoe: Shoe) -> CardSource:
        i = next(counter)
        return fair_source(_seed(b"fair-slow-deal", i), f"client-{i % 7}", i + 1, vip.decks)

    cards = deal_rounds(vip, source_for, 20_000)
    results = [*rank_suit_card_tests(cards, vip.decks), position_test(cards),
               *pair_tests(cards, vip.decks)]
    assert all(t.p_value >= ALPHA for t in results), {t.name: t.p_value for t in results}
