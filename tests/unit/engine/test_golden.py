"""Golden scenarios: forced cards, commands and the exact expected outcome of every hand.

Each ``tests/golden/<variant>.toml`` holds scenarios; each pins a rule (``rule = …``). Cards are
listed in the order they leave the shoe (deal order, then play order, then the dealer's draws);
a command ending in ``!rule_name`` must be refused by that rule and change nothing. Every
scenario is also replayed from its events and checked for money balance.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from rgs.engine import (
    Action,
    BehindBet,
    BehindInsuranceSettled,
    BehindSettled,
    BoxBet,
    EngineError,
    HandSettled,
    InsuranceOffer,
    InsuranceSettled,
    Phase,
    Round,
    SequenceSource,
    SideBetSettled,
    TableLimits,
    replay,
)
from rgs.variants import find_variant

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
_VERBS = {
    "insure": Action.INSURE, "decline": Action.DECLINE_INSURANCE, "hit": Action.HIT,
    "stand": Action.STAND, "double": Action.DOUBLE, "split": Action.SPLIT,
    "surrender": Action.SURRENDER, "power_split": Action.POWER_SPLIT,
    "power_double": Action.POWER_DOUBLE, "keep": Action.POWER_KEEP,
    "replace": Action.POWER_REPLACE, "cash_out": Action.CASH_OUT,
}


def _scenarios() -> list[Any]:
    out = []
    for path in sorted(GOLDEN.glob("*.toml")):
        data = tomllib.loads(path.read_text("utf-8"))
        for sc in data["scenario"]:
            out.append(pytest.param(data["variant"], sc, id=f"{path.stem}:{sc['name']}"))
    return out


def _bet(raw: dict[str, Any]) -> BoxBet:
    raw = dict(raw)
    if "insurance_offer" in raw:
        raw["insurance_offer"] = InsuranceOffer(raw["insurance_offer"])
    raw["behind"] = tuple(BehindBet(**b) for b in raw.get("behind", ()))
    return BoxBet(**raw)


def _parse(cmd: str) -> tuple[int, int, Action, str | None]:
    where, verb, *rest = cmd.split()
    seat, _, hand = where.partition(".")
    rule = rest[0].lstrip("!") if rest else None
    return int(seat), int(hand or 0), _VERBS[verb], rule


@pytest.mark.parametrize(("variant", "sc"), _scenarios())
def test_golden_scenario(variant: str, sc: dict[str, Any]) -> None:
    rules = find_variant(variant)
    limits = TableLimits(**sc["limits"]) if "limits" in sc else None
    source = SequenceSource(sc["cards"])
    bets = [_bet(b) for b in sc["bets"]]
    if "deal_error" in sc:
        with pytest.raises(EngineError) as err:
            Round.deal(rules, source, bets, limits)
        assert err.value.rule == sc["deal_error"]
        assert source.remaining == len(sc["cards"]), "a refused deal must not draw"
        return
    rnd = Round.deal(rules, source, bets, limits)
    for cmd in sc.get("commands", []):
        seat, hand, action, rule = _parse(cmd)
        if rule is None:
            rnd.act(seat, hand, action)
            continue
        before, seq = rnd.events, rnd.seq
        assert not rnd.can(seat, hand, action)
        with pytest.raises(EngineError) as err:
            rnd.act(seat, hand, action)
        assert err.value.rule == rule, f"{cmd}: refused by {err.value.rule}: {err.value}"
        assert rnd.events == before and rnd.seq == seq, f"{cmd}: a refused command changed state"

    exp = sc["expect"]
    assert rnd.phase is Phase(exp.get("phase", "settled"))
    assert source.remaining == 0, f"{source.remaining} listed cards were not dealt"
    if "dealer" in exp:
        assert rnd.dealer_cards(reveal=True) == tuple(exp["dealer"])
    settled = {(e.seat, e.hand): e for e in rnd.events if isinstance(e, HandSettled)}
    for h in exp.get("hands", []):
        seat, _, hand = h["at"].partition(".")
        key = (int(seat), int(hand))
        got = settled[key]
        if "cards" in h:
            assert rnd.hand_cards(*key) == tuple(h["cards"]), h["at"]
        assert (got.outcome.value, got.stake, got.payout) == (h["outcome"], h["stake"],
                                                              h["payout"]), h["at"]
        if "rounded_off" in h:
            assert str(got.rounded_off) == h["rounded_off"]
    if "hands" in exp:
        assert len(settled) == len(exp["hands"]), "every settled hand must be listed"
    sides = {(e.seat, e.kind.value): e for e in rnd.events if isinstance(e, SideBetSettled)}
    for s in exp.get("side_bets", []):
        got_s = sides[(s["seat"], s["kind"])]
        assert (got_s.line, got_s.payout) == (s["line"], s["payout"]), s
    behind = {(e.seat, e.hand, e.player): e for e in rnd.events if isinstance(e, BehindSettled)}
    for b in exp.get("behind", []):
        seat, _, hand = b["at"].partition(".")
        got_b = behind[(int(seat), int(hand), b["player"])]
        assert (got_b.outcome.value, got_b.stake, got_b.payout) == (
            b["outcome"], b["stake"], b["payout"]), b
    assert len(behind) == len(exp.get("behind", []))
    b_ins = {(e.seat, e.player): e for e in rnd.events if isinstance(e, BehindInsuranceSettled)}
    for b in exp.get("behind_insurance", []):
        got_i = b_ins[(b["seat"], b["player"])]
        assert (got_i.stake, got_i.payout) == (b["stake"], b["payout"])
    assert len(b_ins) == len(exp.get("behind_insurance", []))
    ins = {e.seat: e for e in rnd.events if isinstance(e, InsuranceSettled)}
    for i in exp.get("insurance", []):
        assert (ins[i["seat"]].stake, ins[i["seat"]].payout) == (i["stake"], i["payout"])
    assert len(ins) == len(exp.get("insurance", []))
    assert rnd.total_staked == exp["total_staked"]
    assert rnd.total_paid == exp["total_paid"]
    # the journal rebuilds the same round
    again = replay(rules, rnd.events)
    assert again.events == rnd.events
    assert again.view() == rnd.view()
