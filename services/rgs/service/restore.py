"""Rebuild a round from its journal so any replica can continue it.

:func:`restore` is the engine's :func:`~rgs.engine.replay` with a card source that can keep
dealing: the journal's cards, then any forced cards not yet used, then a shoe source over the
variant's decks minus every card already out, so the continuation draws without replacement
exactly as the original process would have.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rgs.engine import CardSource, Event, ForcedCards, Round, RuleSet, Shoe, ShoeSource, replay


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
