"""Exact returns of the side bets and of insurance, by combinatorics on the shoe.

Perfect Pairs and 21+3 depend on suits, so they are counted over the 52 distinct cards with
``decks`` copies each; the 20+ Bonus and insurance use the main game's dealer distributions.
"""

from __future__ import annotations

import itertools
from math import comb

from rgs.engine.rules import PerfectPairsPaytable, RuleSet, TwentyOnePlusThreePaytable
from rgs.math.analysis import MainGame, RootHand
from rgs.math.dealer import BLACKJACK, BUST, D17, FINAL_TOTALS, NOUTCOMES, PUSH
from rgs.math.shoe import total_soft


def perfect_pairs_rtp(pays: PerfectPairsPaytable, decks: int) -> float:
    """RTP (percent) of Perfect Pairs on the first two cards."""
    others = 52 * decks - 1
    # the second card against a fixed first card: same card, same colour other suit, other colour
    p_perfect = (decks - 1) / others
    p_coloured = decks / others
    p_mixed = 2 * decks / others
    ret = (p_perfect * (pays.perfect + 1) + p_coloured * (pays.coloured + 1)
           + p_mixed * (pays.mixed + 1))
    return 100.0 * ret


def _poker_class(cards: tuple[tuple[int, int], ...]) -> str | None:
    ranks = sorted(r for r, _ in cards)
    suited = len({s for _, s in cards}) == 1
    if ranks[0] == ranks[1] == ranks[2]:
        return "suited_trips" if suited else "three_of_a_kind"
    # ranks 0..12 = A,2..K; A-2-3 and Q-K-A are straights, K-A-2 is not
    straight = (ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1) or ranks == [0, 11, 12]
    if straight:
        return "straight_flush" if suited else "straight"
    return "flush" if suited else None


def twenty_one_plus_three_rtp(pays: TwentyOnePlusThreePaytable, decks: int) -> float:
    """RTP (percent) of 21+3 on the player's two cards and the dealer's up card."""
    kinds = [(r, s) for r in range(13) for s in range(4)]
    total = comb(52 * decks, 3)
    ret = 0.0
    for combo in itertools.combinations_with_replacement(range(52), 3):
        cls = _poker_class(tuple(kinds[i] for i in combo))
        if cls is None:
            continue
        ways = 1
        for i in set(combo):
            ways *= comb(decks, combo.count(i))
        ret += ways * (getattr(pays, cls) + 1)
    return 100.0 * ret / total


def _twenty_plus_outcome(total: int, blackjack: bool, dealer_outcome: int) -> str:
    if dealer_outcome == BLACKJACK:
        return "push" if blackjack else "dealer_wins"
    if blackjack or dealer_outcome in (BUST, PUSH):
        # the bonus settles the two-card hand's outcome: a dealer push total pushes it
        return "push" if dealer_outcome == PUSH and not blackjack else "player_wins"
    d = FINAL_TOTALS[dealer_outcome - D17]
    return "player_wins" if total > d else ("push" if total == d else "dealer_wins")


def twenty_plus_return(game: MainGame, root: RootHand) -> float:
    """What one unit on the 20+ Bonus returns (stake included) with this starting hand, the
    bettor standing on a qualifying 20/21."""
    pays = game.rules.twenty_plus
    total, _ = total_soft(root.hand)
    if pays is None or total < 20:
        return 0.0
    dist = game.analyses[root.up].t.distribution(root.hand)
    ret = 0.0
    for o in range(NOUTCOMES):
        if dist[o] > 0.0:
            ret += dist[o] * (getattr(pays, _twenty_plus_outcome(total, total == 21, o)) + 1)
    return ret


def twenty_plus_rtp(game: MainGame) -> float:
    """RTP (percent) of the 20+ Bonus, assuming the bettor stands on every qualifying 20/21
    (hitting, doubling or splitting would forfeit the bonus)."""
    if game.rules.twenty_plus is None:
        return 0.0
    return 100.0 * sum(root.weight * twenty_plus_return(game, root) for root in game.roots)


def insurance_rtp(game: MainGame) -> float:
    """RTP (percent) of insurance averaged over every hand dealt against an ace."""
    pays = game.rules.insurance_pays
    num = den = 0.0
    for root in game.roots:
        if root.up != 0:
            continue
        num += root.weight * root.p_blackjack * (pays + 1)
        den += root.weight
    return 100.0 * num / den if den else 0.0


def side_bet_rtps(game: MainGame) -> dict[str, float]:
    """RTP (percent) of every side bet the rule set offers, by name."""
    rules: RuleSet = game.rules
    out: dict[str, float] = {}
    if rules.twenty_plus is not None:
        out["twenty_plus"] = twenty_plus_rtp(game)
    if rules.perfect_pairs is not None:
        out["perfect_pairs"] = perfect_pairs_rtp(rules.perfect_pairs, rules.decks)
    if rules.twenty_one_plus_three is not None:
        out["twenty_one_plus_three"] = twenty_one_plus_three_rtp(
            rules.twenty_one_plus_three, rules.decks)
    return out
