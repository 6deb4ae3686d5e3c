"""The Cash Out offer table: fair values under optimal play, scaled to a target return.

The fair value of a situation (hand total, soft or hard, dealer up-card class) is the
probability-weighted average, over the two-card hands that make it, of the hand's expected
return (1 + EV per unit) under composition-dependent optimal play by standing or hitting (see
:func:`fair_returns` for why not doubling), as the player sees it at the decision: after a peek
found no blackjack, or before a late blackjack. Every offer is that fair
value times one scale factor, chosen so that a player who always cashes out at the first
decision gets the target return; offers are integer basis points of the main bet.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rgs.engine.rules import CashOutTable
from rgs.math.analysis import BLACKJACK_PAID, HIT, STAND, MainGame, RootHand
from rgs.math.errors import MathError
from rgs.math.shoe import RANK_NAMES, total_soft

#: The always-cash-out return the product promises (variants.md, vip-platinum), percent.
CASH_OUT_TARGET_RTP = 96.80
#: Where the engine's variants load their cash-out tables from.
VARIANT_DATA = Path(__file__).resolve().parents[1] / "variants" / "data"

Key = tuple[int, bool, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class CashOutDesign:
    """A generated offer table with the figures that define it."""

    offers_bp: dict[Key, int]
    #: Fair return (multiple of the main bet) per situation before scaling.
    fair: dict[Key, float]
    scale: float
    #: Always-cash-out return of the rounded table, percent.
    rtp: float

    @property
    def low(self) -> float:
        """The smallest offer as a multiple of the main bet."""
        return min(self.offers_bp.values()) / 10_000

    @property
    def high(self) -> float:
        """The largest offer as a multiple of the main bet."""
        return max(self.offers_bp.values()) / 10_000

    def source(self, variant_id: str) -> str:
        """The provenance line stored with the table."""
        return (f"rgs.math.cashout for {variant_id}: fair values under composition-dependent "
                f"optimal play x {self.scale:.6f}, always-cash-out RTP {self.rtp:.4f}%")


def situation(root: RootHand) -> Key:
    """The offer-table key of a starting hand."""
    total, soft = total_soft(root.hand)
    return (total, soft, RANK_NAMES[root.up])


def fair_returns(game: MainGame) -> dict[Key, float]:
    """Fair return (1 + EV at the decision) per situation.

    The offer for a total reaches every unsplit, undoubled hand of that total awaiting a
    decision, including hands of three or more cards that can no longer double, split or
    surrender. So the fair value of a total is that of its non-pair two-card hands played on by
    standing or hitting (optimally): valuing hard 11 with its double would pay a three-card 11
    far more than it is worth, and folding 8-8's split value into hard 16 would overpay T-6.
    (With the double counted, optimal use of the offers returned 99.45% at vip-platinum against
    99.29% without them; this way it is 99.29%, and the top offer is the published 1.77x.)
    Totals only a pair makes at the first decision (hard 4, hard 20, soft 12) take the pair's
    full value, splitting included: no other hand is offered them.
    """
    return fold_fair_returns(game.roots)


def fold_fair_returns(roots: Iterable[RootHand]) -> dict[Key, float]:
    """The fair return of every situation the root hands ``roots`` reach (the rule of
    :func:`fair_returns`; the hints of a single situation use it with that situation's hands)."""
    num: dict[Key, float] = {}
    den: dict[Key, float] = {}
    pair_num: dict[Key, float] = {}
    pair_den: dict[Key, float] = {}
    for root in roots:
        if BLACKJACK_PAID in root.actions:
            continue
        key = situation(root)
        w = root.weight * (1.0 - root.p_blackjack if root.peeked else 1.0)
        if max(root.hand) == 2:
            value = root.decision_ev(root.best)
            n, d = pair_num, pair_den
        else:
            value = max(root.decision_ev(STAND), root.decision_ev(HIT))
            n, d = num, den
        n[key] = n.get(key, 0.0) + w * (1.0 + value)
        d[key] = d.get(key, 0.0) + w
    for key, v in pair_num.items():
        if key not in num:
            num[key], den[key] = v, pair_den[key]
    return {k: num[k] / den[k] for k in sorted(num)}


def always_cash_out_rtp(game: MainGame, offers_bp: dict[Key, int]) -> float:
    """Return (percent) when every hand is cashed out at its first decision."""
    ret = 0.0
    for root in game.roots:
        if BLACKJACK_PAID in root.actions:
            ret += root.weight * (1.0 + root.ev)
            continue
        offer = offers_bp.get(situation(root))
        if offer is None:
            raise MathError(f"no cash-out offer for {situation(root)}")
        reach = 1.0 - root.p_blackjack if root.peeked else 1.0
        ret += root.weight * reach * offer / 10_000
    return 100.0 * ret


def design_cash_out(game: MainGame, target_rtp: float = CASH_OUT_TARGET_RTP) -> CashOutDesign:
    """Scale the fair values so that always cashing out returns ``target_rtp``."""
    fair = fair_returns(game)
    unit = {k: round(v * 10_000) for k, v in fair.items()}
    at_one = always_cash_out_rtp(game, unit)
    fixed = always_cash_out_rtp(game, dict.fromkeys(unit, 0))
    scale = (target_rtp - fixed) / (at_one - fixed)
    best: tuple[float, float, dict[Key, int]] | None = None
    # rounding to basis points moves the return; try the neighbouring scales and keep the best
    for step in range(-20, 21):
        s = scale * (1.0 + step * 1e-6)
        offers = {k: round(v * s * 10_000) for k, v in fair.items()}
        rtp = always_cash_out_rtp(game, offers)
        if best is None or abs(rtp - target_rtp) < abs(best[0] - target_rtp):
            best = (rtp, s, offers)
    assert best is not None
    rtp, s, offers = best
    return CashOutDesign(offers_bp=offers, fair=fair, scale=s, rtp=rtp)


def cash_out_file(variant_id: str) -> Path:
    """The data file a variant's cash-out table is shipped in."""
    return VARIANT_DATA / f"{variant_id.replace('-', '_')}_cash_out.json"


def table_json(design: CashOutDesign, variant_id: str) -> str:
    """The shipped JSON text of a cash-out table (the format ``rgs.variants`` loads)."""
    rows = [{"total": t, "soft": s, "up": u, "offer_bp": bp}
            for (t, s, u), bp in sorted(design.offers_bp.items(),
                                        key=lambda kv: (kv[0][1], kv[0][0],
                                                        RANK_NAMES.index(kv[0][2])))]
    return json.dumps({"source": design.source(variant_id), "offers": rows}, indent=1) + "\n"


def as_table(design: CashOutDesign, variant_id: str) -> CashOutTable:
    """The engine's value for a generated table."""
    return CashOutTable(offers_bp=dict(design.offers_bp), source=design.source(variant_id))
