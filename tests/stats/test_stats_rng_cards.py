"""Chi-square tests of dealt cards through the real engine (Round.deal over ShoeSource + DRBG).

The CI runs are deterministic: the DRBG is instantiated from fixed inputs, so they pass or fail
the same way every time, and a change that biases scaling or drawing makes them fail. The power
tests show each statistic rejects a modulo-biased picker at the same volume. The ``slow`` tests
repeat the checks at a larger volume with the live, OS-seeded certified RNG.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

from rgs.engine import CardSource, Shoe, ShoeSource
from rgs.rng import CertifiedRng
from rgs.rng.cardstats import (
    ChiSquare,
    deal_rounds,
    engine_draw_shuffle,
    pair_tests,
    position_test,
    rank_suit_card_tests,
    shuffle_position_test,
)
from rgs.rng.drbg import HmacDrbg
from rgs.rng.scaling import BufferedRng
from rgs.variants import find_variant

#: Decision level for the deterministic CI runs: a fixed seed passes or fails for good, so the
#: level only has to be strict enough to catch bias (the power tests show it does).
ALPHA = 0.001
ROUNDS = 20_000
VIP = find_variant("vip-platinum")  # 8 decks, 7 boxes, hole card: 16 cards per deal


def _fixed_rng(tag: bytes) -> BufferedRng:
    drbg = HmacDrbg.instantiate(entropy_input=tag.ljust(32, b"\x00"), nonce=b"cards-ci" * 2,
                                personalization=b"tests/stats", reseed_interval=1 << 48)
    return BufferedRng(drbg)


def _source_for(rng: BufferedRng) -> Callable[[Shoe], CardSource]:
    return lambda shoe: ShoeSource(shoe, rng.below)


def _modulo_biased(rng: BufferedRng) -> Callable[[Shoe], CardSource]:
    # The classic mistake: reduce a fixed-width random number modulo n (9 bits here).
    return lambda shoe: ShoeSource(shoe, lambda n: rng.below(512) % n)


def _all(tests: list[ChiSquare]) -> dict[str, float]:
    return {t.name: t.p_value for t in tests}


@cache
def _dealt() -> np.ndarray:
    """One CI volume of rounds dealt by the engine with the DRBG, shared by the tests below."""
    return deal_rounds(VIP, _source_for(_fixed_rng(b"deal")), ROUNDS)


def test_dealt_ranks_suits_and_cards_are_uniform_through_the_engine() -> None:
    cards = _dealt()
    assert cards.shape == (ROUNDS, 16)
    results = rank_suit_card_tests(cards, VIP.decks)
    assert all(t.p_value >= ALPHA for t in results), _all(results)


def test_every_card_is_equally_likely_at_every_deal_position() -> None:
    result = position_test(_dealt())
    assert result.dof == 16 * 51
    assert result.p_value >= ALPHA, result


def test_consecutive_dealt_cards_are_independent_draws_without_replacement() -> None:
    results = pair_tests(_dealt(), VIP.decks)
    assert all(t.p_value >= ALPHA for t in results), _all(results)


def test_fisher_yates_puts_every_card_at_every_position_equally_often() -> None:
    result = shuffle_position_test(_fixed_rng(b"shuffle").shuffle, 10_000)
    assert result.dof == 51 * 51
    assert result.p_value >= ALPHA, result


def test_shuffle_statistic_is_centred_on_its_dof_for_a_perfect_shuffle() -> None:
    # A sum of permutation matrices is not multinomial: unscaled, Pearson's statistic averages
    # 52·51 = 2652, not 51² = 2601. 100 small tables pin the mean (sd of the mean ≈ 7.2).
    rng = _fixed_rng(b"null-mean")
    stats = [shuffle_position_test(rng.shuffle, 100).statistic for _ in range(100)]
    assert abs(float(np.mean(stats)) - 51 * 51) < 25


def test_emptying_a_shoe_through_the_engine_source_is_a_uniform_shuffle() -> None:
    shuffle = engine_draw_shuffle(_source_for(_fixed_rng(b"engine-draw")))
    result = shuffle_position_test(shuffle, 10_000)
    assert result.p_value >= ALPHA, result


def test_position_statistic_rejects_a_modulo_biased_picker() -> None:
    cards = deal_rounds(VIP, _modulo_biased(_fixed_rng(b"biased")), ROUNDS)
    assert position_test(cards).p_value < 1e-4


def test_shuffle_statistic_rejects_a_byte_modulo_picker() -> None:
    rng = _fixed_rng(b"byte-modulo")
    biased = engine_draw_shuffle(lambda shoe: ShoeSource(shoe, lambda n: rng.below(256) % n))
    assert shuffle_position_test(biased, 10_000).p_value < 1e-6


def test_rank_statistic_rejects_a_source_that_compensates() -> None:
    rng = _fixed_rng(b"compensate")

    class SparesTens:
        """Quietly puts back one ten-valued card in ten: the "no compensation" rule broken."""

        def __init__(self, shoe: Shoe) -> None:
            self.inner = ShoeSource(shoe, rng.below)

        def draw(self) -> str:
            card = self.inner.draw()
            if card[0] in "TJQK" and rng.below(10) == 0:
                card = self.inner.draw()
            return card

    cards = deal_rounds(VIP, SparesTens, 5_000)
    assert rank_suit_card_tests(cards, VIP.decks)[0].p_value < 1e-6


def test_pair_statistic_rejects_a_source_that_avoids_repeating_a_rank() -> None:
    rng = _fixed_rng(b"repeat")

    class AvoidRepeat:
        def __init__(self, shoe: Shoe) -> None:
            self.inner = ShoeSource(shoe, rng.below)
            self.last = ""

        def draw(self) -> str:
            card = self.inner.draw()
            if card[0] == self.last[:1]:  # redraw a repeated rank: a subtle dependence
                card = self.inner.draw()
            self.last = card
            return card

    cards = deal_rounds(VIP, AvoidRepeat, 5_000)
    assert pair_tests(cards, VIP.decks)[0].p_value < 1e-6


@pytest.mark.slow
def test_live_certified_rng_passes_every_card_statistic_at_volume() -> None:
    rng = CertifiedRng()
    cards = deal_rounds(VIP, rng.card_source, 200_000)
    results = [*rank_suit_card_tests(cards, VIP.decks), position_test(cards),
               *pair_tests(cards, VIP.decks),
               shuffle_position_test(rng.shuffle, 100_000)]
    assert all(t.p_value >= 1e-4 for t in results), _all(results)
