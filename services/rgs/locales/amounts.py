"""Amounts of money as a person reads them: each currency's minor-unit exponent (ISO 4217) and
an amount in minor units written the way a language writes it.

Shared by the terminal client (in its active language, :mod:`rgs.terminal.i18n`), the recall's
words (:mod:`rgs.recall.words`, English) and the finance reports' currency conversion
(:mod:`rgs.finance.ggr`), none of which may depend on another. Amounts follow the Unicode CLDR
patterns the web table gets from ``Intl.NumberFormat`` — German ``1.000,00 €``, Spanish
``1000,00 €`` and ``10.000,00 €`` (CLDR groups Spanish amounts from five digits) — without a
dependency (Babel is not in the lock): a small table of separators and symbols per language.
English keeps the terminal's ``1,000.00 EUR`` (the ISO code after the amount, as scripts
reading the output expect). Exact: integer arithmetic only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

#: ISO 4217 minor-unit exponents that are not 2.
_EXPONENTS: Final[Mapping[str, int]] = {
    "JPY": 0, "KRW": 0, "CLP": 0, "ISK": 0, "VND": 0, "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3,
    "TND": 3}

NBSP: Final = "\u00a0"


def exponent(currency: str) -> int:
    """Minor-unit exponent of an ISO 4217 currency (2 unless listed)."""
    return int(_EXPONENTS.get(currency.upper(), 2))


@dataclass(frozen=True, slots=True)
class AmountStyle:
    """How a language writes an amount of money."""

    decimal: str
    group: str
    #: Digits before the decimal point from which thousands are grouped (CLDR's minimum
    #: grouping digits plus three: 4 groups 1,000; 5 leaves 1000 and groups 10.000).
    group_from: int
    #: ``{sign}``, ``{number}``, ``{symbol}``.
    pattern: str
    #: Currency symbols; a currency not listed is written by its ISO code.
    symbols: Mapping[str, str] = field(default_factory=dict)


#: Each language of :data:`rgs.locales.LANGUAGES`'s way of writing amounts.
STYLES: Final[Mapping[str, AmountStyle]] = {
    "en": AmountStyle(".", ",", 4, "{sign}{number} {symbol}"),
    "de": AmountStyle(",", ".", 4, "{sign}{number}" + NBSP + "{symbol}",
                      {"EUR": "€", "USD": "$", "GBP": "£"}),
    "es": AmountStyle(",", ".", 5, "{sign}{number}" + NBSP + "{symbol}",
                      {"EUR": "€", "USD": "US$"}),
}


def _group(digits: str, style: AmountStyle) -> str:
    if len(digits) < style.group_from:
        return digits
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]
    return style.group.join(parts)


def format_amount(amount: int, currency: str, exponent: int, *, language: str,
                  with_currency: bool = True) -> str:
    """Minor units with ``exponent`` decimals as ``language`` writes them.

    >>> format_amount(100000, "EUR", 2, language="de")
    '1.000,00\\xa0€'
    >>> format_amount(100000, "EUR", 2, language="es")
    '1000,00\\xa0€'
    >>> format_amount(-123456, "EUR", 2, language="en")
    '-1,234.56 EUR'
    """
    style = STYLES[language]
    whole, frac = divmod(abs(amount), 10**exponent)
    number = _group(str(whole), style) + (f"{style.decimal}{frac:0{exponent}d}" if exponent
                                          else "")
    sign = "-" if amount < 0 else ""
    if not with_currency or not currency:
        return sign + number
    return style.pattern.format(sign=sign, number=number,
                                symbol=style.symbols.get(currency.upper(), currency))


def money(amount: int, currency: str, *, language: str = "en") -> str:
    """``12345, "EUR"`` → ``"123.45 EUR"`` in English, ``"123,45 €"`` in German (the
    currency's own exponent).

    >>> money(500, "JPY")
    '500 JPY'
    """
    return format_amount(amount, currency, exponent(currency), language=language)
