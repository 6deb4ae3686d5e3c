"""A per-operator bulkhead and circuit breaker around one wallet adapter, so a slow or dead
wallet harms only its own operator.

- **Bulkhead**: at most ``max_in_flight`` calls to the wallet at once; a call waits at most
  ``queue_wait_s`` for a free slot, else it is refused unsent. A stalled wallet then holds a
  bounded number of this replica's tasks (and, through them, player locks and database
  connections) instead of all of them.
- **Breaker**: after ``failures`` calls in a row without a definite answer (timeouts, transport
  errors) the breaker opens and calls are refused unsent for ``open_s`` (doubling while the
  wallet stays down, at most :data:`MAX_OPEN_S`); then one call goes through as a probe, and a
  definite answer (applied or refused) closes the breaker.

A call refused here raises :class:`~rgs.wallet.port.WalletNotCalled`: it never reached the
wallet, so nothing can have moved there.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from rgs.wallet.port import (
    MoneyCall,
    MoneyResult,
    Party,
    Wallet,
    WalletNotCalled,
    WalletRefused,
    WalletUnavailable,
)

T = TypeVar("T")

MAX_OPEN_S = 60.0
"""Longest time the breaker stays open before it lets a probe through."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardSettings:
    """Limits of one operator's wallet."""

    max_in_flight: int = 64
    queue_wait_s: float = 0.05
    failures: int = 5
    open_s: float = 5.0


class GuardedWallet:
    """A :class:`~rgs.wallet.port.Wallet` with a bulkhead and a circuit breaker."""

    def __init__(self, inner: Wallet, settings: GuardSettings, *, name: str = "",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._inner = inner
        self._s = settings
        self._name = name
        self._clock = clock
        self._slots = asyncio.Semaphore(settings.max_in_flight)
        self._failures = 0
        self._open_for = settings.open_s
        self._open_until = 0.0
        self._probing = False

    @property
    def breaker_open(self) -> bool:
        """True while calls are refused without being sent."""
        return self._failures >= self._s.failures and (
            self._clock() < self._open_until or self._probing)

    async def balance(self, party: Party) -> int:
        """See :meth:`Wallet.balance`."""
        return await self._guarded(lambda: self._inner.balance(party))

    async def move(self, call: MoneyCall) -> MoneyResult:
        """See :meth:`Wallet.move`."""
        return await self._guarded(lambda: self._inner.move(call))

    async def _guarded(self, call: Callable[[], Awaitable[T]]) -> T:
        probe = self._admit()
        try:
            await asyncio.wait_for(self._slots.acquire(), self._s.queue_wait_s)
        except TimeoutError:
            if probe:
                self._probing = False
            raise WalletNotCalled(f"wallet of {self._name}: {self._s.max_in_flight} calls in "
                                  "flight already; not sent") from None
        try:
            result = await call()
        except WalletUnavailable:
            self._failed(probe)
            raise
        except WalletRefused:
            self._answered()  # a definite answer: the wallet is there
            raise
        except BaseException:
            if probe:
                self._probing = False
            raise
        finally:
            self._slots.release()
        self._answered()
        return result

    def _admit(self) -> bool:
        """Refuse the call while the breaker is open; True when it goes as the probe."""
        if self._failures < self._s.failures:
            return False
        if self._probing or self._clock() < self._open_until:
            raise WalletNotCalled(f"wallet of {self._name}: circuit open after "
                                  f"{self._failures} calls without an answer; not sent")
        self._probing = True
        return True

    def _failed(self, probe: bool) -> None:
        self._failures += 1
        if probe:
            self._probing = False
            self._open_for = min(self._open_for * 2, MAX_OPEN_S)
        if self._failures >= self._s.failures:
            self._open_until = self._clock() + self._open_for

    def _answered(self) -> None:
        self._failures = 0
        self._probing = False
        self._open_for = self._s.open_s
