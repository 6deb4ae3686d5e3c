"""Every hosted variant has its lobby entry's parts: a one-line description, an RTP from a PAR
sheet for its own deck count (and each count a brand may choose), and a thumbnail file the
edge serves."""

from __future__ import annotations

from importlib import resources

import pytest

from rgs.api.browser_edge.app import STATIC_FILES
from rgs.locales import LANGUAGES
from rgs.variants import VARIANTS
from rgs.variants.catalogue import (
    DESCRIPTIONS,
    description,
    display_name,
    rtp_percent,
    table_name,
    thumbnail_file,
    thumbnail_url,
)
from rgs.variants.options import DECK_CHOICES


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_has_a_description_rtp_and_thumbnail(variant: str) -> None:
    assert 0 < len(DESCRIPTIONS[variant]) <= 100 and "\n" not in DESCRIPTIONS[variant]
    assert 95.0 < rtp_percent(variant, VARIANTS[variant].decks) < 101.0
    for decks in DECK_CHOICES.get(variant, ()):
        assert 95.0 < rtp_percent(variant, decks) < 101.0, decks
    svg = resources.files("rgs.web_table").joinpath("static", thumbnail_file(variant)).read_text()
    assert svg.startswith("<svg ") and "<script" not in svg
    assert STATIC_FILES[thumbnail_url(variant)] == (thumbnail_file(variant), "image/svg+xml")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_has_its_lobby_words_in_every_language(variant: str) -> None:
    # English's name is the rules' name (the catalogue is the one home of the lobby's words).
    assert display_name(variant, "en") == VARIANTS[variant].name
    assert description(variant, "en") == DESCRIPTIONS[variant]
    for language in LANGUAGES:
        line = description(variant, language)
        assert 0 < len(line) <= 120 and "\n" not in line, language
        assert display_name(variant, language)
    assert description(variant, "fr") == DESCRIPTIONS[variant]  # no catalogue: English


def test_a_lobby_in_german_and_spanish() -> None:
    assert description("vip-platinum", "de").startswith("Acht Decks")
    assert table_name("electronic-h17", "t-1", "de") == "Elektronisches Tisch-Blackjack (H17) — t-1"
    assert description("power", "es").startswith("Power Double y Power Split")


def test_the_rtp_is_the_par_sheets_to_two_decimals() -> None:
    assert rtp_percent("vip-platinum", 8) == 99.29  # docs/variants.md's published figure
    assert rtp_percent("vip-platinum", 3) == 0.0  # no sheet for those rules
