"""What an operator's lobby shows of each hosted variant: a one-line description, its thumbnail
and its theoretical RTP per deck count, read from the PAR sheets (``rgs/math/par/*.json``,
the same sheets the theoretical-RTP gauges read)."""

from __future__ import annotations

import functools
import json
from importlib import resources
from types import MappingProxyType
from typing import Final

#: One line per hosted variant for a lobby (English; a lobby in another language writes its
#: own). tests/unit/test_lobby_catalogue.py checks every hosted variant has one.
DESCRIPTIONS: Final = MappingProxyType({
    "vegas-20-plus": "Double on any number of cards, hit split aces, and the 20+ Bonus side "
                     "bet.",
    "classic-resplit": "Resplit to four hands, late surrender and the Safety Net on stiff "
                       "hands.",
    "electronic-h17": "Electronic table: dealer hits soft 17, late surrender and a 7-card "
                      "Charlie.",
    "power": "Power Double and Power Split; dealer 22 pushes, no hole card.",
    "vip-platinum": "Eight decks with Perfect Pairs, 21+3, Cash Out and Bet Behind at seven "
                    "seats.",
})

#: Where the browser edge serves a variant's thumbnail (``rgs/web/static/thumb-<id>.svg``).
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
