"""The independent per-hand check: each settled hand's and Bet Behind's payout, each insurance
and each dealer draw of a round, checked against the analysis' own model of the rules, outside
the engine.

The dealer's stopping rule is the analysis' (:func:`rgs.math.dealer.stops`, what every dealer
probability of the PAR sheet is counted with); a hand's outcome is what the totals give (with
the math's own totals, :func:`rgs.math.shoe.total_soft`) and its payout is its stake times what
the rule set pays for that outcome: a blackjack ``blackjack_pays``, a Charlie 2x where the
card-count rule makes one (``charlie_cards`` cards not bust, and not against a dealer
blackjack unless ``charlie_wins_at_once``), a Cash Out the offer of the rule set's Cash Out
table for the hand's total and the up card (the table the math module designed, and the offer
the player was shown), floored to a minor unit. A fault of any of these kinds (a blackjack
paid 6:5 where the rules say 3:2, a dealer hitting a soft 17 the rules stand on, a Cash Out
paid off its table, a 7-card Charlie not paid) is therefore found in the first round it
touches, whatever the statistics have seen yet.

The player's hands (their cards and stakes) are read from the round rebuilt under the declared
rules (:mod:`rgs.rtp.expected` rebuilds it anyway); the rebuild takes the decisions and cards
from the journal, so it sees the same hands as the engine that dealt them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rgs.engine import (
    BehindInsuranceSettled,
    BehindSettled,
    CardDealt,
    Event,
    HandSettled,
    InsuranceSettled,
    Outcome,
    RuleSet,
)
from rgs.math.analysis import dealer_rules
from rgs.math.analysis_player import counts, rank
from rgs.math.dealer import stops
from rgs.math.shoe import RANK_NAMES, hard_sum, total_soft

#: Outcomes that compare totals with the dealer's final hand.
_COMPARED = frozenset({Outcome.WIN, Outcome.PUSH, Outcome.LOSE})
#: Outcomes a hand of the card-count rule's many cards cannot have but a Charlie.
_NOT_CHARLIE = frozenset({Outcome.WIN, Outcome.PUSH, Outcome.LOSE})
#: What the outcomes pay per unit staked that need no more than the rules' fixed figures.
_FIXED = {Outcome.WIN: Fraction(2), Outcome.CHARLIE: Fraction(2), Outcome.PUSH: Fraction(1),
          Outcome.SURRENDER: Fraction(1, 2), Outcome.BUST: Fraction(0)}


@dataclass(frozen=True, slots=True)
class Finding:
    """One way a round departed from the rules: where (``seat`` None: the dealer; ``player``
    a Bet Behind's bettor, "" the seat's own) and what, in words."""

    seat: int | None
    player: str
    text: str


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


def cash_out_bp(rules: RuleSet, cards: Sequence[str], up: str) -> int | None:
    """The Cash Out table's offer for a hand of ``cards`` against ``up`` in basis points of its
    stake, keyed with the math's own total and up-card class (None: the rules offer none)."""
    if rules.cash_out is None:
        return None
    total, soft = total_soft(counts(cards))
    return rules.cash_out.offers_bp.get((total, soft, RANK_NAMES[rank(up)]))


def charlie(rules: RuleSet, cards: Sequence[str], dealer: Sequence[str]) -> bool | None:
    """Whether the card-count rule makes the hand ``cards`` a Charlie that pays against
    ``dealer`` (None: the rules have no card-count rule)."""
    n = rules.charlie_cards
    if n is None:
        return None
    if len(cards) < n or total_soft(counts(cards[:n]))[0] > 21:
        return False
    return rules.charlie_wins_at_once or not _natural(dealer)


def _payout(rules: RuleSet, outcome: Outcome, stake: int, cards: Sequence[str],
            dealer: Sequence[str], *, where: str) -> tuple[Fraction | None, list[str]]:
    """What the rules pay for ``outcome`` on ``stake`` (None: not checked here), with any
    finding on whether the outcome could be had at all."""
    if outcome is Outcome.BLACKJACK:
        return stake * (1 + rules.blackjack_pays), []
    if outcome is Outcome.CASHED_OUT:
        bp = cash_out_bp(rules, cards, dealer[0]) if dealer else None
        if bp is None:
            return None, [f"{where}: cashed out {'+'.join(cards)}, where the rules' Cash Out "
                          "table makes no offer"]
        return Fraction(stake * bp // 10_000), []
    if outcome is Outcome.LOSE:
        return (Fraction(0) if rules.late_blackjack_takes_all or not _natural(dealer)
                else None), []
    if outcome is Outcome.CHARLIE and not charlie(rules, cards, dealer):
        n = rules.charlie_cards
        why = ("the rules have no card-count rule" if n is None
               else f"the rules' Charlie is {n} cards not bust"
               + ("" if rules.charlie_wins_at_once else ", and loses to a dealer blackjack"))
        return None, [f"{where}: {len(cards)}-card {'+'.join(cards)} settled charlie, {why}"]
    return (stake * _FIXED[outcome] if outcome in _FIXED else None), []


def check_hand(rules: RuleSet, e: HandSettled, cards: Sequence[str],
               dealer: Sequence[str]) -> list[str]:
    """Findings on one settled hand: its outcome from the totals and the card-count rule, its
    payout from the rules (a Cash Out from the rules' Cash Out table)."""
    where = f"seat {e.seat} hand {e.hand}"
    exact, out = _payout(rules, e.outcome, e.stake, cards, dealer, where=where)
    paid = e.payout if e.outcome is Outcome.CASHED_OUT else e.payout + e.rounded_off
    if exact is not None and paid != exact:
        out.append(f"{where}: {e.outcome.value} of {e.stake} paid {e.payout}"
                   f"{f' + {e.rounded_off}' if e.rounded_off else ''}, the rules pay {exact}")
    total, _ = total_soft(counts(cards))
    n = rules.charlie_cards
    if n is not None and len(cards) > n and total_soft(counts(cards[:n]))[0] <= 21:
        out.append(f"{where}: {'+'.join(cards)} drew past {n} cards, where the rules' "
                   "Charlie stops the hand")
    if e.outcome in _NOT_CHARLIE and charlie(rules, cards, dealer):
        out.append(f"{where}: {len(cards)}-card {total} settled {e.outcome.value}, the rules "
                   f"make it a Charlie (pays 2x)")
    elif (e.outcome in _COMPARED and not _natural(dealer) and not _natural(cards)
            and total <= 21 and len(dealer) >= 2):
        want = _outcome(rules, total, dealer)
        if want is not e.outcome:
            out.append(f"{where}: {total} against the dealer's {'+'.join(dealer)} settled "
                       f"{e.outcome.value}, the rules make it {want.value}")
    return out


def check_behind(rules: RuleSet, e: BehindSettled, hand: HandSettled | None,
                 cards: Sequence[str], dealer: Sequence[str]) -> list[str]:
    """Findings on a Bet Behind's stake on one hand: it shares the hand's outcome (``hand``)
    and is paid what the rules pay that outcome at its own stake, the fraction of a minor unit
    the floor keeps included (a Cash Out at the hand's offer)."""
    where = f"seat {e.seat} hand {e.hand} Bet Behind"
    if hand is None:
        return [f"{where}: settled {e.outcome.value} on a hand that was not settled"]
    if e.outcome is not hand.outcome:
        return [f"{where}: settled {e.outcome.value}, its hand {hand.outcome.value}"]
    if e.outcome is Outcome.CASHED_OUT:
        bp = cash_out_bp(rules, cards, dealer[0]) if dealer else None
        exact: Fraction | None = None if bp is None else Fraction(e.stake * bp, 10_000)
    elif e.outcome is Outcome.LOSE:
        exact = Fraction(0)
    else:
        exact, _ = _payout(rules, e.outcome, e.stake, cards, dealer, where=where)
    if exact is not None and e.payout + e.rounded_off != exact:
        return [f"{where}: {e.outcome.value} of {e.stake} paid {e.payout}"
                f"{f' + {e.rounded_off}' if e.rounded_off else ''}, the rules pay {exact}"]
    return []


def check_insurance(rules: RuleSet, stake: int, payout: int, dealer: Sequence[str],
                    where: str) -> list[str]:
    """Insurance pays ``insurance_pays`` to 1 on a dealer blackjack and loses otherwise."""
    exact = stake * (rules.insurance_pays + 1) if _natural(dealer) else 0
    if payout != exact:
        return [f"{where}: insurance of {stake} paid {payout}, the rules pay {exact}"]
    return []


def check_round(rules: RuleSet, events: Sequence[Event],
                hands: Mapping[tuple[int, int], tuple[str, ...]]) -> list[Finding]:
    """Every finding of one settled round (``hands``: each (seat, hand)'s final cards)."""
    dealer = [e.card for e in events if isinstance(e, CardDealt) and e.seat is None]
    settled = {(e.seat, e.hand): e for e in events if isinstance(e, HandSettled)}
    played = (any(e.outcome in _COMPARED for e in settled.values()) and not _natural(dealer))
    out = [Finding(None, "", t) for t in check_dealer(rules, dealer, played=played)]
    for e in events:
        if isinstance(e, HandSettled):
            cards = hands.get((e.seat, e.hand), ())
            out += [Finding(e.seat, "", t) for t in check_hand(rules, e, cards, dealer)]
        elif isinstance(e, BehindSettled):
            cards = hands.get((e.seat, e.hand), ())
            out += [Finding(e.seat, e.player, t) for t in check_behind(
                rules, e, settled.get((e.seat, e.hand)), cards, dealer)]
        elif isinstance(e, InsuranceSettled) and e.stake:
            out += [Finding(e.seat, "", t) for t in check_insurance(
                rules, e.stake, e.payout, dealer, f"seat {e.seat}")]
        elif isinstance(e, BehindInsuranceSettled) and e.stake:
            out += [Finding(e.seat, e.player, t) for t in check_insurance(
                rules, e.stake, e.payout, dealer, f"seat {e.seat} Bet Behind")]
    return out
