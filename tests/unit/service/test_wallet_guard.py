"""The per-operator bulkhead and circuit breaker (rgs.wallet.guard): a slow or dead wallet is
refused locally, unsent, instead of taking every task, lock and connection of the replica.

Rules pinned: at most max_in_flight calls at once, the next waits queue_wait_s then is refused
unsent; after `failures` unknown outcomes in a row calls are refused unsent until open_s passes,
then one probe goes through and a definite answer (applied or refused) closes the breaker; a debit
refused unsent is final without a rollback, a credit so refused stays open in the outbox.
"""

from __future__ import annotations

import asyncio

import pytest
from service_fakes import FakeWallet, harness

from rgs.engine import BoxBet
from rgs.service.errors import NotSent
from rgs.service.model import DealCommand, MovementStatus
from rgs.wallet.guard import GuardedWallet, GuardSettings
from rgs.wallet.port import (
    MoneyCall,
    MoneyKind,
    MoneyResult,
    Party,
    WalletNotCalled,
    WalletRefused,
    WalletUnavailable,
)
from rgs.wallet.router import WalletRouter

pytestmark = pytest.mark.asyncio

ALICE = Party(operator_id="dev-operator", brand_id="demo-casino", player_id="alice",
              session_id="s", currency="EUR")


class Scripted:
    """A wallet whose answers the test decides."""

    def __init__(self) -> None:
        self.calls = 0
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail = False
        self.refuse = False

    async def balance(self, party: Party) -> int:
        self.calls += 1
        await self.gate.wait()
        if self.fail:
            raise WalletUnavailable("timeout")
        if self.refuse:
            raise WalletRefused("no", reason="PLAYER_NOT_FOUND")
        return 1

    async def move(self, call: MoneyCall) -> MoneyResult:
        raise AssertionError("not used")


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


async def test_the_bulkhead_refuses_unsent_past_max_in_flight() -> None:
    inner = Scripted()
    inner.gate.clear()  # a stalled wallet
    guard = GuardedWallet(inner, GuardSettings(max_in_flight=2, queue_wait_s=0.01))
    stuck = [asyncio.create_task(guard.balance(ALICE)) for _ in range(2)]
    await asyncio.sleep(0)
    with pytest.raises(WalletNotCalled):
        await guard.balance(ALICE)
    assert inner.calls == 2  # the third never reached the wallet
    inner.gate.set()
    assert await asyncio.gather(*stuck) == [1, 1]
    assert await guard.balance(ALICE) == 1


async def test_the_breaker_opens_after_unknown_outcomes_and_a_probe_closes_it() -> None:
    inner, clock = Scripted(), Clock()
    guard = GuardedWallet(inner, GuardSettings(failures=3, open_s=5.0), clock=clock)
    inner.fail = True
    for _ in range(3):
        with pytest.raises(WalletUnavailable):
            await guard.balance(ALICE)
    assert guard.breaker_open
    with pytest.raises(WalletNotCalled):
        await guard.balance(ALICE)
    assert inner.calls == 3
    clock.t = 5.1  # the probe goes through, fails: open twice as long
    with pytest.raises(WalletUnavailable):
        await guard.balance(ALICE)
    clock.t = 10.2
    with pytest.raises(WalletNotCalled):
        await guard.balance(ALICE)
    clock.t = 15.2
    inner.fail, inner.refuse = False, True  # a definite answer, even a refusal, closes it
    with pytest.raises(WalletRefused):
        await guard.balance(ALICE)
    assert not guard.breaker_open
    inner.refuse = False
    assert await guard.balance(ALICE) == 1


async def test_the_router_sends_each_call_to_its_operators_wallet_only() -> None:
    dev, other = Scripted(), Scripted()
    router = WalletRouter({"dev-operator": dev, "other-operator": other})
    assert await router.balance(ALICE) == 1
    assert (dev.calls, other.calls) == (1, 0)
    with pytest.raises(WalletNotCalled):
        await router.balance(Party(operator_id="gone", brand_id="b", player_id="alice",
                                   session_id="s", currency="EUR"))


class NotCalled(FakeWallet):
    async def move(self, call: MoneyCall) -> MoneyResult:
        self.calls.append(call)
        raise WalletNotCalled("circuit open")


async def test_a_debit_refused_unsent_is_final_without_a_rollback() -> None:
    h = await harness()
    s = await h.session()
    wallet = NotCalled()
    h.app.game.context.wallet = wallet
    with pytest.raises(NotSent) as err:
        await h.app.game.deal(s, DealCommand(request_id="d", variant_id="power",
                                             boxes=(BoxBet(seat=1, stake=100),)))
    assert err.value.reason == "WALLET_UNAVAILABLE"
    assert [c.kind for c in wallet.calls] == [MoneyKind.DEBIT]  # no rollback follows
    rows = list(h.journal.tables.movements.values())
    assert [(m.kind, m.status) for m in rows] == [(MoneyKind.DEBIT, MovementStatus.REFUSED)]
    assert rows[0].last_error.startswith("not sent")
