"""The English names of the decisions and the side bets, by their wire numbers
(``rgs.blackjack.v1.Action``, ``SideBetKind``): the words the recall's telling of a round
(:mod:`rgs.recall.words`) uses, and the terminal's fallback when a language's catalogue has no
word (:mod:`rgs.terminal.render`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj

ACTION_NAMES: Final[Mapping[int, str]] = {
    bj.ACTION_HIT: "hit", bj.ACTION_STAND: "stand", bj.ACTION_DOUBLE: "double",
    bj.ACTION_POWER_DOUBLE: "power double", bj.ACTION_SPLIT: "split",
    bj.ACTION_POWER_SPLIT: "power split", bj.ACTION_SURRENDER: "surrender",
    bj.ACTION_CASH_OUT: "cash out", bj.ACTION_POWER_KEEP: "keep the card",
    bj.ACTION_POWER_REPLACE: "replace the card", bj.ACTION_INSURE: "insure",
    bj.ACTION_DECLINE_INSURANCE: "no insurance",
}
SIDE_NAMES: Final[Mapping[int, str]] = {
    bj.SIDE_BET_KIND_TWENTY_PLUS: "20+ Bonus", bj.SIDE_BET_KIND_PERFECT_PAIRS: "Perfect Pairs",
    bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE: "21+3",
}
