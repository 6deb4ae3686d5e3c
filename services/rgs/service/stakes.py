"""A new solo round's stakes: the debit of what the player pays, and the free bet a Deal
stakes instead of money (:mod:`rgs.service.freebets`), taken and, when the deal fails, given
back together."""

from __future__ import annotations

from dataclasses import dataclass

from rgs.service import money
from rgs.service.freebets import FreeBetGrant, FreeBets
from rgs.service.model import DealCommand, Movement, Session
from rgs.service.ports import PlayerJournal
from rgs.service.writes import Booking
from rgs.wallet.port import Party, Wallet


@dataclass(frozen=True, slots=True, kw_only=True)
class DealStakes:
    """What a Deal took: its debit (None when a free bet covers every stake) and free bet."""

    debit: Movement | None
    balance: int
    grant: FreeBetGrant | None

    @property
    def bookings(self) -> tuple[Booking, ...]:
        """The debit the round's commit records applied (with the balance the wallet reported
        and its own reference) and books."""
        return () if self.debit is None else (Booking.applied(self.debit, self.balance),)


async def check(free_bets: FreeBets, session: Session, cmd: DealCommand
                ) -> FreeBetGrant | None:
    """The grant a Deal stakes (None without one); refused with the reason otherwise."""
    if not cmd.free_bet_id:
        return None
    return await free_bets.check(session, cmd.free_bet_id, cmd.variant_id, cmd.boxes)


async def take(pj: PlayerJournal, wallet: Wallet, party: Party, free_bets: FreeBets, *,
               session: Session, cmd: DealCommand, grant: FreeBetGrant | None,
               round_id: str) -> DealStakes:
    """Debit the round's stakes less the free bet's value, and record the free bet's use
    (a Deal whose only stake is a free bet debits nothing and reads the balance)."""
    stake = sum(b.total_stake for b in cmd.boxes) - (grant.value if grant else 0)
    if stake > 0:
        # The debit is recorded applied by the commit that books it (one write fewer).
        debit, balance = await money.debit(pj, wallet, party, round_id=round_id, step=1,
                                           amount=stake, round_movements=[])  # none yet
    else:
        debit, balance = None, await money.balance(wallet, party)
    if grant is not None:
        await free_bets.use(session, grant, round_id, cmd.boxes[0].seat)
    return DealStakes(debit=debit, balance=balance, grant=grant)


async def give_back(pj: PlayerJournal, wallet: Wallet, party: Party, free_bets: FreeBets,
                    stakes: DealStakes, *, round_id: str, session: Session) -> None:
    """Undo :func:`take` for a round that was not dealt."""
    if stakes.debit is not None:
        await money.record(pj, stakes.debit, stakes.balance)
        await money.roll_back(pj, wallet, party, stakes.debit)
    if stakes.grant is not None:
        await free_bets.release(session, round_id)
