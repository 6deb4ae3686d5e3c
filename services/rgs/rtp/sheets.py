"""The PAR figures a round is compared with, read from the shipped sheets.

:func:`par_figures` reads a sheet each call; :class:`ParSheets` keeps what it read for its
owner's life (the RTP worker builds one, as it builds its :class:`rgs.math.hints.HintTables`),
so no module-level cache outlives or is shared between owners.
"""

from __future__ import annotations

import json
from functools import lru_cache

from rgs.engine import RuleSet, SideBetKind
from rgs.math.par import PAR_DIR, sheet_name
from rgs.rtp.expected import ParFigures


def par_figures(rules: RuleSet) -> ParFigures:
    """The sheet's main, insurance and side-bet returns as ratios."""
    sheet = json.loads((PAR_DIR / f"{sheet_name(rules)}.json").read_text("utf-8"))
    sides = {SideBetKind(k): float(v) / 100.0 for k, v in sheet.get("side_bets", {}).items()}
    return ParFigures(main=float(sheet["rtp"]) / 100.0,
                      insurance=float(sheet.get("insurance_rtp", 100.0)) / 100.0,
                      side_bets=sides)


class ParSheets:
    """The sheets' figures by rule set, each sheet read once for the owner's life (at most 64
    rule sets kept: a variant with each brand's options)."""

    def __init__(self) -> None:
        self._figures = lru_cache(maxsize=64)(par_figures)

    def figures(self, rules: RuleSet) -> ParFigures:
        """:func:`par_figures`, read once per rule set."""
        return self._figures(rules)
