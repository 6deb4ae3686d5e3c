"""The process's certified RNG: entropy source + health tests + HMAC_DRBG + unbiased scaling.

This is the one object the service builds (in ``bootstrap``) and the only thing it needs from
:mod:`rgs.rng`; see the package docstring for the wiring.
"""

from __future__ import annotations

import os
from collections.abc import Callable, MutableSequence
from dataclasses import dataclass, field
from typing import TypeVar

from rgs.engine.cards import Shoe, ShoeSource
from rgs.rng.drbg import DEFAULT_RESEED_INTERVAL, Drbg
from rgs.rng.entropy import HealthTestConfig, OsEntropySource, RngHealth
from rgs.rng.errors import RngUnhealthy
from rgs.rng.scaling import DEFAULT_BLOCK_BYTES, BufferedRng

T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class RngSettings:
    """How the certified RNG runs. Every field has a safe default."""

    #: Generate requests between reseeds from the OS (SP 800-90A allows up to 2^48).
    reseed_interval: int = DEFAULT_RESEED_INTERVAL
    #: Reseed from the OS before every Generate request (SP 800-90A prediction resistance).
    prediction_resistance: bool = False
    #: Bytes per Generate request when buffering output for card draws.
    block_bytes: int = DEFAULT_BLOCK_BYTES
    #: Parameters of the SP 800-90B continuous health tests.
    health_tests: HealthTestConfig = field(default_factory=HealthTestConfig)


class CertifiedRng:
    """One per process: deals cards, shuffles and streams raw output, only while healthy.

    Construction runs the entropy source's start-up health test and instantiates the DRBG; it
    raises :class:`~rgs.rng.errors.EntropySourceFailure` if the source is already broken.
    ``read`` replaces ``os.urandom`` in tests (a stuck source).
    """

    __slots__ = ("_buffered", "drbg", "health", "settings")

    def __init__(self, settings: RngSettings | None = None, *, health: RngHealth | None = None,
                 read: Callable[[int], bytes] = os.urandom) -> None:
        self.settings = settings or RngSettings()
        self.health = health or RngHealth()
        source = OsEntropySource(health=self.health, read=read, config=self.settings.health_tests)
        self.drbg = Drbg(source, reseed_interval=self.settings.reseed_interval,
                         prediction_resistance=self.settings.prediction_resistance)
        self._buffered = BufferedRng(self.drbg, block_bytes=self.settings.block_bytes)

    def _check(self) -> None:
        failure = self.health.failure
        if failure is not None:
            raise RngUnhealthy(f"the RNG stopped dealing after a failed {failure.test} health "
                               "test; restart the process to re-run the start-up tests")

    def below(self, n: int) -> int:
        """An unbiased integer in ``[0, n)``; raises :class:`RngUnhealthy` once unhealthy."""
        self._check()
        return self._buffered.below(n)

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates shuffle of ``items`` in place."""
        self._check()
        self._buffered.shuffle(items)

    def shuffled_shoe(self, decks: int) -> list[str]:
        """A full shoe of ``decks`` decks in shuffled order (for lab tools, not for dealing)."""
        cards = list(Shoe.of_decks(decks).cards())
        self.shuffle(cards)
        return cards

    def raw(self, nbytes: int) -> bytes:
        """``nbytes`` of raw DRBG output, straight from Generate (at most 65,536 per call)."""
        self._check()
        return self.drbg.generate(nbytes)

    def card_source(self, shoe: Shoe) -> ShoeSource:
        """A card source drawing without replacement from ``shoe`` with this RNG.

        Refuses with :class:`RngUnhealthy` when the RNG has already failed, and every later draw
        from the returned source refuses too if it fails mid-round.
        """
        self._check()
        return ShoeSource(shoe, self.below)

    def card_source_for_decks(self, decks: int) -> ShoeSource:
        """A card source over a fresh full shoe of ``decks`` decks (one per round)."""
        return self.card_source(Shoe.of_decks(decks))
