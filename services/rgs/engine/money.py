"""What a round took from and paid to each player: one fold over the round's boxes.

:func:`box_money` is the only place that adds stakes and payouts up. The round's totals, the
amounts per player (for the wallet) and each Bet Behind's view are sums of its parts, so they
cannot disagree. A payout includes the returned stake; amounts are minor units.
"""

from __future__ import annotations

from collections.abc import Sequence

from rgs.engine.state import BoxState

#: (staked, paid) of one player, in minor units.
Money = tuple[int, int]


def box_money(box: BoxState) -> tuple[Money, tuple[tuple[str, Money], ...]]:
    """The box player's (staked, paid) — main bet, doubles, splits, side bets, insurance — and
    each Bet Behind player's, in bet order."""
    bet = box.bet
    staked = bet.twenty_plus + bet.perfect_pairs + bet.twenty_one_plus_three + box.insurance
    paid = box.insurance_payout
    for result in box.side_results.values():
        paid += result[2]
    for hd in box.hands:
        staked += hd.stake
        paid += hd.payout
    if not bet.behind:
        return (staked, paid), ()
    behind = []
    for bb in bet.behind:
        p = bb.player
        b_staked = box.behind_insurance.get(p, 0)
        b_paid = box.behind_insurance_paid.get(p, 0)
        for hd in box.hands:
            b_staked += hd.behind.get(p, 0)
            b_paid += hd.behind_paid.get(p, 0)
        behind.append((p, (b_staked, b_paid)))
    return (staked, paid), tuple(behind)


def player_of(box: BoxState) -> str:
    """Who plays a box: ``BoxBet.player``, else ``seat:N``."""
    return box.bet.player or f"seat:{box.bet.seat}"


def money_by_player(boxes: Sequence[BoxState]) -> dict[str, Money]:
    """(staked, paid) per player, seat players and Bet Behind players alike, in the order they
    first appear (a player on two boxes is added up)."""
    out: dict[str, Money] = {}
    for box in boxes:
        own, behind = box_money(box)
        for player, (s, p) in ((player_of(box), own), *behind):
            was = out.get(player)
            out[player] = (s, p) if was is None else (was[0] + s, was[1] + p)
    return out


def money_totals(boxes: Sequence[BoxState]) -> Money:
    """(staked, paid) of the whole round: every player's, added up."""
    staked = paid = 0
    for box in boxes:
        (s, p), behind = box_money(box)
        staked += s
        paid += p
        for _, (bs, bp) in behind:
            staked += bs
            paid += bp
    return staked, paid
