"""Which decisions a hand or box may take, and what each costs or offers.

One home for the table's playing rules as they bear on a single decision: when a double,
split, surrender, Power Double/Split or Cash Out is allowed, what it adds to the stake, the Cash
Out offer and the Safety Net warning. Turn order and phase belong to the round; this module only
answers for the hand in front of it.
"""

from __future__ import annotations

from rgs.engine.cards import CARD_VALUE
from rgs.engine.model import Action, BoxBet, LegalAction
from rgs.engine.rules import RuleSet, up_class
from rgs.engine.state import BoxState, HandState
from rgs.engine.vocabulary import (
    CASH_OUT,
    DECLINE_INSURANCE,
    DOUBLE,
    HIT,
    INSURE,
    NO_SURRENDER,
    OFFER_ALWAYS,
    OFFER_ON_PLAYER_BLACKJACK,
    POWER_DOUBLE,
    POWER_KEEP,
    POWER_REPLACE,
    POWER_SPLIT,
    SPLIT,
    STAND,
    SURRENDER,
)

#: Every decision on a hand, in the order legal actions are listed.
HAND_ACTIONS = (HIT, STAND, DOUBLE, SPLIT, SURRENDER, POWER_SPLIT, POWER_DOUBLE, POWER_KEEP,
                POWER_REPLACE, CASH_OUT)
_STAKE_ADDING = frozenset({DOUBLE, POWER_DOUBLE, SPLIT, POWER_SPLIT})


def insurance_stake(main_stake: int) -> int:
    """Insurance costs half the main bet, rounded down (nothing is offered when that is 0)."""
    return main_stake // 2


def box_insurance_refusal(box: BoxState, seat: int) -> tuple[str, str] | None:
    """Why the box on ``seat`` may not decide insurance now (message, rule), or None."""
    if not box.insurance_offered:
        return f"seat {seat} was not offered insurance", "insurance_offer"
    if box.insurance_decided:
        return f"seat {seat} has already decided insurance", "insurance_once"
    return None


def behind_insurance_refusal(box: BoxState, seat: int, player: str) -> str | None:
    """Why ``player``'s Bet Behind on the box of ``seat`` may not take insurance, or None."""
    bet = next((bb for bb in box.bet.behind if bb.player == player), None)
    if bet is None:
        return f"{player} has no Bet Behind on seat {seat}"
    if player in box.behind_insurance:
        return f"{player} has already insured the Bet Behind on seat {seat}"
    if insurance_stake(bet.stake) <= 0:
        return "the Bet Behind is too small to insure"
    return None


def insurance_offered(bet: BoxBet, natural: bool) -> bool:
    """Whether a box is offered insurance against a dealer ace, by its player's setting and
    whether the box holds a blackjack."""
    setting = bet.insurance_offer
    wanted = setting is OFFER_ALWAYS or (setting is OFFER_ON_PLAYER_BLACKJACK and natural)
    return wanted and insurance_stake(bet.stake) > 0


def insurance_options(box: BoxState) -> tuple[LegalAction, ...]:
    """INSURE (with its cost) and DECLINE_INSURANCE while the box has not decided; else none.
    The caller knows the round is in its insurance phase."""
    if box.insurance_decided:
        return ()
    return (LegalAction(action=INSURE, cost=insurance_stake(box.bet.stake)),
            LegalAction(action=DECLINE_INSURANCE))


def cash_out_bp(rules: RuleSet, hd: HandState, up: str) -> int | None:
    """The Cash Out offer for ``hd`` against the up card ``up``, in basis points of its stake
    (None: the table offers none for this hand)."""
    table = rules.cash_out
    if table is None:
        return None
    return table.offer_bp(hd.total, hd.soft, up_class(up))


def cash_out_offer(rules: RuleSet, hd: HandState, up: str) -> int | None:
    """The Cash Out offer in minor units, rounded down (None: no offer)."""
    bp = cash_out_bp(rules, hd, up)
    return None if bp is None else hd.stake * bp // 10_000


def refusal(rules: RuleSet, box: BoxState, hd: HandState, action: Action, *, up: str,
            dealer_bj: bool | None) -> tuple[str, str] | None:
    """Why ``action`` is refused on ``hd``, the hand to act against the up card ``up`` —
    (rule, message) — or None."""
    r = rules
    if hd.power_pending:
        if action is POWER_KEEP or action is POWER_REPLACE:
            return None
        return ("power_double_choice", "keep or replace the Power Double card first")
    if action is STAND or action is HIT:
        return None  # a hand that can no longer draw is never the active hand
    if action is POWER_KEEP or action is POWER_REPLACE:
        return ("power_double_choice", "there is no Power Double card to keep or replace")
    n = len(hd.cards)
    original = not hd.from_split and len(box.hands) == 1
    if action is DOUBLE or action is POWER_DOUBLE:
        power = (original and n == 2 and hd.hard in r.power_double_counts)
        if action is DOUBLE and power:
            return ("power_double_replaces_double",
                    f"a two-card count of {hd.hard} gets Power Double instead of a double")
        if action is POWER_DOUBLE and not power:
            return ("power_double", "Power Double needs the original two-card hand with a "
                    f"count (aces as 1) of {sorted(r.power_double_counts) or 'none'}")
        if n != 2 and not r.double_any_cards:
            return ("double_first_two_cards", "doubling is allowed on the first two cards only")
        if hd.from_split and not r.double_after_split:
            return ("double_after_split", "no double after a split")
        if hd.split_aces and not r.double_split_aces:
            return ("double_split_aces", "split aces may not be doubled")
        return None
    if action is SPLIT:
        if n != 2 or CARD_VALUE[hd.cards[0]] != CARD_VALUE[hd.cards[1]]:
            return ("split_equal_value", "only two cards of equal value may be split")
        if hd.power_split:
            return ("power_split_no_resplit", "a Power Split hand may not be split")
        if hd.depth >= r.max_split_depth:
            return ("max_split_depth", "this hand may not be split again"
                    if hd.depth else "this table allows no split")
        if len(box.hands) >= r.max_hands:
            return ("max_hands", f"a box may hold at most {r.max_hands} hands")
        if hd.split_aces and not r.resplit_aces:
            return ("resplit_aces", "split aces may not be split again")
        return None
    if action is POWER_SPLIT:
        if not (r.power_split_totals and original and n == 2):
            return ("power_split", "Power Split is only for the original two-card hand")
        v0, v1 = CARD_VALUE[hd.cards[0]], CARD_VALUE[hd.cards[1]]
        if 1 in (v0, v1) or v0 == v1 or hd.total not in r.power_split_totals:
            return ("power_split", "Power Split needs two different non-aces totalling "
                    f"{sorted(r.power_split_totals)}")
        if len(box.hands) >= r.max_hands:  # pragma: no cover - max_hands >= 2 always
            return ("max_hands", f"a box may hold at most {r.max_hands} hands")
        return None
    if action is SURRENDER:
        if r.surrender is NO_SURRENDER:
            return ("surrender", "this table has no surrender")
        if not original or n != 2:
            return ("surrender_first_decision",
                    "surrender is only the first decision on the original two cards")
        return None
    if action is CASH_OUT:
        if r.cash_out is None:
            return ("cash_out", "this table has no Cash Out")
        if len(box.hands) != 1 or hd.doubled:
            return ("cash_out_unsplit_undoubled", "Cash Out is for an unsplit, undoubled hand")
        if dealer_bj:  # pragma: no cover - a known dealer blackjack ends the round
            return ("cash_out", "the dealer has blackjack")
        if cash_out_offer(r, hd, up) is None:
            return ("cash_out_table", "no Cash Out offer for this hand")
        return None
    raise AssertionError(action)  # pragma: no cover


def priced(rules: RuleSet, box: BoxState, hd: HandState, action: Action, *,
           up: str) -> LegalAction:
    """An allowed ``action`` on ``hd`` with what it adds to the stake, its Cash Out offer, or
    the Safety Net warning (a HIT on soft 20 or hard 17 and more, for a box that asked)."""
    if action in _STAKE_ADDING:
        return LegalAction(action=action, cost=hd.stake)
    if action is CASH_OUT:
        return LegalAction(action=action, offer=cash_out_offer(rules, hd, up) or 0)
    if action is HIT and box.bet.safety_net and (
            (hd.soft and hd.total == 20) or (not hd.soft and hd.total >= 17)):
        return LegalAction(action=action, warning="safety_net")
    return LegalAction(action=action)


def hand_actions(rules: RuleSet, box: BoxState, hd: HandState, *, up: str,
                 dealer_bj: bool | None) -> tuple[LegalAction, ...]:
    """Every decision open to ``hd``, the hand to act, each priced."""
    return tuple(priced(rules, box, hd, a, up=up) for a in HAND_ACTIONS
                 if refusal(rules, box, hd, a, up=up, dealer_bj=dealer_bj) is None)
