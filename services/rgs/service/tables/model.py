"""Values of shared tables: configuration, the table's state as stored, commands and answers."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rgs.engine import Action, TableLimits
from rgs.service.model import Channel


class TablePhase(enum.StrEnum):
    """Where a table is. ``IDLE``: no bet yet (betting opens with the first bet)."""

    IDLE = "idle"
    BETTING = "betting"
    INSURANCE = "insurance"
    PLAYING = "playing"


class BehindInsurance(enum.StrEnum):
    """A Bet Behind's insurance preset: never, always (taken when offered), or ask (decided
    live with DecideInsurance while insurance is open)."""

    NEVER = "never"
    ALWAYS = "always"
    ASK = "ask"


@dataclass(frozen=True, slots=True, kw_only=True)
class TableConfig:
    """A shared table as the platform file configures it."""

    id: str
    variant: str
    seats: int
    #: The one currency the table plays in, and its limits.
    currency: str
    limits: TableLimits
    #: Brands whose players may sit (every one offers the variant).
    brands: tuple[str, ...]
    betting_s: float
    decision_s: float
    #: A seat is given back after this many dealt rounds in a row without a bet on it...
    sit_out_rounds: int = 5
    #: ... or when its player has neither watched the table nor acted at it for this long
    #: (seconds), or their session expired, whenever no bet of theirs is on the seat.
    away_s: float = 60.0
    #: The least time between the starts of two rounds, the strictest of its brands'
    #: jurisdiction profiles' (UKGC RTS 14G): betting stays open at least this long, Deal Now
    #: included (the platform file refuses a ``betting_s`` below it).
    min_round_interval_s: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Who:
    """A player at a table, as their operator's wallet knows them."""

    player_key: str
    operator_id: str
    brand_id: str
    player_id: str
    session_id: str
    #: How the table shows the player: their operator's nickname for them, else a pseudonym
    #: (empty in a state written by a release before display names: the pseudonym then).
    name: str = ""


class SeatRelease(enum.StrEnum):
    """Why a seat was given back (the ``seat_left`` event says it)."""

    #: The player left it (or asked to, with a bet in play: then at the round's end).
    LEFT = "left"
    #: It sat out ``sit_out_rounds`` dealt rounds in a row.
    SAT_OUT = "sat_out"
    #: Its player neither watched the table nor acted at it for ``away_s`` seconds.
    AWAY = "away"
    #: Its player's session expired.
    SESSION_EXPIRED = "session_expired"


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """A taken seat; ``hot`` counts the rounds its player won in a row (Hot Players).

    Its life (:mod:`rgs.service.tables.seats`): ``sat_out`` counts the dealt rounds in a row it
    had no bet in; ``seen_at`` is when its player last acted at the table and ``expires_at``
    when the newest session they acted with expires (None in a state of a release before seat
    release: the seat is then as new); ``leaving``: the player left with a bet in play, the
    seat is given back when the round ends."""

    seat: int
    who: Who
    hot: int = 0
    sat_out: int = 0
    seen_at: datetime | None = None
    expires_at: datetime | None = None
    leaving: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatBet:
    """The seat player's bets on their own seat, with the debit that took them."""

    seat: int
    stake: int
    perfect_pairs: int = 0
    twenty_one_plus_three: int = 0
    twenty_plus: int = 0
    debit: str = ""
    deal_now: bool = False
    #: The seat player's contribution to the round's client seed (0-64 printable ASCII).
    client_seed: str = ""
    #: The free bet staked on the main bet (the operator's grant id; "": none), and its value
    #: (the main stake, which the debit does not take: docs/freebets.md).
    free_bet_id: str = ""
    free_stake: int = 0
    #: The edge the bet came through (None: not recorded, a release before channels).
    channel: Channel | None = None

    @property
    def total(self) -> int:
        return self.stake + self.perfect_pairs + self.twenty_one_plus_three + self.twenty_plus

    @property
    def cost(self) -> int:
        """What the debit takes: every stake but the free one."""
        return self.total - self.free_stake


@dataclass(frozen=True, slots=True, kw_only=True)
class Behind:
    """A Bet Behind on another player's seat, with its presets and the debit that took it."""

    seat: int
    who: Who
    stake: int
    follow_double: bool = False
    follow_split: bool = False
    insurance: BehindInsurance = BehindInsurance.NEVER
    debit: str = ""
    #: The edge the bet came through (None: not recorded, a release before channels).
    channel: Channel | None = None
    #: The key of the seat's player when the bet was placed on a row of its own
    #: (:mod:`~rgs.service.tables.behind`); a bet whose seat changed hands since is returned
    #: when betting closes ("": placed into the state, where a seat's release returns it).
    seat_player: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class InsuranceChoice:
    """A decision made while insurance is open: a seat's (``player`` empty) or a Bet Behind
    player's, applied to the round when insurance closes."""

    seat: int
    player: str = ""
    take: bool = False
    debit: str = ""
    #: Whether its ``insurance_decided`` event went out when it was made (False: a Bet
    #: Behind's live decision on a row of its own, announced as insurance closes:
    #: :mod:`~rgs.service.tables.live_insurance`).
    announced: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFair:
    """A table round's provably fair inputs (:mod:`rgs.rng.fair`). ``server_seed`` is secret
    until the round is settled or voided: it is kept in the journal only (the table's state
    and the round's row), never in a snapshot or an event before then."""

    #: The 32-byte server seed, lower-case hex.
    server_seed: str
    #: SHA-256 of the seed, published when betting opens (and as the previous round's
    #: ``next_commitment`` before that).
    commitment: str
    #: The DRBG nonce: the table's round number (1, 2, ... per table).
    round_number: int
    decks: int
    #: The commitment of the table's next round's seed (drawn when this round's betting opened).
    next_commitment: str
    #: (seat, client seed) of the seats that bet with one, seat order; fixed when betting
    #: closes, as is ``client_seed`` (:func:`rgs.rng.fair.table_client_seed` of them).
    seat_seeds: tuple[tuple[int, str], ...] = ()
    client_seed: str = ""
    #: False when the round was dealt with forced cards (test mode): it never verifies.
    verifiable: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Revealed:
    """The table's last finished round's fairness, server seed included (public now)."""

    round_id: str
    fair: TableFair
    #: The cards in the order they left the shoe (burned and hole cards included).
    dealt: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    """Everything about a table that is not in its events: stored as one JSON document and
    moved forward with a compare-and-set on the table's version."""

    phase: TablePhase = TablePhase.IDLE
    round_no: int = 0
    #: The round being bet on or played ("" when idle).
    round_id: str = ""
    deadline: datetime | None = None
    seats: tuple[Seat, ...] = ()
    bets: tuple[SeatBet, ...] = ()
    behind: tuple[Behind, ...] = ()
    insurance: tuple[InsuranceChoice, ...] = ()
    #: Test mode: the next round's cards.
    forced: tuple[str, ...] = ()
    #: The secret seed (hex) of the table's next round; its commitment is public.
    next_seed: str = ""
    #: The current round's provably fair inputs (from betting open until the round ends).
    fair: TableFair | None = None
    #: The last round that ended, with its revealed seed.
    revealed: Revealed | None = None
    #: The Bet Behinds' totals per seat last announced (``behind_totals``): (seat, bettors,
    #: staked) of the round ``announced_round``.
    announced: tuple[tuple[int, int, int], ...] = ()
    announced_round: str = ""

    def seat(self, n: int) -> Seat | None:
        return next((s for s in self.seats if s.seat == n), None)

    def bet(self, n: int) -> SeatBet | None:
        return next((b for b in self.bets if b.seat == n), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Watching:
    """A player seen watching a table (a WatchTable stream on some replica): when a replica
    last said so, and when the newest session they watch with expires."""

    player_key: str
    seen_at: datetime
    expires_at: datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredTable:
    """A table's row: its version (compare-and-set), newest event number and state."""

    table_id: str
    version: int
    last_seq: int
    state: TableState


@dataclass(frozen=True, slots=True, kw_only=True)
class TableEvent:
    """One numbered event of a table, as watchers get it (``payload`` is JSON text)."""

    table_id: str
    seq: int
    kind: str
    payload: str
    at: datetime | None = None
    #: ``payload`` decoded, when whoever read it decoded it once for every watcher.
    data: dict[str, Any] | None = field(default=None, compare=False)


# --------------------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True, kw_only=True)
class BetCommand:
    """One bet of PlaceBets: on the player's own seat (main and side bets) or, with
    ``behind``, on another player's seat with its presets."""

    seat: int
    stake: int
    perfect_pairs: int = 0
    twenty_one_plus_three: int = 0
    twenty_plus: int = 0
    behind: bool = False
    follow_double: bool = False
    follow_split: bool = False
    insurance: BehindInsurance = BehindInsurance.NEVER
    #: A free bet staked on the main bet of the player's own seat ("": none).
    free_bet_id: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableAct:
    """A seated player's decision on the hand to act."""

    round_id: str
    seat: int
    hand: int
    action: Action


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerRecord:
    """What a table command's idempotency record keeps: its event number (a retry is
    answered with it and the table as it is then)."""

    seq: int
