"""The terminal client's money formatting: exact integer minor units, ISO 4217 exponents."""

from __future__ import annotations

import pytest

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.terminal import render


def test_money_is_formatted_and_parsed_exactly() -> None:
    assert render.money(123456, "EUR") == "1,234.56 EUR"
    assert render.money(-5, "EUR") == "-0.05 EUR"
    assert render.money(500, "JPY") == "500 JPY"
    assert render.parse_money("12.5", "EUR") == 1250
    assert render.parse_money("3", "KWD") == 3000


def test_bad_amounts_are_refused_with_a_readable_message() -> None:
    for bad in ("", "abc", "1.2.3", "-1", "1.234"):
        with pytest.raises(ValueError):
            render.parse_money(bad, "EUR")


def test_the_table_shows_the_commitment_while_open_and_the_seed_once_over() -> None:
    fair = bj.Fairness(verifiable=True, commitment="c" * 64, client_seed="lucky",
                       round_number=3, decks=6, next_commitment="n" * 64)
    open_view = bj.RoundView(round_id="r", variant_id="power", currency="EUR", fair=fair)
    shown = render.table(open_view)
    # Hashes shortened in the table's lines (f shows them whole): never split at 80 columns.
    assert "commitment cccccccc…" in shown and "round 3" in shown and "nnnnnnnn" not in shown
    fair.server_seed = "5" * 64
    done = render.table(bj.RoundView(round_id="r", variant_id="power", currency="EUR",
                                     fair=fair))
    assert "server seed 55555555…" in done and "nnnnnnnn…" in done and "5" * 64 not in done
    whole = render.fairness_full("r", fair)
    assert "    " + "5" * 64 in whole.splitlines() and "    " + "c" * 64 in whole.splitlines()
    assert "'lucky'" in whole and "rgs verify" in whole and "support" in whole
    forced = render.table(bj.RoundView(round_id="r", variant_id="power", currency="EUR"))
    assert "Fair" not in forced


def test_choices_show_the_expected_values_and_the_best_when_the_brand_sends_them() -> None:
    plain = render.choices([bj.AllowedAction(action=bj.ACTION_STAND)], "EUR")
    assert "EV" not in plain
    shown = render.choices([
        bj.AllowedAction(action=bj.ACTION_STAND, expected_value=-0.1575, best=True),
        bj.AllowedAction(action=bj.ACTION_HIT, expected_value=-0.4254),
        bj.AllowedAction(action=bj.ACTION_CASH_OUT, offer=830, fair_value=842,
                         expected_value=-0.17)], "EUR")
    assert "stand EV -0.158 ★" in shown and "hit EV -0.425" in shown
    assert "(8.30 EUR, fair value 8.42 EUR) EV -0.170" in shown
    # an ASCII-only terminal gets an ASCII mark, in the prompt and in the legend
    ascii_shown = render.choices([bj.AllowedAction(action=bj.ACTION_STAND, expected_value=-0.1,
                                                   best=True)], "EUR", ascii_only=True)
    assert ascii_shown.endswith("stand EV -0.100 *") and ascii_shown.isascii()
    assert render.hints_legend(ascii_only=True).isascii() and "★" in render.hints_legend()


def test_rgs_play_shows_the_sessions_position_and_calls_only_a_win_a_win() -> None:
    """Under a profile that requires it the table shows the session's time and net position;
    a push says the stake is returned, never that the player won (UKGC RTS 13C, 14C)."""
    view = bj.RoundView(round_id="r", variant_id="classic-resplit", currency="GBP",
                        status=bj.ROUND_STATUS_SETTLED, total_staked=1000, total_paid=1000,
                        result=bj.RESULT_CLASS_RETURN_EQUAL,
                        session=bj.SessionPosition(elapsed_s=3725, total_staked=3000,
                                                   total_paid=2500, net_position=-500))
    assert "Session 1:02:05 · staked 30.00 GBP · paid 25.00 GBP · net -5.00 GBP" in (
        render.table(view))
    assert render.verdict(view) == "Push: your stake is back."
    won = bj.RoundView(currency="GBP", total_staked=1000, total_paid=2500,
                       result=bj.RESULT_CLASS_WIN)
    assert render.verdict(won) == "You won 15.00 GBP."
    surrendered = bj.RoundView(currency="GBP", total_staked=1000, total_paid=500,
                               result=bj.RESULT_CLASS_RETURN_BELOW)
    assert "won" not in render.verdict(surrendered)
    assert "Session" not in render.table(bj.RoundView(currency="EUR"))
