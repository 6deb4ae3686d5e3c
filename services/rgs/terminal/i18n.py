"""``rgs play``'s language: its words from the catalogues (:mod:`rgs.locales`) and amounts
written the way the language writes them.

One language per process (a terminal has one person at it): :func:`use` sets it at start
(``--lang``, else ``LC_ALL``/``LC_MESSAGES``/``LANG``, else English). Amounts follow the
Unicode CLDR patterns the web table gets from ``Intl.NumberFormat`` — German ``1.000,00 €``,
Spanish ``1000,00 €`` and ``10.000,00 €`` (CLDR groups Spanish amounts from five digits) —
without a dependency (Babel is not in the lock): a small table of separators and symbols per
language. English keeps the terminal's ``1,000.00 EUR`` (the ISO code after the amount, as
scripts reading the output expect).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from rgs.locales import LANGUAGES, catalogue

#: The variables that name the terminal's language, strongest first (POSIX order).
LANGUAGE_VARIABLES: Final = ("LC_ALL", "LC_MESSAGES", "LANG")

_NBSP: Final = "\u00a0"


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


STYLES: Final[Mapping[str, AmountStyle]] = {
    "en": AmountStyle(".", ",", 4, "{sign}{number} {symbol}"),
    "de": AmountStyle(",", ".", 4, "{sign}{number}" + _NBSP + "{symbol}",
                      {"EUR": "€", "USD": "$", "GBP": "£"}),
    "es": AmountStyle(",", ".", 5, "{sign}{number}" + _NBSP + "{symbol}",
                      {"EUR": "€", "USD": "US$"}),
}

_active = ["en"]


def language_from_env(env: Mapping[str, str]) -> str:
    """The language the environment names (``de_DE.UTF-8`` → ``de``), English when it names
    none the clients speak (or ``C``/``POSIX``)."""
    for name in LANGUAGE_VARIABLES:
        value = env.get(name, "")
        if value:
            code = value.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
            return code if code in LANGUAGES else "en"
    return "en"


def use(language: str) -> None:
    """Speak ``language`` from now on (one of :data:`rgs.locales.LANGUAGES`)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; known: {', '.join(LANGUAGES)}")
    _active[0] = language


def active() -> str:
    """The language spoken now."""
    return _active[0]


def say(key: str, **values: object) -> str:
    """The terminal's words for ``key`` in the active language, placeholders filled."""
    return catalogue(active())["terminal"][key].format(**values)


def catalogue_word(key: str) -> str | None:
    """A terminal word without placeholders by key (None when the catalogue has none)."""
    return catalogue(active())["terminal"].get(key)


def web_word(key: str) -> str | None:
    """A word the web table shares (e.g. a paytable line's name), None when there is none:
    a word both clients show is said once, in the web section."""
    return catalogue(active())["web"].get(key)


def reason_text(reason: str) -> str | None:
    """The sentence for an ErrorInfo reason in the active language (None when unknown)."""
    return catalogue(active())["reasons"].get(reason)


def _group(digits: str, style: AmountStyle) -> str:
    if len(digits) < style.group_from:
        return digits
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]
    return style.group.join(parts)


def format_amount(amount: int, currency: str, exponent: int, *,
                  with_currency: bool = True, language: str | None = None) -> str:
    """Minor units as the language writes them (exact: integer arithmetic only).

    >>> format_amount(100000, "EUR", 2, language="de")
    '1.000,00\\xa0€'
    >>> format_amount(100000, "EUR", 2, language="es")
    '1000,00\\xa0€'
    >>> format_amount(-123456, "EUR", 2, language="en")
    '-1,234.56 EUR'
    """
    style = STYLES[language or active()]
    whole, frac = divmod(abs(amount), 10**exponent)
    number = _group(str(whole), style) + (f"{style.decimal}{frac:0{exponent}d}" if exponent
                                          else "")
    sign = "-" if amount < 0 else ""
    if not with_currency or not currency:
        return sign + number
    return style.pattern.format(sign=sign, number=number,
                                symbol=style.symbols.get(currency.upper(), currency))


def seconds(value: float) -> str:
    """A number of seconds as the active language writes it (``15.5``, German ``15,5``).

    >>> seconds(12.0)
    '12'
    """
    return f"{value:g}".replace(".", STYLES[active()].decimal)


def normalise_amount(text: str) -> str:
    """A typed amount in the active language's way (``1.000,50`` in German) as ``1000.50``:
    group separators and spaces dropped, the decimal separator made a point."""
    style = STYLES[active()]
    t = text.strip().replace(_NBSP, "").replace(" ", "")
    return t.replace(style.group, "").replace(style.decimal, ".")
