"""The money fold: what each player staked and was paid, added up once from the round's state;
the round's totals, the amounts per player and each Bet Behind's view are its parts."""

from __future__ import annotations

from rgs.engine import BehindBet, BoxBet, Round, RoundSettled, SequenceSource
from rgs.variants import find_variant

VIP = find_variant("vip-platinum")


def _two_boxes() -> Round:
    # seat 1 (p1): T 9 = 19 wins; seat 2 (unnamed): T 7 = 17 pushes the dealer's 9 8 = 17.
    # b1 bets behind seat 1; p1 also bets behind seat 2.
    rnd = Round.deal(VIP, SequenceSource(["TS", "TH", "9D", "9C", "7S", "8H"]), [
        BoxBet(seat=1, stake=100, player="p1", behind=(BehindBet(player="b1", stake=200),)),
        BoxBet(seat=2, stake=100, behind=(BehindBet(player="p1", stake=300),)),
    ])
    rnd.stand(1)
    rnd.stand(2)
    return rnd


def test_a_player_on_a_box_and_behind_another_is_added_up_in_order_of_first_appearance() -> None:
    rnd = _two_boxes()
    by_player = rnd.money_by_player()
    assert by_player == {"p1": (100 + 300, 200 + 300), "b1": (200, 400), "seat:2": (100, 100)}
    assert list(by_player) == ["p1", "b1", "seat:2"]


def test_the_round_totals_are_the_sum_over_players_and_match_the_settled_event() -> None:
    rnd = _two_boxes()
    by_player = rnd.money_by_player().values()
    totals = (sum(s for s, _ in by_player), sum(p for _, p in by_player))
    assert (rnd.total_staked, rnd.total_paid) == totals == (700, 1_000)
    end = rnd.events[-1]
    assert isinstance(end, RoundSettled) and (end.total_staked, end.total_paid) == totals
    view = rnd.view()
    assert (view.total_staked, view.total_paid) == totals


def test_a_bet_behind_view_shows_only_that_stake_not_the_players_own_box() -> None:
    (behind,) = _two_boxes().view().boxes[1].behind
    assert (behind.player, behind.staked, behind.paid) == ("p1", 300, 300)
