"""Jurisdiction profiles enforced by the server for a solo Deal (issue 23): the sandbox's
demo-casino-uk plays under ukgc (5 s between round starts, one game at a time, the session's
position in every view), with its overrides (30 minutes idle, a stake limit in GBP); a reality
check blocks the next round until acknowledged; the wallet's word on the player keeps its own
reason. Brands under ``none`` behave as before."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from service_fakes import DEV_KEY, Harness, harness

from rgs.api.converters import round_view_to_proto
from rgs.engine import Action, BoxBet, Phase
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.platform_file import DEFAULT_PLATFORM_FILE, PlatformError, load_platform
from rgs.service.errors import NotAllowedNow, NotFound, Unauthenticated
from rgs.service.jurisdiction import PROFILES, ResultClass, classify_result
from rgs.service.model import (
    ActCommand,
    CreateSessionCommand,
    DealCommand,
    PlayResult,
    Session,
)
from rgs.wallet.port import MoneyCall, MoneyResult, WalletRefused

UK = "demo-casino-uk"
STAND_WINS = ("TS", "6H", "9D", "7C", "9S")  # 19 v 6+7, dealer draws 9 and busts: pays 2x
PUSH = ("TS", "TH", "9D", "9C")  # 19 v 19: stands, the stake comes back
STAND_LOSES = ("TS", "TH", "9D", "KC")  # 19 v 20: stands and loses


def deal(request_id: str, forced: tuple[str, ...] = STAND_WINS, stake: int = 1_000,
         variant: str = "classic-resplit") -> DealCommand:
    return DealCommand(request_id=request_id, variant_id=variant,
                       boxes=(BoxBet(seat=1, stake=stake),), forced_cards=forced)


async def stand(h: Harness, s: Session, r: PlayResult, rid: str) -> PlayResult:
    return await h.app.game.act(s, ActCommand(request_id=rid, round_id=r.round_id,
                                              expected_seq=r.view.seq, seat=1, hand=0,
                                              action=Action.STAND))


async def uk_session(h: Harness, player: str = "alice", reality_check_s: int = 0) -> Session:
    operator = await h.app.office.authenticate(DEV_KEY)
    new = await h.app.office.create_session(operator, CreateSessionCommand(
        request_id=f"s-{player}-{reality_check_s}", brand_id=UK, player_id=player,
        reality_check_s=reality_check_s))
    return await h.app.game.authenticate(new.token)


# ------------------------------------------------------------------ the platform file


def test_the_sandbox_brand_demo_casino_uk_plays_under_ukgc_with_its_overrides() -> None:
    brands = load_platform(DEFAULT_PLATFORM_FILE).brands
    uk = brands[UK].jurisdiction
    assert (uk.id, uk.min_round_interval_s, uk.one_game_at_a_time,
            uk.show_session_position) == ("ukgc", 5.0, True, True)
    assert (uk.idle_timeout_s, dict(uk.max_stake)) == (1800, {"GBP": 50_000})
    assert brands["demo-casino"].jurisdiction is PROFILES["none"]
    assert brands[UK].currencies == ("GBP",)


def _with_brand(tmp_path: Path, **brand: Any) -> Path:
    raw = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    for op in raw["operators"]:
        op["wallet"]["api_key"] = {"file": str(DEFAULT_PLATFORM_FILE.parent /
                                               op["wallet"]["api_key"]["file"])}
    raw["operators"][0]["brands"][0].update(brand)
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(raw), "utf-8")
    return path


@pytest.mark.parametrize(("brand", "where"), [
    ({"jurisdiction": "atlantis"}, "operators[0].brands[0].jurisdiction"),
    ({"jurisdiction": "ukgc", "overrides": {"min_round_interval_s": 2}},
     "operators[0].brands[0].overrides.min_round_interval_s"),
    ({"jurisdiction": "ukgc", "overrides": {"one_game_at_a_time": False}},
     "operators[0].brands[0].overrides.one_game_at_a_time"),
    ({"jurisdiction": "ontario", "overrides": {"idle_timeout_s": 7200}},
     "operators[0].brands[0].overrides.idle_timeout_s"),
    ({"jurisdiction": "ukgc", "overrides": {"max_stake": {"USD": 100}}},
     "operators[0].brands[0].overrides.max_stake"),
    ({"jurisdiction": "ukgc", "overrides": {"coffee": True}},
     "operators[0].brands[0].overrides.coffee"),
])
def test_a_wrong_profile_or_a_looser_override_is_refused_naming_its_field(
        tmp_path: Path, brand: dict[str, Any], where: str) -> None:
    with pytest.raises(PlatformError) as exc:
        load_platform(_with_brand(tmp_path, **brand))
    assert f": {where}:" in str(exc.value)


def test_an_override_may_make_a_rule_stricter(tmp_path: Path) -> None:
    brands = load_platform(_with_brand(tmp_path, jurisdiction="ukgc", overrides={
        "min_round_interval_s": 8, "reality_check_s": 3600})).brands
    p = brands["demo-casino"].jurisdiction
    assert (p.id, p.min_round_interval_s, p.reality_check_s, p.one_game_at_a_time) == (
        "ukgc", 8, 3600, True)


# ------------------------------------------------------------------ RTS 14G


async def test_a_deal_sooner_than_5_s_after_the_last_start_is_refused_with_the_wait_left(
        ) -> None:
    h = await harness()
    s = await uk_session(h)
    first = await stand(h, s, await h.app.game.deal(s, deal("d1")), "a1")
    assert first.view.phase is Phase.SETTLED
    h.clock.now += timedelta(seconds=1)
    with pytest.raises(NotAllowedNow) as exc:
        await h.app.game.deal(s, deal("d2"))
    assert exc.value.reason == "ROUND_TOO_SOON"
    assert 3_900 <= int(exc.value.metadata["wait_ms"]) <= 4_000
    assert h.wallet.balances["alice"] == 101_000  # nothing taken for the refused Deal
    with pytest.raises(NotFound):
        await h.app.game.get_round(s)
    h.clock.now += timedelta(seconds=4)
    second = await h.app.game.deal(s, deal("d2"))
    assert second.view.phase is Phase.PLAYER_TURN


async def test_brands_under_none_deal_again_at_once() -> None:
    h = await harness()
    s = await h.session()
    await stand(h, s, await h.app.game.deal(s, deal("d1")), "a1")
    again = await h.app.game.deal(s, deal("d2"))
    assert again.view.phase is Phase.PLAYER_TURN and again.position is None
    assert round_view_to_proto(again).HasField("session") is False


# ------------------------------------------------------------------ RTS 14F


async def test_one_game_at_a_time_across_the_operators_brands() -> None:
    h = await harness()
    elsewhere = await h.session()  # demo-casino (none): a round left open there
    await h.app.game.deal(elsewhere, deal("d0"))
    s = await uk_session(h)
    with pytest.raises(NotAllowedNow) as exc:
        await h.app.game.deal(s, deal("d1"))
    assert exc.value.reason == "ANOTHER_GAME_IN_PROGRESS"
    assert h.wallet.balances["alice"] == 99_000  # only the open round's stake


# ------------------------------------------------------------------ RTS 13C / 2E


async def test_every_view_carries_the_sessions_position_exactly() -> None:
    h = await harness()
    s = await uk_session(h)
    h.clock.now += timedelta(seconds=90)
    dealt = await h.app.game.deal(s, deal("d1"))
    assert dealt.position is not None
    assert (dealt.position.staked, dealt.position.paid, dealt.position.net) == (1_000, 0, -1_000)
    assert dealt.position.elapsed_s == 90 and dealt.position.started_at == s.started_at
    won = await stand(h, s, dealt, "a1")
    assert won.position is not None
    assert (won.position.staked, won.position.paid, won.position.net) == (1_000, 2_000, 1_000)
    h.clock.now += timedelta(seconds=5)
    lost = await stand(h, s, await h.app.game.deal(s, deal("d2", STAND_LOSES, stake=500)), "a2")
    assert lost.view.phase is Phase.SETTLED and lost.position is not None
    assert (lost.position.staked, lost.position.paid, lost.position.net) == (1_500, 2_000, 500)
    read = await h.app.game.get_round(s, dealt.round_id)
    assert read.position is not None and (read.position.staked, read.position.paid) == (
        1_500, 2_000)
    msg = round_view_to_proto(lost)
    assert (msg.session.total_staked, msg.session.total_paid, msg.session.net_position,
            msg.session.elapsed_s) == (1_500, 2_000, 500, 95)
    assert h.wallet.balances["alice"] == 100_500


# ------------------------------------------------------------------ RTS 14C


def test_each_settled_result_is_classified_against_its_stake() -> None:
    assert [classify_result(100, p) for p in (150, 100, 50, 0)] == [
        ResultClass.WIN, ResultClass.RETURN_EQUAL, ResultClass.RETURN_BELOW, ResultClass.LOSS]


async def test_a_push_is_a_return_equal_to_the_stake_not_a_win() -> None:
    h = await harness()
    s = await uk_session(h)
    pushed = await stand(h, s, await h.app.game.deal(s, deal("d1", PUSH)), "a1")
    assert pushed.view.phase is Phase.SETTLED and pushed.view.total_paid == 1_000
    assert round_view_to_proto(pushed).result == bj.RESULT_CLASS_RETURN_EQUAL
    h.clock.now += timedelta(seconds=5)
    won = await stand(h, s, await h.app.game.deal(s, deal("d2")), "a2")
    assert round_view_to_proto(won).result == bj.RESULT_CLASS_WIN
    h.clock.now += timedelta(seconds=5)
    lost = await stand(h, s, await h.app.game.deal(s, deal("d3", STAND_LOSES)), "a3")
    assert round_view_to_proto(lost).result == bj.RESULT_CLASS_LOSS
    h.clock.now += timedelta(seconds=5)
    open_round = await h.app.game.deal(s, deal("d4"))
    assert round_view_to_proto(open_round).result == bj.RESULT_CLASS_UNSPECIFIED


# ------------------------------------------------------------------ reality checks


async def test_a_reality_check_due_blocks_the_next_deal_until_acknowledged() -> None:
    h = await harness()
    s = await uk_session(h, reality_check_s=600)
    assert s.reality_check_s == 600
    dealt = await h.app.game.deal(s, deal("d1"))
    h.clock.now += timedelta(seconds=601)
    finished = await stand(h, s, dealt, "a1")  # a round in play finishes
    assert finished.view.phase is Phase.SETTLED
    with pytest.raises(NotAllowedNow) as exc:
        await h.app.game.deal(s, deal("d2"))
    assert exc.value.reason == "REALITY_CHECK_DUE"
    assert int(exc.value.metadata["elapsed_s"]) >= 601
    assert h.wallet.balances["alice"] == 101_000
    position = await h.app.game.session_rules.acknowledge(s)
    assert (position.staked, position.paid) == (1_000, 2_000)
    assert (await h.app.game.deal(s, deal("d2"))).view.phase is Phase.PLAYER_TURN
    h.clock.now += timedelta(seconds=601)  # due again one interval after the acknowledgement
    await stand(h, s, await h.app.game.get_round(s), "a2")
    with pytest.raises(NotAllowedNow) as again:
        await h.app.game.deal(s, deal("d3"))
    assert again.value.reason == "REALITY_CHECK_DUE"


async def test_a_brand_under_none_checks_reality_only_when_the_operator_asks() -> None:
    h = await harness()
    s = await h.session()
    assert s.reality_check_s == 0
    h.clock.now += timedelta(days=1) - timedelta(hours=1)
    assert (await h.app.game.deal(s, deal("d1"))).view.phase is Phase.PLAYER_TURN


# ------------------------------------------------------------------ inactivity and stakes


async def test_a_session_idle_for_the_profiles_time_takes_no_new_round() -> None:
    h = await harness()
    s = await uk_session(h)
    dealt = await h.app.game.deal(s, deal("d1"))
    h.clock.now += timedelta(seconds=1_801)
    await stand(h, s, dealt, "a1")  # finishing the round in play is still allowed
    h.clock.now += timedelta(seconds=1_801)
    with pytest.raises(Unauthenticated) as exc:
        await h.app.game.deal(s, deal("d2"))
    assert (exc.value.reason, exc.value.metadata) == ("SESSION_EXPIRED",
                                                      {"cause": "inactivity"})


async def test_a_stake_above_the_profiles_limit_is_refused() -> None:
    h = await harness()
    h.wallet.balances["alice"] = 1_000_000
    s = await uk_session(h)
    with pytest.raises(NotAllowedNow) as exc:  # within the table's limits (100000), above it
        await h.app.game.deal(s, deal("d1", stake=60_000))
    assert (exc.value.reason, exc.value.metadata) == ("STAKE_ABOVE_MARKET_LIMIT",
                                                      {"max_stake": "50000"})
    assert h.wallet.balances["alice"] == 1_000_000 and not h.wallet.calls
    assert (await h.app.game.deal(s, deal("d1", stake=50_000))).view.total_staked == 50_000


# ------------------------------------------------------------------ the wallet's word


@pytest.mark.parametrize(("wallet_reason", "reason"), [
    ("LIMIT_EXCEEDED", "PLAYER_LIMIT_REACHED"), ("PLAYER_EXCLUDED", "PLAYER_EXCLUDED"),
    ("PLAYER_BLOCKED", "PLAYER_BLOCKED"), ("REALITY_CHECK_DUE", "REALITY_CHECK_DUE")])
async def test_the_wallets_word_on_the_player_keeps_its_own_reason_and_takes_nothing(
        wallet_reason: str, reason: str) -> None:
    h = await harness()
    s = await uk_session(h)

    async def refuse(call: MoneyCall) -> MoneyResult:
        raise WalletRefused("no", reason=wallet_reason)

    h.wallet.move = refuse  # type: ignore[method-assign]
    with pytest.raises(NotAllowedNow) as exc:
        await h.app.game.deal(s, deal("d1"))
    assert (exc.value.reason, exc.value.metadata["wallet_reason"]) == (reason, wallet_reason)
    assert h.wallet.balances["alice"] == 100_000
    with pytest.raises(NotFound):
        await h.app.game.get_round(s)
