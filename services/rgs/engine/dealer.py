"""How the dealer plays: the natural, the peek, whether the dealer must play at all, and the
drawing rule (stand on 17, or hit soft 17).

The round deals the dealer's cards (it owns the card source and the events); this module only
decides. Cards are the dealer's in deal order: up card first, then the hole or second card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rgs.engine.cards import CARD_VALUE
from rgs.engine.rules import RuleSet
from rgs.engine.state import BoxState
from rgs.engine.vocabulary import ACE_AND_TEN, ACE_ONLY, BLACKJACK, CHARLIE, DOUBLED, STOOD


def is_natural(cards: Sequence[str]) -> bool:
    """The dealer's first two cards are an ace and a ten-valued card (not any two cards that
    count 11)."""
    a, b = CARD_VALUE[cards[0]], CARD_VALUE[cards[1]]
    return a + b == 11 and 1 in (a, b)


def can_blackjack(up: str) -> bool:
    """An ace or a ten-valued up card may still make a dealer blackjack."""
    return CARD_VALUE[up] in (1, 10)


def peeks(rules: RuleSet, up: str) -> bool:
    """Whether the dealer checks the hole card for blackjack before the players act."""
    v = CARD_VALUE[up]
    return rules.hole_card and (
        (v == 1 and rules.peek in (ACE_AND_TEN, ACE_ONLY))
        or (v == 10 and rules.peek is ACE_AND_TEN))


def must_play(rules: RuleSet, boxes: Sequence[BoxState], up: str, *,
              blackjack_known: bool, insured: bool) -> tuple[bool, bool]:
    """``(live, check)`` once every hand is done: ``live`` when a hand stood or doubled needs the
    dealer's final total; ``check`` when insurance, a player blackjack or a Charlie that does not
    win at once needs to know whether the dealer has blackjack (not yet known)."""
    up_bj = not blackjack_known and can_blackjack(up)
    live = False
    check = insured and not blackjack_known
    for box in boxes:
        for hd in box.hands:
            st = hd.status
            if st is STOOD or st is DOUBLED:
                live = True
            elif st is BLACKJACK or (
                    st is CHARLIE and not rules.charlie_wins_at_once):
                check = check or up_bj
    return live, check


def draw_out(rules: RuleSet, cards: Sequence[str], deal: Callable[[], str]) -> int:
    """Have the dealer draw (``deal()`` deals one card to the dealer and returns it) until the
    hand stands: on any 17 or more, except a soft 17 where the table hits soft 17. Return the
    hand's final total (settlement reads it)."""
    hard = 0
    ace = False
    for c in cards:
        v = CARD_VALUE[c]
        hard += v
        ace = ace or v == 1
    h17 = rules.dealer_hits_soft_17
    while True:
        soft = ace and hard <= 11  # cards.is_soft, inline (checked by a test)
        total = hard + 10 if soft else hard
        if total > 17 or (total == 17 and not (h17 and soft)):
            return total
        v = CARD_VALUE[deal()]
        hard += v
        ace = ace or v == 1
