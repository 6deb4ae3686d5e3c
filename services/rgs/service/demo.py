"""Demo play: a session that plays with virtual money on the same engine, the same certified RNG
and the same journal as real play, and never reaches a wallet.

A demo player is ``demo~<24 hex>`` under the brand's operator (:func:`new_demo_player_id`); no
operator's player id can contain ``~``, so a demo player is never a real one. Its key in the
journal is ``operator/demo~...``, and every round and movement of it is marked ``demo`` in the
journal (migration 0170), so finance, reports, GGR and RTP monitoring leave it out.

Its money: :class:`DemoWallet` sits in front of the operators' wallets and answers every call
for a demo player from :class:`DemoStore` (the brand's starting balance per currency, topped up
on request), so the play path moves demo money exactly as it moves real money (the outbox, the
idempotent transaction ids, the reconciler) without any wallet seeing it.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from rgs.service.errors import NotAllowedNow, PermissionDenied
from rgs.service.identifiers import DEMO_PREFIX, is_demo_player
from rgs.service.model import Brand, Session
from rgs.wallet.port import MoneyCall, MoneyKind, MoneyResult, Party, Wallet, WalletRefused

DEMO_NOT_ALLOWED = "DEMO_NOT_ALLOWED"
"""ErrorInfo reason: demo play is not offered here (the brand does not allow it, a shared
table, or a real-money call with a demo session)."""
NOT_A_DEMO_SESSION = "NOT_A_DEMO_SESSION"
"""ErrorInfo reason: a demo-only call (a top-up) with a real session."""


def new_demo_player_id() -> str:
    """A fresh demo player id (one per demo launch)."""
    return f"{DEMO_PREFIX}{secrets.token_hex(12)}"


def demo_key(party: Party) -> str:
    """The demo player's key in the journal (as the rounds' ``player_key``)."""
    return f"{party.operator_id}/{party.player_id}"


def check_demo_allowed(brand: Brand, currency: str) -> int:
    """The brand's demo starting balance in ``currency``; refused when it offers no demo play."""
    if not brand.demo_balances:
        raise PermissionDenied(f"brand {brand.id} does not offer demo play: the operator "
                               "allows it in the platform file (demo.balances)",
                               reason="DEMO_NOT_ALLOWED")
    start = brand.demo_balances.get(currency)
    if start is None:
        raise PermissionDenied(f"brand {brand.id} offers demo play in "
                               f"{', '.join(brand.demo_balances)} only", reason="DEMO_NOT_ALLOWED")
    return start


def refuse_demo(session: Session, what: str) -> None:
    """Refuse a real-money-only call (a shared table's seat or bet) for a demo session."""
    if session.demo:
        raise PermissionDenied(f"{what} is for real money: not in demo play",
                               reason="DEMO_NOT_ALLOWED")


@dataclass(frozen=True, slots=True)
class DemoMove:
    """One demo move as stored (for idempotency by transaction id)."""

    kind: str
    amount: int
    balance_after: int


class DemoStore(Protocol):
    """Where demo balances live (the journal's database, or memory in unit tests)."""

    async def balance(self, key: str, currency: str, start: int) -> int:
        """The balance (``start`` the first time the player is seen)."""
        ...

    async def move(self, key: str, *, currency: str, start: int, transaction_id: str,
                   kind: str, delta: int, debit_id: str = "") -> int:
        """Apply ``delta`` once per transaction id (a rollback: the debit's amount back, if the
        debit was applied); the balance after. Raises :class:`WalletRefused`
        (INSUFFICIENT_FUNDS) when a debit is more than the balance."""
        ...

    async def top_up(self, key: str, currency: str, start: int) -> int:
        """Raise the balance back to ``start`` (never lower it); the balance after."""
        ...


class MemoryDemoStore:
    """A :class:`DemoStore` in memory (unit tests, the in-memory journal)."""

    def __init__(self) -> None:
        self._balances: dict[tuple[str, str], int] = {}
        self._moves: dict[tuple[str, str], DemoMove] = {}
        self._lock = asyncio.Lock()

    async def balance(self, key: str, currency: str, start: int) -> int:
        return self._balances.setdefault((key, currency), start)

    async def move(self, key: str, *, currency: str, start: int, transaction_id: str,
                   kind: str, delta: int, debit_id: str = "") -> int:
        async with self._lock:
            done = self._moves.get((key, transaction_id))
            if done is not None:
                return done.balance_after
            now = self._balances.setdefault((key, currency), start)
            if kind == MoneyKind.ROLLBACK.value:
                debit = self._moves.get((key, debit_id))
                delta = debit.amount if debit is not None else 0
            if now + delta < 0:
                raise WalletRefused("not enough demo money: top up", reason="INSUFFICIENT_FUNDS",
                                    balance=now)
            self._balances[(key, currency)] = now + delta
            self._moves[(key, transaction_id)] = DemoMove(kind, abs(delta), now + delta)
            return now + delta

    async def top_up(self, key: str, currency: str, start: int) -> int:
        async with self._lock:
            now = max(self._balances.get((key, currency), start), start)
            self._balances[(key, currency)] = now
            return now


class DemoWallet:
    """The :class:`~rgs.wallet.port.Wallet` the use cases see: a demo player's calls are
    answered from the :class:`DemoStore`, every other call goes to ``real`` unchanged."""

    def __init__(self, real: Wallet, store: DemoStore, brands: Mapping[str, Brand]) -> None:
        self._real = real
        self.store = store
        self._brands = brands

    def start(self, party: Party) -> int:
        """The starting balance of a demo party's brand and currency."""
        brand = self._brands.get(party.brand_id)
        return brand.demo_balances.get(party.currency, 0) if brand is not None else 0

    async def balance(self, party: Party) -> int:
        """See :meth:`Wallet.balance`."""
        if not is_demo_player(party.player_id):
            return await self._real.balance(party)
        return await self.store.balance(demo_key(party), party.currency, self.start(party))

    async def move(self, call: MoneyCall) -> MoneyResult:
        """See :meth:`Wallet.move`."""
        party = call.party
        if not is_demo_player(party.player_id):
            return await self._real.move(call)
        delta = -call.amount if call.kind is MoneyKind.DEBIT else call.amount
        after = await self.store.move(demo_key(party), currency=party.currency,
                                      start=self.start(party),
                                      transaction_id=call.transaction_id,
                                      kind=call.kind.value, delta=delta,
                                      debit_id=call.debit_transaction_id)
        return MoneyResult(transaction_id=call.transaction_id, balance=after,
                           wallet_reference=f"demo:{call.transaction_id}")

    async def top_up(self, session: Session) -> int:
        """Top a demo session's balance up to its brand's starting balance; the balance after."""
        if not session.demo:
            raise NotAllowedNow("only a demo session is topped up: real money comes from the "
                                "operator's cashier", reason="NOT_A_DEMO_SESSION")
        party = Party(operator_id=session.operator_id, brand_id=session.brand_id,
                      player_id=session.player_id, session_id=session.session_id,
                      currency=session.currency)
        return await self.store.top_up(demo_key(party), party.currency, self.start(party))
