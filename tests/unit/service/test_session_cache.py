"""The replica's session cache: a session read recently is not read again, expiry is checked on
every call all the same, a row removed by hand stops working within the cache's time, unknown
tokens are never remembered, and the memory is bounded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from service_fakes import DEV_KEY, harness

from rgs.service.errors import Unauthenticated
from rgs.service.model import CreateSessionCommand, Session
from rgs.service.session_cache import DEFAULT_TTL_S, SessionCache

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _session(player: str) -> Session:
    return Session(session_id=f"s-{player}", player_key=f"op/{player}", operator_id="op",
                   brand_id="b", player_id=player, currency="EUR",
                   expires_at=T0 + timedelta(hours=1))


def test_an_entry_lasts_its_time_to_live_and_the_oldest_unused_goes_first() -> None:
    cache = SessionCache(ttl_s=10, size=2)
    a, b, c = _session("a"), _session("b"), _session("c")
    cache.put("ha", a, T0)
    assert cache.get("op/a", "ha", T0 + timedelta(seconds=9.9)) == a
    assert cache.get("op/a", "ha", T0 + timedelta(seconds=10)) is None  # read again
    assert cache.get("op/a", "other-hash", T0) is None
    cache.put("ha", a, T0)
    cache.put("hb", b, T0)
    cache.get("op/a", "ha", T0)  # a used last: b is the one to go
    cache.put("hc", c, T0)
    assert len(cache) == 2
    assert cache.get("op/b", "hb", T0) is None
    assert cache.get("op/a", "ha", T0) == a and cache.get("op/c", "hc", T0) == c


async def _token(h: object) -> str:
    app = h.app  # type: ignore[attr-defined]
    operator = await app.office.authenticate(DEV_KEY)
    new = await app.office.create_session(operator, CreateSessionCommand(
        request_id="s-cache", brand_id="demo-casino", player_id="alice"))
    return str(new.token)


async def test_a_cached_session_still_expires_on_time() -> None:
    h = await harness()
    token = await _token(h)
    session = await h.app.game.authenticate(token)  # read and remembered
    h.clock.now = session.expires_at  # expires while remembered
    with pytest.raises(Unauthenticated) as err:
        await h.app.game.authenticate(token)
    assert err.value.reason == "SESSION_EXPIRED"
    assert await h.app.game.authenticate(token, allow_expired=True) == session


async def test_a_session_row_removed_by_hand_stops_working_within_the_cache_time() -> None:
    h = await harness()
    token = await _token(h)
    session = await h.app.game.authenticate(token)
    h.journal.tables.sessions.clear()  # revoked behind the service's back
    assert await h.app.game.authenticate(token) == session  # still remembered
    h.clock.now += timedelta(seconds=DEFAULT_TTL_S)
    with pytest.raises(Unauthenticated) as err:
        await h.app.game.authenticate(token)
    assert err.value.reason == "INVALID_SESSION_TOKEN"
