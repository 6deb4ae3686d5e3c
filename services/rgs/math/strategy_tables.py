"""Each variant's playing strategy, derived from the analysis, for the simulator and clients.

:func:`load_strategy` returns a total-dependent table ``(kind, total_or_pair, up) -> code``:

* ``kind`` is ``"hard"`` (totals 4..21), ``"soft"`` (totals 12..21) or ``"pair"``, and
  ``"split_hard"``/``"split_soft"`` for the first decision of a two-card hand after a split where
  it differs from what the ``hard``/``soft`` (or ``pair``) entry would do on that hand;
* ``total_or_pair`` is the hand total, or for ``"pair"`` the value of one card of the pair
  (ace = 1, ten-valued = 10);
* ``up`` is the dealer up-card class ``"A"``, ``"2"`` .. ``"9"``, ``"T"``.

Codes (each names its fallback when the action is not allowed on the hand at hand):

==========  ===========================================================================
``H``       hit
``S``       stand
``D``       double if allowed, else hit
``Ds``      double if allowed, else stand
``P``       split (pair table only); when splitting is not allowed use the hard/soft entry
``Rh``      surrender if allowed, else hit
``Rs``      surrender if allowed, else stand
``PD``      Power Double if offered, else double if allowed, else hit
``PDs``     Power Double if offered, else double if allowed, else stand
``PS``      Power Split if allowed, else hit
``PSs``     Power Split if allowed, else stand
``Ch``      cash out if offered, else hit
``Cs``      cash out if offered, else stand
==========  ===========================================================================

A pair looks up ``"pair"`` first; a code other than ``P`` there is what to do with the pair.
Entries come from the composition-dependent values of the two-card hands with that total,
weighted by their probability; hard 21 and soft 21 stand.

The ``split_*`` entries exist because a split hand has other options than the original hand
with the same total: in power the original hard 9-11 and soft 19/20 are Power Doubled, which a
split hand cannot do, so the ``PD``/``PDs`` fallback would make it double 10 against a ten or
soft 20 against a 7 where the analysis hits or stands (0.2 points of RTP lost, issue 11).

:func:`load_power_double_choices` returns ``(from_kind, from_total, to_kind, to_total, up) ->
"K" | "R"``: after a Power Double on a hand of ``from_kind``/``from_total`` shows a card making
``to_kind``/``to_total``, keep it (``K``) or replace it (``R``).
"""

from __future__ import annotations

import json
from pathlib import Path

from rgs.engine.rules import CashOutTable
from rgs.math.analysis import (
    BLACKJACK_PAID,
    CASH_OUT,
    DOUBLE,
    HIT,
    POWER_DOUBLE,
    POWER_SPLIT,
    SPLIT,
    STAND,
    SURRENDER,
    MainGame,
    RootHand,
)
from rgs.math.errors import UnknownVariantError
from rgs.math.shoe import NRANKS, RANK_NAMES, Counts, add, total_soft, unit
from rgs.math.splits import expected_counts, split_hand_counts

StrategyKey = tuple[str, int, str]
PowerDoubleKey = tuple[str, int, str, int, str]
TwoCardKey = tuple[int, int, str]
DATA = Path(__file__).resolve().parent / "data"

_FALLBACK_CODES = {DOUBLE: ("D", "Ds"), SURRENDER: ("Rh", "Rs"), POWER_DOUBLE: ("PD", "PDs"),
                   POWER_SPLIT: ("PS", "PSs")}


def _kind(root: RootHand) -> tuple[str, int]:
    total, soft = total_soft(root.hand)
    return ("soft" if soft else "hard", total)


def _pair(root: RootHand) -> int | None:
    return next((i + 1 for i in range(NRANKS) if root.hand[i] == 2), None)


def _averages(roots: list[RootHand], drop: set[str]) -> dict[str, float]:
    common = set.intersection(*(set(r.actions) for r in roots)) - drop
    wsum = sum(r.weight for r in roots)
    return {a: sum(r.weight * r.decision_ev(a) for r in roots) / wsum for a in sorted(common)}


def _code(avg: dict[str, float], offer: float | None) -> str:
    best = max(avg, key=lambda a: avg[a])
    hit_first = avg[HIT] >= avg[STAND]
    if offer is not None and offer - 1.0 > avg[best]:
        return "Ch" if hit_first else "Cs"
    if best in _FALLBACK_CODES:
        pair = _FALLBACK_CODES[best]
        return pair[0] if hit_first else pair[1]
    return best


def derive_strategy(game: MainGame, cash_out: CashOutTable | None = None) -> dict[StrategyKey, str]:
    """The total-dependent strategy table of an analysed game (see the module docstring)."""
    groups: dict[tuple[str, int, int], list[RootHand]] = {}
    pairs: dict[tuple[int, int], list[RootHand]] = {}
    for r in game.roots:
        if BLACKJACK_PAID in r.actions:
            continue
        p = _pair(r)
        if p is not None:
            pairs.setdefault((p, r.up), []).append(r)
        else:
            kind, total = _kind(r)
            groups.setdefault((kind, total, r.up), []).append(r)
    # totals no non-pair two-card hand makes (hard 4, hard 20, soft 12) take the pair's play
    for (_, up), rs in pairs.items():
        kind, total = _kind(rs[0])
        groups.setdefault((kind, total, up), rs)
    out: dict[StrategyKey, str] = {}
    for up in range(NRANKS):
        u = RANK_NAMES[up]
        for kind, lo in (("hard", 4), ("soft", 12)):
            for total in range(lo, 22):
                rs = groups.get((kind, total, up), [])
                if total == 21 or not rs:
                    out[(kind, total, u)] = "S"
                    continue
                offer = cash_out.offer_bp(total, kind == "soft", u) if cash_out else None
                avg = _averages(rs, {SPLIT})
                out[(kind, total, u)] = _code(avg, None if offer is None else offer / 10_000)
        for p in range(1, 11):
            rs = pairs.get((p, up), [])
            if not rs:
                continue
            avg = _averages(rs, set())
            if max(avg, key=lambda a: avg[a]) == SPLIT:
                out[("pair", p, u)] = "P"
            else:
                # the pair's own best play: it may differ from other hands of its total
                out[("pair", p, u)] = _code(_averages(rs, {SPLIT}), None)
    return out


_TRIES = {"H": (HIT,), "S": (STAND,), "P": (SPLIT,), "D": (DOUBLE, POWER_DOUBLE),
          "Ds": (DOUBLE, POWER_DOUBLE), "PD": (POWER_DOUBLE, DOUBLE),
          "PDs": (POWER_DOUBLE, DOUBLE), "PS": (POWER_SPLIT,), "PSs": (POWER_SPLIT,),
          "Rh": (SURRENDER,), "Rs": (SURRENDER,), "Ch": (CASH_OUT,), "Cs": (CASH_OUT,)}


def _two_card_key(root: RootHand) -> TwoCardKey:
    cards = [i + 1 for i in range(NRANKS) for _ in range(root.hand[i])]
    return (cards[0], cards[1], RANK_NAMES[root.up])


def table_action(root: RootHand, strategy: dict[StrategyKey, str],
                 two_card: dict[TwoCardKey, str] | None = None) -> str:
    """The action the tables take at a root hand's first decision (fallbacks applied)."""
    up = RANK_NAMES[root.up]
    code = (two_card or {}).get(_two_card_key(root))
    if code is None:
        pair = _pair(root)
        if pair is not None:
            code = strategy[("pair", pair, up)]
        if code is None or (code == "P" and SPLIT not in root.actions):
            kind, total = _kind(root)
            code = strategy[(kind, total, up)]
    for action in _TRIES[code]:
        if action in root.actions:
            return action
    return STAND if code.endswith("s") or code == "S" else HIT


def _root_code(root: RootHand) -> str:
    best = root.best
    hit_first = root.actions[HIT] >= root.actions[STAND]
    if best == CASH_OUT:
        return "Ch" if hit_first else "Cs"
    if best in _FALLBACK_CODES:
        return _FALLBACK_CODES[best][0 if hit_first else 1]
    return best


def derive_two_card(game: MainGame, strategy: dict[StrategyKey, str]) -> dict[TwoCardKey, str]:
    """The original two-card hands whose best play the total table gets wrong."""
    out: dict[TwoCardKey, str] = {}
    for root in game.roots:
        if BLACKJACK_PAID in root.actions:
            continue
        act = table_action(root, strategy)
        if root.actions[act] < root.actions[root.best] - 1e-12:
            out[_two_card_key(root)] = _root_code(root)
    return dict(sorted(out.items()))


def _split_weights(game: MainGame, root: RootHand,
                   act: str) -> list[tuple[int, int, bool, Counts, float]]:
    """The two-card hands a split root leads to: (first card, other card out, power, hand,
    probability per deal of the root) — the hand counts of :mod:`rgs.math.outcomes`."""
    ua, rules = game.analyses[root.up], game.rules
    out: list[tuple[int, int, bool, Counts, float]] = []
    if act == POWER_SPLIT:
        a, b = (i for i in range(NRANKS) if root.hand[i])
        for first, other in ((a, b), (b, a)):
            ps = ua.t.probs(add(unit(first), other))
            out += [(first, other, True, add(unit(first), x), ps[x])
                    for x in range(NRANKS) if ps[x] > 0.0]
        return out
    pair = next(i for i in range(NRANKS) if root.hand[i] == 2)
    ps = ua.t.probs(root.hand)
    p = ps[pair]
    resplit = rules.max_split_depth >= 2 and (pair != 0 or rules.resplit_aces)
    if not resplit or p <= 0.0:
        return [(pair, pair, False, add(unit(pair), x), 2.0 * ps[x])
                for x in range(NRANKS) if ps[x] > 0.0]
    e_np, e_pp = expected_counts(split_hand_counts(
        p, max_depth=rules.max_split_depth, max_hands=rules.max_hands, resplit=True))
    out = [(pair, pair, False, add(unit(pair), x), e_np * ps[x] / (1.0 - p))
           for x in range(NRANKS) if ps[x] > 0.0 and x != pair]
    return [*out, (pair, pair, False, add(unit(pair), pair), e_pp)]


def _resolve(code: str, can_double: bool) -> str:
    """What an action code does on a split hand (no Power Double, Power Split, surrender or
    Cash Out there): the codes' documented fallbacks."""
    if code in ("D", "Ds", "PD", "PDs") and can_double:
        return DOUBLE
    return STAND if code.endswith("s") or code == "S" else HIT


def derive_after_split(game: MainGame, strategy: dict[StrategyKey, str],
                       two_card: dict[TwoCardKey, str] | None = None) -> dict[StrategyKey, str]:
    """``split_hard``/``split_soft`` entries: a split hand's first decision where the analysis
    plays it otherwise than the hard/soft (or pair) entry would, by probability-weighted value
    over every split the tables make."""
    sums: dict[StrategyKey, dict[str, float]] = {}
    for root in game.roots:
        if BLACKJACK_PAID in root.actions:
            continue
        act = table_action(root, strategy, two_card)
        if act not in (SPLIT, POWER_SPLIT):
            continue
        ua, up = game.analyses[root.up], RANK_NAMES[root.up]
        for first, other, power, hand, w in _split_weights(game, root, act):
            pl = ua.split_player(first, other, power=power)
            if pl.finished(hand) or pl.ctx.one_card:
                continue
            opts = {STAND: pl.stand(hand), HIT: pl.hit(hand)}
            if pl.can_double(hand):
                opts[DOUBLE] = pl.double(hand)
            total, soft = total_soft(hand)
            kind = "soft" if soft else "hard"
            code = strategy[("pair", first + 1, up)] if hand[first] == 2 else "P"
            if code == "P":
                code = strategy[(kind, total, up)]
            acc = sums.setdefault((f"split_{kind}", total, up), {})
            acc["table"] = acc.get("table", 0.0) + root.weight * w * opts[
                _resolve(code, pl.can_double(hand))]
            for a, v in opts.items():
                acc[a] = acc.get(a, 0.0) + root.weight * w * v
    out: dict[StrategyKey, str] = {}
    for key, acc in sorted(sums.items()):
        best = max((a for a in acc if a != "table"), key=lambda a: acc[a])
        if acc[best] > acc["table"] + 1e-12:
            hit_first = acc[HIT] >= acc[STAND]
            out[key] = ("D" if hit_first else "Ds") if best == DOUBLE else best
    return out


def table_rtp(game: MainGame, strategy: dict[StrategyKey, str],
              two_card: dict[TwoCardKey, str] | None = None) -> float:
    """RTP (percent) when the first decision follows the tables (later decisions stay those
    of the analysis): what a simulator playing the tables should approach."""
    loss = 0.0
    for root in game.roots:
        if BLACKJACK_PAID in root.actions:
            continue
        act = table_action(root, strategy, two_card)
        loss += root.weight * (root.actions[act] - root.actions[root.best])
    return game.rtp + 100.0 * loss


def derive_power_double(game: MainGame) -> dict[PowerDoubleKey, str]:
    """Keep/replace choices after a Power Double card, by majority of probability."""
    votes: dict[PowerDoubleKey, float] = {}
    for r in game.roots:
        if not r.replace:
            continue
        kind, total = _kind(r)
        ps = game.analyses[r.up].t.probs(r.hand)
        for x in range(NRANKS):
            if ps[x] <= 0.0:
                continue
            t2, s2 = total_soft(add(r.hand, x))
            if t2 > 21:
                t2, s2 = 22, False
            key = (kind, total, "soft" if s2 else "hard", t2, RANK_NAMES[r.up])
            w = r.weight * ps[x]
            votes[key] = votes.get(key, 0.0) + (w if r.replace[x] else -w)
    return {k: ("R" if v > 0 else "K") for k, v in sorted(votes.items())}


def strategy_json(variant_id: str, strategy: dict[StrategyKey, str],
                  power_double: dict[PowerDoubleKey, str],
                  two_card: dict[TwoCardKey, str]) -> str:
    """The shipped JSON text of a variant's strategy."""
    doc = {
        "variant": variant_id,
        "strategy": [{"kind": k, "total": t, "up": u, "action": a}
                     for (k, t, u), a in strategy.items()],
        "power_double": [{"from_kind": fk, "from_total": ft, "to_kind": tk, "to_total": tt,
                          "up": u, "choice": c}
                         for (fk, ft, tk, tt, u), c in power_double.items()],
        "two_card": [{"low": lo, "high": hi, "up": u, "action": a}
                     for (lo, hi, u), a in two_card.items()],
    }
    return json.dumps(doc, indent=1) + "\n"


def strategy_file(variant_id: str) -> Path:
    """Where a variant's generated strategy is kept."""
    return DATA / f"strategy_{variant_id}.json"


def _read(variant_id: str) -> dict[str, list[dict[str, object]]]:
    path = strategy_file(variant_id)
    if not path.exists():
        known = sorted(p.stem.removeprefix("strategy_") for p in DATA.glob("strategy_*.json"))
        raise UnknownVariantError(
            f"no strategy for {variant_id!r}; known: {', '.join(known)}")
    doc: dict[str, list[dict[str, object]]] = json.loads(path.read_text("utf-8"))
    return doc


def load_strategy(variant_id: str) -> dict[StrategyKey, str]:
    """The strategy table of a hosted variant (format in the module docstring)."""
    return {(str(e["kind"]), int(str(e["total"])), str(e["up"])): str(e["action"])
            for e in _read(variant_id)["strategy"]}


def load_power_double_choices(variant_id: str) -> dict[PowerDoubleKey, str]:
    """Keep/replace choices after a Power Double card (empty without Power Double)."""
    return {(str(e["from_kind"]), int(str(e["from_total"])), str(e["to_kind"]),
             int(str(e["to_total"])), str(e["up"])): str(e["choice"])
            for e in _read(variant_id)["power_double"]}


def load_two_card_strategy(variant_id: str) -> dict[TwoCardKey, str]:
    """Composition-dependent first-decision exceptions (format in the module docstring)."""
    return {(int(str(e["low"])), int(str(e["high"])), str(e["up"])): str(e["action"])
            for e in _read(variant_id).get("two_card", [])}
