"""The pure game core: cards, rule sets, rounds, actions, settlement and side bets.

Nothing here does I/O, reads the clock or makes randomness: cards come from a
:class:`~rgs.engine.cards.CardSource` passed in.

>>> from rgs.variants import find_variant
>>> rnd = Round.deal(find_variant("classic-resplit"),
...                  ForcedCards(["TS", "6H", "9D", "7C", "9S"]), [BoxBet(seat=1, stake=100)])
>>> rnd.to_act, [a.action.value for a in rnd.legal_actions(1)]
((1, 0), ['hit', 'stand', 'double'])
>>> _ = rnd.stand(1)
>>> rnd.view().boxes[0].hands[0].outcome, rnd.total_paid
(<Outcome.WIN: 'win'>, 200)
"""

from rgs.engine.bets import VerifiedBets
from rgs.engine.cards import (
    DECK,
    CardSource,
    ForcedCards,
    SequenceSource,
    Shoe,
    ShoeSource,
    hand_total,
)
from rgs.engine.errors import (
    ActionNotAllowed,
    EngineError,
    InvalidBet,
    InvalidCard,
    InvalidRules,
    ReplayMismatch,
    ShoeExhausted,
    StakeOutOfLimits,
    WrongHand,
    WrongPhase,
)
from rgs.engine.model import (
    Action,
    BehindBet,
    BehindFollowSkipped,
    BehindInsuranceSettled,
    BehindSettled,
    BehindStakeAdded,
    BehindView,
    BoxBet,
    BoxView,
    CardBurned,
    CardDealt,
    DealerPeeked,
    Event,
    HandSettled,
    HandStatus,
    HandView,
    HoleCardRevealed,
    InsuranceSettled,
    LegalAction,
    Outcome,
    Phase,
    PlayerActed,
    RoundSettled,
    RoundStarted,
    RoundView,
    RoundVoided,
    SideBetSettled,
    SideBetView,
)
from rgs.engine.replay import apply_decision, replay
from rgs.engine.round import Round
from rgs.engine.rules import (
    CashOutTable,
    InsuranceOffer,
    Peek,
    PerfectPairsPaytable,
    RuleSet,
    SideBetKind,
    Surrender,
    TableLimits,
    TwentyOnePlusThreePaytable,
    TwentyPlusOutcome,
    TwentyPlusPaytable,
)

__all__ = [
    "DECK", "Action", "ActionNotAllowed", "BehindBet", "BehindFollowSkipped",
    "BehindInsuranceSettled", "BehindSettled",
    "BehindStakeAdded", "BehindView", "BoxBet", "BoxView", "CardBurned", "CardDealt",
    "CardSource", "CashOutTable", "DealerPeeked", "EngineError", "Event", "ForcedCards",
    "HandSettled", "HandStatus", "HandView", "HoleCardRevealed", "InsuranceOffer",
    "InsuranceSettled", "InvalidBet", "InvalidCard", "InvalidRules", "LegalAction", "Outcome",
    "Peek", "PerfectPairsPaytable", "Phase", "PlayerActed", "ReplayMismatch", "Round",
    "RoundSettled", "RoundStarted", "RoundView", "RoundVoided", "RuleSet", "SequenceSource",
    "Shoe", "ShoeExhausted", "ShoeSource", "SideBetKind", "SideBetSettled", "SideBetView",
    "StakeOutOfLimits", "Surrender", "TableLimits", "TwentyOnePlusThreePaytable",
    "TwentyPlusOutcome", "TwentyPlusPaytable", "VerifiedBets", "WrongHand", "WrongPhase",
    "apply_decision", "hand_total", "replay",
]
