"""The decision-adjusted expected return of one settled round, from its journal events.

For every box the round's value is built along the round as the players saw it (the exact
values of :mod:`rgs.math.hints`, as the hints feature shows them):

    expected net = stake x V(deal)  -  sum over decisions of stake x (best value - taken value)

``V(deal)`` is the box's two cards' value against the up card under optimal play (a dealer
blackjack included); each decision's regret is what it gave up against the best decision open
at that moment. What is left, ``observed net - expected net``, is the luck of the cards drawn
after each decision: its expectation is zero when the engine plays the rules the analysis
values (the values are a martingale along the round), whatever the players chose. A fault
(a wrong payout, a wrong dealer rule) moves it; bad play does not.

Insurance is valued directly (its stake times ``(pays + 1) x P(ten-valued hole card) - 1``,
taken by a decision or by a preset alike); side bets settle on the deal with no decision, so
their expected net is the stake times the PAR sheet's return less one. Bet Behind stakes are
left out of all three figures (observed, PAR and expected): they follow the box's decisions
with funding of their own, which this module does not value yet.

Everything is in minor units per round; ratios are per *base stake* (main stakes, side-bet
and insurance stakes: what the PAR's RTP is a return of), see :class:`RoundFigures`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rgs.engine import (
    Action,
    CardDealt,
    Event,
    HandSettled,
    InsuranceSettled,
    PlayerActed,
    Round,
    RoundStarted,
    RoundVoided,
    RuleSet,
    ShoeExhausted,
    SideBetKind,
    SideBetSettled,
)
from rgs.engine.cards import SequenceSource
from rgs.engine.model import INSURANCE_ACTIONS
from rgs.engine.replay import apply_decision
from rgs.math.analysis_player import counts, rank
from rgs.math.hints import insurance_values, up_card_analysis
from rgs.rtp.check import check_round
from rgs.service.advice import hints


@dataclass(frozen=True, slots=True, kw_only=True)
class ParFigures:
    """The PAR sheet's returns a round is compared with (ratios, 0.995 for 99.5%)."""

    main: float
    insurance: float
    side_bets: Mapping[SideBetKind, float]


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundFigures:
    """One settled round's money and its two expectations (minor units; floats where a value
    is an expectation)."""

    #: Main stakes at the deal, side-bet stakes and insurance stakes.
    base_stake: int
    #: Paid less staked (doubles and splits included), Bet Behind left out.
    observed_net: int
    #: The PAR's expectation of the net: as if the players played the PAR's optimal strategy.
    par_net: float
    #: The decision-adjusted expectation of the net, given the decisions taken.
    expected_net: float
    #: What the decisions taken gave up against the best ones (>= 0).
    regret: float
    #: Decisions valued.
    decisions: int
    #: What the per-hand check found (:mod:`rgs.rtp.check`): empty when the round kept the rules.
    faults: tuple[str, ...] = ()


def _deal_value(rules: RuleSet, up: str, cards: tuple[str, ...]) -> float:
    """The two cards' value against ``up`` from the deal under optimal play, in main bets."""
    return insurance_values(rules, up, cards, Fraction(0))[Action.DECLINE_INSURANCE]


def _p_ten(rules: RuleSet, up: str, cards: tuple[str, ...]) -> float:
    t = up_card_analysis(rules, rank(up)).t
    return float(t.p_blackjack(counts(cards)))


def is_demo(start: RoundStarted) -> bool:
    """Hook: a demo (play-money) round is left out of the monitoring. The journal records no
    demo flag yet; when demo play adds one, test it here (and in the worker's queries)."""
    return False


def round_figures(rules: RuleSet, events: Sequence[Event], par: ParFigures
                  ) -> RoundFigures | None:
    """The figures of one settled round (None for a voided round, or one with no main bet).

    The round is rebuilt decision by decision from the journal's cards under ``rules`` (the
    rules the round was dealt under) only to see each decision as the player saw it; the money
    is the journal's own. A round whose engine broke the rules therefore still gets the
    expectation of the rules, which is the point."""
    if not events or not isinstance(events[0], RoundStarted):
        raise ValueError("a round's events start with RoundStarted")
    if any(isinstance(e, RoundVoided) for e in events):
        return None
    start = events[0]
    cards = [e.card for e in events if isinstance(e, CardDealt)]
    dealer = [e.card for e in events if isinstance(e, CardDealt) and e.seat is None]
    if not dealer:
        return None
    up = dealer[0]
    rnd = Round.deal(rules, SequenceSource(cards), start.boxes, start.limits)
    stakes = {b.seat: b.stake for b in start.boxes}
    initial = {b.seat: rnd.hand_cards(b.seat, 0) for b in start.boxes}
    base = sum(stakes.values())
    expected = 0.0
    par_net = 0.0
    for b in start.boxes:
        expected += b.stake * _deal_value(rules, up, initial[b.seat][:2])
        par_net += b.stake * (par.main - 1.0)
    regret = 0.0
    broken = False
    decisions = 0
    observed = 0
    for i, e in enumerate(events):
        if isinstance(e, PlayerActed) and e.action not in INSURANCE_ACTIONS:
            values = {h.action: float(h.expected_value) for h in hints(rules, rnd.view())
                      if h.seat == e.seat and h.hand == e.hand
                      and h.action not in INSURANCE_ACTIONS}
            if e.action in values:
                regret += stakes[e.seat] * (max(values.values()) - values[e.action])
                decisions += 1
        if not rnd.finished and not broken:
            try:
                apply_decision(rnd, events, i)
            except ShoeExhausted:  # the engine drew fewer cards than the rules: found below
                broken = True
        if isinstance(e, HandSettled):
            observed += e.payout - e.stake
        elif isinstance(e, SideBetSettled):
            observed += e.payout - e.stake
            base += e.stake
            rtp = par.side_bets.get(e.kind, 1.0)
            expected += e.stake * (rtp - 1.0)
            par_net += e.stake * (rtp - 1.0)
        elif isinstance(e, InsuranceSettled) and e.stake:
            observed += e.payout - e.stake
            base += e.stake
            won = rules.insurance_pays + 1
            expected += e.stake * (won * _p_ten(rules, up, initial[e.seat][:2]) - 1.0)
            par_net += e.stake * (par.insurance - 1.0)
    hands = {(b.seat, h.index): h.cards for b in rnd.view().boxes for h in b.hands}
    return RoundFigures(base_stake=base, observed_net=observed, par_net=par_net,
                        expected_net=expected - regret, regret=regret, decisions=decisions,
                        faults=tuple(check_round(rules, events, hands)))
