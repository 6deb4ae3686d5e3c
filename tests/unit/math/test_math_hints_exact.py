"""The decision values the analysis has no PAR-sheet line for, checked against an independent
computation, and insurance against the PAR sheet's insurance return.

The independent computation is a brute-force enumeration written here from the rule book
(docs/variants.md), sharing nothing with rgs.math but the rule set: the dealer's every draw
sequence from the exact remaining cards (no falling-factorial trie, no precomputed table), and
the player's hand played on by recursion. Up cards 2..9 keep the dealer blackjack out, so the
values are plain expectations. The figures are exact on both sides (floating point only), so
the tolerance is 1e-9 of a bet.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import pytest

from rgs.engine import Action, RuleSet
from rgs.math.hints import HintTables
from rgs.math.par import PAR_DIR
from rgs.variants import VARIANTS, find_variant

#: This module's own analysis caches (an app owns its own).
TABLES = HintTables()
insurance_values = TABLES.insurance_values
power_choice_values = TABLES.power_choice_values
split_hand_values = TABLES.split_hand_values
up_card_analysis = TABLES.up_card_analysis

VALUE = {"A": 1, "T": 10, **{str(v): v for v in range(2, 10)}}
ORDER = "A23456789T"


def _left(rules: RuleSet, seen: tuple[str, ...]) -> tuple[int, ...]:
    left = [4 * rules.decks] * 9 + [16 * rules.decks]
    for c in seen:
        left[ORDER.index(c[0])] -= 1
    return tuple(left)


def _total(values: tuple[int, ...]) -> int:
    hard = sum(values)
    return hard + 10 if 1 in values and hard <= 11 else hard


@cache
def _dealer(rules: RuleSet, hard: int, ace: bool, two: bool, left: tuple[int, ...]
            ) -> dict[str, float]:
    """Final dealer results ("17".."21", "bust", "push") from a dealer hand of ``hard`` (aces
    as 1; ``ace``: it holds one; ``two``: two cards or more) with ``left`` in the shoe: every
    draw, by the rule book's stopping rule."""
    total = hard + 10 if ace and hard <= 11 else hard
    soft = total != hard
    if total > 21:
        return {"push" if total == rules.dealer_push_total else "bust": 1.0}
    if two and (total > 17 or (total == 17 and not (soft and rules.dealer_hits_soft_17))):
        return {str(total): 1.0}
    n = sum(left)
    out: dict[str, float] = {}
    for i, k in enumerate(left):
        if k:
            rest = (*left[:i], k - 1, *left[i + 1:])
            for key, p in _dealer(rules, hard + i + 1, ace or i == 0, True, rest).items():
                out[key] = out.get(key, 0.0) + p * k / n
    return out


def _stand(rules: RuleSet, up: int, hand: tuple[int, ...], left: tuple[int, ...]) -> float:
    t = _total(hand)
    if t > 21:
        return -1.0
    win = 0.0
    for key, p in _dealer(rules, up, up == 1, False, left).items():
        if key == "bust":
            win += p
        elif key != "push":
            win += p * ((t > int(key)) - (t < int(key)))
    return win


def _draws(left: tuple[int, ...]) -> list[tuple[int, float, tuple[int, ...]]]:
    n = sum(left)
    return [(i + 1, k / n, (*left[:i], k - 1, *left[i + 1:])) for i, k in enumerate(left) if k]


def _double(rules: RuleSet, up: int, hand: tuple[int, ...], left: tuple[int, ...]) -> float:
    return 2.0 * sum(p * _stand(rules, up, (*hand, v), rest) for v, p, rest in _draws(left))


@cache
def _play_on(rules: RuleSet, up: int, hand: tuple[int, ...], left: tuple[int, ...],
             can_double: bool) -> float:
    """Best of stand, hit (then play on) and double (where allowed) for a split hand of no
    card-count rule (the hands below never reach one)."""
    if _total(hand) >= 21:
        return _stand(rules, up, hand, left)
    best = max(_stand(rules, up, hand, left), _hit(rules, up, hand, left, can_double))
    if can_double:
        best = max(best, _double(rules, up, hand, left))
    return best


def _hit(rules: RuleSet, up: int, hand: tuple[int, ...], left: tuple[int, ...],
         can_double: bool) -> float:
    return sum(p * _play_on(rules, up, (*hand, v), rest, can_double and rules.double_any_cards)
               for v, p, rest in _draws(left))


#: (variant, up card, split hand, the box's other cards): a first split hand at its first
#: decision, and a later split hand after its neighbour finished with three cards.
SPLIT_HANDS = [
    ("classic-resplit", "6H", ("8S", "3D"), ("8C",)),
    ("classic-resplit", "9H", ("7S", "9D"), ("7C", "TD", "4H")),
    ("vegas-20-plus", "5H", ("AS", "6D"), ("AC", "3D", "9S")),
    ("electronic-h17", "7H", ("9S", "7D"), ("9C", "2D")),
    ("power", "4H", ("9S", "3D"), ("6C", "5D", "TS")),  # a Power Split hand (9-6)
    ("power", "8H", ("TS", "6D"), ("TC", "8D")),
    ("vip-platinum", "3H", ("4S", "TD"), ("4C", "TD", "2H")),
]


@pytest.mark.parametrize(("variant", "up", "cards", "others"), SPLIT_HANDS)
def test_split_hand_values_equal_a_brute_force_enumeration(
        variant: str, up: str, cards: tuple[str, str], others: tuple[str, ...]) -> None:
    rules = find_variant(variant)
    power = cards[0][0] != others[0][0]
    got = split_hand_values(rules, up, cards, others, power=power)
    left = _left(rules, (up, *cards, *others))
    u, hand = VALUE[up[0]], tuple(VALUE[c[0]] for c in cards)
    das = rules.double_after_split and not (cards[0][0] == "A" and not rules.double_split_aces)
    want = {Action.STAND: _stand(rules, u, hand, left),
            Action.HIT: _hit(rules, u, hand, left, das)}
    if das:
        want[Action.DOUBLE] = _double(rules, u, hand, left)
    assert set(got) == set(want)
    for action, value in want.items():
        assert got[action] == pytest.approx(value, abs=1e-9), action


def test_other_hands_cards_change_a_split_hands_value() -> None:
    """The box's other cards are out of the shoe: a neighbour that drew tens makes standing on
    16 against a 9 worth more than with only the split card out (fewer tens for the dealer)."""
    rules = find_variant("classic-resplit")
    alone = split_hand_values(rules, "9H", ("8S", "8D"), ("8C",), power=False)
    after = split_hand_values(rules, "9H", ("8S", "8D"), ("8C", "TD", "TS"), power=False)
    assert after[Action.STAND] > alone[Action.STAND]


@pytest.mark.parametrize(("up", "cards"), [("TH", ("6S", "4D", "2C")), ("6H", ("AS", "9D", "5C")),
                                           ("9H", ("5S", "5D", "TC"))])
def test_power_keep_and_replace_equal_a_brute_force_enumeration(
        up: str, cards: tuple[str, str, str]) -> None:
    """Power Double shows a card: keeping it stands on it with the stake doubled; replacing
    burns it and stands on the next card. (Against a ten the dealer may still make blackjack
    with no hole card: only up cards 2..9 are brute-forced; the ten is checked on its order.)"""
    rules = find_variant("power")
    got = power_choice_values(rules, up, cards)
    if up[0] == "T":
        assert got[Action.POWER_REPLACE] > got[Action.POWER_KEEP]  # 12 against a ten
        return
    u, hand = VALUE[up[0]], tuple(VALUE[c[0]] for c in cards)
    left = _left(rules, (up, *cards))
    assert got[Action.POWER_KEEP] == pytest.approx(2.0 * _stand(rules, u, hand, left), abs=1e-9)
    assert got[Action.POWER_REPLACE] == pytest.approx(_double(rules, u, hand[:2], left), abs=1e-9)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_insurance_values_average_to_the_par_sheets_insurance_return(variant: str) -> None:
    """Over every two-card hand dealt against an ace, weighted by its probability, the value
    insurance adds per unit of insurance stake averages to the sheet's insurance return; and
    for each hand it is 3 × P(ten-valued hole card) − 1, P counted from the cards seen."""
    rules = find_variant(variant)
    sheet = json.loads((PAR_DIR / f"{variant}.json").read_text("utf-8"))["insurance_rtp"]
    avail = up_card_analysis(rules, 0).t.avail
    n = sum(avail)
    num = den = 0.0
    for i, a in enumerate(ORDER):
        for b in ORDER[i:]:
            w = avail[i] * (avail[i] - 1) if a == b else 2 * avail[i] * avail[ORDER.index(b)]
            if w <= 0:
                continue
            v = insurance_values(rules, "AH", (a + "S", b + "D"), Fraction(1))
            gain = v[Action.INSURE] - v[Action.DECLINE_INSURANCE]
            tens = 16 * rules.decks - (a == "T") - (b == "T")
            assert gain == pytest.approx(3 * tens / (n - 2) - 1, abs=1e-12)
            num += w / (n * (n - 1)) * (1.0 + gain)
            den += w / (n * (n - 1))
    assert 100.0 * num / den == pytest.approx(sheet, abs=5e-6)
