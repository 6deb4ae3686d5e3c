"""What a shared table decides for a seat whose decision time ran out: insurance is declined,
a hand stands (a Power Double card is kept, since a pending Power Double cannot stand).

Pure: the table service calls it when its clock fires; the decision is then an ordinary
``Round.act`` and replays like any other.
"""

from __future__ import annotations

from rgs.engine.model import Action, Phase
from rgs.engine.round import Round


def timeout_decision(rnd: Round) -> tuple[int, int, Action] | None:
    """(seat, hand, action) the table takes for the player whose time ran out, or None when
    the round awaits no decision. In the insurance phase: the first undecided box declines."""
    if rnd.phase is Phase.INSURANCE:
        for box in rnd.view().boxes:
            if box.insurance_allowed:
                return box.seat, 0, Action.DECLINE_INSURANCE
        return None
    if rnd.phase is not Phase.PLAYER_TURN or rnd.to_act is None:
        return None
    seat, hand = rnd.to_act
    for action in (Action.STAND, Action.POWER_KEEP):
        if rnd.can(seat, hand, action):
            return seat, hand, action
    return None  # pragma: no cover - a hand to act can always stand or keep
