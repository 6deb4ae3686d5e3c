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
    if best in (STAND, HIT, DOUBLE):
        pl = ua.original
        if best == STAND:
            st: dict[Status, float] = {(max(total_soft(hand)[0], 16), 1): 1.0}
        else:
            st = {}
            ps = t.probs(hand)
            for r in range(NRANKS):
                if ps[r] <= 0.0:
                    continue
                h2 = add(hand, r)
                sub = hand_statuses(pl, h2) if best == HIT else _one_card(pl, h2, 2)
                for sk, v in sub.items():
                    st[sk] = st.get(sk, 0.0) + ps[r] * v
        groups: list[tuple[list[dict[Status, float]], float]] = [([st], 1.0)]
    elif best == POWER_DOUBLE:
        st = {}
        ps = t.probs(hand)
        for r in range(NRANKS):
            if ps[r] <= 0.0:
                continue
            if root.replace[r]:
                qs = t.probs(add(hand, r))
                for s in range(NRANKS):
                    if qs[s] > 0.0:
                        for sk, v in _one_card(ua.original, add(hand, s), 2).items():
                            st[sk] = st.get(sk, 0.0) + ps[r] * qs[s] * v
            else:
                for sk, v in _one_card(ua.original, add(hand, r), 2).items():
                    st[sk] = st.get(sk, 0.0) + ps[r] * v
        groups = [([st], 1.0)]
    elif best == POWER_SPLIT:
        a, b = (i for i in range(NRANKS) if hand[i])
        groups = [([_first_card_mix(ua, a, b, power=True, exclude=None),
                    _first_card_mix(ua, b, a, power=True, exclude=None)], 1.0)]
    else:
        assert best == SPLIT
        pair = next(i for i in range(NRANKS) if hand[i] == 2)
        p = t.probs(hand)[pair]
        np_mix = _first_card_mix(ua, pair, pair, power=False, exclude=pair)
        pp = hand_statuses(ua.split_player(pair, pair, power=False), add(unit(pair), pair))
        resplit = rules.max_split_depth >= 2 and (pair != 0 or rules.resplit_aces)
        counts = split_hand_counts(p, max_depth=rules.max_split_depth,
                                   max_hands=rules.max_hands, resplit=resplit)
        groups = [([np_mix] * a + [pp] * b, pr) for (a, b), pr in counts.items()]
    for hs, pr in groups:
        for k, v in _settle(hs, dealer, root.excluded).items():
            out[k] = out.get(k, 0.0) + pr * v
    return out


def _one_card(pl: HandPlayer, h: Counts, stake: int) -> dict[Status, float]:
    total, _ = total_soft(h)
    if total > 21:
        return {("bust", stake): 1.0}
    ch = pl.t.charlie
    if ch is not None and sum(h) >= ch:
        return {("at_once" if pl.t.charlie_at_once else "count", stake): 1.0}
    return {(max(total, 16), stake): 1.0}


def game_distribution(game: MainGame) -> Dist:
    """Distribution of a box's net result (half units of the main bet) over all deals."""
    out: Dist = {}
    for root in game.roots:
        for k, v in root_distribution(game.analyses[root.up], root).items():
            out[k] = out.get(k, 0.0) + root.weight * v
    return dict(sorted(out.items()))
