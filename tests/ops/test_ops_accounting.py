"""Round accounting from committed events: started, settled and voided rounds, and money split
into main bets, side bets and insurance so main-game RTP compares with the PAR sheet."""

from __future__ import annotations

from prometheus_client import REGISTRY

from rgs.engine.model import (
    InsuranceSettled,
    RoundSettled,
    RoundVoided,
    SideBetSettled,
)
from rgs.engine.rules import SideBetKind
from rgs.observability.instrumented import record_round_events
from rgs.service.model import StoredRound


def _round(events: tuple[object, ...], *, staked: int, paid: int,
           status: str = "settled") -> StoredRound:
    return StoredRound(round_id="r", player_key="op/p", session_id="s", operator_id="op",
                       brand_id="acct-brand", player_id="p", currency="GBP",
                       variant="acct-variant", seq=3, status=status, forced_cards=(),
                       total_staked=staked, total_paid=paid,
                       events=events)  # type: ignore[arg-type]


def _v(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_settlement_splits_main_side_and_insurance_money() -> None:
    money = {"variant": "acct-variant", "currency": "GBP"}
    before = {(n, b): _v(n, **money, bet=b) for n in ("rgs_stakes_minor_total",
                                                        "rgs_wins_minor_total")
              for b in ("main", "side", "insurance")}
    settled_before = _v("rgs_rounds_total", variant="acct-variant", brand="acct-brand",
                        event="settled")
    # Main 1,000 (+1,000 doubled) paid 4,000; Perfect Pairs 100 paid 2,600; insurance 500 lost.
    events = (
        SideBetSettled(seat=1, kind=SideBetKind.PERFECT_PAIRS, stake=100, line="mixed",
                       pays=25, payout=2600),
        InsuranceSettled(seat=1, stake=500, payout=0),
        RoundSettled(total_staked=2600, total_paid=6600),
    )
    rnd = _round(events, staked=2600, paid=6600)
    record_round_events(rnd, events)
    delta = {k: _v(k[0], **money, bet=k[1]) - v for k, v in before.items()}
    assert delta == {("rgs_stakes_minor_total", "main"): 2000,
                     ("rgs_stakes_minor_total", "side"): 100,
                     ("rgs_stakes_minor_total", "insurance"): 500,
                     ("rgs_wins_minor_total", "main"): 4000,
                     ("rgs_wins_minor_total", "side"): 2600,
                     ("rgs_wins_minor_total", "insurance"): 0}
    assert _v("rgs_rounds_total", variant="acct-variant", brand="acct-brand",
              event="settled") == settled_before + 1


def test_events_committed_earlier_are_not_counted_again() -> None:
    events = (RoundSettled(total_staked=1000, total_paid=0),)
    rnd = _round(events, staked=1000, paid=0)
    before = _v("rgs_stakes_minor_total", variant="acct-variant", currency="GBP", bet="main")
    record_round_events(rnd, ())  # a later commit of the same round (e.g. a retried credit)
    assert _v("rgs_stakes_minor_total", variant="acct-variant", currency="GBP",
              bet="main") == before


def test_a_voided_round_counts_as_voided_and_moves_no_money() -> None:
    before = _v("rgs_stakes_minor_total", variant="acct-variant", currency="GBP", bet="main")
    voided = _v("rgs_rounds_total", variant="acct-variant", brand="acct-brand",
                event="voided")
    events = (RoundVoided(reason="malfunction", total_staked=1000, total_refunded=1000),)
    record_round_events(_round(events, staked=1000, paid=0, status="voided"), events)
    assert _v("rgs_rounds_total", variant="acct-variant", brand="acct-brand",
              event="voided") == voided + 1
    assert _v("rgs_stakes_minor_total", variant="acct-variant", currency="GBP",
              bet="main") == before
