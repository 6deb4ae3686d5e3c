"""The PAR sheets, strategies and cash-out table kept in the repository match the analysis.

When one fails, regenerate with:
    rgs par all --out services/rgs/math/par --update-data
"""

from __future__ import annotations

import json
import re

import pytest

from rgs.math.cashout import cash_out_file, table_json
from rgs.math.par import PAR_DIR, recorded_check, render_markdown, sheet_name
from rgs.math.par_check import PASS_SE, still_valid
from rgs.math.report import cached_report, figures
from rgs.math.strategy_tables import (
    load_power_double_choices,
    load_strategy,
    load_two_card_strategy,
    strategy_file,
    strategy_json,
)
from rgs.variants import VARIANTS
from rgs.variants.options import DECK_CHOICES, VariantOptions, effective_rules

REGENERATE = "stale: run `rgs par all --out services/rgs/math/par --update-data`"


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and abs(a - b) <= 2e-6
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_committed_par_figures_match_a_fresh_analysis(variant_id: str) -> None:
    committed = json.loads((PAR_DIR / f"{variant_id}.json").read_text("utf-8"))
    committed.pop("simulation_check", None)
    fresh = json.loads(json.dumps(figures(cached_report(VARIANTS[variant_id]))))
    assert _close(committed, fresh), REGENERATE
    assert (PAR_DIR / f"{variant_id}.md").read_text("utf-8").startswith("# PAR sheet")
    assert (PAR_DIR / f"{variant_id}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_committed_strategy_matches_a_fresh_analysis(variant_id: str) -> None:
    report = cached_report(VARIANTS[variant_id])
    text = strategy_json(variant_id, report.strategy, report.power_double, report.two_card)
    assert strategy_file(variant_id).read_text("utf-8") == text, REGENERATE
    assert load_strategy(variant_id) == report.strategy
    assert load_power_double_choices(variant_id) == report.power_double
    assert load_two_card_strategy(variant_id) == report.two_card


def test_committed_vip_platinum_cash_out_table_is_the_generated_one() -> None:
    rules = VARIANTS["vip-platinum"]
    design = cached_report(rules).cash_out
    assert design is not None
    assert cash_out_file(rules.id).read_text("utf-8") == table_json(design, rules.id), REGENERATE
    assert rules.cash_out is not None
    assert rules.cash_out.offers_bp == design.offers_bp


@pytest.mark.parametrize(("variant_id", "decks"), [
    (v, n) for v, counts in DECK_CHOICES.items() for n in counts if n != VARIANTS[v].decks])
def test_a_sheet_is_kept_for_every_deck_count_a_brand_may_choose(variant_id: str,
                                                                 decks: int) -> None:
    """electronic-h17's deck count is a brand setting: the analysis and the PAR sheet follow
    the chosen count (rgs par electronic-h17 --decks N)."""
    rules = effective_rules(VARIANTS[variant_id], VariantOptions(decks=decks))
    committed = json.loads((PAR_DIR / f"{sheet_name(rules)}.json").read_text("utf-8"))
    committed.pop("simulation_check", None)  # checked by the simulation-check test
    fresh = json.loads(json.dumps(figures(cached_report(rules))))
    assert committed["decks"] == decks
    assert _close(committed, fresh), REGENERATE


def _sheets() -> list[tuple[str, int | None]]:
    own = [(v, None) for v in VARIANTS]
    return own + [(v, n) for v, counts in DECK_CHOICES.items() for n in counts
                  if n != VARIANTS[v].decks]


#: Sheets whose 10^7-round check is not recorded yet (each says "Not run" and names the
#: command); the list only shrinks: a sheet leaves it when its check is recorded.
CHECK_PENDING: frozenset[str] = frozenset()


@pytest.mark.parametrize(("variant_id", "decks"), _sheets())
def test_every_sheet_records_a_simulation_check_run_against_its_figures_that_passed(
        variant_id: str, decks: int | None) -> None:
    rules = effective_rules(VARIANTS[variant_id], VariantOptions(decks=decks))
    report = cached_report(rules)
    name = sheet_name(rules)
    check = json.loads((PAR_DIR / f"{name}.json").read_text("utf-8")).get("simulation_check")
    if name in CHECK_PENDING:
        assert check is None, f"{name} has its check now: take it off CHECK_PENDING"
        assert "Not run" in (PAR_DIR / f"{name}.md").read_text("utf-8")
        return
    assert check is not None, f"{name}'s sheet must state its simulation check"
    assert still_valid(check, report), f"stale simulation check: rerun `{check['command']}`"
    assert check["passed"] and abs(check["standard_errors"]) < PASS_SE
    assert check["rounds"] >= 10_000_000 and check["stderr"] <= 0.05
    assert "Simulation check" in (PAR_DIR / f"{name}.md").read_text("utf-8")
    assert recorded_check(report) == check


@pytest.mark.parametrize(("variant_id", "decks"), _sheets())
def test_committed_markdown_sheet_is_the_rendered_one(variant_id: str, decks: int | None) -> None:
    """The Markdown a lab reads is what the generator renders today (sections, strategy, the
    simulation check's wording); decimals are masked because the figures are compared, within
    tolerance, by the JSON tests above."""
    rules = effective_rules(VARIANTS[variant_id], VariantOptions(decks=decks))
    report = cached_report(rules)
    name = sheet_name(rules)
    committed = (PAR_DIR / f"{name}.md").read_text("utf-8")
    fresh = render_markdown(report, f"{name}.png", recorded_check(report))

    def mask(text: str) -> str:
        return re.sub(r"\d+\.\d+", "#.#", text)

    assert mask(committed) == mask(fresh), REGENERATE
