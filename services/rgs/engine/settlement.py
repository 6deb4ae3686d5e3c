"""How bets settle: hands and Bet Behind stakes against the dealer's final hand, insurance on
the dealer's blackjack, side bets on their cards, and a void's refund.

The ``settle_*`` functions write each result into the box state and ``emit`` its event, in the
order the journal records them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from rgs.engine.builders import hand_settled
from rgs.engine.model import (
    BehindInsuranceSettled,
    BehindSettled,
    Event,
    InsuranceSettled,
    Outcome,
    SideBetSettled,
)
from rgs.engine.rules import RuleSet, SideBetKind, TwentyPlusOutcome
from rgs.engine.sidebets import (
    perfect_pairs,
    twenty_one_plus_three,
    twenty_plus,
    twenty_plus_qualifies,
)
from rgs.engine.state import ZERO, BoxState, HandState
from rgs.engine.vocabulary import (
    BLACKJACK,
    CASHED_OUT,
    CHARLIE,
    HAND_SETTLED,
    OUTCOME_BLACKJACK,
    OUTCOME_BUST,
    OUTCOME_CASHED_OUT,
    OUTCOME_CHARLIE,
    OUTCOME_LOSE,
    OUTCOME_PUSH,
    OUTCOME_SURRENDER,
    OUTCOME_VOID,
    OUTCOME_WIN,
    SURRENDERED,
)

#: Half a minor unit: what rounding an odd stake's surrender keeps.
HALF = Fraction(1, 2)

#: Where settlement events go (the round's event list).
Emit = Callable[[Event], None]


def settle_hand(rules: RuleSet, box: BoxState, hi: int, hd: HandState, *, dealer_bj: bool,
                d_total: int, dealer_push: bool) -> tuple[Outcome, int, Fraction]:
    """Outcome, payout (stake included) and rounding of one finished hand."""
    r = rules
    stake = hd.stake
    st = hd.status
    if st is SURRENDERED:
        return OUTCOME_SURRENDER, stake // 2, HALF if stake % 2 else ZERO
    if st is CASHED_OUT:
        table = r.cash_out
        assert table is not None
        return OUTCOME_CASHED_OUT, hd.cash_out, ZERO
    total = hd.total
    if total > 21:
        return OUTCOME_BUST, 0, ZERO
    if st is BLACKJACK:
        if dealer_bj:
            return OUTCOME_PUSH, stake, ZERO
        # stake x blackjack_pays in integers (Fraction arithmetic costs more than the rest of a
        # round): the whole minor units won, and the fraction of one the floor keeps
        pays = r.blackjack_pays
        win, kept = divmod(stake * pays.numerator, pays.denominator)
        return OUTCOME_BLACKJACK, stake + win, Fraction(kept, pays.denominator) if kept else ZERO
    if st is CHARLIE and (r.charlie_wins_at_once or not dealer_bj):
        return OUTCOME_CHARLIE, 2 * stake, ZERO
    if dealer_bj:
        if r.late_blackjack_takes_all:
            return OUTCOME_LOSE, 0, ZERO
        # Original bet only: the extra stakes of doubles and splits are returned.
        kept = box.bet.stake if hi == 0 else 0
        return OUTCOME_LOSE, stake - kept, ZERO
    if dealer_push:
        return OUTCOME_PUSH, stake, ZERO
    if d_total > 21 or total > d_total:
        return OUTCOME_WIN, 2 * stake, ZERO
    if total == d_total:
        return OUTCOME_PUSH, stake, ZERO
    return OUTCOME_LOSE, 0, ZERO


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
    if outcome in (OUTCOME_WIN, OUTCOME_CHARLIE):
        return 2 * stake, ZERO
    if outcome in (OUTCOME_PUSH, OUTCOME_VOID):
        return stake, ZERO
    if outcome is OUTCOME_BLACKJACK:
        exact = stake * rules.blackjack_pays
        win = exact.numerator // exact.denominator
        return stake + win, exact - win
    if outcome is OUTCOME_SURRENDER:
        return stake // 2, Fraction(stake % 2, 2)
    if outcome is OUTCOME_CASHED_OUT:
        exact = Fraction(stake * cash_out_bp, 10_000)
        paid = exact.numerator // exact.denominator
        return paid, exact - paid
    return 0, ZERO


def settle_side(box: BoxState, kind: SideBetKind, stake: int, won: tuple[str, int],
                emit: Emit) -> None:
    """Settle one side bet on ``won``, the paytable line and its ``pays`` to 1 (0 loses)."""
    line, pays = won
    payout = stake * (pays + 1) if pays else 0
    box.side_results[kind] = (line, pays, payout)
    emit(SideBetSettled(seat=box.bet.seat, kind=kind, stake=stake, line=line, pays=pays,
                        payout=payout))


def settle_deal_side_bets(rules: RuleSet, box: BoxState, up: str, emit: Emit) -> None:
    """Perfect Pairs and 21+3 settle on the deal: the box's first two cards and the up card."""
    bet = box.bet
    first, second = box.hands[0].cards
    if bet.perfect_pairs and rules.perfect_pairs is not None:
        settle_side(box, SideBetKind.PERFECT_PAIRS, bet.perfect_pairs,
                    perfect_pairs(first, second, rules.perfect_pairs), emit)
    if bet.twenty_one_plus_three and rules.twenty_one_plus_three is not None:
        settle_side(box, SideBetKind.TWENTY_ONE_PLUS_THREE, bet.twenty_one_plus_three,
                    twenty_one_plus_three(first, second, up, rules.twenty_one_plus_three), emit)


def settle_insurance(rules: RuleSet, boxes: Sequence[BoxState], dealer_bj: bool,
                     emit: Emit) -> None:
    """Insurance (the box's and each Bet Behind's) pays ``insurance_pays`` to 1 on a dealer
    blackjack and loses otherwise."""
    pays = rules.insurance_pays + 1
    for box in boxes:
        if box.insurance:
            box.insurance_payout = box.insurance * pays if dealer_bj else 0
            emit(InsuranceSettled(seat=box.bet.seat, stake=box.insurance,
                                  payout=box.insurance_payout))
        for player, stake in box.behind_insurance.items():
            paid = box.behind_insurance_paid[player] = stake * pays if dealer_bj else 0
            emit(BehindInsuranceSettled(seat=box.bet.seat, player=player, stake=stake,
                                        payout=paid))


def settle_hands(rules: RuleSet, boxes: Sequence[BoxState], d_total: int, dealer_bj: bool,
                 emit: Emit) -> None:
    """Settle every hand, the Bet Behind stakes riding on it, and the 20+ Bonus, against the
    dealer's final total ``d_total``."""
    dealer_push = rules.dealer_push_total is not None and d_total == rules.dealer_push_total
    for box in boxes:
        seat = box.bet.seat
        for hi, hd in enumerate(box.hands):
            outcome, payout, rounded = settle_hand(
                rules, box, hi, hd, dealer_bj=dealer_bj, d_total=d_total, dealer_push=dealer_push)
            hd.outcome, hd.payout, hd.status = outcome, payout, HAND_SETTLED
            emit(hand_settled(seat=seat, hand=hi, outcome=outcome, stake=hd.stake, payout=payout,
                              rounded_off=rounded))
            if not hd.behind:
                continue
            for player, stake in hd.behind.items():
                paid, cut = behind_payout(rules, outcome, stake, hd.cash_out_bp)
                hd.behind_paid[player] = paid
                emit(BehindSettled(seat=seat, hand=hi, player=player, outcome=outcome,
                                   stake=stake, payout=paid, rounded_off=cut))
        if box.bet.twenty_plus and rules.twenty_plus is not None:
            won = twenty_plus(twenty_plus_outcome(box, dealer_bj, d_total, dealer_push),
                              rules.twenty_plus)
            settle_side(box, SideBetKind.TWENTY_PLUS, box.bet.twenty_plus, won, emit)


def refund_all(boxes: Sequence[BoxState]) -> None:
    """A void: every stake taken is paid back and nothing more (side bets settle as "void")."""
    for box in boxes:
        for hd in box.hands:
            hd.outcome, hd.payout, hd.status = OUTCOME_VOID, hd.stake, HAND_SETTLED
            hd.behind_paid = dict(hd.behind)
        box.insurance_payout = box.insurance
        box.behind_insurance_paid = dict(box.behind_insurance)
        box.side_results = {k: ("void", 0, s) for k, s in box.bet.side_stakes()}
