"""A round's events, and the first difference between two tellings of a round, in words a
player reads: "card 14 (7H) went to seat 3 hand 2 in the recall; the seeds' order and the rules
give it to the dealer".

Seats are numbered as at the table; a box's hands are counted from 1 once it has split (the
recall's ``hand`` 1 is "hand 2"), as the game clients name them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rgs.api.converters import ACTION_NUMBERS, SIDE_BETS
from rgs.engine import (
    Action,
    BehindFollowSkipped,
    BehindInsuranceSettled,
    BehindSettled,
    BehindStakeAdded,
    BoxBet,
    CardBurned,
    CardDealt,
    DealerPeeked,
    Event,
    HandSettled,
    HoleCardRevealed,
    InsuranceSettled,
    Outcome,
    PlayerActed,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    SideBetSettled,
)
from rgs.locales.amounts import money
from rgs.locales.names import ACTION_NAMES, SIDE_NAMES

_OUTCOMES = {
    Outcome.BLACKJACK: "blackjack", Outcome.WIN: "win", Outcome.PUSH: "push",
    Outcome.LOSE: "lose", Outcome.BUST: "bust", Outcome.SURRENDER: "surrendered",
    Outcome.CASHED_OUT: "cashed out", Outcome.CHARLIE: "card Charlie", Outcome.VOID: "void",
}
#: Who gives the replayed telling.
RULES = "the seeds' order, the recorded decisions and the rules"


def hand(seat: int | None, index: int = 0) -> str:
    """``seat 3``, ``seat 3 hand 2`` (the recall's hand 1), ``the dealer``."""
    if seat is None:
        return "the dealer"
    return f"seat {seat}" if index == 0 else f"seat {seat} hand {index + 1}"


def action(a: Action) -> str:
    """A decision as the game names it ("double", "keep the card")."""
    return ACTION_NAMES[ACTION_NUMBERS[a]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Teller:
    """Describes the events of one round: its currency and its players' names."""

    currency: str
    names: Mapping[str, str]
    #: The telling shows no totals on round_settled (a typed table recall).
    no_totals: bool = False

    def amount(self, minor: int) -> str:
        return money(minor, self.currency)

    def who(self, key: str) -> str:
        return self.names.get(key) or key or "a player"

    def card(self, e: CardDealt, number: int) -> str:
        down = " face down (the hole card)" if e.face_down else ""
        return f"card {number} ({e.card}) to {hand(e.seat, e.hand)}{down}"

    def tell(self, e: Event, number: int = 0) -> str:
        """One event; ``number`` is a card's position among the cards dealt (from 1)."""
        a = self.amount
        if isinstance(e, CardDealt):
            return self.card(e, number)
        if isinstance(e, HoleCardRevealed):
            return f"the dealer turns the hole card over ({e.card})"
        if isinstance(e, CardBurned):
            return f"{e.card} taken off {hand(e.seat, e.hand)} and burned"
        if isinstance(e, DealerPeeked):
            return f"the dealer checks for blackjack: {'blackjack' if e.blackjack else 'none'}"
        if isinstance(e, PlayerActed):
            added = f", adding {a(e.stake_added)}" if e.stake_added else ""
            return f"{hand(e.seat, e.hand)}: {action(e.action)}{added}"
        if isinstance(e, InsuranceSettled):
            return f"seat {e.seat}'s insurance: stake {a(e.stake)}, paid {a(e.payout)}"
        if isinstance(e, SideBetSettled):
            line = "lost" if e.line == "lose" else f"{e.line.replace('_', ' ')} ({e.pays} to 1)"
            return (f"seat {e.seat}'s {SIDE_NAMES[SIDE_BETS[e.kind]]} side bet: stake "
                    f"{a(e.stake)}, {line}, paid {a(e.payout)}")
        if isinstance(e, HandSettled):
            return (f"{hand(e.seat, e.hand)}: {_OUTCOMES[e.outcome]}, stake {a(e.stake)}, paid "
                    f"{a(e.payout)}")
        if isinstance(e, BehindStakeAdded):
            if e.action is Action.INSURE:
                return (f"{self.who(e.player)}'s Bet Behind on seat {e.seat} takes insurance "
                        f"for {a(e.amount)}")
            return (f"{self.who(e.player)}'s Bet Behind on {hand(e.seat, e.hand)} follows the "
                    f"{action(e.action)}, adding {a(e.amount)}")
        if isinstance(e, BehindFollowSkipped):
            return (f"{self.who(e.player)}'s Bet Behind on {hand(e.seat, e.hand)} does not follow "
                    f"the {action(e.action)} (not funded)")
        if isinstance(e, BehindSettled):
            return (f"{self.who(e.player)}'s Bet Behind on {hand(e.seat, e.hand)}: "
                    f"{_OUTCOMES[e.outcome]}, stake {a(e.stake)}, paid {a(e.payout)}")
        if isinstance(e, BehindInsuranceSettled):
            return (f"{self.who(e.player)}'s Bet Behind insurance on seat {e.seat}: stake "
                    f"{a(e.stake)}, paid {a(e.payout)}")
        if isinstance(e, RoundSettled):
            if self.no_totals:
                return "the round is settled"
            return f"the round is settled: staked {a(e.total_staked)}, paid {a(e.total_paid)}"
        if isinstance(e, RoundVoided):
            if self.no_totals:
                return f"the round is voided ({e.reason})"
            return (f"the round is voided ({e.reason}): staked {a(e.total_staked)}, refunded "
                    f"{a(e.total_refunded)}")
        if isinstance(e, RoundStarted):
            return "the bets: " + "; ".join(self._box(b) for b in e.boxes)
        return type(e).__name__  # pragma: no cover - every event kind is named above

    def _box(self, b: BoxBet) -> str:
        parts = [f"seat {b.seat} {self.amount(b.stake)}"]
        for kind, stake in b.side_stakes():
            parts.append(f"{SIDE_NAMES[SIDE_BETS[kind]]} {self.amount(stake)}")
        for x in b.behind:
            parts.append(f"{self.who(x.player)} behind {self.amount(x.stake)}")
        return ", ".join(parts)


def cards_before(events: Sequence[Event], i: int) -> int:
    """How many cards were dealt before event ``i``."""
    return sum(1 for e in events[:i] if isinstance(e, CardDealt))


def difference(t: Teller, said: Event | None, given: Event | None, number: int,
               place: str) -> str:
    """The first difference: ``said`` is the recall's event (None: the recall has ended),
    ``given`` the replay's (None: the round is over by the rules); ``number`` the position of
    the card either deals; ``place`` where the recall's event is."""
    at = f" ({place})" if place else ""
    if isinstance(said, CardDealt) and isinstance(given, CardDealt):
        if said.card == given.card:
            return (f"card {number} ({said.card}) went to {hand(said.seat, said.hand)} in the "
                    f"recall{at}; {RULES} give it to {hand(given.seat, given.hand)}")
        return (f"card {number} went to {hand(said.seat, said.hand)} as {said.card} in the "
                f"recall{at}; the seeds' order gives {given.card} there (to "
                f"{hand(given.seat, given.hand)})")
    if isinstance(given, CardDealt):
        instead = (f"the recall has {t.tell(said, number)} instead{at}" if said is not None
                   else "the recall ends before it")
        return (f"the recall leaves out card {number} ({given.card}), which the rules deal to "
                f"{hand(given.seat, given.hand)} at that point; {instead}")
    if isinstance(said, CardDealt):
        rules = (f"they give {t.tell(given, number)}" if given is not None
                 else "the round is over by then")
        return (f"card {number} ({said.card}) to {hand(said.seat, said.hand)} in the recall"
                f"{at} is a card the rules do not deal: {rules}")
    if said is None:
        assert given is not None
        return f"the recall ends too early: {RULES} go on with {t.tell(given, number)}"
    if given is None:
        return (f"the recall goes on after the round is over by the rules: "
                f"{t.tell(said, number)}{at}")
    return f"the recall says {t.tell(said, number)}{at}; {RULES} give {t.tell(given, number)}"
