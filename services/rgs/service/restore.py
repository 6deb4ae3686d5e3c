"""Rebuild a round from its journal so any replica can continue it.

:func:`restore` is the engine's :func:`~rgs.engine.replay` with a card source that can keep
dealing: the journal's cards, then any forced cards not yet used, then a shoe source over the
variant's decks minus every card already out, so the continuation draws without replacement
exactly as the original process would have.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rgs.engine import (
    Action,
    CardSource,
    Event,
    ForcedCards,
    Phase,
    Round,
    RuleSet,
    Shoe,
    ShoeSource,
    replay,
)

#: Decisions Settle takes on the player's behalf, in order of preference (none adds a stake).
_AUTOPLAY = (Action.DECLINE_INSURANCE, Action.STAND, Action.POWER_KEEP)


def restore(rules: RuleSet, events: Sequence[Event], pick: Callable[[int], int],
            forced: Sequence[str] = (), source: CardSource | None = None) -> Round:
    """Rebuild the round of ``events`` with a card source that can keep dealing.

    ``forced`` is the round's forced-card list (test mode): cards of it beyond those already dealt
    are dealt next, as they would have been. ``source`` is a provably fair round's card order:
    the round is rebuilt from it (so its journal must hold that order's first cards) and goes on
    with it. Raises ReplayMismatch when the journal does not rebuild the same round.
    """
    return replay(rules, events, pick=pick, forced=forced, source=source)


def deal_source(rules: RuleSet, pick: Callable[[int], int], forced: Sequence[str] = ()
                ) -> ForcedCards:
    """The card source of a new round: ``forced`` cards first (test mode), then the shoe."""
    return ForcedCards(list(forced), then=ShoeSource(Shoe.of_decks(rules.decks), pick))


def autoplay(rnd: Round) -> None:
    """Take one decision on the player's behalf (Settle): decline insurance, else stand or keep,
    else any decision that adds no stake."""
    view = rnd.view()
    if rnd.phase is Phase.INSURANCE:
        box = next(b for b in view.boxes if b.insurance_allowed)
        rnd.act(box.seat, 0, Action.DECLINE_INSURANCE)
        return
    seat, hand = rnd.to_act or (0, 0)
    allowed = {la.action: la for la in rnd.legal_actions(seat, hand)}
    for action in _AUTOPLAY:
        if action in allowed and allowed[action].cost == 0:
            rnd.act(seat, hand, action)
            return
    free = next(a for a, la in allowed.items() if la.cost == 0 and a is not Action.HIT)
    rnd.act(seat, hand, free)
