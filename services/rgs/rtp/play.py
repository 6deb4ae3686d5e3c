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
from rgs.service.advice import hints

#: A player: given the round and the hand to act, the action it takes.
Player = Callable[[Round, int, int], Action]


def _best(rules: RuleSet) -> Player:
    def decide(rnd: Round, seat: int, hand: int) -> Action:
        mine = [h for h in hints(rules, rnd.view()) if h.seat == seat and h.hand == hand
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


#: The players by name (``bench/rtp.py --player``).
PLAYERS: dict[str, Callable[[RuleSet], Player]] = {
    "best": _best, "basic": _basic, "stand": _stand,
    "no-double": lambda rules: _basic(rules, double=False),
}


@dataclass(frozen=True, slots=True)
class Played:
    """One round: its events and the base stake."""

    events: tuple[Event, ...]


def play_rounds(rules: RuleSet, player: str, rounds: int, *, seed: int,
                engine_rules: RuleSet | None = None, stake: int = 1000, side: int = 0,
                insure: bool = False) -> Iterator[Played]:
    """``rounds`` seeded rounds of one box of ``stake`` (and ``side`` on every side bet the
    variant offers), insurance declined (taken with ``insure``), played by ``player`` (a
    :data:`PLAYERS` name) through an engine playing ``engine_rules`` (default: ``rules``)."""
    eng = engine_rules or rules
    decide = PLAYERS[player](rules)
    pick = random.Random(seed)._randbelow  # type: ignore[attr-defined]
    offered = eng.side_bets if side else frozenset()
    box = BoxBet(seat=1, stake=stake,
                 twenty_plus=side if SideBetKind.TWENTY_PLUS in offered else 0,
                 perfect_pairs=side if SideBetKind.PERFECT_PAIRS in offered else 0,
                 twenty_one_plus_three=side if SideBetKind.TWENTY_ONE_PLUS_THREE in offered
                 else 0)
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
