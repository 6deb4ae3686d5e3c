"""Fault injection: rules switched at run time through the control service.

A rule matches a wallet method (or all) and optionally one player; it fires with a probability
and/or a limited number of times. At most one rule fires per call: the first that matches, in
the order the rules were set. Rules live in the server process, not in the database, so a
restart clears them.
"""

from __future__ import annotations

import asyncio
import enum
import itertools
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from sandbox_wallet.errors import Reason, WalletRefusal

T = TypeVar("T")

DEFAULT_TIMEOUT_SLEEP_MS = 5_000
"""How long a timeout fault sleeps when the call has no deadline and the rule sets no latency."""

DEADLINE_OVERSHOOT_S = 0.25
"""How far past the caller's deadline a timeout fault sleeps, so the caller surely gives up."""


class FaultKind(enum.Enum):
    """What a fault does (mirrors ``rgs.sandbox.v1.FaultKind``)."""

    LATENCY = 1
    TIMEOUT_BEFORE_APPLY = 2
    TIMEOUT_AFTER_APPLY = 3
    ERROR = 4
    DUPLICATE_DELIVERY = 5


class Method(enum.Enum):
    """Wallet methods a rule can target (mirrors ``rgs.sandbox.v1.WalletMethod``)."""

    ANY = 0
    BALANCE = 1
    DEBIT = 2
    CREDIT = 3
    ROLLBACK = 4


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultRule:
    """One installed rule."""

    fault_id: str
    kind: FaultKind
    method: Method = Method.ANY
    player_id: str = ""
    """Only this player's calls match; empty matches everyone."""
    probability: float = 1.0
    """Chance in (0, 1] that a matching call fires the rule."""
    remaining: int = 0
    """Fires left; 0 means unlimited."""
    latency_ms: int = 0
    error_reason: Reason = Reason.WALLET_UNAVAILABLE

    def matches(self, method: Method, player_id: str) -> bool:
        """True when a call of ``method`` for ``player_id`` falls under this rule."""
        return self.method in (Method.ANY, method) and self.player_id in ("", player_id)


class FaultBoard:
    """The installed rules and the decision which (if any) fires for a call."""

    def __init__(self, *, rng: random.Random | None = None) -> None:
        self._rules: list[FaultRule] = []
        self._ids = itertools.count(1)
        # Seedable so a sandbox run with probabilistic faults can be reproduced.
        self._rng = rng or random.Random()

    def add(self, rule: FaultRule) -> FaultRule:
        """Install ``rule`` (its id is replaced by a fresh one) and return it."""
        if not 0.0 < rule.probability <= 1.0:
            raise WalletRefusal(Reason.INVALID_REQUEST, "probability must be in [0, 1]")
        if rule.remaining < 0 or rule.latency_ms < 0:
            raise WalletRefusal(Reason.INVALID_REQUEST, "remaining and latency_ms must be >= 0")
        installed = replace(rule, fault_id=f"fault-{next(self._ids)}")
        self._rules.append(installed)
        return installed

    def clear(self) -> int:
        """Remove every rule; return how many there were."""
        count = len(self._rules)
        self._rules.clear()
        return count

    def rules(self) -> tuple[FaultRule, ...]:
        """The installed rules in matching order."""
        return tuple(self._rules)

    def draw(self, method: Method, player_id: str) -> FaultRule | None:
        """Return the rule that fires for this call, consuming one of its fires, or None."""
        for index, rule in enumerate(self._rules):
            if not rule.matches(method, player_id):
                continue
            if rule.probability < 1.0 and self._rng.random() >= rule.probability:
                continue
            if rule.remaining == 1:
                del self._rules[index]
            elif rule.remaining > 1:
                self._rules[index] = replace(rule, remaining=rule.remaining - 1)
            return rule
        return None


async def run_with_fault(
    rule: FaultRule | None,
    apply: Callable[[], Awaitable[T]],
    *,
    time_remaining: float | None,
) -> T:
    """Run ``apply`` as ``rule`` dictates; ``time_remaining`` is the caller's deadline in s."""
    if rule is None:
        return await apply()
    match rule.kind:
        case FaultKind.LATENCY:
            await asyncio.sleep(rule.latency_ms / 1000)
            return await apply()
        case FaultKind.TIMEOUT_BEFORE_APPLY:
            await _sleep_past_deadline(rule, time_remaining)
            raise WalletRefusal(Reason.WALLET_UNAVAILABLE, "injected timeout before applying")
        case FaultKind.TIMEOUT_AFTER_APPLY:
            result = await apply()
            await _sleep_past_deadline(rule, time_remaining)
            return result
        case FaultKind.ERROR:
            raise WalletRefusal(rule.error_reason, f"injected {rule.error_reason} error")
        case FaultKind.DUPLICATE_DELIVERY:
            # Both deliveries race inside the wallet, as two network copies would; the ledger's
            # idempotency must make the second one a replay. The caller sees the first answer.
            first, _ = await asyncio.gather(apply(), apply(), return_exceptions=True)
            if isinstance(first, BaseException):
                raise first
            return first


async def _sleep_past_deadline(rule: FaultRule, time_remaining: float | None) -> None:
    if time_remaining is None:
        await asyncio.sleep((rule.latency_ms or DEFAULT_TIMEOUT_SLEEP_MS) / 1000)
    else:
        await asyncio.sleep(max(time_remaining, 0.0) + DEADLINE_OVERSHOOT_S)
