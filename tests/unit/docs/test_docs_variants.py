"""docs/variants.md states what the code does: the Cash Out table is the variant's own table to
the basis point, the rules at a glance match the rule sets, and the published RTP figures are the
PAR sheets' figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rgs.variants import VARIANTS, find_variant

ROOT = Path(__file__).resolve().parents[3]
PAGE = (ROOT / "docs" / "variants.md").read_text("utf-8")
PAR = ROOT / "services" / "rgs" / "math" / "par"


def _row(label: str, section: str = PAGE) -> list[str]:
    """The cells after the first of the table row whose first cell is ``label``."""
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == label:
            return cells[1:]
    raise AssertionError(f"no table row {label!r}")


def _section(title: str) -> str:
    start = PAGE.index(f"\n## {title}")
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start:end if end > 0 else None]


def test_the_cash_out_table_is_the_variants_table_to_the_basis_point() -> None:
    table = find_variant("vip-platinum").cash_out
    assert table is not None
    body = PAGE.split("<!-- cash-out-table")[1].split("<!-- end cash-out-table -->")[0]
    lines = [ln for ln in body.splitlines() if ln.startswith("| hard") or ln.startswith("| soft")]
    header = [c.strip() for c in body.splitlines()[1].strip().strip("|").split("|")][1:]
    stated: dict[tuple[int, bool, str], int] = {}
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        kind, total = cells[0].split()
        for up, bp in zip(header, cells[1:], strict=True):
            stated[(int(total), kind == "soft", up)] = int(bp)
    assert stated == table.offers_bp


def test_the_documented_cash_out_example_follows_the_floor_rule() -> None:
    table = find_variant("vip-platinum").cash_out
    assert table is not None
    bp = table.offer_bp(16, False, "8")
    assert f"hard 16 against an 8 is {bp} bp" in PAGE
    assert f"floor(1005 × {bp} / 10000) = floor({1005 * bp / 10000:.4f}) = {1005 * bp // 10000}" \
        in PAGE


def test_the_rules_at_a_glance_match_the_rule_sets() -> None:
    glance = _section("The rules at a glance")
    header = [c.strip(" `") for c in glance.splitlines()[3].strip().strip("|").split("|")][1:]
    assert header == list(VARIANTS)
    rules = [VARIANTS[v] for v in header]
    assert _row("decks in the shoe", glance) == [str(r.decks) for r in rules]
    assert _row("boxes one player may bet on", glance) == [
        "1" if r.max_boxes == 1 else f"1–{r.max_boxes}" for r in rules]
    assert _row("dealer on soft 17", glance) == [
        "**hits**" if r.dealer_hits_soft_17 else "stands" for r in rules]
    limits = _row("default table limits (main / side, minor units)", glance)
    for cell, r in zip(limits, rules, strict=True):
        lim = r.limits
        if cell != "same":
            assert cell == (f"{lim.main_min:,}–{lim.main_max:,} / "
                            f"{lim.side_min:,}–{lim.side_max:,}")
        else:
            assert lim == rules[0].limits


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_published_rtp_figures_are_the_par_sheets(variant: str) -> None:
    par = json.loads((PAR / f"{variant}.json").read_text("utf-8"))
    row = " | ".join(_row(variant, _section("Published return to player")))
    figures = [par["rtp"], par["house_edge"], par["insurance_rtp"],
               *par.get("side_bets", {}).values()]
    if "cash_out_rtp" in par:
        figures += [par["cash_out_rtp"], par["cash_out_optimal_rtp"]]
    for figure in figures:
        assert f"{figure:.4f}%" in row, (variant, figure)
    assert len(re.findall(r"\d+\.\d{4}%", row)) == len(figures), "no figure without a source"
