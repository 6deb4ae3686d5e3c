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
taken by a decision or by a preset alike, a Bet Behind's too); side bets settle on the deal
with no decision, so their expected net is the stake times the PAR sheet's return less one.

A Bet Behind takes no decision: it rides the seat's hands, at its own stake, and follows a
double or a split only as its player chose in advance. Its expected net is the followed hands'
values at its stake: ``stake x V(deal)`` from the deal, and at each decision of a hand it rides
the change of its share of that hand's value, ``s x (Q(taken) x b'/h' - Q(best) x b/h)`` (``s``
the box's main bet, in which the values are counted; ``b/h`` the Bet Behind's stake on the hand
over the seat's, before the decision; ``b'/h'`` the same over the hands the decision leaves: a
double it does not follow halves it, a split it does not follow leaves it on the first hand
only). For the seat itself ``b/h`` is 1 throughout and this is the regret above; for a Bet
Behind that follows everything it is the seat's figure at the Bet Behind's stake. The same
martingale argument holds: between decisions its share does not change.

Everything is in minor units per round; ratios are per *base stake* (main stakes, side-bet
and insurance stakes: what the PAR's RTP is a return of), see :class:`RoundFigures`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from rgs.engine import (
    Action,
    BehindFollowSkipped,
    BehindInsuranceSettled,
    BehindSettled,
    BehindStakeAdded,
    CardDealt,
    EngineError,
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
from rgs.math.hints import HintTables
from rgs.rtp.check import Finding, check_round
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

    #: Main stakes at the deal (Bet Behinds' included), side-bet stakes and insurance stakes.
    base_stake: int
    #: Paid less staked (doubles and splits included).
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


def _deal_value(tables: HintTables, rules: RuleSet, up: str, cards: tuple[str, ...]) -> float:
    """The two cards' value against ``up`` from the deal under optimal play, in main bets."""
    return tables.insurance_values(rules, up, cards, Fraction(0))[Action.DECLINE_INSURANCE]


def _p_ten(tables: HintTables, rules: RuleSet, up: str, cards: tuple[str, ...]) -> float:
    t = tables.up_card_analysis(rules, rank(up)).t
    return float(t.p_blackjack(counts(cards)))


def is_demo(start: RoundStarted) -> bool:
    """Hook for an engine-level demo mark. The journal marks demo rounds itself (migration 0170,
    ``rounds.demo``) and the worker's read leaves them out (:mod:`rgs.rtp.worker`); shared
    tables take no demo play. Nothing in a round's events says demo, so this is False."""
    return False


#: Who a part of a round belongs to: ``(seat, player)`` to the key its figures are summed
#: under (the player is the box's own for its hands, side bets and insurance, the bettor's for
#: a Bet Behind; solo rounds have one player).
Party = Callable[[int, str], str]


def _one(seat: int, player: str) -> str:
    return ""


@dataclass(slots=True)
class _Part:
    """Running sums of one party's share of a round."""

    base: int = 0
    observed: int = 0
    par: float = 0.0
    expected: float = 0.0
    regret: float = 0.0
    decisions: int = 0
    faults: list[str] = field(default_factory=list)

    def figures(self) -> RoundFigures:
        return RoundFigures(base_stake=self.base, observed_net=self.observed, par_net=self.par,
                            expected_net=self.expected, regret=self.regret,
                            decisions=self.decisions, faults=tuple(self.faults))


def _followed(events: Sequence[Event], i: int, player: str) -> int:
    """What ``player``'s Bet Behind added to follow the decision at ``events[i]`` (its
    :class:`BehindStakeAdded` events right after it; 0: it did not follow)."""
    added = 0
    for e in events[i + 1:]:
        if not isinstance(e, BehindStakeAdded | BehindFollowSkipped):
            break
        if (isinstance(e, BehindStakeAdded) and e.player == player
                and e.action not in INSURANCE_ACTIONS):
            added += e.amount
    return added


class _Valuation:
    """One round's valuation, part by part (:func:`party_figures`)."""

    def __init__(self, rules: RuleSet, events: Sequence[Event], par: ParFigures,
                 party: Party, tables: HintTables) -> None:
        self.tables = tables
        start = events[0]
        assert isinstance(start, RoundStarted)
        self.rules, self.events, self.par, self.party = rules, events, par, party
        cards = [e.card for e in events if isinstance(e, CardDealt)]
        self.up = next(e.card for e in events if isinstance(e, CardDealt) and e.seat is None)
        self.rnd = Round.deal(rules, SequenceSource(cards), start.boxes, start.limits)
        self.stakes = {b.seat: b.stake for b in start.boxes}
        self.owner = {b.seat: b.player for b in start.boxes}
        self.initial = {b.seat: self.rnd.hand_cards(b.seat, 0)[:2] for b in start.boxes}
        #: (seat, hand) -> {Bet Behind player: its stake on that hand}.
        self.behind: dict[tuple[int, int], dict[str, int]] = {}
        self.parts: dict[str, _Part] = {}
        for b in start.boxes:
            value = _deal_value(tables, rules, self.up, self.initial[b.seat])
            self._stake(self._seat(b.seat), b.stake, value, par.main)
            for bb in b.behind:
                self._stake(self._of(b.seat, bb.player), bb.stake, value, par.main)
                self.behind.setdefault((b.seat, 0), {})[bb.player] = bb.stake

    def _of(self, seat: int, player: str) -> _Part:
        return self.parts.setdefault(self.party(seat, player), _Part())

    def _seat(self, seat: int) -> _Part:
        return self._of(seat, self.owner.get(seat, ""))

    @staticmethod
    def _stake(part: _Part, stake: int, value: float, par_rtp: float) -> None:
        part.base += stake
        part.expected += stake * value
        part.par += stake * (par_rtp - 1.0)

    def _insurance(self, part: _Part, seat: int, stake: int, payout: int) -> None:
        part.observed += payout - stake
        part.base += stake
        won = self.rules.insurance_pays + 1
        p_ten = _p_ten(self.tables, self.rules, self.up, self.initial[seat])
        part.expected += stake * (won * p_ten - 1.0)
        part.par += stake * (self.par.insurance - 1.0)

    def _decision(self, i: int, e: PlayerActed) -> None:
        """The regret of a seat's decision, and what it does to each Bet Behind's share."""
        values = {h.action: float(h.expected_value)
                  for h in hints(self.tables, self.rules, self.rnd.view())
                  if h.seat == e.seat and h.hand == e.hand and h.action not in INSURANCE_ACTIONS}
        if e.action not in values:
            return
        best, taken, s = max(values.values()), values[e.action], self.stakes[e.seat]
        part = self._seat(e.seat)
        part.regret += s * (best - taken)
        part.expected -= s * (best - taken)
        part.decisions += 1
        riding = self.behind.get((e.seat, e.hand), {})
        if not riding:
            return
        box = next(b for b in self.rnd.view().boxes if b.seat == e.seat)
        held = box.hands[e.hand].stake
        for player, b in riding.items():
            after = (b + _followed(self.events, i, player)) / (held + e.stake_added)
            bp = self._of(e.seat, player)
            bp.expected += s * (taken * after - best * b / held)
            bp.regret += s * (best - taken) * b / held

    def _split(self, e: PlayerActed) -> None:
        """A split inserts hand ``e.hand + 1``: the Bet Behinds of later hands move up."""
        moved = {(seat, h + 1 if seat == e.seat and h > e.hand else h): v
                 for (seat, h), v in self.behind.items()}
        self.behind = moved

    def run(self) -> dict[str, _Part]:
        broken = False
        found: list[Finding] = []
        for i, e in enumerate(self.events):
            if isinstance(e, PlayerActed) and e.action not in INSURANCE_ACTIONS:
                if not broken:  # past a refusal the rebuilt round no longer shows the hand
                    self._decision(i, e)
                if e.action in (Action.SPLIT, Action.POWER_SPLIT):
                    self._split(e)
            elif isinstance(e, BehindStakeAdded) and e.action not in INSURANCE_ACTIONS:
                on = self.behind.setdefault((e.seat, e.hand), {})
                on[e.player] = on.get(e.player, 0) + e.amount
            if not self.rnd.finished and not broken:
                try:
                    apply_decision(self.rnd, self.events, i)
                except ShoeExhausted:  # the engine drew fewer cards than the rules: found below
                    broken = True
                except EngineError as exc:  # a decision the rules do not allow was taken
                    broken = True
                    if isinstance(e, PlayerActed):
                        found.append(Finding(e.seat, "", f"seat {e.seat} hand {e.hand}: "
                                             f"{e.action.value} taken where the rules refuse "
                                             f"it ({exc})"))
            if isinstance(e, HandSettled):
                self._seat(e.seat).observed += e.payout - e.stake
            elif isinstance(e, BehindSettled):
                self._of(e.seat, e.player).observed += e.payout - e.stake
            elif isinstance(e, SideBetSettled):
                part = self._seat(e.seat)
                part.observed += e.payout - e.stake
                rtp = self.par.side_bets.get(e.kind, 1.0)
                self._stake(part, e.stake, rtp - 1.0, rtp)
            elif isinstance(e, InsuranceSettled) and e.stake:
                self._insurance(self._seat(e.seat), e.seat, e.stake, e.payout)
            elif isinstance(e, BehindInsuranceSettled) and e.stake:
                self._insurance(self._of(e.seat, e.player), e.seat, e.stake, e.payout)
        hands = {(b.seat, h.index): h.cards for b in self.rnd.view().boxes for h in b.hands}
        for f in [*found, *check_round(self.rules, self.events, hands)]:
            if f.seat is None:
                for part in self.parts.values():
                    part.faults.append(f.text)
            else:
                self._of(f.seat, f.player or self.owner.get(f.seat, "")).faults.append(f.text)
        return self.parts


def party_figures(rules: RuleSet, events: Sequence[Event], par: ParFigures,
                  party: Party = _one, *, tables: HintTables) -> dict[str, RoundFigures]:
    """The figures of one settled round by party (``party``: whose each seat's and each Bet
    Behind's share is; ``tables``: the caller's analysis caches the values come from);
    empty for a voided round or one with no card dealt.

    The round is rebuilt decision by decision from the journal's cards under ``rules`` (the
    rules the round was dealt under) only to see each decision as the player saw it; the money
    is the journal's own. A round whose engine broke the rules therefore still gets the
    expectation of the rules, which is the point. A finding of the per-hand check goes to the
    party of its seat or Bet Behind; a finding on the dealer's draws to every party."""
    if not events or not isinstance(events[0], RoundStarted):
        raise ValueError("a round's events start with RoundStarted")
    if any(isinstance(e, RoundVoided) for e in events):
        return {}
    if not any(isinstance(e, CardDealt) and e.seat is None for e in events):
        return {}
    return {k: p.figures() for k, p in _Valuation(rules, events, par, party, tables).run().items()}


def round_figures(rules: RuleSet, events: Sequence[Event], par: ParFigures, *,
                  tables: HintTables) -> RoundFigures | None:
    """The figures of one settled round as a whole, every seat's and Bet Behind's share
    together (None for a voided round, or one with no card dealt)."""
    return party_figures(rules, events, par, tables=tables).get("")
