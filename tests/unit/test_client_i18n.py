"""``rgs play``'s languages: amounts written as ``Intl.NumberFormat`` writes them in the web
table (the figures below are Chromium's/Node's, CLDR 44), the language taken from
``--lang``, else the environment, else English, and typed amounts read the language's way."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from rgs.cli import play as play_cli
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.terminal import i18n, render

NBSP = "\u00a0"


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    i18n.use("en")


@pytest.mark.parametrize(("language", "minor", "currency", "text"), [
    # Intl.NumberFormat(lang, {style: "currency", currency}).format(minor / 100)
    ("de", 100_000, "EUR", f"1.000,00{NBSP}€"),
    ("de", 123_456_750, "EUR", f"1.234.567,50{NBSP}€"),
    ("de", 500, "USD", f"5,00{NBSP}$"),
    ("de", -1230, "GBP", f"-12,30{NBSP}£"),
    ("es", 100_000, "EUR", f"1000,00{NBSP}€"),  # CLDR: Spanish groups from five digits
    ("es", 1_000_000, "EUR", f"10.000,00{NBSP}€"),
    ("es", 123_456_750, "USD", f"1.234.567,50{NBSP}US$"),
    ("es", 500, "GBP", f"5,00{NBSP}GBP"),
    # English on a terminal keeps the ISO code after the amount (scripts read it)
    ("en", 100_000, "EUR", "1,000.00 EUR"),
    ("en", -1230, "GBP", "-12.30 GBP"),
])
def test_amounts_are_written_as_the_language_writes_them(language: str, minor: int,
                                                         currency: str, text: str) -> None:
    i18n.use(language)
    assert render.money(minor, currency) == text


def test_a_currency_without_decimals_and_one_with_three() -> None:
    i18n.use("de")
    assert render.money(123_456, "JPY") == f"123.456{NBSP}JPY"
    assert render.money(1_234_567, "KWD") == f"1.234,567{NBSP}KWD"


def test_typed_amounts_are_read_the_languages_way() -> None:
    i18n.use("de")
    assert render.parse_money("1.000,50", "EUR") == 100_050
    assert render.parse_money("3,5", "EUR") == 350
    with pytest.raises(ValueError, match="ist kein Betrag"):
        render.parse_money("abc", "EUR")
    i18n.use("es")
    assert render.parse_money("10.000,00", "EUR") == 1_000_000
    i18n.use("en")
    assert render.parse_money("1,000.50", "EUR") == 100_050


@pytest.mark.parametrize(("env", "language"), [
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "es_ES.UTF-8", "LC_ALL": "de_AT"}, "de"),  # LC_ALL is strongest
    ({"LC_MESSAGES": "es", "LANG": "de_DE"}, "es"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),  # not spoken: English
    ({"LANG": "C.UTF-8"}, "en"),
    ({}, "en"),
])
def test_the_language_comes_from_the_environment(env: dict[str, str], language: str) -> None:
    assert i18n.language_from_env(env) == language


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play_cli.register(parser.add_subparsers())
    return parser.parse_args(["play", *argv])


def test_rgs_play_lang_de_plays_in_german(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    async def fake_main(args: argparse.Namespace) -> int:
        won = bj.RoundView(total_staked=100, total_paid=300, currency="EUR")
        seen.append((i18n.active(), render.money(100_000, "EUR"), render.verdict(won)))
        return 0

    monkeypatch.setattr(play_cli, "_main", fake_main)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    assert play_cli.run(_parse(["--variant", "power", "--lang", "de"])) == 0
    assert play_cli.run(_parse(["--variant", "power"])) == 0  # from LANG
    assert seen == [("de", f"1.000,00{NBSP}€", f"Sie haben 2,00{NBSP}€ gewonnen."),
                    ("es", f"1000,00{NBSP}€", f"Ha ganado 2,00{NBSP}€.")]
    with pytest.raises(SystemExit):
        _parse(["--variant", "power", "--lang", "fr"])


def test_a_refusal_is_told_in_the_language() -> None:
    i18n.use("es")
    assert i18n.reason_text("INSUFFICIENT_FUNDS") == (
        "Su saldo no alcanza para esta apuesta. Baje la apuesta o añada fondos.")
