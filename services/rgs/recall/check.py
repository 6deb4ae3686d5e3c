"""A round checked whole: its recorded decisions replayed through the rules on the card order its
seeds give, and everything the recall says compared with what that replay does.

The replay is the engine's own (:func:`rgs.engine.apply_decision`, the step the service
restores rounds with): the recall's bets are dealt by :meth:`rgs.engine.Round.deal` from
:func:`rgs.rng.fair.fair_source` of the revealed seeds, under the variant's rule set from
:mod:`rgs.variants`; then each recorded decision — a player's action (time-outs are recorded as
the action taken), an insurance decision, a Bet Behind's live insurance, a Bet Behind follow the
wallet did not fund, a void — is given to the round in order. The round deals its cards, plays
the dealer and settles by itself. The recall must then be exactly that round: every card to the
box, hand or dealer it went to, in order, every decision, every hand's, side bet's, insurance's
and Bet Behind's result and payout, the round's totals and (at a table) each player's money.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from rgs.engine import (
    BehindSettled,
    CardDealt,
    CardSource,
    EngineError,
    Event,
    HandSettled,
    PlayerActed,
    Round,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    RuleSet,
    SideBetSettled,
    apply_decision,
)
from rgs.recall.read import Recalled, read
from rgs.recall.words import RULES, Teller, cards_before, difference
from rgs.rng.fair import fair_source
from rgs.variants import VARIANTS
from rgs.variants.options import OptionError, VariantOptions, effective_rules


@dataclass(frozen=True, slots=True, kw_only=True)
class WholeCheck:
    """The outcome of checking a round whole."""

    ok: bool
    #: What was checked, or the first difference, one line each.
    lines: tuple[str, ...]


def check_record(record: Mapping[str, Any], *, server_seed: bytes, client_seed: str,
                 round_number: int, decks: int) -> WholeCheck:
    """Check one recalled round (a RoundRecord or a GetTableRound answer) whole against its
    revealed seeds. Raises :class:`~rgs.rng.verify.RecallFormatError` on a recall that cannot
    be read."""
    return check(read(record), fair_source(server_seed, client_seed, round_number, decks),
                 decks=decks)


def _no(*lines: str) -> WholeCheck:
    return WholeCheck(ok=False, lines=lines)


def rules_for(variant: str, decks: int) -> RuleSet | str:
    """The rule set a round of ``variant`` was dealt with from ``decks`` decks (a brand may
    choose the deck count), or why there is none."""
    base = VARIANTS.get(variant)
    if base is None:
        return (f"the recall's variant {variant!r} is not one this release of rgs knows "
                f"({', '.join(VARIANTS)}): use the release the operator runs")
    if not decks or decks == base.decks:
        return base
    try:
        return effective_rules(base, VariantOptions(decks=decks))
    except OptionError as exc:
        return f"the recall's round cannot be one of {variant}: {exc}"


def shown(e: Event, typed: bool) -> object:
    """What of ``e`` a recall shows: everything, but a typed table recall shows no totals on
    round_settled and round_voided, no rounding remainders, and its opening names the seats
    and their players (the bets are read from the settlement)."""
    if not typed:
        return e
    if isinstance(e, RoundStarted):
        return ("round_started", tuple((b.seat, b.player) for b in e.boxes))
    if isinstance(e, RoundSettled):
        return ("round_settled",)
    if isinstance(e, RoundVoided):
        return ("round_voided", e.reason)
    if isinstance(e, (HandSettled, BehindSettled)):
        return replace(e, rounded_off=Fraction(0))
    return e


def check(recalled: Recalled, source: CardSource, *, decks: int) -> WholeCheck:
    """Replay the recall's bets and decisions from ``source`` and compare (module doc)."""
    if recalled.contradictions:
        return _no(recalled.contradictions[0])
    rules = rules_for(recalled.variant, decks)
    if isinstance(rules, str):
        return _no(rules)
    events = recalled.events
    start = events[0] if events else None
    if not isinstance(start, RoundStarted):
        return _no("the recall does not start with the round's bets (round_started): it is "
                   "not a whole round and cannot be replayed")
    if start.variant and start.variant != rules.id:
        return _no(f"the recall's round_started is of {start.variant}, its variant_id "
                   f"{recalled.variant}")
    t = Teller(currency=recalled.currency, names=recalled.names, no_totals=recalled.typed)
    try:
        rnd = Round.deal(rules, source, start.boxes, start.limits)
    except EngineError as exc:
        return _no(f"the recall's bets ({t.tell(start)}) cannot start a round of "
                   f"{rules.name}: {exc}")
    refused: tuple[int, EngineError] | None = None
    for i in range(1, len(events)):
        try:
            apply_decision(rnd, events, i)
        except EngineError as exc:
            refused = (i, exc)
            break
    given = rnd.events
    stop = refused[0] if refused is not None else max(len(given), len(events))
    for i in range(stop):
        a = events[i] if i < len(events) else None
        b = given[i] if i < len(given) else None
        if a is None or b is None or shown(a, recalled.typed) != shown(b, recalled.typed):
            place = recalled.places[i] if i < len(events) else ""
            return _no(difference(t, a, b, cards_before(events if a is not None else given, i)
                                  + 1, place))
    if refused is not None:
        at, why = refused
        return _no(f"the recall's decision {t.tell(events[at])} ({recalled.places[at]}) is not "
                   f"one the rules allow at that point of the round: {why}")
    return _money(recalled, rnd, t)


def _money(recalled: Recalled, rnd: Round, t: Teller) -> WholeCheck:
    """The recall's status, totals and players' money against the replayed round's."""
    if recalled.status and recalled.status != rnd.phase.value:
        return _no(f"the recall says the round is {recalled.status}; by the rules it is "
                   f"{rnd.phase.value}")
    staked, paid = rnd.total_staked, rnd.total_paid
    if recalled.totals is not None and recalled.totals != (staked, paid):
        return _no(f"the recall's totals are staked {t.amount(recalled.totals[0])}, paid "
                   f"{t.amount(recalled.totals[1])}; {RULES} give staked {t.amount(staked)}, "
                   f"paid {t.amount(paid)}")
    by_player = rnd.money_by_player()
    shared = set()
    for s in recalled.shares:
        key = recalled.key_of(s.player_id)
        if key is None or key not in by_player:
            return _no(f"the recall's players list player {s.player_id}, who has no bet in "
                       "the round's events")
        shared.add(key)
        if by_player[key] != (s.staked, s.paid):
            st, pd = by_player[key]
            return _no(f"the recall says {t.who(key)} staked {t.amount(s.staked)} and was paid "
                       f"{t.amount(s.paid)}; {RULES} give staked {t.amount(st)}, paid "
                       f"{t.amount(pd)}")
    if recalled.typed:
        left_out = [k for k in by_player if k.startswith("id:") and k not in shared]
        if left_out:
            return _no(f"the recall's players leave out {t.who(left_out[0])}, who played in the "
                       "round")
    given = rnd.events
    count = {kind: sum(1 for e in given if isinstance(e, kind))
             for kind in (CardDealt, HandSettled, SideBetSettled, BehindSettled, PlayerActed)}
    boxes = len(rnd.seats())
    parts = [_many(count[CardDealt], "card"), _many(count[HandSettled], "hand"),
             _many(count[SideBetSettled], "side bet")]
    if count[BehindSettled]:
        parts.append(_many(count[BehindSettled], "Bet Behind result"))
    parts.append(_many(count[PlayerActed], "decision"))
    return WholeCheck(ok=True, lines=(
        f"replayed whole ({rnd.rules.name}, {_many(boxes, 'box', 'boxes')}): "
        f"{', '.join(parts)}; every card went where the recall says and every result and "
        f"payout is the rules'; staked {t.amount(staked)}, payouts {t.amount(paid)}",))


def _many(n: int, one: str, more: str = "") -> str:
    return f"{n} {one if n == 1 else (more or one + 's')}"
