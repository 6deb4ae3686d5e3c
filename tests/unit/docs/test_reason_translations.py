"""Every refusal's ErrorInfo reason is a key the reference clients translate (issue 28): each
reason the server can send — every one test_docs_error_table's scan of the source finds raised
and every one passed on (a string field's INVALID_<FIELD>, the wallet contract's final
refusals) — has a sentence in every language's catalogue (rgs/locales/<lang>.json), which
the web table and ``rgs play`` both read. A new reason without its sentences fails here."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from test_docs_error_table import passed_on, raised

from rgs.engine import sidebets
from rgs.engine.model import Action, Outcome, Phase
from rgs.engine.rules import Peek, TwentyPlusOutcome
from rgs.locales import LANGUAGES, SECTIONS, catalogue
from rgs.service.model import MovementStatus
from rgs.wallet.port import MoneyKind

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: A paytable line a side bet's evaluation returns (rgs.engine.sidebets).
_SIDE_BET_LINES = re.compile(r'return \("(\w+)"')


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


TABLE = Path(__file__).resolve().parents[3] / "web" / "table"


def test_every_word_the_web_table_names_is_in_the_catalogue() -> None:
    """The ``data-i18n``/``data-i18n-label`` keys of the table's page and of the support replay
    page, and the plurals ``tn("key", n)`` of web/table/src (``t("key")`` is checked by
    TypeScript: its keys are English's, and every other catalogue is typed as English's)."""
    table = TABLE
    web = catalogue("en")["web"]
    named = {key for page in ("index.html", "replay.html")
             for key in re.findall(r'data-i18n(?:-label)?="([\w.]+)"',
                                   (table / page).read_text("utf-8"))}
    assert "replay.title" in named and "replay.steps_title" in named
    plurals = {f"{key}_{form}" for ts in (table / "src").glob("*.ts")
               for key in re.findall(r'\btn\("([\w.]+)"', ts.read_text("utf-8"))
               for form in ("one", "other")}
    assert named and plurals
    assert sorted((named | plurals) - set(web)) == []


def test_the_replay_page_has_words_for_everything_a_recall_can_carry() -> None:
    """The support replay page (and the table's history and ``rgs play``) says a round's
    status, each wallet movement's kind and status, the peek rule, each decision, each result
    and each side bet's paytable line by catalogue keys made from the recall's
    values (``replay.status.settled``): a value the server can send without its words fails
    here (the per-language parity test above then holds every language to them)."""
    web = catalogue("en")["web"]
    wanted = ({f"replay.status.{p.value}" for p in Phase} | {"replay.status.not_dealt"}
              | {f"replay.movement.{k.value}" for k in MoneyKind}
              | {f"replay.movement_status.{s.value}" for s in MovementStatus}
              | {f"replay.peek.{p.value}" for p in Peek}
              | {f"acted.{a.name}" for a in Action} | {f"settled.{o.name}" for o in Outcome}
              | {f"line.{line}" for line in _SIDE_BET_LINES.findall(inspect.getsource(sidebets))
                 if line != "lose"} | {f"line.{o.value}" for o in TwentyPlusOutcome})
    assert "line.mixed_pair" in wanted
    assert sorted(wanted - set(web)) == []


def _literals(source: str) -> list[str]:
    """The string literals of a TypeScript source, comments and class names left out."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S)
    code = re.sub(r"className = [^;\n]*", "", code)
    found = re.findall(r'"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`|\'((?:[^\'\\\n]|\\.)*)\'', code)
    return [a or b or c for a, b, c in found]


#: Literals of several words that are no words a player reads: CSS selectors.
_NOT_WORDS = re.compile(r"^#[\w-]+[ \[]|\bbutton\b.*\[")


@pytest.mark.parametrize("script", sorted(p.name for p in (TABLE / "src").glob("*.ts")))
def test_the_web_table_and_the_replay_page_write_no_words_of_their_own(script: str) -> None:
    """Every sentence the web table and its support replay page show comes from the
    catalogues: no literal of two words or more in their scripts (``${...}`` parts and CSS
    selectors aside), so none stays English in German or Spanish."""
    text = (TABLE / "src" / script).read_text("utf-8")
    words = [lit for lit in _literals(text)
             if re.search(r"[A-Za-z]{2,} [A-Za-z]{2,}", re.sub(r"\$\{[^}]*\}", "", lit))
             and not _NOT_WORDS.search(lit)]
    assert words == [], f"web/table/src/{script} writes {words}: put them in the catalogues"
