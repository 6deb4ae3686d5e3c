"""Rebuild a round from its journal so any replica can continue it.

The engine's :func:`~rgs.engine.replay` deals the journal's cards and then has none left; a round
that goes on needs the rest of its shoe. :func:`restore` deals the journal's cards first (plus any
forced cards not yet used) and then draws from a fresh shoe source over the variant's decks minus
every card already out, so the continuation draws without replacement exactly as the original
process would have. It then checks the rebuilt events equal the journal's, like ``replay``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rgs.engine import (
    CardDealt,
    Event,
    ForcedCards,
    PlayerActed,
    ReplayMismatch,
    Round,
    RoundStarted,
    RoundVoided,
    RuleSet,
    Shoe,
    ShoeSource,
)


def restore(rules: RuleSet, events: Sequence[Event], pick: Callable[[int], int],
            forced: Sequence[str] = ()) -> Round:
    """Rebuild the round of ``events`` with a card source that can keep dealing.

    ``forced`` is the round's forced-card list (test mode): cards of it beyond those already dealt
    are dealt next, as they would have been. Raises ReplayMismatch when the journal does not
    rebuild the same round.
    """
    if not events or not isinstance(events[0], RoundStarted):
        raise ReplayMismatch("a round's events start with RoundStarted", rule="replay")
    start = events[0]
    dealt = [e.card for e in events if isinstance(e, CardDealt)]
    upcoming = [*dealt, *forced[len(dealt):]]
    source = ForcedCards(upcoming, then=ShoeSource(Shoe.of_decks(rules.decks), pick))
    rnd = Round.deal(rules, source, start.boxes, start.limits)
    for e in events:
        if isinstance(e, PlayerActed):
            rnd.act(e.seat, e.hand, e.action)
        elif isinstance(e, RoundVoided):
            rnd.void(e.reason)
    if list(rnd.events) != list(events):
        raise ReplayMismatch("the journal's events do not rebuild the same round", rule="replay")
    return rnd


def deal_source(rules: RuleSet, pick: Callable[[int], int], forced: Sequence[str] = ()
                ) -> ForcedCards:
    """The card source of a new round: ``forced`` cards first (test mode), then the shoe."""
    return ForcedCards(list(forced), then=ShoeSource(Shoe.of_decks(rules.decks), pick))
