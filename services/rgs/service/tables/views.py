"""What a table shows: its public state as values, with each player as a :class:`PlayerRef`
(the internal key, never sent, and the display name). The edge turns a view into the caller's
message, marking the caller's own seats and bets from the key (:mod:`rgs.api.table_messages`);
nothing here is secret (no hole card before it is turned, no server seed before the round is
over, no operator's player id)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from rgs.engine import RoundView
from rgs.service.model import Hint
from rgs.service.tables.model import BehindInsurance, TablePhase


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRef:
    """A player as a view names them: ``key`` decides who is "you" at the edge and is never
    sent; ``name`` is what everyone sees."""

    key: str
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView:
    seat: int
    player: PlayerRef
    hot: int = 0
    leaving: bool = False
    sat_out: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class BetView:
    seat: int
    stake: int
    perfect_pairs: int = 0
    twenty_one_plus_three: int = 0
    twenty_plus: int = 0
    deal_now: bool = False
    client_seed: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindBetView:
    seat: int
    player: PlayerRef
    stake: int
    follow_double: bool = False
    follow_split: bool = False
    insurance: BehindInsurance = BehindInsurance.NEVER


@dataclass(frozen=True, slots=True, kw_only=True)
class InsuranceView:
    """An insurance decision made while insurance is open; ``behind`` for a Bet Behind's."""

    seat: int
    take: bool
    behind: PlayerRef | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFairView:
    """A table round's fairness as shown: the server seed and the cards only once revealed."""

    verifiable: bool
    commitment: str
    round_number: int
    decks: int
    client_seed: str = ""
    seat_seeds: tuple[tuple[int, str], ...] = ()
    next_commitment: str = ""
    server_seed: str = ""
    dealt_cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class LastRoundView:
    """The last finished round: its fairness (the seed revealed) and, when it dealt cards, its
    final view with its players' names and money."""

    round_id: str
    fair: TableFairView
    round: RoundView | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    money: Mapping[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableView:
    """The table at event ``seq`` as everyone sees it."""

    table_id: str
    seq: int
    phase: TablePhase
    round_id: str = ""
    round_no: int = 0
    deadline: datetime | None = None
    seats: tuple[SeatView, ...] = ()
    bets: tuple[BetView, ...] = ()
    behind: tuple[BehindBetView, ...] = ()
    #: (seat, bettors, staked) of every seat's Bet Behinds (players are shown these and only
    #: their own Bet Behinds).
    behind_totals: tuple[tuple[int, int, int], ...] = ()
    insurance: tuple[InsuranceView, ...] = ()
    #: The round in play (its Bet Behinds name players by key: ``names`` shows them).
    round: RoundView | None = None
    #: The display name of every player of the round, by key.
    names: Mapping[str, str] = field(default_factory=dict)
    #: Each player's (staked, paid) in the round in play, by key.
    money: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: Exact decision values of the round's open decisions (for brands with hints on).
    hints: tuple[Hint, ...] = ()
    currency: str = ""
    fair: TableFairView | None = None
    next_commitment: str = ""
    #: The last finished round, its seed revealed.
    last_round: LastRoundView | None = None
