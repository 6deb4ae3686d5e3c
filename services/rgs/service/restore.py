"""Rebuild a round from its journal so any replica can continue it.

:func:`restore` is the engine's :func:`~rgs.engine.replay` with a card source that can keep
dealing: the journal's cards, then any forced cards not yet used, then a shoe source over the
variant's decks minus every card already out, so the continuation draws without replacement
exactly as the original process would have.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from rgs.engine import (
    Action,
    CardSource,
    EngineError,
    Event,
    ForcedCards,
    Phase,
    ReplayMismatch,
    Round,
    RuleSet,
    Shoe,
    ShoeSource,
    replay,
)
from rgs.service import fairness
from rgs.service.errors import Unavailable, preview, translate_engine
from rgs.service.model import StoredRound
from rgs.service.ports import CardSourceFactory, CardSourceUnavailable
from rgs.variants import VARIANTS
from rgs.variants.options import OptionError, effective_rules

log = logging.getLogger(__name__)

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


def _refusing(exc: CardSourceUnavailable) -> Callable[[int], int]:
    def pick(n: int) -> int:
        raise CardSourceUnavailable(str(exc))
    return pick


def restore_stored(cards: CardSourceFactory, stored: StoredRound) -> Round:
    """The journalled round ``stored`` rebuilt under the rules it was dealt with (the brand's
    options stored with it), from its seeds' card order when it is provably fair; Unavailable
    ROUND_UNRECOVERABLE when its variant or options are no longer known."""
    try:
        pick = cards.picker()
    except CardSourceUnavailable as exc:
        pick = _refusing(exc)  # reading a round needs no card; drawing one is refused
    base = VARIANTS.get(stored.variant)
    if base is None:
        raise Unavailable(f"variant {preview(stored.variant)} is no longer known",
                          reason="ROUND_UNRECOVERABLE")
    try:
        # The rules the round was dealt with: the brand's options stored with it.
        rules = effective_rules(base, stored.options)
        if stored.fair is not None:
            try:
                return restore(rules, stored.events, pick, stored.forced_cards,
                               source=fairness.source(cards, stored.fair))
            except ReplayMismatch:
                # Only a replica of a release without provably fair rounds (a rolling
                # upgrade) deals a fair round's cards from elsewhere: the round goes on from
                # the shoe and will not verify (rgs verify shows where it departs).
                log.error("round %s departs from its seeds' card order; it goes on from "
                          "the shoe", stored.round_id)
        return restore(rules, stored.events, pick, stored.forced_cards)
    except OptionError as exc:
        raise Unavailable(f"round options no longer valid: {exc}",
                          reason="ROUND_UNRECOVERABLE") from exc
    except EngineError as exc:
        raise translate_engine(exc) from exc
