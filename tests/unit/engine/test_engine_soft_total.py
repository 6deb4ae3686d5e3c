"""The soft-total rule has one home, ``rgs.engine.cards.is_soft``/``best_total``: an ace counts
as 11 when that does not bust the hand. The engine's hot paths write it inline for speed (a card
dealt to a player, the dealer's drawing loop, ``HandState.soft``, ``hand_total``); each copy is
checked here against the rule, so a copy that drifts fails a test instead of paying a hand
wrongly."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

from rgs.engine import Action, BoxBet, Round, SequenceSource
from rgs.engine.cards import RANKS, best_total, hand_total, hard_total, is_soft
from rgs.engine.dealer import draw_out
from rgs.engine.state import HandState
from rgs.variants import find_variant

#: One card of each rank (suits do not count towards a total).
CARDS = [r + "S" for r in RANKS]


def _rule(cards: list[str]) -> tuple[int, bool]:
    """The rule written from its statement, apart from the engine's code."""
    hard = sum(min(RANKS.index(c[0]) + 1, 10) for c in cards)
    soft = any(c[0] == "A" for c in cards) and hard + 10 <= 21
    return (hard + 10 if soft else hard), soft


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4])
def test_the_rule_and_hand_state_agree_on_every_hand(size: int) -> None:
    for cards in itertools.product(CARDS, repeat=size):
        want = _rule(list(cards))
        hard, ace = hard_total(cards)
        assert (best_total(hard, ace), is_soft(hard, ace)) == want == hand_total(cards), cards
        hd = HandState(list(cards), 100)
        assert (hd.total, hd.soft) == want, cards
        if size > 1:
            hd.drop_last()
            assert (hd.total, hd.soft) == _rule(list(cards[:-1])), cards


def test_a_card_dealt_to_a_player_keeps_the_hands_totals_by_the_rule() -> None:
    """``Round._deal_to``'s inline copy: hit to the end on every two-card start."""
    rules = find_variant("vegas-20-plus")  # hits any total below 21, no hole-card peek
    rng = random.Random(7)
    for first, second in itertools.product(CARDS, repeat=2):
        draws = [rng.choice(CARDS) for _ in range(12)]
        rnd = Round.deal(rules, SequenceSource([first, "5H", second, "9D", *draws, *draws]),
                         [BoxBet(seat=1, stake=100)])
        hand = rnd._boxes[0].hands[0]
        assert (hand.total, hand.soft) == _rule(hand.cards)
        while rnd.to_act == (1, 0) and rnd.can(1, 0, Action.HIT):
            rnd.act(1, 0, Action.HIT)
            assert (hand.total, hand.soft) == _rule(hand.cards), hand.cards


def _dealing(cards: list[str], deck: list[str]) -> Callable[[], str]:
    """``draw_out``'s ``deal``: the next card of ``deck`` joins the dealer's ``cards``."""
    rest = iter(deck)

    def deal() -> str:
        cards.append(next(rest))
        return cards[-1]
    return deal


@pytest.mark.parametrize("h17", [False, True])
def test_the_dealer_draws_by_the_rule(h17: bool) -> None:
    """``dealer.draw_out``'s inline copy: the dealer stands exactly where the rule says, and
    the total it returns is the rule's."""
    rules = find_variant("electronic-h17" if h17 else "classic-resplit")
    assert rules.dealer_hits_soft_17 is h17
    rng = random.Random(11)
    for start in itertools.product(CARDS, repeat=2):
        for _ in range(20):
            cards = list(start)
            counted = draw_out(rules, cards,
                               _dealing(cards, [rng.choice(CARDS) for _ in range(12)]))
            total, soft = _rule(cards)
            assert counted == total, cards  # the total settlement reads
            assert total > 17 or (total == 17 and not (h17 and soft)), cards  # stands
            before, soft_before = _rule(cards[:-1])
            if len(cards) > 2:  # and drew its last card only where it had to
                assert before < 17 or (before == 17 and h17 and soft_before), cards
