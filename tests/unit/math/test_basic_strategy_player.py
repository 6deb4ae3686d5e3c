"""The table-driven basic-strategy player: it plays until the round is finished, no further,
and a table without an entry for a hand stands on 17 or more and hits below."""

from __future__ import annotations

from rgs.engine import Action, BoxBet, ForcedCards, Round
from rgs.engine.rules import UP_CLASSES
from rgs.math.basic_strategy import BasicStrategyPlayer
from rgs.variants import VARIANTS

RULES = VARIANTS["classic-resplit"]
BET = [BoxBet(seat=1, stake=100)]


def test_the_player_plays_an_insured_round_to_its_end_and_leaves_a_finished_one_alone() -> None:
    player = BasicStrategyPlayer(RULES)
    # The dealer shows an ace: insurance is declined, the peek finds none, 10+7 stands.
    rnd = Round.deal(RULES, ForcedCards(["TS", "AH", "7D", "9C", "4S"]), BET)
    assert rnd.to_act is None and not rnd.finished  # the insurance phase
    player.play(rnd)
    assert rnd.finished and rnd.total_staked == 100 and rnd.total_paid == 0  # 17 v 20
    settled = len(rnd.events)
    player.play(rnd)  # settled: nothing more to do
    assert len(rnd.events) == settled
    voided = Round.deal(RULES, ForcedCards(["TS", "5H", "7D", "9C"]), BET)
    voided.void("malfunction")
    player.play(voided)  # voided: nothing to do either
    assert voided.finished and voided.total_paid == 100


def test_a_table_without_an_entry_stands_on_17_and_hits_below() -> None:
    sparse = {(kind, total, up): "S" for kind, total in (("hard", 12), ("soft", 18))
              for up in UP_CLASSES}
    player = BasicStrategyPlayer(RULES, sparse)
    hard_16 = Round.deal(RULES, ForcedCards(["TS", "5H", "6D", "9C"]), BET)
    hard_17 = Round.deal(RULES, ForcedCards(["TS", "5H", "7D", "9C"]), BET)
    soft_17 = Round.deal(RULES, ForcedCards(["AS", "5H", "6D", "9C"]), BET)
    assert player.decide(hard_16, 1, 0) is Action.HIT
    assert player.decide(hard_17, 1, 0) is Action.STAND
    assert player.decide(soft_17, 1, 0) is Action.STAND  # soft 17: not an entry, 17 stands
    hard_12 = Round.deal(RULES, ForcedCards(["TS", "5H", "2D", "9C"]), BET)
    assert player.decide(hard_12, 1, 0) is Action.STAND  # the table's own entry
