"""Rebuild a round from its journal and prove it is the same round."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rgs.engine.cards import CardSource, ForcedCards, SequenceSource, Shoe, ShoeSource
from rgs.engine.errors import ReplayMismatch
from rgs.engine.model import (
    Action,
    BehindFollowSkipped,
    BehindStakeAdded,
    CardDealt,
    Event,
    PlayerActed,
    RoundStarted,
    RoundVoided,
)
from rgs.engine.round import Round
from rgs.engine.rules import RuleSet


def replay(rules: RuleSet, events: Sequence[Event], *,
           pick: Callable[[int], int] | None = None, forced: Sequence[str] = (),
           source: CardSource | None = None) -> Round:
    """Rebuild a round from its events, and check it produces exactly the same events.

    The cards come from the journal's ``CardDealt`` events in order; the decisions from its
    ``PlayerActed`` events; a ``RoundVoided`` voids the rebuilt round. Any difference raises
    :class:`ReplayMismatch`.

    Without ``pick`` the rebuilt round has no card beyond the journal's. With it, the round can
    go on: the cards of ``forced`` not yet dealt come next, then draws (by ``pick``) from the
    variant's decks less every card already out, exactly as the original round would have drawn.

    With ``source`` (a provably fair round's card order) every card, the journal's included,
    comes from it: the replay then also proves the journal's cards are that order's first cards.
    """
    if not events or not isinstance(events[0], RoundStarted):
        raise ReplayMismatch("a round's events start with RoundStarted", rule="replay")
    start = events[0]
    if start.variant != rules.id:
        raise ReplayMismatch(f"events are of {start.variant}, not {rules.id}", rule="replay")
    cards = [e.card for e in events if isinstance(e, CardDealt)]
    if source is None:
        source = SequenceSource(cards)
        if pick is not None:
            source = ForcedCards([*cards, *forced[len(cards):]],
                                 then=ShoeSource(Shoe.of_decks(rules.decks), pick))
    rnd = Round.deal(rules, source, start.boxes, start.limits)
    for i in range(len(events)):
        apply_decision(rnd, events, i)
    if list(rnd.events) != list(events):
        for i, (a, b) in enumerate(zip(rnd.events, events, strict=False)):
            if a != b:
                raise ReplayMismatch(f"event {i} differs on replay: {a!r} != {b!r}",
                                     rule="replay")
        raise ReplayMismatch(f"replay produced {len(rnd.events)} events, the journal has "
                             f"{len(events)}", rule="replay")
    return rnd


def apply_decision(rnd: Round, events: Sequence[Event], i: int) -> bool:
    """Give ``rnd`` the decision that ``events[i]`` records, if it records one; return whether
    it did.

    The decisions are a player's :class:`PlayerActed` (with the Bet Behind players whose
    follow of it was not funded: the :class:`BehindFollowSkipped` events after it), a Bet
    Behind's insurance taken live (a :class:`BehindStakeAdded` for insurance that the round has
    not already taken by the player's preset at the deal) and a :class:`RoundVoided`. Every
    other event is what the round does by itself. Raises the engine's error when the round
    refuses the decision (a journal that is not this round's).
    """
    e = events[i]
    if isinstance(e, PlayerActed):
        rnd.act(e.seat, e.hand, e.action, unfunded=_skipped_after(events, i))
    elif (isinstance(e, BehindStakeAdded) and e.action is Action.INSURE
          and rnd.behind_insurance_refusal(e.seat, e.player) is None):
        rnd.insure_behind(e.seat, e.player)  # taken live, not by a preset at the deal
    elif isinstance(e, RoundVoided):
        rnd.void(e.reason)
    else:
        return False
    return True


def _skipped_after(events: Sequence[Event], i: int) -> frozenset[str]:
    """The Bet Behind players whose follow of the decision at ``i`` was not funded (their
    :class:`BehindFollowSkipped` events come before the next decision)."""
    out = set()
    for e in events[i + 1:]:
        if isinstance(e, PlayerActed):
            break
        if isinstance(e, BehindFollowSkipped):
            out.add(e.player)
    return frozenset(out)
