"""Property tests over random shoes and random legal command sequences in every variant.

Whatever the cards and the decisions: only the engine's own errors are ever raised, every round
terminates, the events replay to the same round, and the money balances bet by bet and player
by player.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rgs.engine import (
    Action,
    BehindBet,
    BehindInsuranceSettled,
    BehindSettled,
    BehindStakeAdded,
    BoxBet,
    CardDealt,
    EngineError,
    Event,
    HandSettled,
    InsuranceOffer,
    InsuranceSettled,
    Outcome,
    PlayerActed,
    Round,
    RoundSettled,
    RoundStarted,
    RoundView,
    RuleSet,
    Shoe,
    ShoeSource,
    SideBetKind,
    SideBetSettled,
    replay,
)
from rgs.variants import VARIANTS

ALL_ACTIONS = list(Action)


def _bets(rules: RuleSet, rng: random.Random) -> list[BoxBet]:
    lim = rules.limits
    seats = rng.sample(range(1, rules.max_boxes + 1), rng.randint(1, rules.max_boxes))
    bets = []
    for seat in seats:
        side = {}
        for kind, field in ((SideBetKind.TWENTY_PLUS, "twenty_plus"),
                            (SideBetKind.PERFECT_PAIRS, "perfect_pairs"),
                            (SideBetKind.TWENTY_ONE_PLUS_THREE, "twenty_one_plus_three")):
            if kind in rules.side_bets and rng.random() < 0.5:
                side[field] = rng.randint(lim.side_min, lim.side_min * 3)
        behind: tuple[BehindBet, ...] = ()
        if rules.bet_behind:
            behind = tuple(BehindBet(player=f"b{i}", stake=rng.choice([lim.main_min, 333]),
                                     follow_double=rng.random() < 0.5,
                                     follow_split=rng.random() < 0.5,
                                     insure=rng.random() < 0.3)
                           for i in range(rng.randint(0, 3)))
        bets.append(BoxBet(
            seat=seat, player=f"p{seat}", behind=behind,
            stake=rng.choice([lim.main_min, lim.main_min + 1, 2 * lim.main_min + 55]),
            insurance_offer=rng.choice(sorted(rules.insurance_offers, key=lambda o: o.value)),
            safety_net=rules.safety_net and rng.random() < 0.5, **side))
    return bets


def _play(rules: RuleSet, seed: int,
          snapshots: list[tuple[int, RoundView]] | None = None) -> Round:
    rng = random.Random(seed)
    rnd = Round.deal(rules, ShoeSource(Shoe.of_decks(rules.decks), rng.randrange),
                     _bets(rules, rng))
    for _ in range(200):  # far more decisions than any round can take
        if rnd.finished:
            return rnd
        if rng.random() < 0.15:  # a random, often illegal, command changes nothing when refused
            seat = rng.choice([*rnd.seats(), 0, 9])
            hand, action = rng.randint(-1, 4), rng.choice(ALL_ACTIONS)
            before, seq = rnd.events, rnd.seq
            try:
                rnd.act(seat, hand, action)
            except EngineError:
                assert rnd.events == before and rnd.seq == seq
            continue
        options = [(s, 0, la.action) for s in rnd.seats() for la in rnd.legal_actions(s, 0)
                   if la.action in (Action.INSURE, Action.DECLINE_INSURANCE)]
        if rnd.to_act is not None:
            seat, hand = rnd.to_act
            options += [(seat, hand, la.action) for la in rnd.legal_actions(seat, hand)]
        assert options, "an unfinished round always offers a decision"
        rnd.act(*rng.choice(options))
        if snapshots is not None:
            snapshots.append((len(rnd.events), rnd.view()))
    raise AssertionError("round did not terminate")


def _check_money(rules: RuleSet, rnd: Round) -> None:
    events = rnd.events
    start = events[0]
    assert isinstance(start, RoundStarted)
    staked = sum(b.total_stake + sum(bb.stake for bb in b.behind) for b in start.boxes)
    staked += sum(e.stake_added for e in events if isinstance(e, PlayerActed))
    staked += sum(e.amount for e in events if isinstance(e, BehindStakeAdded))
    paid = 0
    for e in events:
        if isinstance(e, HandSettled):
            s = e.stake
            expected = {
                Outcome.WIN: 2 * s, Outcome.CHARLIE: 2 * s, Outcome.PUSH: s, Outcome.LOSE: 0,
                Outcome.BUST: 0, Outcome.SURRENDER: s // 2,
            }
            if e.outcome is Outcome.BLACKJACK:
                exact = s * rules.blackjack_pays
                assert e.payout == s + int(exact) and e.rounded_off == exact - int(exact)
            elif e.outcome is Outcome.CASHED_OUT:
                assert 0 <= e.payout <= 2 * s
            else:
                assert e.payout == expected[e.outcome]
                if e.outcome is Outcome.SURRENDER:
                    assert e.rounded_off == Fraction(s % 2, 2)
            paid += e.payout
        elif isinstance(e, SideBetSettled):
            assert e.payout == (e.stake * (e.pays + 1) if e.pays else 0)
            paid += e.payout
        elif isinstance(e, InsuranceSettled | BehindInsuranceSettled):
            assert e.payout in (0, e.stake * (rules.insurance_pays + 1))
            paid += e.payout
        elif isinstance(e, BehindSettled):
            assert 0 <= e.payout <= 2 * e.stake + e.stake // 2 + 1
            paid += e.payout
    end = events[-1]
    assert isinstance(end, RoundSettled)
    assert (end.total_staked, end.total_paid) == (staked, paid)
    assert (rnd.total_staked, rnd.total_paid) == (staked, paid)
    by_player = rnd.money_by_player()
    assert by_player == _money_from_events(events)
    assert (sum(s for s, _ in by_player.values()),
            sum(p for _, p in by_player.values())) == (staked, paid)


def _money_from_events(events: tuple[Event, ...]) -> dict[str, tuple[int, int]]:
    """(staked, paid) per player read from the journal alone: bets placed, stakes added and
    settlements, each booked to the seat's player or to the named Bet Behind player."""
    start = events[0]
    assert isinstance(start, RoundStarted)
    owner = {b.seat: b.player or f"seat:{b.seat}" for b in start.boxes}
    money: Counter[tuple[str, str]] = Counter()
    for b in start.boxes:
        money[owner[b.seat], "staked"] += b.total_stake
        for bb in b.behind:
            money[bb.player, "staked"] += bb.stake
    for e in events:
        if isinstance(e, PlayerActed):
            money[owner[e.seat], "staked"] += e.stake_added
        elif isinstance(e, BehindStakeAdded):
            money[e.player, "staked"] += e.amount
        elif isinstance(e, HandSettled | SideBetSettled | InsuranceSettled):
            money[owner[e.seat], "paid"] += e.payout
        elif isinstance(e, BehindSettled | BehindInsuranceSettled):
            money[e.player, "paid"] += e.payout
    players = {p for p, _ in money}
    return {p: (money[p, "staked"], money[p, "paid"]) for p in players}


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**64))
def test_random_legal_play_terminates_replays_and_balances(variant: str, seed: int) -> None:
    rules = VARIANTS[variant]
    rnd = _play(rules, seed)
    _check_money(rules, rnd)
    again = replay(rules, rnd.events)
    assert again.events == rnd.events
    assert again.view() == rnd.view()
    # cards are drawn without replacement: no card appears more often than the decks hold
    dealt = Counter(e.card for e in rnd.events if isinstance(e, CardDealt))
    assert max(dealt.values()) <= rules.decks


@settings(max_examples=200, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**64))
def test_replay_of_a_journal_read_mid_round_equals_the_live_round(variant: str,
                                                                   seed: int) -> None:
    rules = VARIANTS[variant]
    snapshots: list[tuple[int, RoundView]] = []
    rnd = _play(rules, seed, snapshots)
    for n, live_view in snapshots:
        rebuilt = replay(rules, rnd.events[:n])
        assert rebuilt.view() == live_view


@settings(max_examples=150, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)),
       stake=st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=3),
                       st.none(), st.booleans()),
       seat=st.one_of(st.integers(-3, 12), st.none()),
       offer=st.sampled_from(list(InsuranceOffer)))
def test_bad_bets_raise_engine_errors_only(variant: str, stake: object, seat: object,
                                           offer: InsuranceOffer) -> None:
    rules = VARIANTS[variant]
    bet = BoxBet(seat=seat, stake=stake, insurance_offer=offer)  # type: ignore[arg-type]
    try:
        Round.verify_bets(rules, [bet])
    except EngineError:
        return
    assert isinstance(stake, int) and rules.limits.main_min <= stake <= rules.limits.main_max
