"""Unit tests of single engine rules: legal actions and their prices, Cash Out, Safety Net,
insurance settings, void, replay checks, rule-set validation and side-bet lines."""

from __future__ import annotations

import dataclasses
import pickle
from fractions import Fraction

import pytest

from rgs.engine import (
    Action,
    BehindBet,
    BehindSettled,
    BoxBet,
    CashOutTable,
    ForcedCards,
    InsuranceOffer,
    InvalidBet,
    InvalidRules,
    Outcome,
    Phase,
    ReplayMismatch,
    Round,
    RoundVoided,
    SequenceSource,
    Shoe,
    ShoeExhausted,
    ShoeSource,
    WrongHand,
    replay,
)
from rgs.engine.cards import DECK
from rgs.engine.rules import PerfectPairsPaytable, TwentyOnePlusThreePaytable
from rgs.engine.sidebets import perfect_pairs, twenty_one_plus_three
from rgs.variants import VARIANTS, UnknownVariant, find_variant

VIP = find_variant("vip-platinum")
TABLE = CashOutTable(offers_bp={(16, False, "T"): 4500, (12, False, "6"): 9000,
                                (20, False, "T"): 15000}, source="test")
VIP_TEST = dataclasses.replace(VIP, cash_out=TABLE)


def _deal(rules_id: str, cards: list[str], **bet: object) -> Round:
    rules = find_variant(rules_id)
    return Round.deal(rules, SequenceSource(cards), [BoxBet(seat=1, stake=100, **bet)])  # type: ignore[arg-type]


def test_legal_actions_carry_double_and_split_costs() -> None:
    rnd = _deal("classic-resplit", ["8S", "6H", "8D", "TC"], )
    allowed = {a.action: a for a in rnd.legal_actions(1, 0)}
    assert set(allowed) == {Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT}
    assert allowed[Action.DOUBLE].cost == 100 and allowed[Action.SPLIT].cost == 100
    assert rnd.view().boxes[0].hands[0].allowed == rnd.legal_actions(1, 0)


def test_insurance_offer_costs_half_the_bet_rounded_down() -> None:
    rules = find_variant("electronic-h17")
    rnd = Round.deal(rules, SequenceSource(["9S", "AH", "9D", "5C"]),
                     [BoxBet(seat=1, stake=101)],
                     dataclasses.replace(rules.limits, main_min=1))
    assert rnd.phase is Phase.INSURANCE
    (insure, decline) = rnd.view().boxes[0].insurance_allowed
    assert (insure.action, insure.cost) == (Action.INSURE, 50)
    assert decline.action is Action.DECLINE_INSURANCE


def test_insurance_offer_setting_not_offered_by_the_variant_is_refused() -> None:
    with pytest.raises(InvalidBet) as err:
        _deal("power", ["9S", "AH", "9D"], insurance_offer=InsuranceOffer.NEVER)
    assert err.value.rule == "insurance_offer_setting"


def test_safety_net_flags_hit_on_hard_17_and_soft_20_only() -> None:
    hard17 = _deal("classic-resplit", ["TS", "6H", "7D", "TC"], safety_net=True)
    hit = next(a for a in hard17.legal_actions(1) if a.action is Action.HIT)
    assert hit.warning == "safety_net"
    soft20 = _deal("classic-resplit", ["AS", "6H", "9D", "TC"], safety_net=True)
    assert next(a for a in soft20.legal_actions(1) if a.action is Action.HIT).warning
    soft18 = _deal("classic-resplit", ["AS", "6H", "7D", "TC"], safety_net=True)
    assert not next(a for a in soft18.legal_actions(1) if a.action is Action.HIT).warning
    off = _deal("classic-resplit", ["TS", "6H", "7D", "TC"])
    assert not next(a for a in off.legal_actions(1) if a.action is Action.HIT).warning


def test_safety_net_setting_on_a_variant_without_it_is_refused() -> None:
    with pytest.raises(InvalidBet) as err:
        _deal("power", ["TS", "6H", "7D"], safety_net=True)
    assert err.value.rule == "safety_net"


def test_cash_out_pays_the_table_offer_and_ends_the_hand() -> None:
    rnd = Round.deal(VIP_TEST, SequenceSource(["TS", "TH", "6D", "7C"]),
                     [BoxBet(seat=1, stake=250)])
    offer = next(a for a in rnd.legal_actions(1) if a.action is Action.CASH_OUT)
    assert offer.offer == 250 * 4500 // 10_000 == 112
    rnd.cash_out(1)
    assert rnd.phase is Phase.SETTLED
    hand = rnd.view().boxes[0].hands[0]
    assert (hand.outcome, hand.payout) == (Outcome.CASHED_OUT, 112)
    assert rnd.dealer_cards() == ("TH", "7C")  # no dealer draw for a cashed-out hand
    assert (rnd.total_staked, rnd.total_paid) == (250, 112)


def test_cash_out_after_a_hit_uses_the_new_total() -> None:
    rnd = Round.deal(VIP_TEST, SequenceSource(["4S", "6H", "5D", "8C", "3C"]),
                     [BoxBet(seat=1, stake=100)])
    assert not rnd.can(1, 0, Action.CASH_OUT)  # no offer for hard 9 v 6 in this table
    rnd.hit(1)
    assert next(a for a in rnd.legal_actions(1) if a.action is Action.CASH_OUT).offer == 90


def test_cash_out_is_offered_against_a_ten_before_any_dealer_blackjack_is_known() -> None:
    rnd = Round.deal(VIP_TEST, SequenceSource(["TS", "TH", "6D", "7C"]),
                     [BoxBet(seat=1, stake=100)])
    assert rnd.can(1, 0, Action.CASH_OUT)
    assert not rnd.can(1, 0, Action.SURRENDER)


def test_vip_platinum_ships_a_cash_out_table_within_the_published_range() -> None:
    table = VIP.cash_out
    assert table is not None and table.offers_bp
    assert all(0 <= bp <= 17_700 for bp in table.offers_bp.values())


def test_void_returns_every_stake_taken_and_pays_nothing() -> None:
    rnd = _deal("vegas-20-plus", ["8S", "6H", "8D", "TC", "3C"], twenty_plus=100)
    rnd.split(1)
    (ev,) = rnd.void("dealer shoe malfunction")
    assert isinstance(ev, RoundVoided)
    assert (ev.total_staked, ev.total_refunded) == (300, 300)
    assert rnd.phase is Phase.VOIDED and rnd.total_paid == 300
    assert all(h.outcome is Outcome.VOID for h in rnd.view().boxes[0].hands)
    assert replay(find_variant("vegas-20-plus"), rnd.events).view() == rnd.view()
    with pytest.raises(Exception) as err:
        rnd.void("again")
    assert getattr(err.value, "rule", "") == "phase"


def test_replay_refuses_a_tampered_journal() -> None:
    rnd = _deal("classic-resplit", ["TS", "6H", "7D", "TC", "5S"])
    rnd.stand(1)
    events = list(rnd.events)
    settled = next(i for i, e in enumerate(events) if type(e).__name__ == "HandSettled")
    events[settled] = dataclasses.replace(events[settled], payout=10_000)  # type: ignore[type-var]
    with pytest.raises(ReplayMismatch):
        replay(find_variant("classic-resplit"), events)
    with pytest.raises(ReplayMismatch):
        replay(find_variant("power"), rnd.events)


def test_wrong_hand_names_the_hand_to_act() -> None:
    rnd = _deal("classic-resplit", ["8S", "6H", "8D", "TC", "3C"])
    rnd.split(1)
    with pytest.raises(WrongHand) as err:
        rnd.hit(1, 1)
    assert err.value.rule == "turn_order" and "seat 1 hand 0 is" in str(err.value)
    with pytest.raises(WrongHand):
        rnd.hit(1, 7)
    with pytest.raises(WrongHand):
        rnd.hit(4, 0)


def test_forced_cards_come_out_of_the_shoe_first_and_are_not_dealt_twice() -> None:
    shoe = ShoeSource(Shoe.of_decks(1), lambda n: 0)
    src = ForcedCards(["AS", "KH"], then=shoe)
    assert [src.draw(), src.draw()] == ["AS", "KH"]
    rest = [src.draw() for _ in range(50)]
    assert sorted([*rest, "AS", "KH"]) == sorted(DECK)
    with pytest.raises(ShoeExhausted):
        src.draw()
    with pytest.raises(ShoeExhausted):
        ForcedCards(["AS", "AS"], then=ShoeSource(Shoe.of_decks(1), lambda n: 0))


def test_rule_sets_validate_themselves() -> None:
    base = find_variant("classic-resplit")
    with pytest.raises(InvalidRules):
        dataclasses.replace(base, decks=0)
    with pytest.raises(InvalidRules):
        dataclasses.replace(base, hole_card=False)  # still peeks
    with pytest.raises(InvalidRules):
        dataclasses.replace(base, max_hands=8)
    with pytest.raises(InvalidRules):
        dataclasses.replace(base, double_split_aces=True)
    with pytest.raises(InvalidRules):
        dataclasses.replace(base, dealer_push_total=21)


def test_find_variant_names_the_known_ids() -> None:
    assert set(VARIANTS) == {"vegas-20-plus", "classic-resplit", "electronic-h17", "power",
                             "vip-platinum"}
    with pytest.raises(UnknownVariant) as err:
        find_variant("spanish-21")
    assert "vip-platinum" in str(err.value)


def test_engine_errors_pickle_with_their_rule() -> None:
    err = pickle.loads(pickle.dumps(InvalidBet("x", rule="seat")))
    assert err.rule == "seat"


@pytest.mark.parametrize(("cards", "line"), [
    (("AS", "2S", "3S"), "straight_flush"),
    (("QH", "KD", "AC"), "straight"),
    (("AH", "2D", "3C"), "straight"),
    (("KH", "AD", "2C"), "lose"),
    (("7H", "7H", "7H"), "suited_trips"),
    (("7H", "7D", "7H"), "three_of_a_kind"),
    (("2C", "9C", "KC"), "flush"),
    (("2C", "9D", "KC"), "lose"),
])
def test_twenty_one_plus_three_lines(cards: tuple[str, str, str], line: str) -> None:
    assert twenty_one_plus_three(*cards, TwentyOnePlusThreePaytable())[0] == line


@pytest.mark.parametrize(("cards", "line", "pays"), [
    (("QS", "QS"), "perfect_pair", 25), (("QH", "QD"), "coloured_pair", 12),
    (("QS", "QC"), "coloured_pair", 12), (("QS", "QH"), "mixed_pair", 6),
    (("QS", "KS"), "lose", 0),
])
def test_perfect_pairs_lines(cards: tuple[str, str], line: str, pays: int) -> None:
    assert perfect_pairs(*cards, PerfectPairsPaytable()) == (line, pays)


def test_bet_behind_takes_the_seats_cash_out_multiple_rounded_down() -> None:
    rnd = Round.deal(VIP_TEST, SequenceSource(["TS", "TH", "6D", "7C"]),
                     [BoxBet(seat=1, stake=250, player="p1",
                             behind=(BehindBet(player="b1", stake=333),))])
    rnd.cash_out(1)
    settled = next(e for e in rnd.events if isinstance(e, BehindSettled))
    assert (settled.stake, settled.payout, settled.rounded_off) == (333, 149, Fraction(17, 20))
    assert rnd.money_by_player() == {"p1": (250, 112), "b1": (333, 149)}


def test_void_refunds_bet_behind_stakes_too() -> None:
    rnd = Round.deal(VIP_TEST, SequenceSource(["8S", "6H", "8D", "TC", "3C"]),
                     [BoxBet(seat=1, stake=100, player="p1",
                             behind=(BehindBet(player="b1", stake=200, follow_split=True),))])
    rnd.split(1)
    (ev,) = rnd.void("table malfunction")
    assert isinstance(ev, RoundVoided) and ev.total_refunded == ev.total_staked == 600
    assert rnd.money_by_player() == {"p1": (200, 200), "b1": (400, 400)}


def test_a_float_stake_is_refused_even_after_the_same_int_stake_was_dealt() -> None:
    rules = find_variant("classic-resplit")
    Round.deal(rules, SequenceSource(["TS", "6H", "7D", "TC"]), [BoxBet(seat=1, stake=100)])
    with pytest.raises(InvalidBet) as err:
        Round.deal(rules, SequenceSource(["TS", "6H", "7D", "TC"]),
                   [BoxBet(seat=1, stake=100.0)])  # type: ignore[arg-type]
    assert err.value.rule == "stake_integer"
    with pytest.raises(InvalidBet):
        Round.deal(rules, SequenceSource(["TS", "6H", "7D", "TC"]),
                   [BoxBet(seat=True, stake=100)])
