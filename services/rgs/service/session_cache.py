"""A replica's short-lived memory of the sessions it has read, so that a player's every call does
not read its session row again.

What it may keep, and why that is safe: a session row never changes once written (a new session
is a new row; nothing updates one), so a cached copy is the row itself. Its expiry is checked on
every call against the clock, exactly as for a row just read. What it may not hide is a row
deleted behind the service's back (an operator revoking a session by hand): a copy is used for
at most ``ttl_s`` seconds after it was read, so such a revocation takes effect within that time
on every replica. Unknown tokens are never remembered (a session opened through another replica
is found at once), and the memory is bounded (least recently used first out).
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime, timedelta

from rgs.service.model import Session

#: How long a session read from the journal is used without reading it again.
DEFAULT_TTL_S = 30.0
#: How many sessions a replica remembers.
DEFAULT_SIZE = 20_000


class SessionCache:
    """Sessions by (player key, token hash), each for ``ttl_s`` after it was read."""

    def __init__(self, *, ttl_s: float = DEFAULT_TTL_S, size: int = DEFAULT_SIZE) -> None:
        self._ttl = timedelta(seconds=ttl_s)
        self._size = size
        self._entries: OrderedDict[tuple[str, str], tuple[datetime, Session]] = OrderedDict()

    def get(self, player_key: str, token_hash: str, now: datetime) -> Session | None:
        """The session read less than ``ttl_s`` before ``now``, if any."""
        key = (player_key, token_hash)
        entry = self._entries.get(key)
        if entry is None:
            return None
        read_at, session = entry
        if now - read_at >= self._ttl or now < read_at:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return session

    def put(self, token_hash: str, session: Session, now: datetime) -> None:
        """Remember ``session``, read from the journal at ``now``."""
        key = (session.player_key, token_hash)
        self._entries[key] = (now, session)
        self._entries.move_to_end(key)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
