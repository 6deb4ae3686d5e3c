"""SP 800-90B continuous health tests, and what a failing entropy source does to dealing."""

from __future__ import annotations

import os

import pytest
from prometheus_client import REGISTRY

from rgs.engine.cards import Shoe
from rgs.observability.metrics import count_rng_failures
from rgs.rng.certified import CertifiedRng, RngSettings
from rgs.rng.entropy import (
    ADAPTIVE_PROPORTION,
    REPETITION_COUNT,
    SOURCE_READ,
    HealthTestConfig,
    HealthTests,
    OsEntropySource,
    RngHealth,
)
from rgs.rng.errors import EntropySourceFailure, RngError, RngUnhealthy


def _failures(test: str) -> float:
    value = REGISTRY.get_sample_value("rgs_rng_health_failures_total", {"test": test})
    return value or 0.0


def _counted_health() -> RngHealth:
    """A health whose failure the observability counter counts, as bootstrap wires it."""
    health = RngHealth()
    count_rng_failures(health)
    return health


@pytest.mark.parametrize(("h", "cutoff"), [(0.5, 410), (1, 311), (2, 177), (4, 62), (8, 13)])
def test_adaptive_proportion_cutoffs_match_sp800_90b_table_2(h: float, cutoff: int) -> None:
    config = HealthTestConfig(min_entropy_per_sample=h, alpha_log2=20)
    assert config.proportion_cutoff == cutoff


def test_default_cutoffs_claim_8_bits_per_byte_at_alpha_2_pow_minus_40() -> None:
    config = HealthTestConfig()
    assert config.repetition_cutoff == 6  # 1 + ceil(40 / 8)
    assert config.proportion_cutoff == 19


def test_repetition_count_fails_on_the_cutoff_th_identical_sample() -> None:
    tests = HealthTests()
    tests.feed(b"\x05" * 5)  # five in a row is allowed (cutoff 6)
    with pytest.raises(EntropySourceFailure) as failure:
        tests.feed(b"\x05")
    assert failure.value.test == REPETITION_COUNT


def test_repetition_count_state_carries_across_requests() -> None:
    tests = HealthTests()
    tests.feed(b"\x01\x02\x02\x02")
    with pytest.raises(EntropySourceFailure):
        tests.feed(b"\x02\x02\x02")


def test_adaptive_proportion_fails_when_one_value_fills_a_window() -> None:
    tests = HealthTests()
    # Value 0xAA every 5th sample: never 6 in a row, but 19 in one 512-sample window.
    stream = bytes(0xAA if i % 5 == 0 else (i % 200) + 1 for i in range(512))
    with pytest.raises(EntropySourceFailure) as failure:
        tests.feed(stream)
    assert failure.value.test == ADAPTIVE_PROPORTION


def test_health_tests_pass_a_megabyte_of_os_entropy() -> None:
    HealthTests().feed(os.urandom(1 << 20))


class _Switchable:
    """os.urandom until ``stuck`` (zeros) or ``broken`` (OSError) is set."""

    def __init__(self) -> None:
        self.stuck = False
        self.broken = False

    def __call__(self, n: int) -> bytes:
        if self.broken:
            raise OSError(5, "getrandom failed")
        return bytes(n) if self.stuck else os.urandom(n)


def test_stuck_source_at_startup_refuses_to_instantiate_and_counts() -> None:
    before = _failures(REPETITION_COUNT)
    health = _counted_health()
    with pytest.raises(EntropySourceFailure):
        CertifiedRng(health=health, read=bytes)
    assert not health.healthy
    assert _failures(REPETITION_COUNT) == before + 1


def test_stuck_source_stops_dealing_flips_health_and_counts() -> None:
    before = _failures(REPETITION_COUNT)
    source = _Switchable()
    rng = CertifiedRng(RngSettings(reseed_interval=2, block_bytes=64), read=source,
                       health=_counted_health())
    events: list[str] = []
    rng.health.add_listener(lambda f: events.append(f.test))
    cards = rng.card_source(Shoe.of_decks(8))
    for _ in range(50):
        cards.draw()
    source.stuck = True
    with pytest.raises(RngError):  # the next reseed meets the stuck source
        for _ in range(400):
            cards.draw()
    assert events == [REPETITION_COUNT]
    assert not rng.health.healthy
    assert _failures(REPETITION_COUNT) == before + 1
    with pytest.raises(RngUnhealthy):
        cards.draw()
    with pytest.raises(RngUnhealthy):
        rng.card_source(Shoe.of_decks(8))
    with pytest.raises(RngUnhealthy):
        rng.raw(16)
    late: list[str] = []
    rng.health.add_listener(lambda f: late.append(f.test))
    assert late == [REPETITION_COUNT]


def test_failed_source_stays_failed_even_if_it_recovers() -> None:
    source = _Switchable()
    entropy = OsEntropySource(health=RngHealth(), read=source)
    source.stuck = True
    with pytest.raises(EntropySourceFailure):
        entropy.get_entropy(32)
    source.stuck = False
    with pytest.raises(EntropySourceFailure):
        entropy.get_entropy(32)


def test_prediction_resistance_reseeds_before_every_request() -> None:
    calls: list[int] = []

    def read(n: int) -> bytes:
        calls.append(n)
        return os.urandom(n)

    rng = CertifiedRng(RngSettings(prediction_resistance=True), read=read)
    calls.clear()
    rng.raw(16)
    rng.raw(16)
    assert calls == [32, 32]


def test_drbg_reseeds_from_the_os_when_the_interval_is_used_up() -> None:
    calls: list[int] = []

    def read(n: int) -> bytes:
        calls.append(n)
        return os.urandom(n)

    rng = CertifiedRng(RngSettings(reseed_interval=3), read=read)
    assert calls == [1024, 48]  # start-up test, then entropy input + nonce
    for _ in range(7):
        rng.raw(16)
    assert calls == [1024, 48, 32, 32]  # requests 1-3, reseed, 4-6, reseed, 7


def test_round_deal_stops_with_an_rng_error_when_the_source_fails_mid_deal() -> None:
    from rgs.engine import BoxBet, EngineError, Round
    from rgs.variants import find_variant

    source = _Switchable()
    rng = CertifiedRng(RngSettings(reseed_interval=1, block_bytes=8), read=source)
    rules = find_variant("vip-platinum")
    bets = [BoxBet(seat=s, stake=rules.limits.main_min) for s in range(1, 8)]
    Round.deal(rules, rng.card_source(Shoe.of_decks(rules.decks)), bets)
    source.stuck = True
    with pytest.raises(RngError) as refused:  # 16 cards need several 8-byte blocks: a reseed
        Round.deal(rules, rng.card_source(Shoe.of_decks(rules.decks)), bets)
    # Not an EngineError: the service must catch RngError itself (void, roll back the debit).
    assert not isinstance(refused.value, EngineError)
    assert not rng.health.healthy


def test_an_os_read_error_stops_the_source_like_a_failed_health_test() -> None:
    before = _failures(SOURCE_READ)
    source = _Switchable()
    rng = CertifiedRng(RngSettings(prediction_resistance=True), read=source,
                       health=_counted_health())
    source.broken = True
    with pytest.raises(EntropySourceFailure) as failure:
        rng.raw(16)
    assert failure.value.test == SOURCE_READ
    assert not rng.health.healthy
    assert _failures(SOURCE_READ) == before + 1


def test_the_rng_itself_counts_nothing_without_observability_subscribed() -> None:
    before = _failures(REPETITION_COUNT)
    health = RngHealth()
    with pytest.raises(EntropySourceFailure):
        CertifiedRng(health=health, read=bytes)
    assert not health.healthy
    assert _failures(REPETITION_COUNT) == before
