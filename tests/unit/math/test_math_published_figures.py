"""The analysis reproduces the published figures of variants.md and the reference game."""

from __future__ import annotations

import pytest

from rgs.engine.rules import PerfectPairsPaytable, RuleSet, Surrender, TwentyOnePlusThreePaytable
from rgs.math.analysis import analyse_main
from rgs.math.report import cached_report
from rgs.math.sidebets import perfect_pairs_rtp, twenty_one_plus_three_rtp
from rgs.variants import find_variant


def test_vip_platinum_main_game_rtp_matches_published_99_29() -> None:
    rtp = cached_report(find_variant("vip-platinum")).rtp
    assert rtp == pytest.approx(99.29, abs=0.03)


def test_perfect_pairs_25_12_6_at_8_decks_returns_published_95_90() -> None:
    rtp = perfect_pairs_rtp(PerfectPairsPaytable(perfect=25, coloured=12, mixed=6), 8)
    # exact: (26*7 + 13*8 + 7*16) / 415
    assert rtp == pytest.approx(100 * 398 / 415, abs=1e-9)
    assert rtp == pytest.approx(95.90, abs=0.005)


def test_twenty_one_plus_three_100_40_30_10_5_at_8_decks_returns_published_96_30() -> None:
    pays = TwentyOnePlusThreePaytable(suited_trips=100, straight_flush=40, three_of_a_kind=30,
                                      straight=10, flush=5)
    assert twenty_one_plus_three_rtp(pays, 8) == pytest.approx(96.30, abs=0.005)


def test_twenty_one_plus_three_one_deck_counts_match_poker_combinatorics() -> None:
    # one deck: 22100 three-card hands; 48 straight flushes, 52 trips, 720 straights, 1096 flushes
    pays = TwentyOnePlusThreePaytable(suited_trips=0, straight_flush=1, three_of_a_kind=10,
                                      straight=100, flush=1000)
    expected = (48 * 2 + 52 * 11 + 720 * 101 + 1096 * 1001) / 22100
    assert twenty_one_plus_three_rtp(pays, 1) == pytest.approx(100 * expected, abs=1e-9)


def test_reference_6d_s17_das_rsa4_ls_composition_dependent_edge_is_published_0_262() -> None:
    reference = RuleSet(id="reference", name="6D S17 DAS RSA LS", decks=6,
                        double_after_split=True, max_split_depth=3, max_hands=4,
                        resplit_aces=True, surrender=Surrender.LATE)
    edge = -100.0 * analyse_main(reference).ev
    assert edge == pytest.approx(0.262, abs=0.01)


def test_vip_platinum_always_cash_out_returns_96_80_with_published_offer_range() -> None:
    design = cached_report(find_variant("vip-platinum")).cash_out
    assert design is not None
    assert design.rtp == pytest.approx(96.80, abs=0.02)
    # published range 0.4x-1.77x; ours is 0.42x-1.77x
    assert design.low == pytest.approx(0.40, abs=0.025)
    assert design.high == pytest.approx(1.77, abs=0.005)


def test_vegas_twenty_plus_bonus_3_9_20_returns_95_63() -> None:
    sides = cached_report(find_variant("vegas-20-plus")).side_bets
    assert sides["twenty_plus"] == pytest.approx(95.633, abs=0.005)


def test_insurance_on_ace_returns_what_the_tens_left_pay() -> None:
    # 8 decks: about 128 tens in 413 unseen cards -> 3 * 128/413 ~ 92.5%
    ins = cached_report(find_variant("vip-platinum")).insurance_rtp
    assert ins == pytest.approx(92.53, abs=0.01)


def test_vip_platinum_cash_out_beats_playing_only_on_7_7_against_ten() -> None:
    # offers are non-pair fair values x 0.988; 7-7 v T is worth a little less than T-4, 9-5 and
    # 8-6 v T (0.13% of a bet), the only first decision where optimal play takes the offer
    report = cached_report(find_variant("vip-platinum"))
    assert report.cash_out is not None
    assert report.cash_out.scale < 1.0
    assert report.cash_out_first_decision == pytest.approx(32 * 31 / (415 * 414) * 128 / 416,
                                                           rel=1e-9)


def test_vip_platinum_optimal_use_of_cash_out_adds_almost_nothing() -> None:
    # fair values of standing or hitting: no hand, however many cards, is offered more than
    # it is worth beyond composition noise (valuing the double gave 99.45%)
    report = cached_report(find_variant("vip-platinum"))
    assert report.cash_out_optimal_rtp is not None
    assert report.cash_out_optimal_rtp - report.rtp == pytest.approx(0.0, abs=0.005)
