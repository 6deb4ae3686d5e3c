"""``rgs play``'s language: its words from the catalogues (:mod:`rgs.locales`) and amounts
written the way the language writes them.

One language per process (a terminal has one person at it): :func:`use` sets it at start
(``--lang``, else ``LC_ALL``/``LC_MESSAGES``/``LANG``, else English). Amounts are written in
that language by :mod:`rgs.locales.amounts` (the CLDR patterns of the web table's
``Intl.NumberFormat``; English keeps the terminal's ``1,000.00 EUR``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from rgs.locales import LANGUAGES, amounts, catalogue
from rgs.locales.amounts import NBSP, STYLES

#: The variables that name the terminal's language, strongest first (POSIX order).
LANGUAGE_VARIABLES: Final = ("LC_ALL", "LC_MESSAGES", "LANG")

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


def format_amount(amount: int, currency: str, exponent: int, *,
                  with_currency: bool = True, language: str | None = None) -> str:
    """Minor units as the active language (or ``language``) writes them
    (:func:`rgs.locales.amounts.format_amount`)."""
    return amounts.format_amount(amount, currency, exponent, with_currency=with_currency,
                                 language=language or active())


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
    t = text.strip().replace(NBSP, "").replace(" ", "")
    return t.replace(style.group, "").replace(style.decimal, ".")
