"""Seeded rounds for the monitoring's bench and its proofs: a player (optimal hints, basic
strategy, always stand, never double) plays shuffled single-box rounds through an engine, and
each round's events come out as the journal would hold them.

``engine_rules`` is what the engine plays; the monitor values the rounds under the rules the
variant declares. Only tests and the bench pass rules that differ (a deliberately wrong
engine); nothing in the product plays rounds through this module.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rgs.engine import (
    Action,
    BehindBet,
    BoxBet,
    Event,
    Round,
    RuleSet,
    Shoe,
    ShoeSource,
    SideBetKind,
    VerifiedBets,
)
from rgs.math.basic_strategy import BasicStrategyPlayer
from rgs.math.hints import HintTables
from rgs.service.advice import hints

#: The seat player's id when others bet behind the box (a Bet Behind names whom it is not).
SEAT_PLAYER = "seat-player"

#: A player: given the round and the hand to act, the action it takes.
Player = Callable[[Round, int, int], Action]


def _best(rules: RuleSet) -> Player:
    tables = HintTables()  # this player's own, for its rounds

    def decide(rnd: Round, seat: int, hand: int) -> Action:
        mine = [h for h in hints(tables, rules, rnd.view()) if h.seat == seat and h.hand == hand
                and h.action is not Action.INSURE and h.action is not Action.DECLINE_INSURANCE]
        best = [h.action for h in mine if h.best]
        return best[0] if best else rnd.legal_actions(seat, hand)[0].action
    return decide


def _basic(rules: RuleSet, *, double: bool = True) -> Player:
    bs = BasicStrategyPlayer(rules)

    def decide(rnd: Round, seat: int, hand: int) -> Action:
        a = bs.decide(rnd, seat, hand)
        if not double and a in (Action.DOUBLE, Action.POWER_DOUBLE):
            return Action.HIT
        return a
    return decide


def _stand(rules: RuleSet) -> Player:
    def decide(rnd: Round, seat: int, hand: int) -> Action:
        legal = {a.action for a in rnd.legal_actions(seat, hand)}
        for a in (Action.STAND, Action.POWER_KEEP):
            if a in legal:
                return a
        return next(iter(legal))
    return decide


def _first_of(*prefer: Action) -> Callable[[RuleSet], Player]:
    """A player who takes the first of ``prefer`` the hand allows, else basic strategy."""
    def make(rules: RuleSet) -> Player:
        bs = BasicStrategyPlayer(rules)

        def decide(rnd: Round, seat: int, hand: int) -> Action:
            legal = {a.action for a in rnd.legal_actions(seat, hand)}
            return next((a for a in prefer if a in legal), None) or bs.decide(rnd, seat, hand)
        return decide
    return make


#: The players by name (``bench/rtp.py --player``): ``double`` doubles whenever it may (the
#: Bet Behinds' proof: a double they do not follow halves their share), ``cash-out`` takes
#: every Cash Out offered.
PLAYERS: dict[str, Callable[[RuleSet], Player]] = {
    "best": _best, "basic": _basic, "stand": _stand,
    "no-double": lambda rules: _basic(rules, double=False),
    "double": _first_of(Action.DOUBLE, Action.POWER_DOUBLE),
    "cash-out": _first_of(Action.CASH_OUT),
}


@dataclass(frozen=True, slots=True)
class Played:
    """One round: its events and the base stake."""

    events: tuple[Event, ...]


def play_rounds(rules: RuleSet, player: str, rounds: int, *, seed: int,
                engine_rules: RuleSet | None = None, stake: int = 1000, side: int = 0,
                insure: bool = False, behind: tuple[BehindBet, ...] = ()) -> Iterator[Played]:
    """``rounds`` seeded rounds of one box of ``stake`` (and ``side`` on every side bet the
    variant offers, and the Bet Behinds ``behind`` of other players), insurance declined
    (taken with ``insure``), played by ``player`` (a :data:`PLAYERS` name) through an engine
    playing ``engine_rules`` (default: ``rules``)."""
    eng = engine_rules or rules
    decide = PLAYERS[player](rules)
    pick = random.Random(seed)._randbelow  # type: ignore[attr-defined]
    offered = eng.side_bets if side else frozenset()
    box = BoxBet(seat=1, stake=stake,
                 twenty_plus=side if SideBetKind.TWENTY_PLUS in offered else 0,
                 perfect_pairs=side if SideBetKind.PERFECT_PAIRS in offered else 0,
                 twenty_one_plus_three=side if SideBetKind.TWENTY_ONE_PLUS_THREE in offered
                 else 0, player=SEAT_PLAYER if behind else "", behind=behind)
    bets = VerifiedBets(rules=eng, boxes=(box,))
    answer = Action.INSURE if insure else Action.DECLINE_INSURANCE
    full = Shoe.of_decks(eng.decks).cards()
    for _ in range(rounds):
        rnd = Round.deal(eng, ShoeSource(Shoe(full), pick), bets)
        while not rnd.finished:
            to_act = rnd.to_act
            if to_act is None:
                for seat in rnd.seats():
                    if rnd.can(seat, 0, answer):
                        rnd.act(seat, 0, answer)
                    elif rnd.can(seat, 0, Action.DECLINE_INSURANCE):
                        rnd.act(seat, 0, Action.DECLINE_INSURANCE)
                continue
            rnd.act(*to_act, decide(rnd, *to_act))
        yield Played(rnd.events)
