"""Values of the service layer: tenants, sessions, stored rounds, commands and results."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from types import MappingProxyType

from rgs.engine import Action, BoxBet, Event, RoundView, TableLimits
from rgs.service.jurisdiction import NONE, JurisdictionProfile
from rgs.variants.options import DEFAULT_OPTIONS, VariantOptions
from rgs.wallet.port import MoneyKind


@dataclass(frozen=True, slots=True, kw_only=True)
class Brand:
    """An operator's brand: which variants it offers with which options, in which currencies,
    at which limits."""

    id: str
    operator_id: str
    #: Currencies the brand plays in; the first is used when CreateSession names none.
    currencies: tuple[str, ...]
    #: Enabled variant ids, in display order.
    variants: tuple[str, ...]
    #: Table limits per currency, then per variant id (every pair has an entry).
    limits: Mapping[str, Mapping[str, TableLimits]] = field(default_factory=dict)
    #: The brand's options per variant id (a variant without an entry plays as written).
    options: Mapping[str, VariantOptions] = field(default_factory=dict)
    #: Browser origins (``https://host[:port]``) whose pages may call for the brand's players
    #: (see rgs.api.origins); empty: no browser page may.
    web_origins: tuple[str, ...] = ()
    #: Show the exact value of every decision in round views (:mod:`rgs.service.advice`).
    hints: bool = False
    #: The market's rules the server enforces for the brand (:mod:`rgs.service.jurisdiction`).
    jurisdiction: JurisdictionProfile = NONE
    #: Where the brand's launch URLs point (a studio's own client; "": the reference web
    #: table on the browser edge) (:mod:`rgs.service.launch`).
    launch_url: str = ""
    #: Demo play's starting balance per currency in minor units; empty: no demo play.
    demo_balances: Mapping[str, int] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.id, self.operator_id))

    @property
    def currency(self) -> str:
        """The brand's default currency."""
        return self.currencies[0]

    def variant_options(self, variant_id: str) -> VariantOptions:
        """The brand's options for a variant it offers."""
        return self.options.get(variant_id, DEFAULT_OPTIONS)


class Channel(enum.StrEnum):
    """The edge a round's bets came through, recorded with the round for RTP monitoring
    (docs/rtp-monitoring.md): the native gRPC port (operators' platforms and native clients) or
    the browser edge (Connect, gRPC-Web or gRPC on the browser edge's port: game clients in
    browsers, ``rgs.api.browser_edge``). A round dealt without an edge (in process) records none."""

    GRPC = "grpc"
    BROWSER = "browser"


class InterruptedResolution(enum.StrEnum):
    """What becomes of a round its player abandoned, once its time has passed."""

    #: The RGS completes it by the documented rule (remaining hands stand, insurance declined,
    #: Cash Out not taken) and pays what it wins.
    COMPLETE = "complete"
    #: It waits for the operator to resolve it (ResolveRound: complete or void).
    OPERATOR = "operator"


@dataclass(frozen=True, slots=True, kw_only=True)
class InterruptedRoundsPolicy:
    """An operator's policy for rounds its players abandon."""

    #: How long after the round's last step it counts as interrupted.
    after: timedelta = timedelta(minutes=60)
    resolution: InterruptedResolution = InterruptedResolution.COMPLETE


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """A player's game session as stored (the token itself is never stored)."""

    session_id: str
    player_key: str
    operator_id: str
    brand_id: str
    player_id: str
    currency: str
    expires_at: datetime
    #: How shared tables show the player ("": a pseudonym per table).
    nickname: str = ""
    #: When the session opened (None on a session stored before it was kept).
    started_at: datetime | None = None
    #: The reality-check interval in seconds, as CreateSession gave it or the brand's profile
    #: (0: none).
    reality_check_s: int = 0
    #: The language the session was launched in (BCP 47: en, de, es; "": not launched, the
    #: client's own default).
    language: str = ""

    @property
    def demo(self) -> bool:
        """A demo session: virtual money, no player id and no wallet (:mod:`rgs.service.demo`)."""
        return self.player_id.startswith("demo~")


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerPace:
    """What a jurisdiction's rules read of a player before a new round, in the player's
    journal (every time as the journal recorded it)."""

    #: The start of the player's last solo round across the operator (None: no round yet).
    last_round_start: datetime | None
    #: The player's unfinished rounds across every brand and currency of the operator.
    open_rounds: int
    #: The session's last step of play (a round started or moved, a stake, a win), None: none.
    last_play: datetime | None
    #: When the player last acknowledged a reality check in this session (None: never).
    reality_checked_at: datetime | None
    #: The deal of the last table round the player had a stake in (None: none).
    last_table_start: datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionPosition:
    """A session's money so far, exactly as the journal's wallet movements record it: every
    stake booked and every win owed (net: paid - staked), and how long it has run."""

    started_at: datetime
    elapsed_s: int
    staked: int
    paid: int

    @property
    def net(self) -> int:
        """Paid minus staked: what the session has won (negative: lost)."""
        return self.paid - self.staked


@dataclass(frozen=True, slots=True, kw_only=True)
class NewSession:
    """A freshly created session with its secret token (shown once)."""

    session: Session
    token: str
    #: The player's balance when the session opened; None when the wallet did not answer.
    balance: int | None = None
    #: The commitment (SHA-256, hex) of the seed the session's first round will use; "" when
    #: the certified RNG could not draw one (the first Deal then draws and is refused alike).
    next_commitment: str = ""


class MovementStatus(enum.StrEnum):
    """Where a wallet movement (an outbox row) stands."""

    #: Written before the wallet call; the call's outcome is not known yet.
    PENDING = "pending"
    #: The wallet confirmed it. Final for a credit or a rollback; a debit waits for its step's
    #: commit (a crash in between leaves an applied debit that must be rolled back).
    APPLIED = "applied"
    #: A debit whose step is committed in the journal: final.
    BOOKED = "booked"
    #: A debit the wallet refused for good: final, nothing moved.
    REFUSED = "refused"
    #: The call timed out or failed (or a credit or rollback was refused): retried.
    UNKNOWN = "unknown"
    #: A debit cancelled by a confirmed rollback: final.
    ROLLED_BACK = "rolled_back"


OPEN_STATUSES: Mapping[MoneyKind, frozenset[MovementStatus]] = MappingProxyType({
    MoneyKind.DEBIT: frozenset({MovementStatus.PENDING, MovementStatus.UNKNOWN,
                                MovementStatus.APPLIED}),
    MoneyKind.CREDIT: frozenset({MovementStatus.PENDING, MovementStatus.UNKNOWN}),
    MoneyKind.ROLLBACK: frozenset({MovementStatus.PENDING, MovementStatus.UNKNOWN}),
})
"""The statuses in which a movement of each kind still needs work (:func:`is_open`)."""


def is_open(kind: MoneyKind, status: MovementStatus) -> bool:
    """The outbox rule: True while a movement still needs a wallet call, or (an applied debit)
    the commit of its step. Every journal, the reconciler and the outbox gauges use this rule
    (the PostgreSQL journal as SQL generated from :data:`OPEN_STATUSES`).

    >>> is_open(MoneyKind.DEBIT, MovementStatus.APPLIED)
    True
    >>> is_open(MoneyKind.CREDIT, MovementStatus.APPLIED)
    False
    >>> is_open(MoneyKind.ROLLBACK, MovementStatus.UNKNOWN)
    True
    """
    return status in OPEN_STATUSES[kind]


@dataclass(frozen=True, slots=True, kw_only=True)
class Movement:
    """A wallet movement of a round, as the outbox records it."""

    transaction_id: str
    round_id: str
    kind: MoneyKind
    amount: int
    status: MovementStatus = MovementStatus.PENDING
    balance_after: int | None = None
    #: The wallet's own reference for the movement, once it answered ("" until then, or when
    #: the wallet gave none): what reconciliation matches against the wallet's export.
    wallet_reference: str = ""
    #: Rollbacks only: the debit being cancelled.
    debit_transaction_id: str = ""
    #: Credits only: the win of a free bet (docs/freebets.md), marked promotional in the
    #: wallet call (the journal reads it from the round's free-bet use, so a retry repeats it).
    promotional: bool = False
    #: The brand, session and currency the call is made in (a retry repeats them exactly).
    session_id: str = ""
    currency: str = ""
    brand_id: str = ""
    #: Wallet calls made for this row so far, and the last one's error ("" when it answered).
    attempts: int = 0
    last_error: str = ""
    #: When the row was written (as the journal read it back; None on a row not yet stored):
    #: how long a win has waited for the wallet is measured from here.
    created_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        """True while this row still needs work (see :func:`is_open`)."""
        return is_open(self.kind, self.status)


@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxBacklog:
    """The open outbox rows of the whole journal: how many, and how long the oldest has been
    waiting (0 when none)."""

    open_rows: int
    oldest_age_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionSeed:
    """The server seed a session's next fair round will use (secret; only its commitment is
    published). One seed per round: the Deal that uses it puts a fresh one in its place."""

    session_id: str
    #: The 32-byte server seed, lower-case hex.
    server_seed: str
    #: SHA-256 of the seed's bytes, lower-case hex: what the player is shown before betting.
    commitment: str
    #: The round number (the DRBG nonce) the seed is used with: 1 for a session's first round.
    round_number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FairRecord:
    """A provably fair round's inputs as the journal holds them (:mod:`rgs.rng.fair`). The
    server seed never leaves the journal before the round is settled or voided."""

    server_seed: str
    commitment: str
    client_seed: str
    round_number: int
    decks: int
    #: The commitment published for the session's next round when this one was dealt.
    next_commitment: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundFreeBet:
    """The free bet a solo round stakes: the grant, its value and the box it rides on."""

    grant_id: str
    value: int
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredRound:
    """A round as the journal holds it: its header and every event."""

    round_id: str
    player_key: str
    session_id: str
    operator_id: str
    brand_id: str
    player_id: str
    currency: str
    variant: str
    seq: int
    #: The engine phase value (``insurance``, ``player_turn``, ``settled``, ``voided``).
    status: str
    forced_cards: tuple[str, ...]
    total_staked: int
    total_paid: int
    events: tuple[Event, ...]
    created_at: datetime | None = None
    finished_at: datetime | None = None
    #: When the round was last written (its last step): an unfinished round's idle time runs
    #: from here.
    updated_at: datetime | None = None
    #: The brand's options the round was dealt with (it replays with them, whatever the brand
    #: file says later).
    options: VariantOptions = DEFAULT_OPTIONS
    #: The seeds of a provably fair round; None for forced-card (test mode) rounds and rounds
    #: dealt before fair rounds existed.
    fair: FairRecord | None = None
    #: The free bet the round stakes (None: none), read with the round from its recorded use.
    free_bet: RoundFreeBet | None = None
    #: The edge its Deal came through (None: not recorded, dealt in process or by a release
    #: before channels were journalled). Written with the round's first step only.
    channel: Channel | None = None

    @property
    def finished(self) -> bool:
        """True once settled or voided."""
        return self.status in ("settled", "voided")


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundSummary:
    """A round header for recall (without events)."""

    round: StoredRound
    movements: tuple[Movement, ...]


class RequestScope(enum.StrEnum):
    """Whose namespace a request id lives in: every kind of caller has its own, so a player's
    id never collides with the operator's or the server's."""

    #: The operator's back office (CreateSession, VoidRound).
    OPERATOR = "operator"
    #: The player's session (Deal, Act, Settle).
    PLAYER = "player"
    #: The server itself (the sweeper, an automatic void).
    SYSTEM = "system"


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredRequest:
    """An idempotency record: what a request id was used for and what it answered."""

    request_id: str
    method: str
    request_hash: str
    response: str
    scope: RequestScope = RequestScope.PLAYER


@dataclass(frozen=True, slots=True, kw_only=True)
class CallRead:
    """What a call reads first: the arguments of :meth:`PlayerJournal.open_call
    <rgs.service.ports.PlayerJournal.open_call>`, known before the player's journal is taken,
    so the journal may read them in the same round trip as it takes the player."""

    request_id: str
    scope: RequestScope
    round_id: str | None = None
    active_in: tuple[str, str] | None = None
    seed_of: str | None = None
    #: The call writes before anything leaves the process (no wallet call, no other store),
    #: so the journal may answer this read from what the replica remembers and check it with
    #: the first write (:class:`~rgs.service.ports.JournalStale` when it was out of date).
    resumable: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class CallState:
    """What a player's call reads first, in one go (:meth:`PlayerJournal.open_call
    <rgs.service.ports.PlayerJournal.open_call>`): the request id's record, the open outbox
    rows, the round the call is about and that round's movements."""

    request: StoredRequest | None
    open_movements: list[Movement]
    round: StoredRound | None
    round_movements: list[Movement]
    #: The session's next fair seed, when the call asked for it (a Deal) and one is committed.
    next_seed: SessionSeed | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DealCommand:
    """Place bets and deal a round."""

    request_id: str
    variant_id: str
    boxes: tuple[BoxBet, ...]
    forced_cards: tuple[str, ...] = ()
    #: The player's contribution to the round's card order (printable ASCII, 0-64 characters).
    client_seed: str = ""
    #: The operator's grant whose free bet stakes the first box's main bet ("": none).
    free_bet_id: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ActCommand:
    """One player decision."""

    request_id: str
    round_id: str
    expected_seq: int
    seat: int
    hand: int
    action: Action


@dataclass(frozen=True, slots=True, kw_only=True)
class SettleCommand:
    """Finish a round on the player's behalf."""

    request_id: str
    round_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateSessionCommand:
    """Open a session for a player of one of the operator's brands."""

    request_id: str
    brand_id: str
    player_id: str
    currency: str = ""
    #: How shared tables show the player ("": a pseudonym per table).
    nickname: str = ""
    #: The reality-check interval in seconds (0: the brand's profile's default).
    reality_check_s: int = 0
    #: The language of the launch that opens the session ("": none).
    language: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class VoidCommand:
    """Void an unfinished round of one of the operator's players."""

    request_id: str
    brand_id: str
    player_id: str
    round_id: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayResult:
    """What a play call answers: the round's public view and the wallet balance after it."""

    round_id: str
    view: RoundView
    balance: int
    currency: str
    #: The round's win is not yet acknowledged by the wallet (Settle retries it).
    payment_pending: bool = False
    #: The round's provably fair facts (:class:`FairView`); None only for rounds that have no
    #: seed and no next commitment to show.
    fair: FairView | None = None
    #: Exact decision values of the hand to act (brands with ``hints`` on; see
    #: :mod:`rgs.service.advice`).
    hints: tuple[Hint, ...] = ()
    #: The session's position (brands whose profile shows it; see
    #: :mod:`rgs.service.jurisdiction`).
    position: SessionPosition | None = None
    #: The player's free bets left in the session's brand and currency (docs/freebets.md).
    free_bets: tuple[FreeBetLeft, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class FreeBetLeft:
    """A grant with free bets still to play, as the player sees it."""

    grant_id: str
    value: int
    left: int
    expires_at: datetime
    #: The variants it is for (empty: every variant the brand offers).
    variants: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Hint:
    """One open decision's exact value: expected result in main bets (rgs.math.hints says what
    each kind of decision's value covers)."""

    seat: int
    #: The hand (0 for a box's insurance, INSURE or DECLINE_INSURANCE).
    hand: int
    action: Action
    #: The analysis' value, exactly (a Fraction equal to its float: the codec stores no floats).
    expected_value: Fraction
    #: The decision with the highest value (ties all marked).
    best: bool
    #: Cash Out only: the fair value the offer was priced from (the stake times the fair return
    #: of the hand's total against the up card), in minor units; 0 for other decisions.
    fair_value: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class FairView:
    """What a player is shown about a round's fairness. ``server_seed`` stays empty until the
    round is settled or voided."""

    #: False for forced-card (test mode) rounds and rounds without seeds: they never verify.
    verifiable: bool
    commitment: str = ""
    client_seed: str = ""
    round_number: int = 0
    decks: int = 0
    server_seed: str = ""
    #: The commitment of the seed the session's next round uses.
    next_commitment: str = ""
    #: Once the round is over (with ``server_seed``): the cards in the order they left the
    #: shoe, burned and hole cards included.
    dealt: tuple[str, ...] = ()
