"""An in-memory :class:`~rgs.service.ports.Journal` for unit tests and experiments.

It keeps the same contract as :class:`~rgs.journal.postgres.PostgresJournal`: a player's journal
is held exclusively, ``commit_round`` is all-or-nothing, events are append-only.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from rgs.service.model import (
    CallRead,
    CallState,
    FairRecord,
    Movement,
    MovementStatus,
    OutboxBacklog,
    PlayerPace,
    RequestScope,
    Session,
    SessionSeed,
    StoredRequest,
    StoredRound,
)
from rgs.service.ports import JournalBusy, JournalLeaseLost
from rgs.service.writes import PaidAnswer, StepWrite
from rgs.wallet.port import MoneyKind


@dataclass(slots=True)
class _Tables:
    keys: dict[str, str] = field(default_factory=dict)
    sessions: dict[tuple[str, str], Session] = field(default_factory=dict)
    rounds: dict[tuple[str, str], StoredRound] = field(default_factory=dict)
    requests: dict[tuple[str, str, str], StoredRequest] = field(default_factory=dict)
    movements: dict[tuple[str, str], Movement] = field(default_factory=dict)
    order: list[tuple[str, str]] = field(default_factory=list)
    #: When each outbox row was written first, and last.
    created: dict[tuple[str, str], datetime] = field(default_factory=dict)
    touched: dict[tuple[str, str], datetime] = field(default_factory=dict)
    #: When each round was last written.
    round_touched: dict[tuple[str, str], datetime] = field(default_factory=dict)
    #: Fair rounds: the next seed of each (player key, session id), the seeds of each round.
    next_seeds: dict[tuple[str, str], SessionSeed] = field(default_factory=dict)
    round_seeds: dict[tuple[str, str], FairRecord] = field(default_factory=dict)
    #: When each (player key, session id) last acknowledged a reality check.
    reality_checks: dict[tuple[str, str], datetime] = field(default_factory=dict)


    def with_seeds(self, r: StoredRound | None) -> StoredRound | None:
        """``r`` with its fair record (read from its own table, as PostgreSQL joins it)."""
        return None if r is None else self.seeded(r)

    def seeded(self, r: StoredRound) -> StoredRound:
        """``r`` with its fair record."""
        return replace(r, fair=self.round_seeds.get((r.player_key, r.round_id)))


def retry_delay(attempts: int, min_age: timedelta, max_backoff: timedelta) -> timedelta:
    """How long an open outbox row rests after its last call: ``min_age``, doubled for every
    attempt after the first, at most ``max_backoff`` (never below ``min_age``)."""
    doubled: timedelta = min_age * (1 << min(max(attempts - 1, 0), 20))
    return min(doubled, max(max_backoff, min_age))


class InMemoryPlayerJournal:
    """One player's journal while held."""

    def __init__(self, tables: _Tables, player_key: str, clock: Callable[[], datetime],
                 epoch: int = 0, *, release: Callable[[], None] | None = None) -> None:
        self._t = tables
        self._key = player_key
        self._clock = clock
        #: The hold's fencing epoch (each hold of a player gets the next one).
        self.epoch = epoch
        #: Given back by a commit marked ``last``: like a lease released, nothing more is
        #: written, and another call may take the player at once (``release``).
        self.given_back = False
        self._release = release

    def _give_back(self) -> None:
        self.given_back = True
        if self._release is not None:
            self._release()

    def _check_open(self) -> None:
        if self.given_back:
            raise JournalLeaseLost(f"{self._key}'s journal was given back with the last commit")

    async def find_request(self, request_id: str, scope: RequestScope) -> StoredRequest | None:
        """The idempotency record of ``request_id`` in ``scope``."""
        return self._t.requests.get((self._key, scope.value, request_id))

    async def open_call(self, read: CallRead) -> CallState:
        """The request's record, the open outbox rows, the round and its movements."""
        rnd = (await self.get_round(read.round_id) if read.round_id is not None
               else await self.active_round(*read.active_in) if read.active_in is not None
               else None)
        return CallState(request=await self.find_request(read.request_id, read.scope),
                         open_movements=await self.open_movements(), round=rnd,
                         round_movements=[] if rnd is None else await self.movements(
                             rnd.round_id),
                         next_seed=None if read.seed_of is None
                         else await self.next_seed(read.seed_of))

    async def get_round(self, round_id: str) -> StoredRound | None:
        """One of this player's rounds."""
        return self._t.with_seeds(self._t.rounds.get((self._key, round_id)))

    async def active_round(self, brand_id: str, currency: str) -> StoredRound | None:
        """The unfinished round in a brand and currency."""
        return self._t.with_seeds(next((r for (k, _), r in self._t.rounds.items()
                                        if k == self._key and not r.finished
                                        and r.brand_id == brand_id and r.currency == currency),
                                       None))

    async def movements(self, round_id: str) -> list[Movement]:
        """A round's movements, oldest first."""
        return [self._t.movements[k] for k in self._t.order
                if k[0] == self._key and self._t.movements[k].round_id == round_id]

    async def open_movements(self) -> list[Movement]:
        """Outbox rows not final yet."""
        return [self._t.movements[k] for k in self._t.order
                if k[0] == self._key and self._t.movements[k].is_open]

    async def record_movement(self, movement: Movement) -> None:
        """Write an outbox row."""
        self._check_open()
        k = (self._key, movement.transaction_id)
        if k not in self._t.movements:
            self._t.movements[k] = movement
            self._t.order.append(k)
            self._t.created[k] = self._t.touched[k] = self._clock()

    async def settle_movement(self, transaction_id: str, status: MovementStatus,
                              balance_after: int | None, *, error: str | None = None,
                              wallet_reference: str = "") -> None:
        """Record a call's outcome."""
        self._check_open()
        m = self._record(transaction_id, status, balance_after, error, wallet_reference)
        if m.kind is MoneyKind.ROLLBACK and status is MovementStatus.APPLIED:
            # The same write rolls its debit back (as the PostgreSQL statement does).
            d = (self._key, m.debit_transaction_id)
            if d in self._t.movements:
                self._t.movements[d] = replace(self._t.movements[d],
                                               status=MovementStatus.ROLLED_BACK)
                self._t.touched[d] = self._clock()

    async def commit_round(self, write: StepWrite) -> None:
        """Header, events, record, outbox rows and seeds, all at once."""
        self._check_open()
        round = write.round
        k = (self._key, round.round_id)
        old = self._t.rounds.get(k)
        if old is not None and tuple(round.events[:len(old.events)]) != old.events:
            raise AssertionError("round_events is append-only")
        now = self._clock()
        created = old.created_at if old is not None else now
        finished = (old.finished_at if old is not None and old.finished_at else
                    (now if round.finished else None))
        self._t.rounds[k] = replace(round, created_at=created, finished_at=finished,
                                    updated_at=now,  # the channel: the first step's
                                    channel=round.channel if old is None else old.channel)
        self._t.round_touched[k] = now
        request = write.request
        if request is not None:
            self._t.requests[(self._key, request.scope.value, request.request_id)] = request
        for m in write.movements:
            await self.record_movement(m)
        for b in write.bookings:
            mk = (self._key, b.transaction_id)
            m = self._t.movements[mk]
            if b.balance is not None and m.status is MovementStatus.PENDING:
                m = replace(m, attempts=m.attempts + 1, last_error="", balance_after=b.balance,
                            status=MovementStatus.APPLIED,
                            wallet_reference=b.wallet_reference or m.wallet_reference)
                self._t.touched[mk] = now
            if m.status is MovementStatus.APPLIED:
                self._t.movements[mk] = replace(m, status=MovementStatus.BOOKED)
        if write.seeds is not None and write.next_seed is not None:
            self._t.round_seeds[k] = write.seeds
            self._t.next_seeds[(self._key, write.next_seed.session_id)] = write.next_seed
        if write.last:
            self._give_back()

    def _record(self, transaction_id: str, status: MovementStatus, balance_after: int | None,
                error: str | None, wallet_reference: str) -> Movement:
        """A wallet call's outcome on its row (``error`` None: not an attempt); the row as it
        was."""
        k = (self._key, transaction_id)
        m = self._t.movements[k]
        if error is not None:
            m = replace(m, attempts=m.attempts + 1, last_error=error)
        self._t.movements[k] = replace(
            m, status=status, balance_after=m.balance_after if balance_after is None
            else balance_after, wallet_reference=wallet_reference or m.wallet_reference)
        self._t.touched[k] = self._clock()
        return m

    async def answer_later(self, answer: PaidAnswer) -> None:
        """A win's wallet answer after the call gave the journal back: recorded at once here
        (the PostgreSQL journal a moment later), only while the credit is still open."""
        a = answer
        m = self._t.movements.get((self._key, a.transaction_id))
        if m is None or m.kind is not MoneyKind.CREDIT or not m.is_open:
            return
        self._record(a.transaction_id, a.status, a.balance_after, a.error, a.wallet_reference)
        rk = (self._key, a.scope.value, a.request_id)
        if a.response is not None and rk in self._t.requests:
            self._t.requests[rk] = replace(self._t.requests[rk], response=a.response)

    async def update_response(self, request_id: str, response: str,
                              scope: RequestScope) -> None:
        """Replace a stored response."""
        self._check_open()
        k = (self._key, scope.value, request_id)
        self._t.requests[k] = replace(self._t.requests[k], response=response)

    async def save_session(self, session: Session, token_hash: str,
                           request: StoredRequest | None) -> None:
        """Store a session token and its request record."""
        self._check_open()
        self._t.sessions[(self._key, token_hash)] = session
        if request is not None:
            self._t.requests[(self._key, request.scope.value, request.request_id)] = request

    async def next_seed(self, session_id: str) -> SessionSeed | None:
        """The session's next seed."""
        return self._t.next_seeds.get((self._key, session_id))

    async def pace(self, session_id: str, *, except_round: str = "") -> PlayerPace:
        """What a jurisdiction's rules read before a new round (solo rounds: this journal
        holds no tables)."""
        mine = [r for (k, _), r in self._t.rounds.items() if k == self._key]
        starts = [r.created_at for r in mine if r.created_at is not None]
        plays = [self._t.round_touched[k] for k, r in self._t.rounds.items()
                 if k[0] == self._key and r.session_id == session_id]
        plays += [self._t.created[k] for k, m in self._t.movements.items()
                  if k[0] == self._key and m.session_id == session_id]
        return PlayerPace(last_round_start=max(starts, default=None),
                          open_rounds=sum(not r.finished for r in mine),
                          last_play=max(plays, default=None),
                          reality_checked_at=self._t.reality_checks.get((self._key, session_id)))

    async def acknowledge_reality_check(self, session_id: str, at: datetime) -> None:
        """Record a reality check acknowledged."""
        self._check_open()
        self._t.reality_checks[(self._key, session_id)] = at

    async def save_next_seed(self, seed: SessionSeed) -> None:
        """A session's first seed (an existing one is kept)."""
        self._t.next_seeds.setdefault((self._key, seed.session_id), seed)



class InMemoryJournal:
    """The whole journal in dictionaries."""

    def __init__(self, *, clock: Callable[[], datetime] | None = None,
                 lock_wait_s: float = 5.0) -> None:
        self.tables = _Tables()
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        #: The request each held player's call serves ("" when none was said).
        self._holding: dict[str, str] = {}
        #: Each player's newest hold's epoch, and the epoch of the hold held now.
        self._epochs: defaultdict[str, int] = defaultdict(int)
        self._held: dict[str, int] = {}
        self._clock = clock or (lambda: datetime.now(UTC))
        self._wait = lock_wait_s

    def now(self) -> datetime:
        """The journal's clock (what it stamps rows with)."""
        return self._clock()

    @asynccontextmanager
    async def player(self, player_key: str, first: CallRead | None = None
                     ) -> AsyncIterator[InMemoryPlayerJournal]:
        """Hold a player's journal; JournalBusy after the wait limit, saying whether the
        holder serves the same request."""
        async with self.hold(player_key, request=first.request_id if first is not None
                             else "") as pj:
            yield pj

    @asynccontextmanager
    async def hold(self, player_key: str, *, request: str = "", wait_s: float | None = None
                   ) -> AsyncIterator[InMemoryPlayerJournal]:
        """Hold a player's journal (waiting at most ``wait_s``, else the journal's limit; 0:
        one try) with the next epoch of its hold (the shared tables' guards check it)."""
        lock = self._locks[player_key]
        wait = self._wait if wait_s is None else wait_s
        try:
            if wait <= 0 and lock.locked():
                raise TimeoutError
            await asyncio.wait_for(lock.acquire(), max(wait, 0.001))
        except TimeoutError as exc:
            held = self._holding.get(player_key, "")
            same = held == request if request and held else None
            raise JournalBusy("the player's journal is held by another call",
                              same_request=same) from exc
        self._holding[player_key] = request
        self._epochs[player_key] += 1
        epoch = self._held[player_key] = self._epochs[player_key]
        released = False

        def release() -> None:
            # Once: by the last write (as PostgreSQL's statement gives the lease back) or on
            # leaving the block, whichever comes first.
            nonlocal released
            if released:
                return
            released = True
            if self._held.get(player_key) == epoch:
                self._holding.pop(player_key, None)
                self._held.pop(player_key, None)
            lock.release()

        try:
            yield InMemoryPlayerJournal(self.tables, player_key, self._clock, epoch,
                                        release=release)
        finally:
            release()

    def holds(self, player_key: str, epoch: int) -> bool:
        """Whether the hold of ``epoch`` still holds the player (a lease not lost)."""
        return self._held.get(player_key) == epoch

    async def operator_for_key(self, key_hash: str) -> str | None:
        """The operator of an API key hash."""
        return self.tables.keys.get(key_hash)

    async def add_operator_key(self, *, operator_id: str, key_hash: str, label: str) -> None:
        """Store an API key hash."""
        self.tables.keys[key_hash] = operator_id

    async def find_session(self, player_key: str, token_hash: str) -> Session | None:
        """The session of a token hash."""
        return self.tables.sessions.get((player_key, token_hash))

    async def session_money(self, player_key: str, session_id: str, *, except_round: str = ""
                            ) -> tuple[int, int]:
        """A session's stakes booked and wins owed so far, but for one round's."""
        mine = [m for (k, _), m in self.tables.movements.items()
                if k == player_key and m.session_id == session_id
                and m.round_id != except_round]
        staked = sum(m.amount for m in mine if m.kind is MoneyKind.DEBIT
                     and m.status in (MovementStatus.BOOKED, MovementStatus.APPLIED))
        return staked, sum(m.amount for m in mine if m.kind is MoneyKind.CREDIT)

    async def get_round(self, player_key: str, round_id: str) -> StoredRound | None:
        """A round."""
        return self.tables.with_seeds(self.tables.rounds.get((player_key, round_id)))

    async def next_seed(self, player_key: str, session_id: str) -> SessionSeed | None:
        """A session's next seed."""
        return self.tables.next_seeds.get((player_key, session_id))

    async def active_round(self, player_key: str, brand_id: str, currency: str
                           ) -> StoredRound | None:
        """The unfinished round in a brand and currency."""
        return await InMemoryPlayerJournal(self.tables, player_key, self._clock).active_round(
            brand_id, currency)

    async def list_rounds(self, player_key: str, brand_id: str, *,
                          before: tuple[datetime, str] | None, limit: int) -> list[StoredRound]:
        """Rounds newest first."""
        rows = [self.tables.seeded(r) for (k, _), r in self.tables.rounds.items()
                if k == player_key and r.brand_id == brand_id]
        rows.sort(key=lambda r: (r.created_at or datetime.min.replace(tzinfo=UTC), r.round_id),
                  reverse=True)
        if before is not None:
            rows = [r for r in rows if (r.created_at, r.round_id) < before]
        return rows[:limit]

    async def movements(self, player_key: str, round_id: str) -> list[Movement]:
        """A round's movements."""
        return await InMemoryPlayerJournal(self.tables, player_key, self._clock).movements(
            round_id)

    async def abandoned_rounds(self, *, before: datetime, limit: int,
                               operator_id: str | None = None) -> list[StoredRound]:
        """Unfinished rounds untouched since before ``before`` (of ``operator_id``'s)."""
        rows = [r for r in self.tables.rounds.values()
                if not r.finished and self.tables.round_touched[(r.player_key, r.round_id)]
                < before and operator_id in (None, r.operator_id)]
        rows.sort(key=lambda r: self.tables.round_touched[(r.player_key, r.round_id)])
        return rows[:limit]

    async def players_with_open_movements(self, *, now: datetime, min_age: timedelta,
                                          max_backoff: timedelta, limit: int) -> list[str]:
        """Players with an outbox row open and due (see the port)."""
        keys: list[str] = []
        for k in self.tables.order:
            m = self.tables.movements[k]
            if (m.is_open and self.tables.touched[k] < now - retry_delay(
                    m.attempts, min_age, max_backoff) and k[0] not in keys):
                keys.append(k[0])
        return keys[:limit]

    async def outbox_backlog(self) -> OutboxBacklog:
        """The open outbox rows of every player, and the age of the oldest."""
        opened = [self.tables.created[k] for k in self.tables.order
                  if self.tables.movements[k].is_open]
        age = (self._clock() - min(opened)).total_seconds() if opened else 0.0
        return OutboxBacklog(open_rows=len(opened), oldest_age_s=age)

    async def active_sessions(self) -> int:
        """Sessions not yet expired."""
        now = self._clock()
        return sum(1 for s in self.tables.sessions.values() if s.expires_at > now)

    async def flush_answers(self) -> None:
        """Nothing owed: :meth:`InMemoryPlayerJournal.answer_later` records at once."""

    async def close(self) -> None:
        """Nothing to release (the same call as the PostgreSQL journal's)."""
