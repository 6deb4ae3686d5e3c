"""The engine's errors: one root, each carrying the name of the rule it enforces.

Every error is raised before anything changes, so a refused command leaves the round as it was.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Root of every error the engine raises. ``rule`` names the broken rule (snake_case)."""

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(message)
        self.rule = rule

    def __reduce__(self) -> tuple[object, ...]:  # keep keyword-only args picklable
        return (_rebuild, (type(self), str(self), self.rule))


def _rebuild(cls: type[EngineError], message: str, rule: str) -> EngineError:
    return cls(message, rule=rule)


class InvalidRules(EngineError):
    """A rule set is inconsistent."""


class InvalidCard(EngineError):
    """A card code is malformed."""


class InvalidBet(EngineError):
    """A bet is malformed: unknown seat or side bet, non-integer or non-positive amount."""


class StakeOutOfLimits(EngineError):
    """A stake is outside the table limits, or a side bet lacks its required main bet."""


class WrongPhase(EngineError):
    """The command is not valid in the round's current phase."""


class WrongHand(EngineError):
    """The command names a seat or hand that does not exist or is not the one to act."""


class ActionNotAllowed(EngineError):
    """The rules do not allow this action on this hand now."""


class ShoeExhausted(EngineError):
    """The card source has no card to give (or a forced card is not in the shoe)."""


class ReplayMismatch(EngineError):
    """A journal's events do not rebuild the same round."""
