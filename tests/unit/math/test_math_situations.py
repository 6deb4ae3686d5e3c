"""Every rule only one variant has, pinned per situation: the engine's exact value of a forced
situation (every card sequence the rest of the shoe can deal, played by the analysis' own
decisions) equals the analysis' value of it.

Split situations are too large to enumerate; ``test_math_situations_sampled.py`` (slow tier)
samples them. Issue 11 is why this exists: a rule the engine plays one way and the analysis
values another shows up here per situation, long before it moves a whole-game simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import pytest

from rgs.engine import Action, BoxBet
from rgs.math import analysis as an
from rgs.math.analysis import MainGame, analyse_main
from rgs.math.analysis_player import AnalysisPlayer, counts, rank
from rgs.math.report import cached_report
from rgs.math.sidebets import twenty_plus_return
from rgs.math.situations import STAKE, enumerate_situation
from rgs.variants import VARIANTS

H, S, D = Action.HIT, Action.STAND, Action.DOUBLE


@cache
def _game(variant_id: str, cash_out: bool = False) -> MainGame:
    rules = VARIANTS[variant_id]
    if cash_out:
        return analyse_main(rules, rules.cash_out)
    return cached_report(rules).game


def _engine(game: MainGame, cards: Sequence[str | None], forced: Sequence[Action] = (),
            bet: BoxBet | None = None) -> float:
    player = AnalysisPlayer(game)
    return enumerate_situation(game.rules, cards, lambda rnd: player.play(rnd, forced),
                               bet=bet).value


def _first_decision(game: MainGame, cards: Sequence[str], action: str | None = None) -> float:
    """The analysis' value of the original hand ``cards[0], cards[2]`` against ``cards[1]``
    taking ``action`` (default: its best), the separately settled dealer blackjack included."""
    root = AnalysisPlayer(game).root(cards[1], [cards[0], cards[2]])
    return root.actions[action or root.best] + root.blackjack_part


def _in_play(game: MainGame, up: str, hand: Sequence[str], how: str) -> float:
    """The analysis' value of taking ``how`` on a hand already in play (its first two cards
    were hit), the peeked dealer blackjack (which took the original bet) included."""
    ua = game.analyses[rank(up)]
    h = counts(hand)
    value = {"hit": ua.original.hit, "double": ua.original.double}[how](h)
    return value - (ua.t.p_blackjack(h) if ua.t.peeked else 0.0)


@pytest.mark.parametrize("cards", [["6H", "TD", "4C"], ["AH", "TD", "8C"]],
                         ids=["6-4 v T", "A-8 (count 9) v T"])
def test_power_double_keep_or_replace_per_card_is_worth_what_the_analysis_says(
        cards: list[str]) -> None:
    game = _game("power")
    assert _engine(game, cards, [Action.POWER_DOUBLE]) == pytest.approx(
        _first_decision(game, cards, an.POWER_DOUBLE), abs=1e-9)


@pytest.mark.parametrize("cards", [["TH", "TD", "7C"], ["TH", "6D", "8C"]],
                         ids=["17 v T", "18 v 6"])
def test_power_dealer_hard_22_pushes_a_standing_hand(cards: list[str]) -> None:
    game = _game("power")
    assert _engine(game, cards, [S]) == pytest.approx(
        _first_decision(game, cards, an.STAND), abs=1e-9)


def test_power_late_dealer_blackjack_takes_the_doubled_stake() -> None:
    game = _game("power")
    cards = ["AH", "TD", "6C"]  # soft 17 doubled against a ten: no hole card, no peek
    assert _engine(game, cards, [D]) == pytest.approx(
        _first_decision(game, cards, an.DOUBLE), abs=1e-9)


def test_power_insurance_is_settled_on_the_dealers_second_card() -> None:
    game = _game("power")
    cards = ["TH", "AD", "9C"]
    root = AnalysisPlayer(game).root("AD", ["TH", "9C"])
    insurance = 0.5 * (root.p_blackjack * (game.rules.insurance_pays + 1) - 1.0)
    assert _engine(game, cards, [Action.INSURE]) == pytest.approx(
        _first_decision(game, cards) + insurance, abs=1e-9)


# A seven-card hand (A A A A 2 2 2: soft 20) hits for its eighth card; the hole card, where
# there is one, is the fourth card dealt and left to the shoe (None).
SEVEN = ["AS", "AD", "2H", "2C", "2S"]


def test_power_eight_card_hand_beats_all_but_a_dealer_blackjack() -> None:
    game = _game("power")
    assert _engine(game, ["AH", "TD", "AC", *SEVEN], [H] * 6) == pytest.approx(
        _in_play(game, "TD", ["AH", "AC", *SEVEN], "hit"), abs=1e-9)


def test_vegas_eight_card_hand_after_the_peek_beats_every_dealer_hand() -> None:
    game = _game("vegas-20-plus")
    assert _engine(game, ["AH", "9D", "AC", None, *SEVEN], [H] * 6) == pytest.approx(
        _in_play(game, "9D", ["AH", "AC", *SEVEN], "hit"), abs=1e-9)


def test_classic_resplit_eight_card_hand_is_paid_at_once() -> None:
    game = _game("classic-resplit")
    assert _engine(game, ["AH", "TD", "AC", None, *SEVEN], [H] * 6) == pytest.approx(
        _in_play(game, "TD", ["AH", "AC", *SEVEN], "hit"), abs=1e-9)


def test_electronic_h17_seven_card_hand_is_paid_at_once() -> None:
    game = _game("electronic-h17")
    six = ["2H", "2C", "3S", "AS"]  # 2 2 2 2 3 A: hard 12, the seventh card may bust it
    assert _engine(game, ["2S", "9D", "2D", None, *six], [H] * 5) == pytest.approx(
        _in_play(game, "9D", ["2S", "2D", *six], "hit"), abs=1e-9)


def test_electronic_h17_dealer_hits_soft_17() -> None:
    game = _game("electronic-h17")
    cards = ["TH", "6D", "7C"]
    assert _engine(game, cards, [S]) == pytest.approx(
        _first_decision(game, cards, an.STAND), abs=1e-9)


def test_electronic_h17_late_surrender_returns_half_after_the_peek() -> None:
    game = _game("electronic-h17")
    cards = ["TH", "TD", "6C"]
    assert _engine(game, cards, [Action.SURRENDER]) == pytest.approx(
        _first_decision(game, cards, an.SURRENDER), abs=1e-9)


def test_vegas_doubles_a_three_card_hand() -> None:
    game = _game("vegas-20-plus")
    assert _engine(game, ["2H", "6D", "3C", None, "4S"], [H, D]) == pytest.approx(
        _in_play(game, "6D", ["2H", "3C", "4S"], "double"), abs=1e-9)


@pytest.mark.parametrize("cards", [["TH", "9D", "TC"], ["TH", "TD", "TC"], ["AH", "7D", "9C"],
                                   ["AH", "AD", "TC"]],
                         ids=["20 v 9", "20 v T (peek)", "soft 20 v 7", "blackjack v A"])
def test_vegas_twenty_plus_bonus_on_a_standing_two_card_20_or_21(cards: list[str]) -> None:
    game = _game("vegas-20-plus")
    bet = BoxBet(seat=1, stake=STAKE, twenty_plus=STAKE)
    root = AnalysisPlayer(game).root(cards[1], [cards[0], cards[2]])
    bonus = twenty_plus_return(game, root) - 1.0
    assert _engine(game, cards, [] if root.best == an.BLACKJACK_PAID else [S], bet) == \
        pytest.approx(_first_decision(game, cards) + bonus, abs=1e-9)


def test_vip_platinum_ten_up_is_not_peeked_and_its_blackjack_takes_a_double() -> None:
    game = _game("vip-platinum")
    cards = ["6H", "TD", "5C"]
    assert _engine(game, cards, [D]) == pytest.approx(
        _first_decision(game, cards, an.DOUBLE), abs=1e-9)


@pytest.mark.parametrize("cards,forced", [(["TH", "TD", "6C"], [Action.CASH_OUT]),
                                          (["TH", "TD", "2C"], [])],
                         ids=["16 v T cashed out", "12 v T, Cash Out where it pays"])
def test_vip_platinum_cash_out_pays_its_offer_as_the_analysis_values_it(
        cards: list[str], forced: list[Action]) -> None:
    game = _game("vip-platinum", cash_out=True)
    action = an.CASH_OUT if forced else None
    assert _engine(game, cards, forced) == pytest.approx(
        _first_decision(game, cards, action), abs=1e-9)
