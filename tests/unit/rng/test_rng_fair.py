"""The provably fair card order (rgs.rng.fair): the documented function, pinned and re-derived.

The order is re-computed here from the text of docs/rng.md with nothing of rgs.rng but the
HMAC_DRBG mechanism (itself pinned by the 480 CAVP vectors), so the documentation, the code and
any third-party verifier agree; a known answer pins the scheme so it cannot change silently.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence

import pytest

from rgs.engine import BoxBet, CardDealt, CardSource, Round, Shoe, ShoeExhausted
from rgs.rng.cardstats import deal_rounds, position_test, shuffle_position_test
from rgs.rng.drbg import HmacDrbg
from rgs.rng.fair import (
    CardOrders,
    FairInputError,
    card_order,
    check_client_seed,
    check_round,
    commitment,
    fair_source,
)
from rgs.variants import VARIANTS, find_variant

SEED = bytes(range(32))


def _documented_order(server_seed: bytes, client_seed: str, round_number: int,
                      decks: int) -> list[str]:
    """docs/rng.md "Provably fair rounds", steps 1-4, written out independently."""
    drbg = HmacDrbg.instantiate(entropy_input=server_seed,
                                nonce=round_number.to_bytes(16, "big"),
                                personalization=b"rgs-fair-v1\x00" + client_seed.encode(),
                                reseed_interval=1 << 48)
    block = b""
    pos = 0

    def below(n: int) -> int:
        nonlocal block, pos
        k = (n - 1).bit_length()
        width = (k + 7) // 8
        while True:
            if pos + width > len(block):
                block, pos = drbg.generate(1024), 0
            v = int.from_bytes(block[pos:pos + width], "big") & ((1 << k) - 1)
            pos += width
            if v < n:
                return v

    shoe = [r + s for _ in range(decks) for s in "SHDC" for r in "A23456789TJQK"]
    out = []
    while shoe:
        i = below(len(shoe)) if len(shoe) > 1 else 0
        out.append(shoe[i])
        last = shoe.pop()
        if i < len(shoe):
            shoe[i] = last
    return out


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_the_order_is_the_documented_function_and_a_permutation_of_the_shoe(decks: int) -> None:
    order = card_order(SEED, "lucky-7", 42, decks)
    assert order == _documented_order(SEED, "lucky-7", 42, decks)
    assert sorted(order) == sorted(Shoe.of_decks(decks).cards())


def test_a_known_answer_pins_the_scheme() -> None:
    # Seed 00 01 .. 1f, client seed "" , round 1, one deck: these 52 cards, and no others.
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert " ".join(card_order(SEED, "", 1, 1)[:10]) == KNOWN_FIRST_TEN


KNOWN_FIRST_TEN = "3C 8C 4H QD AD 6S 2S 5H JH 2D"


def test_changing_any_input_changes_the_order() -> None:
    base = card_order(SEED, "abc", 7, 6)
    other_seed = bytes([1]) + SEED[1:]
    assert card_order(other_seed, "abc", 7, 6) != base
    assert card_order(SEED, "abd", 7, 6) != base
    assert card_order(SEED, "", 7, 6) != base
    assert card_order(SEED, "abc", 8, 6) != base
    # The first cards differ too, not just somewhere in the shoe.
    assert card_order(SEED, "abd", 7, 6)[:6] != base[:6]


def test_the_source_deals_the_order_lazily_card_by_card() -> None:
    source = fair_source(SEED, "x", 3, 8)
    assert [source.draw() for _ in range(20)] == card_order(SEED, "x", 3, 8)[:20]


@pytest.mark.parametrize("bad", ["x" * 65, "é", "tab\there", "nul\x00"])
def test_client_seeds_outside_printable_ascii_or_too_long_are_refused(bad: str) -> None:
    with pytest.raises(FairInputError):
        check_client_seed(bad)
    with pytest.raises(FairInputError):
        card_order(SEED, bad, 1, 1)


def test_malformed_server_seeds_and_round_numbers_are_refused() -> None:
    with pytest.raises(FairInputError, match="32 bytes"):
        card_order(SEED[:31], "", 1, 1)
    with pytest.raises(FairInputError, match="round number"):
        card_order(SEED, "", -1, 1)


def test_check_round_accepts_the_true_prefix_and_names_what_differs() -> None:
    order = card_order(SEED, "c", 5, 6)
    good = check_round(server_seed=SEED, published=commitment(SEED), client_seed="c",
                       round_number=5, decks=6, dealt=order[:9])
    assert good.ok, good.lines
    swapped = [*order[:3], order[4], order[3], *order[5:9]]
    bad = check_round(server_seed=SEED, published=commitment(SEED), client_seed="c",
                      round_number=5, decks=6, dealt=swapped)
    assert not bad.ok and "card 4 dealt was" in bad.lines[-1]
    wrong_hash = check_round(server_seed=SEED, published="00" * 32, client_seed="c",
                             round_number=5, decks=6, dealt=order[:9])
    assert not wrong_hash.ok and "but the commitment is" in wrong_hash.lines[0]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_deals_from_the_fair_order(variant: str) -> None:
    rules = find_variant(variant)
    rnd = Round.deal(rules, fair_source(SEED, "v", 9, rules.decks),
                     [BoxBet(seat=1, stake=rules.limits.main_min)])
    dealt = [e.card for e in rnd.events if isinstance(e, CardDealt)]
    assert dealt == card_order(SEED, "v", 9, rules.decks)[:len(dealt)]


def _seed(i: int) -> bytes:
    return hashlib.sha256(b"fair-stats" + i.to_bytes(4, "big")).digest()


def test_full_orders_put_every_card_at_every_position_equally_often() -> None:
    # One deck, 2,000 orders, each from its own seed and round number (the chi-square battery of
    # rgs.rng.cardstats; the slow tier repeats it at a larger volume).
    counter = iter(range(1 << 30))

    def shuffle(cards: MutableSequence[str]) -> None:
        i = next(counter)
        cards[:] = card_order(_seed(i), "", i, 1)

    result = shuffle_position_test(shuffle, 2_000)
    assert result.p_value >= 0.001, result


def test_dealt_positions_of_fair_rounds_are_uniform_through_the_engine() -> None:
    vip = find_variant("vip-platinum")
    counter = iter(range(1 << 30))

    def source_for(shoe: Shoe) -> CardSource:
        i = next(counter)
        return fair_source(_seed(i), "p", i, vip.decks)

    cards = deal_rounds(vip, source_for, 2_000)
    assert position_test(cards).p_value >= 0.001


def test_cached_orders_give_every_reader_the_round_card_order() -> None:
    """Readers of one round share what was drawn, each from the first card; a dropped round is
    drawn again the same; the cache keeps at most its size."""
    orders = CardOrders(2)
    seeds = [bytes([n]) * 32 for n in range(3)]
    want = {n: card_order(seed, "cs", n, 2) for n, seed in enumerate(seeds)}
    first = orders.source(seeds[0].hex(), "cs", 0, 2)
    head = [first.draw() for _ in range(5)]
    second = orders.source(seeds[0].hex(), "cs", 0, 2)  # a later call of the same round
    assert [second.draw() for _ in range(20)] == want[0][:20]  # past what the first drew
    assert head + [first.draw() for _ in range(99)] == want[0][:104]
    for n in (1, 2):  # round 0 is the least recently used: dropped
        reader = orders.source(seeds[n].hex(), "cs", n, 2)
        assert [reader.draw() for _ in range(6)] == want[n][:6]
    assert len(orders) == 2
    again = orders.source(seeds[0].hex(), "cs", 0, 2)
    assert [again.draw() for _ in range(104)] == want[0]  # the whole 2-deck shoe
    other = orders.source(seeds[0].hex(), "other", 0, 2)  # another client seed, another order
    assert [other.draw() for _ in range(10)] != want[0][:10]
    with pytest.raises(ShoeExhausted):
        again.draw()
