"""What free bets cost a round: nothing for a player without them (the free bets left are read
once per LEFT_TTL_S, a round's end asks the store nothing), and every change through this
replica is shown at once; a round names its free bet in the operator's recall."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from service_fakes import DEV_KEY, Harness, harness

from rgs.api.converters import round_record_to_proto
from rgs.engine import Action, BoxBet
from rgs.service.freebets import LEFT_TTL_S, FreeBetGrant, FreeBets
from rgs.service.model import (
    ActCommand,
    DealCommand,
    PlayResult,
    RoundFreeBet,
    RoundSummary,
    Session,
)

STAND_WINS = ("TS", "6H", "9D", "7C", "9S")
VARIANT = "classic-resplit"
EXPIRES = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)  # the harness clock starts a day before


class Counting:
    """A store that counts the calls made to it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        target = getattr(self.inner, name)

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return await target(*args, **kwargs)
        return counted


def _counting(h: Harness) -> Counting:
    fb = h.app.game.free_bets
    counting = Counting(fb.store)
    fb.store = counting  # type: ignore[assignment]
    return counting


async def _round(h: Harness, s: Session, n: int, free: str = "") -> PlayResult:
    dealt = await h.app.game.deal(s, DealCommand(
        request_id=f"d{n}", variant_id=VARIANT, forced_cards=STAND_WINS,
        boxes=(BoxBet(seat=1, stake=1000),), free_bet_id=free))
    return await h.app.game.act(s, ActCommand(request_id=f"a{n}", round_id=dealt.round_id,
                                              expected_seq=dealt.view.seq, seat=1, hand=0,
                                              action=Action.STAND))


async def _grant(fb: FreeBets, operator: str, grant_id: str = "g1") -> FreeBetGrant:
    return await fb.grant(FreeBetGrant(
        operator_id=operator, grant_id=grant_id, brand_id="demo-casino", player_id="alice",
        currency="EUR", value=1000, count=2, variants=(VARIANT,),
        expires_at=EXPIRES))


async def test_a_player_without_free_bets_costs_one_read_per_ttl_and_none_at_round_end() -> None:
    h = await harness()
    s = await h.session()
    store = _counting(h)
    for n in range(4):
        done = await _round(h, s, n)
        assert done.free_bets == () and h.wallet.balances["alice"] == 100_000 + 1000 * (n + 1)
    assert store.calls == ["usages"]  # 8 answers, one read; no use_of_round at the end
    h.clock.now += timedelta(seconds=LEFT_TTL_S)
    await _round(h, s, 9)
    assert store.calls == ["usages", "usages"]


async def test_a_change_through_this_replica_shows_at_once_and_another_replicas_in_ttl(
) -> None:
    h = await harness()
    s = await h.session()
    operator = await h.app.office.authenticate(DEV_KEY)
    fb = h.app.game.free_bets
    assert (await _round(h, s, 1)).free_bets == ()
    # Another replica (its own FreeBets over the same store) grants: shown within the TTL.
    other = FreeBets(fb.store, None, h.clock, h.app.game.context.brands)
    await _grant(other, operator, "elsewhere")
    assert (await _round(h, s, 2)).free_bets == ()
    h.clock.now += timedelta(seconds=LEFT_TTL_S)
    assert [f.grant_id for f in (await _round(h, s, 3)).free_bets] == ["elsewhere"]
    # Through this replica: at once; the free-bet round reads them afresh, names its free bet.
    await _grant(fb, operator, "here")
    done = await _round(h, s, 4, free="here")
    assert [(f.grant_id, f.left) for f in done.free_bets] == [("elsewhere", 2), ("here", 1)]
    stored = await h.journal.get_round(s.player_key, done.round_id)
    assert stored is not None
    assert stored.free_bet == RoundFreeBet(grant_id="here", value=1000, seat=1)
    recalled = await h.app.office.recall_round(operator, "demo-casino", "alice", done.round_id)
    assert isinstance(recalled, RoundSummary)
    rec = round_record_to_proto(recalled)
    assert (rec.free_bet.grant_id, rec.free_bet.value, rec.free_bet.seat) == ("here", 1000, 1)
    # The free 10.00 won 10.00 (its stake not returned): 4 paid wins of 10.00 each, plus 10.00.
    assert h.wallet.balances["alice"] == 100_000 + 3 * 1000 + 1000
