"""Free bets at a shared table (docs/freebets.md): a player stakes one on the main bet of their
own seat, at its value; the debit takes every other stake of the bet (the side bets), and the
round's credit to the player is what the engine pays less the free stake, taken from what the
seat's first hand returns (:func:`rgs.service.freebets.free_bet_credit`, never below nothing).
A Bet Behind, a double, a split and insurance are the player's own money. One free bet per
player and round."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from rgs.engine import RoundView
from rgs.service.errors import InvalidRequest
from rgs.service.freebets import FreeBets
from rgs.service.model import Session
from rgs.service.tables.model import BetCommand, SeatBet, TableConfig, TableState, Who
from rgs.service.tables.money import Funding


def cost(b: BetCommand) -> int:
    """What placing ``b`` debits: every stake but a free one."""
    if b.behind:
        return b.stake
    total = b.stake + b.perfect_pairs + b.twenty_one_plus_three + b.twenty_plus
    return total - (b.stake if b.free_bet_id else 0)


def check_bets(s: TableState, who: Who, bets: Sequence[BetCommand]) -> None:
    """Refuse free bets off the player's own seat's main bet, and a second one in a round."""
    free = [b for b in bets if b.free_bet_id]
    if any(b.behind for b in free):
        raise InvalidRequest("a free bet goes on the main bet of your own seat, never on a "
                             "Bet Behind", reason="INVALID_BET", field="free_bet_id")
    mine = {x.seat for x in s.seats if x.who.player_key == who.player_key}
    if len(free) + sum(1 for sb in s.bets if sb.free_bet_id and sb.seat in mine) > 1:
        raise InvalidRequest("one free bet per round", reason="INVALID_BET",
                             field="free_bet_id")


def free_bet_of(s: TableState, player_key: str) -> SeatBet | None:
    """The bet with a free stake on one of the player's seats this round (at most one)."""
    mine = {x.seat for x in s.seats if x.who.player_key == player_key}
    return next((sb for sb in s.bets if sb.free_stake and sb.seat in mine), None)


def credit_less(view: RoundView, sb: SeatBet | None) -> int:
    """What the credit of the settled round leaves out of the engine's payout: the free stake
    of ``sb``, taken from what its seat's first hand returns (0 without a free bet)."""
    return 0 if sb is None else free_credit_less(view, sb.seat, sb.free_stake)


def free_credit_less(view: RoundView, seat: int, free_stake: int) -> int:
    """The free stake ``free_stake`` on ``seat``, taken from what the seat's first hand
    returns: what a settled round's credit leaves out (never more than that hand returns)."""
    box = next((b for b in view.boxes if b.seat == seat), None)
    first = box.hands[0].payout if box is not None and box.hands else 0
    return min(free_stake, first)


def seat_bet(b: BetCommand, client_seed: str) -> SeatBet:
    """The seat's bet as the table keeps it."""
    return SeatBet(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                   twenty_one_plus_three=b.twenty_one_plus_three, twenty_plus=b.twenty_plus,
                   client_seed=client_seed, free_bet_id=b.free_bet_id,
                   free_stake=b.stake if b.free_bet_id else 0)


class TableFreeBets:
    """The grants a table's bets stake: checked, and their use recorded before the table
    takes the bet (given back with the stakes when it does not)."""

    def __init__(self, free_bets: FreeBets) -> None:
        self._free_bets = free_bets

    async def take(self, session: Session, cfg: TableConfig, funding: Funding, *,
                   round_id: str, bets: Sequence[BetCommand]) -> None:
        """Check every free bet of ``bets`` (refused with its FREE_BET_* reason: nothing is
        taken), then record their uses."""
        own = [b for b in bets if b.free_bet_id and not b.behind]
        grants = [await self._free_bets.check_at_table(
            session, b.free_bet_id, table_id=cfg.id, variant_id=cfg.variant,
            currency=cfg.currency, stake=b.stake) for b in own]
        for b, grant in zip(own, grants, strict=True):
            await self._free_bets.use(session, grant, round_id, b.seat, table_id=cfg.id)
            funding.on_undo.append(partial(self._free_bets.release, session, round_id,
                                           at_table=True))
