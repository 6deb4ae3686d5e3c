"""The worked rounds of docs/api.md are real: each is replayed through the engine and every field
the page states (cards, totals, statuses, allowed actions with costs and offers, side bets,
stakes, payouts, debits, credits, balances) must be what the engine produces. The requests shown
beside each round must be the ones replayed, and the page must have one round per variant.

Only ``rgs.engine`` and ``rgs.variants`` are imported: the page documents the product's rules,
and the engine is their one home.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rgs.engine import Action, BoxBet, ForcedCards, InsuranceOffer, Round, ShoeExhausted
from rgs.variants import VARIANTS, find_variant

API_MD = Path(__file__).resolve().parents[3] / "docs" / "api.md"
#: The balance of demo-alice in a fresh sandbox, where the page's rounds were played in order.
FRESH_BALANCE = 100_000
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_BJ_CALL = re.compile(r"^bj (\w+) '(.*?)'", re.MULTILINE | re.DOTALL)


def _blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _FENCE.finditer(API_MD.read_text("utf-8"))]


def _worked_rounds() -> list[tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]]:
    """Each worked round's block with the bj calls of the sh block just before it."""
    out = []
    last_sh = ""
    for lang, text in _blocks():
        if lang == "sh":
            last_sh = text
        elif lang == "toml" and text.startswith("# worked round"):
            calls = [(m.group(1), json.loads(m.group(2))) for m in _BJ_CALL.finditer(last_sh)]
            out.append((tomllib.loads(text), calls))
    return out


ROUNDS = _worked_rounds()


def _bet(raw: dict[str, Any]) -> BoxBet:
    raw = dict(raw)
    if "insurance_offer" in raw:
        raw["insurance_offer"] = InsuranceOffer[raw["insurance_offer"].removeprefix(
            "INSURANCE_OFFER_")]
    return BoxBet(**raw)


def _allowed(legal: Any) -> list[dict[str, Any]]:
    """Allowed actions as the page writes them (proto names; zero fields left out)."""
    out = []
    for a in legal:
        d: dict[str, Any] = {"action": "ACTION_" + a.action.name}
        if a.cost:
            d["cost"] = a.cost
        if a.offer:
            d["offer"] = a.offer
        if a.warning:
            d["warning"] = a.warning
        out.append(d)
    return out


def _check_view(rnd: Round, step: dict[str, Any], where: str) -> None:
    view = rnd.view()
    assert view.seq == step["seq"], where
    assert "ROUND_STATUS_" + view.phase.name == step["status"], where
    assert view.to_act == (tuple(step["to_act"]) if "to_act" in step else None), where
    assert list(view.dealer_cards) == step["dealer_cards"], where
    hands = {f"{b.seat}.{h.index}": h for b in view.boxes for h in b.hands}
    assert sorted(hands) == sorted(h["at"] for h in step["hands"]), f"{where}: every hand listed"
    for want in step["hands"]:
        got = hands[want["at"]]
        facts = {"cards": list(got.cards), "total": got.total, "soft": got.soft,
                 "stake": got.stake, "status": "HAND_STATUS_" + got.status.name,
                 "outcome": "OUTCOME_" + got.outcome.name if got.outcome else None,
                 "payout": got.payout if got.outcome else None}
        stated = {"soft": False, "outcome": None, "payout": None, **want}
        assert set(stated) == {"at", *facts}, f"{where}: hand {want['at']} names unknown fields"
        assert facts == {k: stated[k] for k in facts}, f"{where}: hand {want['at']}"
    to_act = view.to_act
    assert _allowed(rnd.legal_actions(*to_act) if to_act else ()) == step.get("allowed", []), \
        f"{where}: allowed actions"
    insurance = [a for b in view.boxes for a in b.insurance_allowed]
    assert _allowed(insurance) == step.get("insurance_allowed", []), f"{where}: insurance"
    sides = [{"seat": b.seat, "kind": "SIDE_BET_KIND_" + s.kind.name, "stake": s.stake,
              "line": s.line, "payout": s.payout}
             for b in view.boxes for s in b.side_bets if s.settled]
    assert sides == step.get("side_bets", []), f"{where}: settled side bets"
    assert (view.total_staked, view.total_paid) == (step["total_staked"], step["total_paid"]), \
        where


def test_the_page_has_one_worked_round_per_variant() -> None:
    assert sorted(r["variant"] for r, _ in ROUNDS) == sorted(VARIANTS)


def test_the_rounds_chain_from_a_fresh_sandbox_balance() -> None:
    balance = FRESH_BALANCE
    for block, _ in ROUNDS:
        assert block["balance_before"] == balance, block["variant"]
        balance = block["steps"][-1]["balance"]


def test_request_ids_are_unique_on_the_page() -> None:
    ids = [body["request_id"] for _, calls in ROUNDS for _, body in calls]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(("block", "calls"), ROUNDS,
                         ids=[r["variant"] for r, _ in ROUNDS])
def test_a_worked_round_replays_through_the_engine_to_every_stated_amount(
        block: dict[str, Any], calls: list[tuple[str, dict[str, Any]]]) -> None:
    variant = block["variant"]
    rules = find_variant(variant)
    steps = block["steps"]
    # The shown requests are the replayed ones: one Deal, then one Act per later step.
    assert [c for c, _ in calls] == [s["call"] for s in steps] and steps[0]["call"] == "Deal"
    deal = calls[0][1]
    assert (deal["variant_id"], deal["boxes"], deal["forced_cards"]) == (
        variant, block["boxes"], block["forced_cards"])

    source = ForcedCards(block["forced_cards"])
    rnd = Round.deal(rules, source, [_bet(b) for b in block["boxes"]])
    balance = block["balance_before"]
    previous_seq = 0
    for i, (step, (_, body)) in enumerate(zip(steps, calls, strict=True)):
        where = f"{variant} step {i} ({step['call']})"
        staked_before = 0 if i == 0 else rnd.total_staked
        if i > 0:
            assert (body["round_id"], body["expected_seq"]) == ("$ROUND", previous_seq), where
            assert (body["seat"], body["hand"], body["action"]) == (
                step["seat"], step["hand"], step["action"]), where
            rnd.act(step["seat"], step["hand"], Action[step["action"].removeprefix("ACTION_")])
        debit = rnd.total_staked - staked_before
        assert step.get("debit", 0) == debit, f"{where}: debit"
        balance -= debit
        if rnd.finished:
            assert step["credit"] == rnd.total_paid, f"{where}: the one credit is the total paid"
            balance += rnd.total_paid
        else:
            assert "credit" not in step, f"{where}: no credit before the round ends"
        assert step["balance"] == balance, f"{where}: balance"
        _check_view(rnd, step, where)
        previous_seq = step["seq"]
    assert rnd.finished, f"{variant}: a worked round is played to the end"
    assert rnd.dealer_cards(reveal=True) == tuple(steps[-1]["dealer_cards"])
    with pytest.raises(ShoeExhausted):
        source.draw()  # every forced card was dealt, none is left over
