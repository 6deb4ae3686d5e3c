"""The message catalogues of the reference clients, one JSON file per language (``en.json``,
``de.json``, ``es.json``): the one home of every word the web table and ``rgs play`` show.

Each file has five sections: ``language`` (its name and the BCP 47 locale ``Intl`` formats
with), ``reasons`` (a sentence for every ErrorInfo reason the server can send, by reason),
``web`` (the web table's words, its support replay page's under ``replay.``, and the table
events both clients say), ``terminal`` (``rgs play``'s own) and ``lobby`` (each variant's
display name and one-line description in ListVariants and ListTables, read by
:mod:`rgs.variants.catalogue`). Placeholders are ``{name}``; a key ending ``_one``/``_other``
is a plural form. English is the reference: every other file has exactly its keys and
placeholders, and every reason the server raises is in each
(tests/unit/docs/test_reason_translations.py; docs/studio-guide.md, "Languages", says how to
add one).

Beside them, the words and amounts every teller of a round shares, the terminal client, the
recall's words and the finance reports alike (none of which may import another):
:mod:`rgs.locales.amounts` (each currency's exponent, an amount written per language) and
:mod:`rgs.locales.names` (the decisions' and side bets' English names).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from types import MappingProxyType
from typing import Final

#: The languages the reference clients speak, English first (the fallback).
LANGUAGES: Final = ("en", "de", "es")

SECTIONS: Final = ("language", "reasons", "web", "terminal", "lobby")


@functools.cache
def catalogue(language: str) -> MappingProxyType[str, MappingProxyType[str, str]]:
    """A language's catalogue, by section then key; raises KeyError for a language not in
    :data:`LANGUAGES`."""
    if language not in LANGUAGES:
        raise KeyError(language)
    raw = json.loads(resources.files(__name__).joinpath(f"{language}.json").read_text("utf-8"))
    return MappingProxyType({s: MappingProxyType({str(k): str(v) for k, v in raw[s].items()})
                             for s in SECTIONS})
