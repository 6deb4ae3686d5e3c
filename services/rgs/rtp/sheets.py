"""The PAR figures a round is compared with, read from the shipped sheets."""

from __future__ import annotations

import json
from functools import lru_cache

from rgs.engine import RuleSet, SideBetKind
from rgs.math.par import PAR_DIR, sheet_name
from rgs.rtp.expected import ParFigures


@lru_cache(maxsize=64)
def par_figures(rules: RuleSet) -> ParFigures:
    """The sheet's main, insurance and side-bet returns as ratios."""
    sheet = json.loads((PAR_DIR / f"{sheet_name(rules)}.json").read_text("utf-8"))
    sides = {SideBetKind(k): float(v) / 100.0 for k, v in sheet.get("side_bets", {}).items()}
    return ParFigures(main=float(sheet["rtp"]) / 100.0,
                      insurance=float(sheet.get("insurance_rtp", 100.0)) / 100.0,
                      side_bets=sides)
