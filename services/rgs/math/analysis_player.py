"""A player that takes, through the production engine, exactly the decisions the analysis values.

The strategy tables a client or a lab plays are total-dependent summaries; this player is the
analysis itself: the original hand's best action for its exact composition (with the Power
Double keep/replace choice per card), every later decision by the hand player's values for the
hand's cards, a split or Power Split hand by the split hand player (its own cards plus the other
original card out), a resplit when :meth:`~rgs.math.analysis.UpCardAnalysis.resplits` says so.
Played through the engine, its mean result per situation must be the analysis' value of that
situation: that is how the engine and the analysis are pinned to each other
(:mod:`rgs.math.situations`). Insurance is declined unless forced.
"""

from __future__ import annotations

from collections.abc import Sequence

from rgs.engine import Action, Round
from rgs.engine.cards import CARD_VALUE
from rgs.math import analysis as an
from rgs.math.analysis import MainGame, RootHand
from rgs.math.hand import HandPlayer
from rgs.math.shoe import NRANKS, ZERO, Counts, add

#: The engine action of each root action code of the analysis.
ROOT_ACTIONS = {
    an.STAND: Action.STAND, an.HIT: Action.HIT, an.DOUBLE: Action.DOUBLE,
    an.SPLIT: Action.SPLIT, an.SURRENDER: Action.SURRENDER,
    an.POWER_DOUBLE: Action.POWER_DOUBLE, an.POWER_SPLIT: Action.POWER_SPLIT,
    an.CASH_OUT: Action.CASH_OUT,
}


def rank(card: str) -> int:
    """The analysis' rank index of a card code (ace 0 .. ten-valued 9)."""
    return CARD_VALUE[card] - 1


def counts(cards: Sequence[str]) -> Counts:
    """The composition of some card codes."""
    out = ZERO
    for c in cards:
        out = add(out, rank(c))
    return out


class AnalysisPlayer:
    """Plays one box of a round as the analysis of ``game`` does (see the module docstring)."""

    __slots__ = ("game", "roots")

    def __init__(self, game: MainGame) -> None:
        self.game = game
        self.roots: dict[tuple[int, Counts], RootHand] = {(r.up, r.hand): r for r in game.roots}

    def root(self, up: str, cards: Sequence[str]) -> RootHand:
        """The analysis' root hand of two cards against an up card."""
        return self.roots[(rank(up), counts(cards))]

    def play(self, rnd: Round, forced: Sequence[Action] = ()) -> None:
        """Take the ``forced`` actions first (insurance ones included), then play on."""
        (seat,) = rnd.seats()
        todo = list(forced)
        orig: tuple[str, ...] | None = None
        mode: str | None = None  # the original hand's first action once taken
        while not rnd.finished:
            to_act = rnd.to_act
            if orig is None and to_act is not None:
                orig = rnd.hand_cards(seat, 0)
            if todo:
                action = todo.pop(0)
                if mode is None and to_act is not None and action not in (
                        Action.INSURE, Action.DECLINE_INSURANCE):
                    mode = next((k for k, v in ROOT_ACTIONS.items() if v is action), an.HIT)
                rnd.act(seat, 0 if to_act is None else to_act[1], action)
                continue
            if to_act is None:
                rnd.act(seat, 0, Action.DECLINE_INSURANCE)
                continue
            assert orig is not None
            hand = to_act[1]
            root = self.roots[(rank(rnd.dealer_cards()[0]), counts(orig))]
            if rnd.can(seat, hand, Action.POWER_KEEP):
                replace = root.replace[rank(rnd.hand_cards(seat, hand)[-1])]
                rnd.act(seat, hand, Action.POWER_REPLACE if replace else Action.POWER_KEEP)
                continue
            if mode is None:
                mode = root.best
                rnd.act(seat, hand, ROOT_ACTIONS[mode])
                continue
            rnd.act(seat, hand, self._decide(rnd, (seat, hand), orig, mode))

    def _decide(self, rnd: Round, at: tuple[int, int], orig: Sequence[str], mode: str) -> Action:
        """A decision after the first one: the hand player's values for the hand's cards."""
        seat, hand = at
        cards = rnd.hand_cards(seat, hand)
        ua = self.game.analyses[rank(rnd.dealer_cards()[0])]
        pl: HandPlayer = ua.original
        if mode in (an.SPLIT, an.POWER_SPLIT) and rnd.hand_count(seat) > 1:
            first = rank(cards[0])
            if mode == an.POWER_SPLIT:
                o = counts(orig)
                other = next(i for i in range(NRANKS) if o[i] and i != first)
                pl = ua.split_player(first, other, power=True)
            else:
                pl = ua.split_player(first, first, power=False)
                if len(cards) == 2 and rank(cards[1]) == first and \
                        rnd.can(seat, hand, Action.SPLIT) and ua.resplits(first):
                    return Action.SPLIT
        h = counts(cards)
        options = {Action.STAND: pl.stand(h), Action.HIT: pl.hit(h)}
        if pl.can_double(h) and rnd.can(seat, hand, Action.DOUBLE):
            options[Action.DOUBLE] = pl.double(h)
        offer = pl.cash_out(h)
        if offer is not None and rnd.can(seat, hand, Action.CASH_OUT):
            options[Action.CASH_OUT] = offer
        return max(options, key=lambda a: options[a])
