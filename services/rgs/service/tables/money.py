"""Each player's money at a shared table, through their own operator's wallet and their own
outbox (:mod:`rgs.service.money`): stakes debited under the player's journal before the table's
transition books them, returned at once when the transition does not take them, and the
credits and refunds a transition wrote sent after its commit.

A command pays its own players (the journals it holds) before it answers; everyone else's
payments go out in the background, each under that player's journal taken on a connection of
its own once the command has given its own back (``docs/architecture.md``: never wait for a
connection while holding one). What is not confirmed stays open for the reconciler.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rgs.service import money
from rgs.service.freebets import FreeBetStore
from rgs.service.model import Movement, MovementStatus
from rgs.service.ports import PlayerJournal
from rgs.service.tables.model import TableConfig, Who
from rgs.service.tables.payouts import Payouts, party_of
from rgs.service.tables.ports import HeldPlayer, TableJournal
from rgs.wallet.port import MoneyKind, Party, Wallet

log = logging.getLogger(__name__)

#: Background payments in flight at once per replica.
_PAYERS = 8


def party(who: Who, currency: str) -> Party:
    return Party(operator_id=who.operator_id, brand_id=who.brand_id, player_id=who.player_id,
                 session_id=who.session_id, currency=currency)


_party_of = party_of


@dataclass(slots=True, kw_only=True)
class Funding:
    """The stakes one command took: each debit with its player, and the caller's balance the
    wallet reported last."""

    held: Mapping[str, HeldPlayer]
    debits: list[tuple[Who, Movement]] = field(default_factory=list)
    balance: int | None = None
    #: Players whose stake could not be taken (a Bet Behind that does not follow).
    unfunded: set[str] = field(default_factory=set)
    #: Each held player's movements in the round, as read with their journal (None: read
    #: them again).
    round_movements: dict[str, list[Movement] | None] = field(default_factory=dict)
    #: What else the command took, given back with its stakes (a free bet's use).
    on_undo: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    @property
    def taken(self) -> bool:
        """Whether the command took anything to give back if the table does not take it."""
        return bool(self.debits or self.on_undo)

    def booked(self) -> list[tuple[str, str, int | None, str]]:
        """The stakes for the transition to book: (player key, debit, balance after it, the
        wallet's own reference)."""
        return [(w.player_key, m.transaction_id, m.balance_after, m.wallet_reference)
                for w, m in self.debits]


class TableMoney:
    """Stakes, refunds and payments of the shared tables on this replica."""

    def __init__(self, *, wallet: Wallet, tables: TableJournal,
                 free_bets: FreeBetStore | None = None) -> None:
        self._wallet = wallet
        self._tables = tables
        #: Where a free bet's credit is recorded paid (docs/freebets.md).
        self._free_bets = free_bets
        self._payers = asyncio.Semaphore(_PAYERS)
        self._background: set[asyncio.Task[None]] = set()
        self._payouts = Payouts(wallet=wallet, tables=tables, free_bets=free_bets)

    async def debit(self, cfg: TableConfig, funding: Funding, who: Who, *, round_id: str,
                    tag: str, amount: int, caller: bool = True) -> Movement:
        """Take a stake from ``who``'s wallet (raises the wallet's refusal)."""
        pj = funding.held[who.player_key].journal
        known = funding.round_movements.get(who.player_key)
        # Recorded applied by the transition that books it (one write fewer), or by undo.
        m, balance = await money.debit(pj, self._wallet, party(who, cfg.currency),
                                       round_id=round_id, step=tag,  # type: ignore[arg-type]
                                       amount=amount, round_movements=known)
        if known is not None:
            known.append(m)
        m = replace(m, status=MovementStatus.APPLIED, balance_after=balance)
        funding.debits.append((who, m))
        if caller:
            funding.balance = balance
        return m

    async def read_balance(self, cfg: TableConfig, funding: Funding, who: Who) -> None:
        """The caller's balance when the command debits nothing (a free bet alone)."""
        funding.balance = await money.balance(self._wallet, party(who, cfg.currency))

    async def undo(self, cfg: TableConfig, funding: Funding) -> bool:
        """Return the stakes of a command whose transition did not commit; True when the
        wallet confirmed every rollback (else the outbox finishes them)."""
        ok = True
        for give_back in funding.on_undo:
            await give_back()
        funding.on_undo.clear()
        for who, m in funding.debits:
            hp = funding.held.get(who.player_key)
            if hp is None:
                continue
            try:
                if m.balance_after is not None:  # the wallet applied it: recorded first
                    await money.record(hp.journal, m, m.balance_after)
                await money.roll_back(hp.journal, self._wallet, party(who, cfg.currency), m)
            except Exception as exc:
                log.warning("rollback of %s postponed: %s", m.transaction_id, exc)
                ok = False
                continue
            if not await _rolled_back(hp.journal, m):
                ok = False
        funding.debits.clear()
        return ok

    async def reconcile(self, hp: HeldPlayer, rows: list[Movement]) -> None:
        """Settle a held player's open outbox rows (as read with the player's journal)."""
        await money.reconcile(hp.journal, self._wallet, _party_of(hp.key, rows[0]), rows)

    async def reconcile_held(self, held: Mapping[str, HeldPlayer]) -> None:
        """Settle the open outbox rows of the players a command holds, before it moves any
        of their money."""
        for hp in held.values():
            rows = await hp.journal.open_movements()
            if rows:
                # Each row carries its own brand, session and currency; the wallet knows the
                # player by the key's operator and player ids.
                await money.reconcile(hp.journal, self._wallet, _party_of(hp.key, rows[0]),
                                      rows)

    async def pay_held(self, movements: Sequence[tuple[str, Movement]],
                       held: Mapping[str, HeldPlayer]) -> dict[str, int]:
        """Send the credits and refunds of the players held; each one's balance after it."""
        out: dict[str, int] = {}
        for key, m in movements:
            if key not in held:
                continue
            try:
                balance = await self._send(held[key].journal, key, m)
            except Exception as exc:
                log.warning("%s %s left for the reconciler: %s", m.kind.value,
                            m.transaction_id, exc)
                continue
            if balance is not None:
                out[key] = balance
        return out

    def pay_later(self, movements: Sequence[tuple[str, Movement]]) -> None:
        """Send these credits and refunds in the background, in bulk (:mod:`~rgs.service.
        tables.payouts`); a player that cannot be paid in bulk is paid under their own journal
        (taken on a connection of its own)."""
        if movements:
            self._spawn(self._payouts.pay(movements, self._pay_single))

    def _pay_single(self, movements: Sequence[tuple[str, Movement]]) -> None:
        for key, m in movements:
            self._spawn(self._pay_one(key, m))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _pay_one(self, key: str, m: Movement) -> None:
        async with self._payers:
            try:
                async with self._tables.link() as link, link.hold_players(
                        [key], waiting=(key,)) as held:
                    await self._send(held[key].journal, key, m)
            except Exception as exc:
                log.warning("%s %s left for the reconciler: %s", m.kind.value,
                            m.transaction_id, exc)

    async def drain(self, timeout_s: float) -> None:
        """Wait for the background payments (at shutdown; a bulk payment may leave single ones
        behind it); what is left goes to the reconciler."""
        end = asyncio.get_running_loop().time() + timeout_s
        while self._background:
            left = end - asyncio.get_running_loop().time()
            _, pending = await asyncio.wait(set(self._background), timeout=max(left, 0))
            if pending and left <= 0:
                for task in pending:
                    task.cancel()
                return

    async def _send(self, pj: PlayerJournal, key: str, m: Movement) -> int | None:
        p = _party_of(key, m)
        if m.kind is MoneyKind.CREDIT and not await self._stakes_resolved(pj, p, m.round_id):
            log.warning("credit %s waits for the player's stakes of its round", m.transaction_id)
            return None
        if m.kind is MoneyKind.CREDIT and m.promotional and self._free_bets is not None:
            await self._free_bets.record_paid(m.round_id, m.amount, key)
        # A rollback's outcome marks its debit rolled back in the same write.
        answer = await money.send(pj, self._wallet, p, m)
        return answer.balance

    async def _stakes_resolved(self, pj: PlayerJournal, p: Party, round_id: str) -> bool:
        """Settle the player's open debits and rollbacks of ``round_id`` (a sit-out refund the
        wallet did not confirm yet); True when none is left open, so the credit may go."""
        def pending(rows: Sequence[Movement]) -> list[Movement]:
            return [r for r in rows if r.round_id == round_id and r.kind is not MoneyKind.CREDIT
                    and r.is_open]
        rows = pending(await pj.open_movements())
        if rows:
            await money.reconcile(pj, self._wallet, p, rows)
            rows = pending(await pj.open_movements())
        return not rows


async def _rolled_back(pj: PlayerJournal, debit: Movement) -> bool:
    rows = await pj.movements(debit.round_id)
    return any(r.transaction_id == debit.transaction_id
               and r.status is MovementStatus.ROLLED_BACK for r in rows)
