"""What an operator's lobby shows of each hosted variant: its display name and a one-line
description in the session's language (the ``lobby`` section of the catalogues,
``rgs/locales/<lang>.json``: the one home of those words), its thumbnail and its theoretical
RTP per deck count, read from the PAR sheets (``rgs/math/par/*.json``, the same sheets the
theoretical-RTP gauges read)."""

from __future__ import annotations

import functools
import json
from importlib import resources
from types import MappingProxyType
from typing import Final

from rgs.locales import LANGUAGES, catalogue


def _lobby(language: str) -> MappingProxyType[str, str]:
    """The ``lobby`` words of ``language`` (English for "" or a language no catalogue has)."""
    return catalogue(language if language in LANGUAGES else LANGUAGES[0])["lobby"]


def display_name(variant_id: str, language: str = "", default: str = "") -> str:
    """The variant's name in a lobby, in ``language`` (English: its rules' name), else
    English's, else ``default``."""
    key = f"{variant_id}.name"
    return _lobby(language).get(key) or _lobby("").get(key, default)


def description(variant_id: str, language: str = "") -> str:
    """The variant's one line in a lobby, in ``language`` ("" for a variant with none)."""
    key = f"{variant_id}.description"
    return _lobby(language).get(key) or _lobby("").get(key, "")


def table_name(variant_id: str, table_id: str, language: str = "", default: str = "") -> str:
    """A shared table's name in a lobby: its variant's name and its id."""
    return _lobby(language)["table"].format(
        variant=display_name(variant_id, language, default), table=table_id)


#: The English lines, by variant (tests/unit/test_lobby_catalogue.py checks every hosted
#: variant has one in every language).
DESCRIPTIONS: Final = MappingProxyType({
    key.removesuffix(".description"): text for key, text in _lobby("").items()
    if key.endswith(".description")})

#: Where the browser edge serves a variant's thumbnail (``rgs/web_table/static/thumb-<id>.svg``).
THUMBNAIL_PATH: Final = "/thumbnails/{variant}.svg"


def thumbnail_url(variant_id: str) -> str:
    """The thumbnail's path on the browser edge."""
    return THUMBNAIL_PATH.format(variant=variant_id)


def thumbnail_file(variant_id: str) -> str:
    """The thumbnail's file name in the web table's static folder."""
    return f"thumb-{variant_id}.svg"


@functools.cache
def _sheets() -> MappingProxyType[tuple[str, int], float]:
    par = resources.files("rgs.math").joinpath("par")
    out: dict[tuple[str, int], float] = {}
    for entry in par.iterdir():
        if entry.name.endswith(".json"):
            sheet = json.loads(entry.read_text("utf-8"))
            out[(str(sheet["variant"]), int(sheet["decks"]))] = float(sheet["rtp"])
    return MappingProxyType(out)


def rtp_percent(variant_id: str, decks: int) -> float:
    """The main game's theoretical RTP in percent (optimal strategy) for the variant played
    with ``decks`` decks, to two decimals (e.g. 99.29); 0.0 when no sheet has those rules."""
    return round(_sheets().get((variant_id, decks), 0.0), 2)
