"""What a replica remembers of a player after a call, so the player's next call on the same
replica reads nothing first: its first write takes the lease back only if nobody took it since
(:func:`~rgs.journal.leases.resume`), which proves that what the replica remembers is still the
player's state. Otherwise nothing is written, the call fails with
:class:`~rgs.service.ports.JournalStale` and runs again reading as usual.

A call is remembered only when it left nothing open: it started with no open outbox row, wrote
only its own round's rows (an outbox row, the step's commit, a paid win's outcome and its answer)
and gave the lease back with its last write (a win paid after that write is remembered paid:
:mod:`rgs.journal.late_answers` writes its answer). ops/database.md has the safety argument.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace

from rgs.service.model import (
    CallRead,
    CallState,
    Movement,
    MovementStatus,
    RequestScope,
    SessionSeed,
    StoredRound,
)
from rgs.service.writes import PaidAnswer, StepWrite

#: Players a replica remembers at most (the least recently played are forgotten first).
REMEMBERED_PLAYERS = 20_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Left:
    """What a player's last call on this replica left: the lease's epoch as it gave it back,
    the round it played and that round's movements as committed, and (when known) the
    session's next fair seed."""

    epoch: int
    round: StoredRound
    movements: tuple[Movement, ...]
    #: The session whose next seed is known (None: not known).
    seed_session: str | None
    next_seed: SessionSeed | None

    def state_for(self, read: CallRead) -> CallState | None:
        """The state ``read`` would find, if this memory answers it (an Act on the round, or
        a Deal in the round's brand, currency and session once the round is finished); None
        otherwise. The request id is taken to be new: the first write checks it."""
        if not read.resumable or read.scope is not RequestScope.PLAYER:
            return None
        rnd = self.round
        if read.round_id is not None:
            if read.active_in is None and read.round_id == rnd.round_id and not rnd.finished:
                return CallState(request=None, open_movements=[], round=rnd,
                                 round_movements=list(self.movements))
            return None
        if (read.active_in == (rnd.brand_id, rnd.currency) and rnd.finished
                and read.seed_of is not None and read.seed_of == self.seed_session):
            return CallState(request=None, open_movements=[], round=None, round_movements=[],
                             next_seed=self.next_seed)
        return None


class Trail:
    """What one call read and wrote, to remember it afterwards (:meth:`left`)."""

    def __init__(self, carried: Left | None) -> None:
        self._carried = carried
        self._clean = True
        self._state: CallState | None = None
        self._read: CallRead | None = None
        self._round: StoredRound | None = None
        self._rows: list[Movement] = []
        self._seed: SessionSeed | None = None
        self._seeded = False

    def spoil(self) -> None:
        """The call did something this memory does not follow: nothing is remembered."""
        self._clean = False

    def read(self, read: CallRead, state: CallState) -> None:
        """The call's first read and what it found."""
        if self._state is not None or state.open_movements:
            self._clean = False
        self._state, self._read = state, read
        if state.round is not None:
            self._rows = list(state.round_movements)

    def movement(self, m: Movement) -> None:
        """An outbox row written."""
        if self._round_id() not in (None, m.round_id):
            self._clean = False
        self._rows.append(m)

    def commit(self, write: StepWrite) -> None:
        """A step committed (mirrors the commit's SQL on the round's rows)."""
        round = write.round
        if self._round is not None and self._round.round_id != round.round_id:
            self._clean = False
        self._round = round
        bookings = {b.transaction_id: b for b in write.bookings}
        for i, m in enumerate(self._rows):
            b = bookings.get(m.transaction_id)
            if b is None:
                continue
            given = b.balance
            if m.status is MovementStatus.APPLIED or (
                    m.status is MovementStatus.PENDING and given is not None):
                self._rows[i] = replace(
                    m, status=MovementStatus.BOOKED,
                    balance_after=m.balance_after if given is None else given,
                    wallet_reference=b.wallet_reference or m.wallet_reference,
                    attempts=m.attempts + (0 if given is None else 1),
                    last_error=m.last_error if given is None else "")
        self._rows.extend(write.movements)
        if write.next_seed is not None:
            self._seed, self._seeded = write.next_seed, True

    def answered(self, answer: PaidAnswer) -> None:
        """A wallet call's answer recorded (with the call's new answer)."""
        a = answer
        for i, m in enumerate(self._rows):
            if m.transaction_id == a.transaction_id:
                self._rows[i] = replace(
                    m, status=a.status,
                    balance_after=m.balance_after if a.balance_after is None
                    else a.balance_after,
                    wallet_reference=a.wallet_reference or m.wallet_reference,
                    attempts=m.attempts + 1, last_error=a.error)
                return
        self._clean = False

    def _round_id(self) -> str | None:
        if self._round is not None:
            return self._round.round_id
        if self._state is not None and self._state.round is not None:
            return self._state.round.round_id
        return None

    def left(self, epoch: int) -> Left | None:
        """What to remember once the call gave the lease back at ``epoch`` (None: nothing)."""
        rnd, state, read = self._round, self._state, self._read
        if not self._clean or rnd is None or state is None or read is None:
            return None
        if any(m.is_open or m.round_id != rnd.round_id for m in self._rows):
            return None
        if state.round is not None and state.round.round_id != rnd.round_id:
            return None
        seed_session: str | None = None
        seed = self._seed
        if read.seed_of is not None and read.seed_of == rnd.session_id:  # a Deal's read
            seed_session, seed = rnd.session_id, self._seed if self._seeded else state.next_seed
        elif self._carried is not None and self._carried.seed_session == rnd.session_id:
            seed_session = rnd.session_id
            seed = self._seed if self._seeded else self._carried.next_seed
        return Left(epoch=epoch, round=rnd, movements=tuple(self._rows),
                    seed_session=seed_session, next_seed=seed)


class Memory:
    """The players this replica remembers (bounded, least recently played forgotten first)."""

    def __init__(self, size: int = REMEMBERED_PLAYERS) -> None:
        self._size = size
        self._left: OrderedDict[str, Left] = OrderedDict()

    def take(self, player_key: str) -> Left | None:
        """What the player's last call left, forgotten now (a call remembers anew)."""
        return self._left.pop(player_key, None)

    def keep(self, player_key: str, left: Left) -> None:
        """Remember a call's outcome."""
        self._left[player_key] = left
        self._left.move_to_end(player_key)
        while len(self._left) > self._size:
            self._left.popitem(last=False)
