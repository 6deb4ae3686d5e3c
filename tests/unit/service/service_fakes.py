"""In-memory fakes of the service's ports, and an app wired through the real bootstrap."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from rgs.bootstrap import App, add_dev_operator_keys, build
from rgs.config import RgsSettings
from rgs.engine import CardSource
from rgs.journal.memory import InMemoryJournal
from rgs.journal.memory_tables import InMemoryTables
from rgs.platform_file import Platform
from rgs.rng.fair import CardOrders
from rgs.service.model import CreateSessionCommand, Session
from rgs.wallet.port import (
    MoneyCall,
    MoneyKind,
    MoneyResult,
    Party,
    WalletRefused,
    WalletUnavailable,
)

DEV_KEY = "rgs-dev-operator-key"
OTHER_KEY = "rgs-other-operator-key"


@dataclass
class FakeWallet:
    """A seamless wallet in a dict, with the contract's replay rules and switchable faults."""

    balances: dict[str, int] = field(default_factory=lambda: {"alice": 100_000, "bob": 0})
    applied: dict[str, MoneyCall] = field(default_factory=dict)
    calls: list[MoneyCall] = field(default_factory=list)
    #: Raise WalletUnavailable for the next call of this kind (after applying it if
    #: ``apply_then_fail``).
    fail_next: MoneyKind | None = None
    apply_then_fail: bool = False
    down: bool = False

    async def balance(self, party: Party) -> int:
        if self.down:
            raise WalletUnavailable("down")
        return self.balances[party.player_id]

    async def move(self, call: MoneyCall) -> MoneyResult:
        self.calls.append(call)
        if self.down:
            raise WalletUnavailable("down")
        failing = self.fail_next is call.kind
        if failing and not self.apply_then_fail:
            self.fail_next = None
            raise WalletUnavailable("timeout before apply")
        result = self._apply(call)
        if failing:
            self.fail_next = None
            raise WalletUnavailable("timeout after apply")
        return result

    def _apply(self, call: MoneyCall) -> MoneyResult:
        pid = call.party.player_id
        old = self.applied.get(call.transaction_id)
        if old is not None:
            if old != call:
                raise WalletRefused("duplicate", reason="DUPLICATE_TRANSACTION")
            return MoneyResult(transaction_id=call.transaction_id, balance=self.balances[pid])
        if call.kind is MoneyKind.DEBIT:
            if self.balances[pid] < call.amount:
                raise WalletRefused("funds", reason="INSUFFICIENT_FUNDS",
                                    balance=self.balances[pid])
            self.balances[pid] -= call.amount
        elif call.kind is MoneyKind.CREDIT:
            self.balances[pid] += call.amount
        elif call.debit_transaction_id in self.applied:
            self.balances[pid] += self.applied[call.debit_transaction_id].amount
        self.applied[call.transaction_id] = call
        return MoneyResult(transaction_id=call.transaction_id, balance=self.balances[pid])

    def ids(self, kind: MoneyKind) -> list[str]:
        """Transaction ids applied, of one kind."""
        return [t for t, c in self.applied.items() if c.kind is kind]


class SeededCards:
    """Deterministic card randomness for tests."""

    def __init__(self, seed: int = 7) -> None:
        self._rng = random.Random(seed)
        self._orders = CardOrders()

    def picker(self) -> Callable[[int], int]:
        return self._rng.randrange

    def fair_source(self, server_seed_hex: str, client_seed: str, round_number: int,
                    decks: int) -> CardSource:
        return self._orders.source(server_seed_hex, client_seed, round_number, decks)


class Clock:
    """A clock tests can move."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


@dataclass
class Harness:
    """An app over fakes, with helpers."""

    app: App
    journal: InMemoryJournal
    wallet: FakeWallet
    clock: Clock
    #: The shared tables' journal (a harness with tables only).
    table_journal: InMemoryTables | None = None

    async def session(self, player_id: str = "alice", brand_id: str = "demo-casino",
                      key: str = DEV_KEY) -> Session:
        operator = await self.app.office.authenticate(key)
        new = await self.app.office.create_session(operator, CreateSessionCommand(
            request_id=f"s-{player_id}-{brand_id}-{len(self.journal.tables.sessions)}",
            brand_id=brand_id, player_id=player_id))
        return await self.app.game.authenticate(new.token)


async def harness(*, test_mode: bool = True, seed: int = 7, tables: bool = False,
                  platform: Platform | None = None, **settings: Any) -> Harness:
    """The real bootstrap with in-memory journal, fake wallet and seeded cards (with
    ``tables``, the platform's shared tables on the in-memory tables' journal too)."""
    clock = Clock()
    journal = InMemoryJournal(clock=clock, lock_wait_s=0.2)
    wallet = FakeWallet()
    table_journal = InMemoryTables(journal) if tables else None
    app = await build(RgsSettings(test_mode=test_mode, **settings), journal=journal, wallet=wallet,
                      cards=SeededCards(seed), clock=clock, platform=platform,
                      tables=table_journal)
    await add_dev_operator_keys(journal)
    return Harness(app=app, journal=journal, wallet=wallet, clock=clock,
                   table_journal=table_journal)
