"""Exact decision values (rgs.math.hints) against the PAR sheets: for a sample of starting hands
in every variant, the decision the values mark best is the one the variant's PAR strategy chart
prints, and the values are the analysis' own (a surrender is worth exactly -0.5)."""

from __future__ import annotations

import json

import pytest

from rgs.engine import Action
from rgs.math.analysis_player import counts
from rgs.math.hints import HintTables
from rgs.math.shoe import add, hard_sum, total_soft
from rgs.math.strategy_tables import load_power_double_choices, load_strategy, strategy_file
from rgs.variants import VARIANTS, find_variant

#: This module's own analysis caches (an app owns its own).
TABLES = HintTables()
cash_out_fair_return = TABLES.cash_out_fair_return
decision_values = TABLES.decision_values
power_choice_values = TABLES.power_choice_values
split_hand_values = TABLES.split_hand_values

#: The chart's first letter(s) -> the decision taken on two cards.
CODES = {"P": Action.SPLIT, "H": Action.HIT, "S": Action.STAND, "D": Action.DOUBLE,
         "R": Action.SURRENDER, "C": Action.CASH_OUT, "PD": Action.POWER_DOUBLE,
         "PS": Action.POWER_SPLIT}
UPS = ("A", "6", "T")
RANK_CARD = {1: "A", 10: "T", **{v: str(v) for v in range(2, 10)}}


def _primary(code: str) -> Action:
    return CODES[code[:2]] if code[:2] in CODES else CODES[code[0]]


def _sample(variant: str) -> list[tuple[tuple[str, str], str, Action]]:
    chart = json.loads(strategy_file(variant).read_text("utf-8"))["strategy"]
    out = []
    for e in chart:
        if e["up"] not in UPS:
            continue
        if e["kind"] == "pair":
            c = RANK_CARD[e["total"]]
            out.append(((c + "S", c + "H"), e["up"], _primary(e["action"])))
        elif e["kind"] == "soft" and 13 <= e["total"] <= 20:
            out.append((("AS", RANK_CARD[e["total"] - 11] + "D"), e["up"],
                        _primary(e["action"])))
    return out


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_best_value_is_the_par_charts_decision_for_pairs_and_soft_hands(
        variant: str) -> None:
    rules = find_variant(variant)
    sample = _sample(variant)
    assert len(sample) >= 40
    wrong = []
    for cards, up, expected in sample:
        values = dict(decision_values(rules, up + "C", cards, first=True))
        if cards[0][0] == cards[1][0]:
            # The charts' pair rows never print Cash Out (vip-platinum's 7-7 v T says H while
            # Cash Out is worth 0.0013 of a bet more): compare the decisions they do print.
            values.pop(Action.CASH_OUT, None)
        best = max(values, key=lambda a: values[a])
        if best is not expected:
            wrong.append((cards, up, expected.value, {a.value: round(v, 4)
                                                      for a, v in values.items()}))
    assert wrong == []


def test_values_are_in_main_bets_and_later_decisions_have_no_split() -> None:
    rules = find_variant("electronic-h17")
    first = decision_values(rules, "TH", ("TS", "6D"), first=True)
    assert first[Action.SURRENDER] == -0.5
    assert -1.0 < first[Action.STAND] < -0.4 and -1.0 < first[Action.HIT] < -0.4
    later = decision_values(rules, "TH", ("5S", "4D", "3C"), first=False)
    assert set(later) <= {Action.STAND, Action.HIT, Action.DOUBLE, Action.CASH_OUT}
    assert later[Action.HIT] > later[Action.STAND]  # 12 v T: hit


def test_cash_out_offers_are_the_fair_returns_times_one_scale() -> None:
    """The fair value hints show behind a Cash Out offer is what the table was priced from:
    every offer is that fair return times the table's one scale (to the basis point)."""
    rules = find_variant("vip-platinum")
    assert rules.cash_out is not None
    ratios = []
    for up, cards in (("TH", ("TS", "6D")), ("6H", ("9S", "3D")), ("AH", ("7S", "5D")),
                      ("9C", ("AS", "6D")), ("2C", ("8S", "4D", "3C"))):
        fair = cash_out_fair_return(rules, up, cards)
        assert fair is not None and 0.0 < fair < 2.0
        total = sum(min(10, "A23456789T".index(c[0]) + 1) for c in cards)
        soft = "A" in (c[0] for c in cards) and total <= 11
        key = (total + 10 if soft else total, soft, up[0])
        ratios.append(rules.cash_out.offers_bp[key] / (fair * 10_000))
    assert max(ratios) - min(ratios) < 1e-3 * min(ratios), ratios


def _split_chart_action(chart: dict[tuple[str, int, str], str], cards: tuple[str, str],
                        up: str, can_double: bool) -> Action:
    """What the PAR chart plays on a split hand's first decision: its ``split_*`` entry, else
    the hard/soft entry, with the codes' documented fallbacks (no Power Double, surrender or
    Cash Out on a split hand)."""
    total, soft = total_soft(counts(cards))
    kind = "soft" if soft else "hard"
    code = chart.get((f"split_{kind}", total, up)) or chart[(kind, total, up)]
    if code in ("D", "Ds", "PD", "PDs") and can_double:
        return Action.DOUBLE
    return Action.STAND if code.endswith("s") or code == "S" else Action.HIT


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_split_hands_best_value_is_the_par_charts_after_split_decision(variant: str) -> None:
    """Every split hand the chart's pair splits make (the first hand at its first decision, the
    other split card out): the best value is the chart's decision, but for a handful where the
    total-dependent chart averages compositions and the two decisions are within 0.005 of a
    bet (5 of about 1,750 hands over the five variants)."""
    rules = find_variant(variant)
    chart = load_strategy(variant)
    ranks = "A23456789T"
    checked, differ = 0, []
    for up in ranks:
        for f in ranks:
            if chart[("pair", ranks.index(f) + 1, up)] != "P" or (
                    f == "A" and rules.split_aces_one_card):
                continue
            for x in ranks:
                cards = (f + "S", x + "D")
                if x == f or total_soft(counts(cards))[0] == 21:
                    continue
                values = split_hand_values(rules, up + "H", cards, (f + "C",), power=False)
                want = _split_chart_action(chart, cards, up, Action.DOUBLE in values)
                best = max(values, key=lambda a: values[a])
                checked += 1
                if best is not want:
                    differ.append((cards, up, values[best] - values[want]))
    assert checked >= 240
    assert len(differ) <= max(2, checked // 100), differ
    assert all(gap < 0.005 for _, _, gap in differ), differ


def test_power_double_keep_or_replace_best_is_the_par_sheets_choice() -> None:
    """Every Power Double hand, every card shown, every up card: the better of keep and
    replace is the sheet's Power Double table's choice."""
    rules = find_variant("power")
    table = load_power_double_choices("power")
    ranks = "A23456789T"
    checked, wrong = 0, []
    for up in ranks:
        for i, a in enumerate(ranks):
            for b in ranks[i:]:
                hand = counts((a + "S", b + "D"))
                total, soft = total_soft(hand)
                if hard_sum(hand) not in rules.power_double_counts or total == 21:
                    continue
                for x in ranks:
                    t2, s2 = total_soft(add(hand, ranks.index(x)))
                    t2, s2 = (22, False) if t2 > 21 else (t2, s2)
                    key = ("soft" if soft else "hard", total, "soft" if s2 else "hard", t2, up)
                    values = power_choice_values(rules, up + "H", (a + "S", b + "D", x + "C"))
                    best = max(values, key=lambda k: values[k])
                    checked += 1
                    if best is not (Action.POWER_REPLACE if table[key] == "R"
                                    else Action.POWER_KEEP):
                        wrong.append(key)
    assert checked == 1300 and wrong == []


def test_every_cash_out_offer_shows_the_fair_value_it_was_priced_from() -> None:
    """Every entry of vip-platinum's offer table (each total, soft or hard, each up card):
    the fair value hints show for a hand of that total is the offer divided by the table's one
    scale, to the basis point."""
    rules = find_variant("vip-platinum")
    assert rules.cash_out is not None
    scale = float(rules.cash_out.source.split(" x ")[1].split(",")[0])
    for (total, soft, up), bp in rules.cash_out.offers_bp.items():
        cards = ("AS", f"{'A23456789T'[total - 12]}D") if soft else _hard(total)
        fair = cash_out_fair_return(rules, up + "H", cards)
        assert fair is not None, (total, soft, up)
        assert abs(round(fair * scale * 10_000) - bp) <= 1, (total, soft, up, fair, bp)


def _hard(total: int) -> tuple[str, str]:
    """A two-card hand of hard ``total`` (4..20), a pair only where nothing else makes it."""
    pairs = [(a, total - a) for a in range(2, 11) if 2 <= total - a <= 10]
    a, b = next(((a, b) for a, b in pairs if a != b), pairs[0])
    return (RANK_CARD[a] + "S", RANK_CARD[b] + "D")
