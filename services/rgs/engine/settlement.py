"""How a finished hand and the 20+ Bonus settle against the dealer's final hand."""

from __future__ import annotations

from fractions import Fraction

from rgs.engine.model import HandStatus, Outcome
from rgs.engine.rules import RuleSet, TwentyPlusOutcome
from rgs.engine.sidebets import twenty_plus_qualifies
from rgs.engine.state import ZERO, BoxState, HandState


def settle_hand(rules: RuleSet, box: BoxState, hi: int, hd: HandState, *, dealer_bj: bool,
                d_total: int, dealer_push: bool) -> tuple[Outcome, int, Fraction]:
    """Outcome, payout (stake included) and rounding of one finished hand."""
    r = rules
    stake = hd.stake
    st = hd.status
    if st is HandStatus.SURRENDERED:
        return Outcome.SURRENDER, stake // 2, Fraction(stake % 2, 2)
    if st is HandStatus.CASHED_OUT:
        table = r.cash_out
        assert table is not None
        return Outcome.CASHED_OUT, hd.cash_out, ZERO
    if hd.total > 21:
        return Outcome.BUST, 0, ZERO
    if st is HandStatus.BLACKJACK:
        if dealer_bj:
            return Outcome.PUSH, stake, ZERO
        exact = stake * r.blackjack_pays
        win = exact.numerator // exact.denominator
        return Outcome.BLACKJACK, stake + win, exact - win
    if st is HandStatus.CHARLIE and (r.charlie_wins_at_once or not dealer_bj):
        return Outcome.CHARLIE, 2 * stake, ZERO
    if dealer_bj:
        if r.late_blackjack_takes_all:
            return Outcome.LOSE, 0, ZERO
        # Original bet only: the extra stakes of doubles and splits are returned.
        kept = box.bet.stake if hi == 0 else 0
        return Outcome.LOSE, stake - kept, ZERO
    if dealer_push:
        return Outcome.PUSH, stake, ZERO
    if d_total > 21 or hd.total > d_total:
        return Outcome.WIN, 2 * stake, ZERO
    if hd.total == d_total:
        return Outcome.PUSH, stake, ZERO
    return Outcome.LOSE, 0, ZERO

def twenty_plus_outcome(box: BoxState, dealer_bj: bool, d_total: int,
                         dealer_push: bool) -> TwentyPlusOutcome | None:
    """The 20+ Bonus: the box's first two cards total 20/21 and the hand was stood on."""
    first = box.hands[0]
    cards = first.cards
    if box.touched or len(box.hands) != 1 or len(cards) != 2 or \
            not twenty_plus_qualifies(cards[0], cards[1]):
        return None
    total = first.total
    if dealer_bj:
        return TwentyPlusOutcome.PUSH if first.natural else TwentyPlusOutcome.DEALER_WINS
    if first.natural or (d_total > 21 and not dealer_push) or total > d_total:
        return TwentyPlusOutcome.PLAYER_WINS
    if dealer_push or total == d_total:
        return TwentyPlusOutcome.PUSH
    return TwentyPlusOutcome.DEALER_WINS


def behind_payout(rules: RuleSet, outcome: Outcome, stake: int,
                  cash_out_bp: int) -> tuple[int, Fraction]:
    """What a Bet Behind stake on a hand pays (stake included) for the hand's outcome."""
    if outcome in (Outcome.WIN, Outcome.CHARLIE):
        return 2 * stake, ZERO
    if outcome in (Outcome.PUSH, Outcome.VOID):
        return stake, ZERO
    if outcome is Outcome.BLACKJACK:
        exact = stake * rules.blackjack_pays
        win = exact.numerator // exact.denominator
        return stake + win, exact - win
    if outcome is Outcome.SURRENDER:
        return stake // 2, Fraction(stake % 2, 2)
    if outcome is Outcome.CASHED_OUT:
        exact = Fraction(stake * cash_out_bp, 10_000)
        paid = exact.numerator // exact.denominator
        return paid, exact - paid
    return 0, ZERO
