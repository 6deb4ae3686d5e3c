"""The terminal client's money formatting: exact integer minor units, ISO 4217 exponents."""

from __future__ import annotations

import pytest

from rgs.client import render


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
