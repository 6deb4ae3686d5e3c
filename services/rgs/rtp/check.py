"""The independent per-hand check: each settled hand's payout and each dealer draw of a round,
checked against the analysis' own model of the rules, outside the engine.

The dealer's stopping rule is the analysis' (:func:`rgs.math.dealer.stops`, what every dealer
probability of the PAR sheet is counted with); a hand's payout is its stake times what the rule
set pays for its outcome, and its outcome is what the totals give. A fault of either kind (a
blackjack paid 6:5 where the rules say 3:2, a dealer hitting a soft 17 the rules stand on) is
therefore found in the first round it touches, whatever the statistics have seen yet.

The player's hands (their cards and stakes) are read from the round rebuilt under the declared
rules (:mod:`rgs.rtp.expected` rebuilds it anyway); the rebuild takes the decisions and cards
from the journal, so it sees the same hands as the engine that dealt them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from rgs.engine import CardDealt, Event, HandSettled, Outcome, RuleSet
from rgs.math.analysis import dealer_rules
from rgs.math.analysis_player import counts
from rgs.math.dealer import stops
from rgs.math.shoe import hard_sum, total_soft

#: Outcomes that compare totals with the dealer's final hand.
_COMPARED = frozenset({Outcome.WIN, Outcome.PUSH, Outcome.LOSE})


def _natural(cards: Sequence[str]) -> bool:
    return len(cards) == 2 and total_soft(counts(cards)) == (21, True)


def check_dealer(rules: RuleSet, dealer: Sequence[str], *, played: bool) -> list[str]:
    """Findings on the dealer's draws: no card drawn once the model stops, and (``played``: a
    live hand needed the final total) none missing."""
    out: list[str] = []
    dr = dealer_rules(rules)
    for k in range(2, len(dealer)):
        c = counts(dealer[:k])
        if stops(hard_sum(c), c[0] > 0, dr):
            out.append(f"dealer drew {dealer[k]} on {'+'.join(dealer[:k])}, where the rules "
                       "stand")
            break
    if played and len(dealer) >= 2 and not _natural(dealer):
        c = counts(dealer)
        if not stops(hard_sum(c), c[0] > 0, dr):
            out.append(f"dealer stood on {'+'.join(dealer)}, where the rules draw")
    return out


def _outcome(rules: RuleSet, total: int, dealer: Sequence[str]) -> Outcome:
    d, _ = total_soft(counts(dealer))
    if d > 21:
        push = rules.dealer_push_total
        return Outcome.PUSH if push is not None and d == push else Outcome.WIN
    if total > d:
        return Outcome.WIN
    return Outcome.PUSH if total == d else Outcome.LOSE


def check_hand(rules: RuleSet, e: HandSettled, cards: Sequence[str],
               dealer: Sequence[str]) -> list[str]:
    """Findings on one settled hand: its outcome from the totals, its payout from the rules."""
    where = f"seat {e.seat} hand {e.hand}"
    exact: Fraction | None = None
    if e.outcome is Outcome.BLACKJACK:
        exact = e.stake * (1 + rules.blackjack_pays)
    elif e.outcome in (Outcome.WIN, Outcome.CHARLIE):
        exact = Fraction(2 * e.stake)
    elif e.outcome is Outcome.PUSH:
        exact = Fraction(e.stake)
    elif e.outcome in (Outcome.BUST, Outcome.LOSE) and (
            rules.late_blackjack_takes_all or not _natural(dealer)):
        exact = Fraction(0)
    elif e.outcome is Outcome.SURRENDER:
        exact = Fraction(e.stake, 2)
    out: list[str] = []
    if exact is not None and e.payout + e.rounded_off != exact:
        out.append(f"{where}: {e.outcome.value} of {e.stake} paid {e.payout}"
                   f"{f' + {e.rounded_off}' if e.rounded_off else ''}, the rules pay {exact}")
    total, _ = total_soft(counts(cards))
    if (e.outcome in _COMPARED and not _natural(dealer) and not _natural(cards)
            and total <= 21 and len(dealer) >= 2):
        want = _outcome(rules, total, dealer)
        if want is not e.outcome:
            out.append(f"{where}: {total} against the dealer's {'+'.join(dealer)} settled "
                       f"{e.outcome.value}, the rules make it {want.value}")
    return out


def check_round(rules: RuleSet, events: Sequence[Event],
                hands: Mapping[tuple[int, int], tuple[str, ...]]) -> list[str]:
    """Every finding of one settled round (``hands``: each (seat, hand)'s final cards)."""
    dealer = [e.card for e in events if isinstance(e, CardDealt) and e.seat is None]
    settled = [e for e in events if isinstance(e, HandSettled)]
    played = any(e.outcome in _COMPARED for e in settled) and not _natural(dealer)
    out = check_dealer(rules, dealer, played=played)
    for e in settled:
        out += check_hand(rules, e, hands.get((e.seat, e.hand), ()), dealer)
    return out
