"""The game's vocabulary the engine's hot paths read: the actions, hand statuses, round phases,
peek rules and outcomes, as module constants (one home for them).

On CPython 3.11 reading a member off its class (``Action.HIT``) goes through
``EnumType.__getattr__``'s slot, unspecialised, at about ten times a global's cost, and the
engine reads dozens per round (every card and decision). Importing these names makes each read a
global one. They are the very same objects as the enum's members. A hand and a round are both
settled, so neither takes the bare word: ``HAND_SETTLED`` is the hand status
(``HandStatus.SETTLED``), ``ROUND_SETTLED``/``ROUND_VOIDED`` the round's phases; a settled
hand's outcomes are ``OUTCOME_*`` (``BLACKJACK`` is the hand status, ``SURRENDER`` the action).
"""

from __future__ import annotations

from typing import Final

from rgs.engine.model import Action, HandStatus, Outcome, Phase
from rgs.engine.rules import InsuranceOffer, Peek, Surrender

CASH_OUT: Final = Action.CASH_OUT
DECLINE_INSURANCE: Final = Action.DECLINE_INSURANCE
DOUBLE: Final = Action.DOUBLE
HIT: Final = Action.HIT
INSURE: Final = Action.INSURE
POWER_DOUBLE: Final = Action.POWER_DOUBLE
POWER_KEEP: Final = Action.POWER_KEEP
POWER_REPLACE: Final = Action.POWER_REPLACE
POWER_SPLIT: Final = Action.POWER_SPLIT
SPLIT: Final = Action.SPLIT
STAND: Final = Action.STAND
SURRENDER: Final = Action.SURRENDER

ACTIVE: Final = HandStatus.ACTIVE
BLACKJACK: Final = HandStatus.BLACKJACK
BUSTED: Final = HandStatus.BUSTED
CASHED_OUT: Final = HandStatus.CASHED_OUT
CHARLIE: Final = HandStatus.CHARLIE
DOUBLED: Final = HandStatus.DOUBLED
POWER_CHOICE: Final = HandStatus.POWER_CHOICE
HAND_SETTLED: Final = HandStatus.SETTLED
STOOD: Final = HandStatus.STOOD
SURRENDERED: Final = HandStatus.SURRENDERED

INSURANCE: Final = Phase.INSURANCE
PLAYER_TURN: Final = Phase.PLAYER_TURN
ROUND_SETTLED: Final = Phase.SETTLED
ROUND_VOIDED: Final = Phase.VOIDED

ACE_AND_TEN: Final = Peek.ACE_AND_TEN
ACE_ONLY: Final = Peek.ACE_ONLY

OUTCOME_BLACKJACK: Final = Outcome.BLACKJACK
OUTCOME_BUST: Final = Outcome.BUST
OUTCOME_CASHED_OUT: Final = Outcome.CASHED_OUT
OUTCOME_CHARLIE: Final = Outcome.CHARLIE
OUTCOME_LOSE: Final = Outcome.LOSE
OUTCOME_PUSH: Final = Outcome.PUSH
OUTCOME_SURRENDER: Final = Outcome.SURRENDER
OUTCOME_VOID: Final = Outcome.VOID
OUTCOME_WIN: Final = Outcome.WIN

NO_SURRENDER: Final = Surrender.NONE
OFFER_ALWAYS: Final = InsuranceOffer.ALWAYS
OFFER_ON_PLAYER_BLACKJACK: Final = InsuranceOffer.ONLY_ON_PLAYER_BLACKJACK
