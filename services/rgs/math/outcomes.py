"""The distribution of a round's net result under the analysed strategy.

Each hand is followed along the optimal decisions to a final *status* (its total, a bust, a
card-count win) and stake; the statuses of all hands of a box are then settled against one
dealer outcome, so the dealer is shared by split hands as at the table. Approximation (stated on
the PAR sheet): the dealer's final hand is distributed as given the player's first two cards and
the up card, i.e. the cards the player draws later are not removed from the dealer's draws. The
RTP on the sheet is the exact figure of :mod:`rgs.math.analysis`, not the mean of this
distribution.
"""

from __future__ import annotations

from rgs.math.analysis import (
    BLACKJACK_PAID,
    DOUBLE,
    HIT,
    POWER_DOUBLE,
    POWER_SPLIT,
    SPLIT,
    STAND,
    SURRENDER,
    MainGame,
    RootHand,
    UpCardAnalysis,
)
from rgs.math.dealer import BLACKJACK, BUST, D17, FINAL_TOTALS, NOUTCOMES, PUSH
from rgs.math.hand import HandPlayer
from rgs.math.shoe import NRANKS, Counts, add, total_soft, unit
from rgs.math.splits import split_hand_counts

#: A hand's final status and its stake in units: status is "bust", "at_once", "count" (a card
#: count winner that still loses to a blackjack) or the total (16 for anything below 17).
Status = tuple[str | int, int]
#: Net result in half units of the main bet -> probability.
Dist = dict[int, float]


def hand_statuses(pl: HandPlayer, hand: Counts) -> dict[Status, float]:
    """Final statuses of a hand in play, following the optimal decisions of ``pl``."""
    memo: dict[Counts, dict[Status, float]] = {}

    def final(h: Counts, stake: int) -> Status:
        total, _ = total_soft(h)
        if total > 21:
            return ("bust", stake)
        ch = pl.t.charlie
        if ch is not None and sum(h) >= ch:
            return ("at_once" if pl.t.charlie_at_once else "count", stake)
        return (max(total, 16), stake)

    def draws(h: Counts, stake: int, then_play: bool) -> dict[Status, float]:
        out: dict[Status, float] = {}
        ps = pl.t.probs(pl.removed(h))
        for r in range(NRANKS):
            if ps[r] <= 0.0:
                continue
            h2 = add(h, r)
            sub = rec(h2) if then_play else {final(h2, stake): 1.0}
            for k, v in sub.items():
                out[k] = out.get(k, 0.0) + ps[r] * v
        return out

    def rec(h: Counts) -> dict[Status, float]:
        got = memo.get(h)
        if got is not None:
            return got
        if pl.finished(h) or (pl.ctx.one_card and sum(h) >= 2):
            got = {final(h, 1): 1.0}
        else:
            options = {STAND: pl.stand(h), HIT: pl.hit(h)}
            if pl.can_double(h):
                options[DOUBLE] = pl.double(h)
            best = max(options, key=lambda a: options[a])
            if best == STAND:
                got = {final(h, 1): 1.0}
            else:
                got = draws(h, 2 if best == DOUBLE else 1, best == HIT)
        memo[h] = got
        return got

    return rec(hand)


def _payoff(status: Status, outcome: int) -> int:
    """Net result in half units of one hand with ``status`` against a dealer outcome."""
    cls, stake = status
    win, lose = 2 * stake, -2 * stake
    if cls == "bust":
        return lose
    if cls == "at_once":
        return win
    if outcome == BLACKJACK:
        return lose
    if cls == "count" or outcome == BUST:
        return win
    if outcome == PUSH:
        return 0
    assert isinstance(cls, int)
    d = FINAL_TOTALS[outcome - D17]
    return win if cls > d else (0 if cls == d else lose)


def _settle(hands: list[dict[Status, float]], dealer: list[float], excluded: bool) -> Dist:
    """Joint distribution of the summed result of independent hands against a shared dealer."""
    out: Dist = {}
    for o in range(NOUTCOMES):
        po = dealer[o]
        if po <= 0.0 or (excluded and o == BLACKJACK):
            continue
        acc: Dist = {0: po}
        for st in hands:
            per: Dist = {}
            for s, p in st.items():
                k = _payoff(s, o)
                per[k] = per.get(k, 0.0) + p
            nxt: Dist = {}
            for a, pa in acc.items():
                for b, pb in per.items():
                    nxt[a + b] = nxt.get(a + b, 0.0) + pa * pb
            acc = nxt
        for k, v in acc.items():
            out[k] = out.get(k, 0.0) + v
    return out


def _first_card_mix(ua: UpCardAnalysis, first: int, other: int, *, power: bool,
                    exclude: int | None) -> dict[Status, float]:
    pl = ua.split_player(first, other, power=power)
    ps = ua.t.probs(add(unit(first), other))
    mix: dict[Status, float] = {}
    norm = sum(p for x, p in enumerate(ps) if x != exclude)
    for x in range(NRANKS):
        if ps[x] <= 0.0 or x == exclude:
            continue
        for k, v in hand_statuses(pl, add(unit(first), x)).items():
            mix[k] = mix.get(k, 0.0) + ps[x] * v / norm
    return mix


def _not_lost(hands: list[dict[Status, float]], dealer: list[float], excluded: bool) -> float:
    """The chance that a hand drawn from ``hands`` with equal chance does not lose (wins or
    pushes) against the shared dealer (the dealer's blackjack left out when ``excluded``)."""
    kept = 0.0
    for o in range(NOUTCOMES):
        po = dealer[o]
        if po <= 0.0 or (excluded and o == BLACKJACK):
            continue
        kept += po * sum(p for st in hands for s, p in st.items()
                         if _payoff(s, o) >= 0) / len(hands)
    return kept


def first_hand_return(ua: UpCardAnalysis, root: RootHand) -> float:
    """The expected ``min(1, what the box's first hand returns)``, in main bets, for one
    starting hand: the part of a free bet's stake a round keeps back (rgs.service.freebets:
    the credit is the payout less the free stake, taken from what the first hand returns). A
    hand that wins or pushes returns at least its stake (1 or more), a surrender 0.5, a loss
    nothing; after a split the first hand is any of the split hands with equal chance (a
    starting hand is a set of two cards: either may have been dealt first, so after a Power
    Split either card's hand is the first with equal chance)."""
    t, best = ua.t, root.best
    if best == BLACKJACK_PAID:
        return 1.0  # paid, or pushed by a dealer's blackjack: the stake back or more
    lost_to_blackjack = root.p_blackjack if root.excluded else 0.0
    if best == SURRENDER:
        return 0.5 * (1.0 - lost_to_blackjack)
    if best in (SPLIT, POWER_SPLIT):
        # The same hands as root_distribution's, each group weighed by its chance.
        groups = _split_groups(ua, root)
        dealer = t.distribution(root.hand)
        return sum(pr * _not_lost(hs, dealer, root.excluded) for hs, pr in groups)
    single = _single_statuses(ua, root)
    return _not_lost([single], t.distribution(root.hand), root.excluded)


def root_distribution(ua: UpCardAnalysis, root: RootHand) -> Dist:
    """Distribution of the box's net result (half units) for one starting hand."""
    t, rules = ua.t, ua.rules
    hand, pbj = root.hand, root.p_blackjack
    dealer = t.distribution(hand)
    best = root.best
    out: Dist = {}
    if best == BLACKJACK_PAID:
        bj = int(2 * rules.blackjack_pays)
        return {bj: 1.0 - pbj, 0: pbj} if pbj > 0 else {bj: 1.0}
    if root.excluded and pbj > 0:
        out[-2] = pbj
    if best == SURRENDER:
        out[-1] = out.get(-1, 0.0) + (1.0 - pbj if root.excluded else 1.0)
        return out
    if best in (SPLIT, POWER_SPLIT):
        groups = _split_groups(ua, root)
    else:
        groups = [([_single_statuses(ua, root)], 1.0)]
    for hs, pr in groups:
        for k, v in _settle(hs, dealer, root.excluded).items():
            out[k] = out.get(k, 0.0) + pr * v
    return out


def _single_statuses(ua: UpCardAnalysis, root: RootHand) -> dict[Status, float]:
    """The final statuses of a box played as one hand (stand, hit, double, Power Double)."""
    t, hand, best = ua.t, root.hand, root.best
    pl = ua.original
    if best == STAND:
        return {(max(total_soft(hand)[0], 16), 1): 1.0}
    st: dict[Status, float] = {}
    ps = t.probs(hand)
    for r in range(NRANKS):
        if ps[r] <= 0.0:
            continue
        if best == POWER_DOUBLE and root.replace[r]:
            qs = t.probs(add(hand, r))
            for s in range(NRANKS):
                if qs[s] > 0.0:
                    for sk, v in _one_card(pl, add(hand, s), 2).items():
                        st[sk] = st.get(sk, 0.0) + ps[r] * qs[s] * v
            continue
        h2 = add(hand, r)
        sub = hand_statuses(pl, h2) if best == HIT else _one_card(pl, h2, 2)
        for sk, v in sub.items():
            st[sk] = st.get(sk, 0.0) + ps[r] * v
    return st


def _split_groups(ua: UpCardAnalysis, root: RootHand
                  ) -> list[tuple[list[dict[Status, float]], float]]:
    """The hands of a split box: each group of hands' statuses with its chance."""
    t, rules, hand = ua.t, ua.rules, root.hand
    if root.best == POWER_SPLIT:
        a, b = (i for i in range(NRANKS) if hand[i])
        return [([_first_card_mix(ua, a, b, power=True, exclude=None),
                  _first_card_mix(ua, b, a, power=True, exclude=None)], 1.0)]
    pair = next(i for i in range(NRANKS) if hand[i] == 2)
    p = t.probs(hand)[pair]
    np_mix = _first_card_mix(ua, pair, pair, power=False, exclude=pair)
    pp = hand_statuses(ua.split_player(pair, pair, power=False), add(unit(pair), pair))
    resplit = rules.max_split_depth >= 2 and (pair != 0 or rules.resplit_aces)
    counts = split_hand_counts(p, max_depth=rules.max_split_depth,
                               max_hands=rules.max_hands, resplit=resplit)
    return [([np_mix] * a + [pp] * b, pr) for (a, b), pr in counts.items()]


def _one_card(pl: HandPlayer, h: Counts, stake: int) -> dict[Status, float]:
    total, _ = total_soft(h)
    if total > 21:
        return {("bust", stake): 1.0}
    ch = pl.t.charlie
    if ch is not None and sum(h) >= ch:
        return {("at_once" if pl.t.charlie_at_once else "count", stake): 1.0}
    return {(max(total, 16), stake): 1.0}


def free_bet_kept(game: MainGame) -> float:
    """The expected part of a free bet's stake a round keeps back, in free bets, over all
    deals (:func:`first_hand_return` weighed by each starting hand's chance)."""
    return sum(root.weight * first_hand_return(game.analyses[root.up], root)
               for root in game.roots)


def game_distribution(game: MainGame) -> Dist:
    """Distribution of a box's net result (half units of the main bet) over all deals."""
    out: Dist = {}
    for root in game.roots:
        for k, v in root_distribution(game.analyses[root.up], root).items():
            out[k] = out.get(k, 0.0) + root.weight * v
    return dict(sorted(out.items()))
