"""Every refusal's ErrorInfo reason is a key the reference clients translate (issue 28): each
reason the server can send — every one test_docs_error_table's scan of the source finds raised
and every one passed on (a string field's INVALID_<FIELD>, the wallet contract's final
refusals) — has a sentence in every language's catalogue (rgs/locales/<lang>.json), which
the web table and ``rgs play`` both read. A new reason without its sentences fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_docs_error_table import passed_on, raised

from rgs.locales import LANGUAGES, SECTIONS, catalogue

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def server_reasons() -> set[str]:
    """Every reason the server can send a client."""
    return set(raised()) | set(passed_on())


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_reason_the_server_can_send_has_a_sentence(language: str) -> None:
    reasons = catalogue(language)["reasons"]
    missing = sorted(r for r in server_reasons() if not reasons.get(r, "").strip())
    assert missing == [], f"{language}.json has no sentence for {missing}"


def test_the_catalogues_name_no_reason_the_server_never_sends() -> None:
    """A reason taken out of the server goes out of the catalogues too (so the scan and the
    catalogues stay one list)."""
    assert sorted(set(catalogue("en")["reasons"]) - server_reasons()) == []


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
@pytest.mark.parametrize("section", SECTIONS)
def test_every_language_has_exactly_the_english_keys_and_placeholders(language: str,
                                                                      section: str) -> None:
    en, other = catalogue("en")[section], catalogue(language)[section]
    assert sorted(set(en) ^ set(other)) == []
    wrong = sorted(k for k in en if set(_PLACEHOLDER.findall(en[k]))
                   != set(_PLACEHOLDER.findall(other[k])))
    assert wrong == [], f"{language}.json's placeholders differ from English's in {wrong}"
    assert all(v.strip() for v in other.values())


def test_every_word_the_web_table_names_is_in_the_catalogue() -> None:
    """The page's ``data-i18n``/``data-i18n-label`` keys and the plurals ``tn("key", n)`` of
    web/table/src (``t("key")`` is checked by TypeScript: its keys are English's)."""
    table = Path(__file__).resolve().parents[3] / "web" / "table"
    web = catalogue("en")["web"]
    named = set(re.findall(r'data-i18n(?:-label)?="([\w.]+)"',
                           (table / "index.html").read_text("utf-8")))
    plurals = {f"{key}_{form}" for ts in (table / "src").glob("*.ts")
               for key in re.findall(r'\btn\("([\w.]+)"', ts.read_text("utf-8"))
               for form in ("one", "other")}
    assert named and plurals
    assert sorted((named | plurals) - set(web)) == []
