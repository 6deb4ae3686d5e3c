"""The one home of the rules a bet at a shared table must meet when it is placed."""

from __future__ import annotations

from rgs.engine import RuleSet, SideBetKind
from rgs.service.errors import InvalidRequest, NotAllowedNow
from rgs.service.tables.model import BetCommand, TableConfig, TableState, Who


def check_bet(cfg: TableConfig, rules: RuleSet, s: TableState, who: Who,
              b: BetCommand) -> None:
    """Refuse ``b`` (by ``who``, on the table as ``s``) unless it may be placed now."""
    lim = cfg.limits
    for name, amount in (("stake", b.stake), ("perfect_pairs", b.perfect_pairs),
                         ("twenty_one_plus_three", b.twenty_one_plus_three),
                         ("twenty_plus", b.twenty_plus)):
        if type(amount) is not int or amount < 0:
            raise InvalidRequest(f"{name} must be a non-negative integer of minor units",
                                 reason="INVALID_BET", field=name)
    if not lim.main_min <= b.stake <= lim.main_max:
        raise NotAllowedNow(f"seat {b.seat}: stake {b.stake} is outside the table limits "
                            f"{lim.main_min}..{lim.main_max}", reason="STAKE_OUT_OF_LIMITS")
    seat = s.seat(b.seat)
    if b.behind:
        if rules.bet_behind is False:
            raise InvalidRequest(f"table {cfg.id} ({cfg.variant}) has no Bet Behind: bet on "
                                 "your own seat", reason="INVALID_BET", field="bets")
        if b.perfect_pairs or b.twenty_one_plus_three or b.twenty_plus:
            raise InvalidRequest("a Bet Behind has no side bets", reason="INVALID_BET")
        if seat is None:
            raise NotAllowedNow(f"nobody sits at seat {b.seat}", reason="SEAT_EMPTY")
        if seat.who.player_key == who.player_key:
            raise NotAllowedNow("a Bet Behind goes on another player's seat, never your "
                                "own", reason="BET_BEHIND_OWN_SEAT")
        if any(x.seat == b.seat and x.who.player_key == who.player_key for x in s.behind):
            raise NotAllowedNow(f"you already bet behind seat {b.seat}", reason="ALREADY_BET")
        return
    if seat is None or seat.who.player_key != who.player_key:
        raise NotAllowedNow(f"seat {b.seat} is not yours; take a seat first",
                            reason="NOT_YOUR_SEAT")
    if s.bet(b.seat) is not None:
        raise NotAllowedNow(f"seat {b.seat} already has its bet for this round",
                            reason="ALREADY_BET")
    offered = rules.side_bets
    for kind, amount in ((SideBetKind.PERFECT_PAIRS, b.perfect_pairs),
                         (SideBetKind.TWENTY_ONE_PLUS_THREE, b.twenty_one_plus_three),
                         (SideBetKind.TWENTY_PLUS, b.twenty_plus)):
        if not amount:
            continue
        if kind not in offered:
            raise InvalidRequest(f"table {cfg.id} does not offer the {kind.value} side bet",
                                 reason="INVALID_BET", field="bets")
        if not lim.side_min <= amount <= lim.side_max:
            raise NotAllowedNow(f"{kind.value} {amount} is outside the table limits "
                                f"{lim.side_min}..{lim.side_max}",
                                reason="STAKE_OUT_OF_LIMITS")
