"""A table-driven basic-strategy player that plays rounds through the production engine.

A strategy table maps ``(kind, total, up)`` to an action code, where ``kind`` is ``"hard"``,
``"soft"`` or ``"pair"`` (``total`` is then the value of one card of the pair, ace = 1), and
``up`` is the dealer's up-card class ``"A"``, ``"2"`` … ``"9"``, ``"T"``; ``"split_hard"`` and
``"split_soft"`` entries, where present, decide a two-card hand after a split. The codes and their
fallbacks are those of :mod:`rgs.math.strategy_tables` (``H S D Ds P Rh Rs PD PDs PS PSs Ch
Cs``), so the math module's exact tables and the textbook chart play alike.

After a Power Double card the player keeps or replaces it from an optional choice table
``(from_kind, from_total, to_kind, to_total, up) -> "K" | "R"``; without one it keeps a card
that makes at least :data:`POWER_KEEP_TOTAL` (or a soft 18+).

:func:`textbook_table` builds the classic multi-deck chart (S17 or H17, double after split or
not, late surrender) from a rule set's fields.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from rgs.engine import Action, Round, RuleSet, Surrender
from rgs.engine.cards import CARD_VALUE, hand_total
from rgs.engine.rules import UP_CLASSES, up_class
from rgs.engine.vocabulary import (
    CASH_OUT,
    DECLINE_INSURANCE,
    DOUBLE,
    HIT,
    INSURANCE,
    PLAYER_TURN,
    POWER_DOUBLE,
    POWER_KEEP,
    POWER_REPLACE,
    POWER_SPLIT,
    SPLIT,
    STAND,
    SURRENDER,
)

StrategyKey = tuple[str, int, str]
StrategyTable = Mapping[StrategyKey, str]
PowerChoiceTable = Mapping[tuple[str, int, str, int, str], str]
#: ``(low card value, high card value, up) -> code`` for the original two-card hand only
#: (composition-dependent exceptions, e.g. T-5 Power Splits against a ten where 9-6 hits).
TwoCardTable = Mapping[tuple[int, int, str], str]

#: Keep a Power Double card that makes at least this hard total.
POWER_KEEP_TOTAL = 18


def _row(codes: str) -> dict[str, str]:
    """Ten action codes for up cards 2..9, T, A written as a space-separated string."""
    parts = codes.split()
    assert len(parts) == 10
    order = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
    return dict(zip(order, parts, strict=True))


def textbook_table(rules: RuleSet) -> dict[StrategyKey, str]:
    """The standard multi-deck basic strategy, adjusted by the rules' H17, DAS and surrender."""
    h17 = rules.dealer_hits_soft_17
    das = rules.double_after_split
    surrender = rules.surrender is Surrender.LATE
    hard: dict[int, str] = {
        **dict.fromkeys(range(4, 9), "H H H H H H H H H H"),
        9: "H D D D D H H H H H",
        10: "D D D D D D D D H H",
        11: "D D D D D D D D D " + ("D" if h17 else "H"),
        12: "H H S S S H H H H H",
        13: "S S S S S H H H H H",
        14: "S S S S S H H H H H",
        15: "S S S S S H H H " + ("Rh H" if not h17 else "Rh Rh") if surrender else
            "S S S S S H H H H H",
        16: "S S S S S H H Rh Rh Rh" if surrender else "S S S S S H H H H H",
        17: "S S S S S S S S S " + ("Rs" if surrender and h17 else "S"),
        **dict.fromkeys(range(18, 22), "S S S S S S S S S S"),
    }
    soft: dict[int, str] = {
        12: "H H H D D H H H H H",
        13: "H H H D D H H H H H",
        14: "H H H D D H H H H H",
        15: "H H D D D H H H H H",
        16: "H H D D D H H H H H",
        17: "H D D D D H H H H H",
        18: ("Ds" if h17 else "S") + " Ds Ds Ds Ds S S H H H",
        19: "S S S S " + ("Ds" if h17 else "S") + " S S S S S",
        20: "S S S S S S S S S S",
        21: "S S S S S S S S S S",
    }
    pair: dict[int, str] = {
        1: "P P P P P P P P P P",
        2: ("P P P P P P H H H H" if das else "H H P P P P H H H H"),
        3: ("P P P P P P H H H H" if das else "H H P P P P H H H H"),
        4: ("H H H P P H H H H H" if das else "H H H H H H H H H H"),
        5: "D D D D D D D D H H",
        6: ("P P P P P H H H H H" if das else "H P P P P H H H H H"),
        7: "P P P P P P H H H H",
        8: "P P P P P P P P P P",
        9: "P P P P P S P P S S",
        10: "S S S S S S S S S S",
    }
    table: dict[StrategyKey, str] = {}
    for kind, rows in (("hard", hard), ("soft", soft), ("pair", pair)):
        for total, codes in rows.items():
            for up, code in _row(codes).items():
                table[(kind, total, up)] = code
    return table


class BasicStrategyPlayer:
    """Plays every decision of a round from a strategy table; never insures, never cashes out
    unless the table says ``C``."""

    __slots__ = ("_hard", "_soft", "_split_rows", "power_choices", "rules", "table", "two_card")

    def __init__(self, rules: RuleSet, table: StrategyTable | None = None,
                 power_choices: PowerChoiceTable | None = None,
                 two_card: TwoCardTable | None = None) -> None:
        self.rules = rules
        self.table = table if table is not None else textbook_table(rules)
        self.power_choices = power_choices or {}
        self.two_card = two_card or {}
        missing = [(k, t, u) for k, t in (("hard", 12), ("soft", 18)) for u in UP_CLASSES
                   if (k, t, u) not in self.table]
        if missing:
            raise ValueError(f"strategy table lacks entries such as {missing[0]}")
        # The hard and soft rows as each up card's list of plans by total (a hand to act
        # totals 20 at most), a missing entry standing on 17 and more: most decisions end in
        # them, and two list lookups cost less than a key to build and hash, then its plan's.
        self._hard = {up: self._plans("hard", up) for up in UP_CLASSES}
        self._soft = {up: self._plans("soft", up) for up in UP_CLASSES}
        #: Whether the table plays split hands apart ("split_hard"/"split_soft" rows).
        self._split_rows = any(k[0] in ("split_hard", "split_soft") for k in self.table)

    def _plans(self, kind: str, up: str) -> list[tuple[tuple[Action, ...], Action]]:
        return [_code_plan(self.table.get((kind, total, up), "S" if total >= 17 else "H"))
                for total in range(22)]

    def play(self, rnd: Round) -> None:
        """Make every decision until the round is settled."""
        up = ""  # the dealer's up-card class, read at the first decision
        # Whether the hand to act holds a Power Double card to keep or replace: only right after
        # this player's own POWER_DOUBLE (the hand stays in play for that choice); None: not
        # known (the round came in mid-play), ask the round.
        pending: bool | None = None
        # until the round is settled (Round.finished, read off the phase: not a property)
        while rnd.phase is PLAYER_TURN or rnd.phase is INSURANCE:
            to_act = rnd.to_act
            if to_act is None:  # insurance: always declined by basic strategy
                for seat in rnd.seats():
                    if rnd.can(seat, 0, DECLINE_INSURANCE):
                        rnd.act(seat, 0, DECLINE_INSURANCE)
                continue
            seat, hand = to_act
            if not up:
                up = up_class(rnd.dealer_cards()[0])
            action = self._decide(rnd, seat, hand, up, pending)
            rnd.act(seat, hand, action)
            pending = action is POWER_DOUBLE

    def decide(self, rnd: Round, seat: int, hand: int) -> Action:
        """The table's action for the hand to act, with the fallbacks of the action codes."""
        return self._decide(rnd, seat, hand, up_class(rnd.dealer_cards()[0]), None)

    def _decide(self, rnd: Round, seat: int, hand: int, up: str, pending: bool | None
                ) -> Action:
        """:meth:`decide` once the up-card class is known, and whether a Power Double choice
        is pending (None: ask the round)."""
        cards = rnd.hand_cards(seat, hand)
        total, soft = hand_total(cards)
        if pending is None:
            # A Power Double card makes the original two cards three: only then ask.
            pending = len(cards) == 3 and bool(self.rules.power_double_counts) and rnd.can(
                seat, hand, POWER_KEEP)
        if pending:
            return self._power_choice(cards, total, soft, up)
        table = self.table
        code = None
        if len(cards) == 2:
            v0, v1 = CARD_VALUE[cards[0]], CARD_VALUE[cards[1]]
            # asked of the round only where one of the tables plays a split hand apart
            split_hand = bool(self.two_card or self._split_rows) and rnd.hand_count(seat) > 1
            if self.two_card and not split_hand:
                code = self.two_card.get((v0, v1, up) if v0 <= v1 else (v1, v0, up))
                if code == "P":
                    if rnd.can(seat, hand, SPLIT):
                        return SPLIT
                    code = None
            if code is None and v0 == v1:
                code = table.get(("pair", v0, up))
                if code == "P" and rnd.can(seat, hand, SPLIT):
                    return SPLIT
            if split_hand:
                # a split hand's own play where it differs (it has no Power Double, for one)
                code = table.get(("split_soft" if soft else "split_hard", total, up), code)
        # the code with its documented fallbacks
        if code is None or code == "P":
            tries, fallback = (self._soft if soft else self._hard)[up][total]
        else:
            tries, fallback = _code_plan(code)
        for action in tries:
            if rnd.can(seat, hand, action):
                return action
        return fallback

    def _power_choice(self, cards: tuple[str, ...], total: int, soft: bool,
                      up: str) -> Action:
        before, before_soft = hand_total(cards[:-1])
        choice = self.power_choices.get(("soft" if before_soft else "hard", before,
                                         "soft" if soft else "hard", total, up))
        if choice is None:
            keep = total <= 21 and (total >= POWER_KEEP_TOTAL or (soft and total >= 18))
            choice = "K" if keep else "R"
        return POWER_KEEP if choice == "K" else POWER_REPLACE


@functools.cache
def _code_plan(code: str) -> tuple[tuple[Action, ...], Action]:
    """The actions an action code tries, in order, and the one it falls back to:
    ``Ch``/``Cs`` Cash Out, ``PS``/``PSs`` Power Split, ``PD``/``PDs`` Power Double then a
    double, ``D``/``Ds`` a double then Power Double, ``Rh``/``Rs`` surrender; the fallback is
    STAND for ``S`` and the codes ending in ``s``, else HIT."""
    tries: list[Action] = []
    if code in ("Ch", "Cs"):
        tries.append(CASH_OUT)
    if code in ("PS", "PSs"):
        tries.append(POWER_SPLIT)
    if code in ("PD", "PDs"):
        tries.append(POWER_DOUBLE)
    if code in ("D", "Ds", "PD", "PDs"):
        tries += [a for a in (DOUBLE, POWER_DOUBLE) if a not in tries]
    if code in ("Rh", "Rs"):
        tries.append(SURRENDER)
    fallback = STAND if code.endswith("s") or code == "S" else HIT
    return tuple(tries), fallback
