"""Game controls over the real bootstrap with in-memory adapters: who may set what, what is
refused (only new rounds: a round in play finishes), when a control ends by itself, what the
audit trail records, and that nothing changes without a control."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from service_fakes import DEV_KEY, OTHER_KEY, Harness, harness

from rgs.api.calls import BlackjackCalls, Caller
from rgs.authenticity.check import Authentication, Verdict
from rgs.bootstrap import (
    DEV_ADMIN_KEY,
    Governance,
    add_dev_admin_key,
    record_configuration,
    record_mismatch,
)
from rgs.engine import BoxBet
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.platform_file import DEFAULT_PLATFORM_FILE
from rgs.service.audit import Action, verify_chain
from rgs.service.controls import ControlMode, ControlScope
from rgs.service.errors import NotAllowedNow, NotFound, PermissionDenied, Unauthenticated
from rgs.service.game_controls import ControlCommand
from rgs.service.interrupted import Resolution, ResolveCommand
from rgs.service.model import CreateSessionCommand, DealCommand, SettleCommand, VoidCommand

pytestmark = pytest.mark.asyncio

CLASSIC = "classic-resplit"
#: T-9 against 6-7: the player stands on 19, the dealer draws 9 and busts.
STAND_WINS = ("TS", "6H", "9D", "7C", "9S")


def _gov(h: Harness) -> Governance:
    assert h.app.governance is not None
    return h.app.governance


def _deal(request_id: str, variant: str = CLASSIC) -> DealCommand:
    return DealCommand(request_id=request_id, variant_id=variant,
                       boxes=(BoxBet(seat=1, stake=100),), forced_cards=STAND_WINS)


def _disable(brand: str = "demo-casino", variant: str = CLASSIC, *, mode: ControlMode | None
             = ControlMode.DISABLED, message: str = "back soon", **scope: str) -> ControlCommand:
    return ControlCommand(scope=ControlScope(brand_id=brand, variant_id=variant, **scope),
                          mode=mode, message=message, reason="suspected malfunction")


async def test_without_a_control_nothing_is_refused_and_every_variant_shows_open() -> None:
    h = await harness()
    s = await h.session()
    assert _gov(h).board.controls == ()
    await h.app.game.deal(s, _deal("d1"))
    assert {a.state for a in (await _variants(h, "bob")).values()} == {"open"}


async def _variants(h: Harness, pid: str) -> dict[str, bj.Availability]:
    """ListVariants for a new session of ``pid`` at demo-casino, each variant's availability."""
    h.wallet.balances.setdefault(pid, 0)
    new = await h.app.office.create_session("dev-operator", CreateSessionCommand(
        request_id=f"s-{pid}", brand_id="demo-casino", player_id=pid))
    listed = await BlackjackCalls(h.app.game).ListVariants(Caller(f"Bearer {new.token}"),
                                                           bj.ListVariantsRequest())
    return {v.id: v.availability for v in listed.variants}


async def test_a_disabled_variant_refuses_new_deals_while_the_round_in_play_finishes() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, _deal("d1"))
    change = await _gov(h).controls.set_by_operator("dev-operator", _disable())
    assert change.changed and change.control is not None
    with pytest.raises(NotAllowedNow) as refused:
        await h.app.game.deal(s, _deal("d2"))
    assert refused.value.reason == "GAME_DISABLED"
    assert "back soon" in str(refused.value) and refused.value.metadata["message"] == "back soon"
    # The round dealt before finishes and pays: 100 staked, 200 back.
    done = await h.app.game.settle(s, SettleCommand(request_id="st1", round_id=dealt.round_id))
    assert (done.view.total_staked, done.view.total_paid) == (100, 200)
    assert h.wallet.balances["alice"] == 100_000 + 100
    # Another variant of the brand, and the same variant at another brand, still deal.
    await h.app.game.deal(s, _deal("d3", "electronic-h17"))
    other = await h.session("bob", "demo-casino-hints")
    h.wallet.balances["bob"] = 1_000
    await h.app.game.deal(other, _deal("d4"))
    # ListVariants shows the state.
    shown = await _variants(h, "carol")
    assert (shown[CLASSIC].state, shown[CLASSIC].message) == ("disabled", "back soon")
    assert shown["electronic-h17"].state == "open"
    # Enabled again: deals again.
    lifted = await _gov(h).controls.set_by_operator("dev-operator", _disable(mode=None))
    assert lifted.changed and lifted.control is None
    await h.app.game.settle(s, SettleCommand(request_id="st3", round_id=(
        await h.app.game.get_round(s)).round_id))
    await h.app.game.deal(s, _deal("d5"))


async def test_a_replayed_deal_gets_its_round_even_after_the_variant_is_disabled() -> None:
    h = await harness()
    s = await h.session()
    first = await h.app.game.deal(s, _deal("d1"))
    await _gov(h).controls.set_by_operator("dev-operator", _disable())
    again = await h.app.game.deal(s, _deal("d1"))
    assert again.round_id == first.round_id


async def test_an_operator_controls_only_its_own_brands_and_never_maintenance() -> None:
    h = await harness()
    controls = _gov(h).controls
    with pytest.raises(NotFound) as nf:
        await controls.set_by_operator("other-operator", _disable())
    assert nf.value.reason == "BRAND_NOT_FOUND"
    with pytest.raises(NotFound) as table:
        await controls.set_by_operator("other-operator", _disable(
            brand="", variant="", table_id="electronic-1"))
    assert table.value.reason == "TABLE_NOT_FOUND"
    with pytest.raises(PermissionDenied) as pd:
        await controls.set_by_operator("dev-operator", _disable(mode=ControlMode.MAINTENANCE))
    assert pd.value.reason == "MAINTENANCE_NOT_ALLOWED"
    # A whole-operator control of other-operator's does not reach dev-operator's players.
    await controls.set_by_operator("other-operator", _disable(brand="", variant=""))
    await h.app.game.deal(await h.session(), _deal("d1"))
    assert [c.scope.operator_id for c in controls.for_operator("dev-operator")] == []
    assert [c.scope.operator_id for c in controls.for_operator("other-operator")] == [
        "other-operator"]


async def test_maintenance_by_the_administrator_ends_by_itself_at_its_end_time() -> None:
    h = await harness()
    s = await h.session()
    ends = h.clock.now + timedelta(minutes=30)
    await _gov(h).controls.set_by_admin("ops", ControlCommand(
        scope=ControlScope(), mode=ControlMode.MAINTENANCE, message="upgrade", ends_at=ends,
        reason="release 2.1"))
    with pytest.raises(NotAllowedNow) as refused:
        await h.app.game.deal(s, _deal("d1"))
    assert refused.value.reason == "MAINTENANCE"
    assert refused.value.metadata["ends_at"] == ends.isoformat(timespec="seconds")
    # The operator cannot lift the administrator's control.
    lifted = await _gov(h).controls.set_by_operator("dev-operator", _disable(
        brand="", variant="", mode=None))
    assert not lifted.changed
    # The administrator's controls reach every operator's list, without the key's label.
    assert [c.set_by for c in _gov(h).controls.for_operator("other-operator")] == ["admin"]
    h.clock.now = ends
    await h.app.game.deal(s, _deal("d2"))  # no refresh needed: the end time is in the cache


async def test_the_administrator_disables_every_brand_of_a_jurisdiction() -> None:
    h = await harness()
    await _gov(h).controls.set_by_admin("ops", ControlCommand(
        scope=ControlScope(jurisdiction_id="none"), mode=ControlMode.DISABLED,
        reason="licence suspended"))
    for pid, brand in (("alice", "demo-casino"), ("bob", "other-casino")):
        key = DEV_KEY if brand == "demo-casino" else OTHER_KEY
        with pytest.raises(NotAllowedNow):
            await h.app.game.deal(await h.session(pid, brand, key), _deal(f"d-{pid}"))


async def test_every_change_and_void_is_in_the_chain_and_an_operator_reads_only_its_own(
        ) -> None:
    h = await harness()
    gov = _gov(h)
    s = await h.session()
    dealt = await h.app.game.deal(s, _deal("d1"))
    await gov.controls.set_by_operator("dev-operator", _disable())
    await gov.controls.set_by_operator("other-operator", _disable(brand="other-casino"))
    void = VoidCommand(request_id="v1", brand_id="demo-casino", player_id="alice",
                       round_id=dealt.round_id, reason="dealer error")
    await h.app.office.void_round("dev-operator", void)
    await h.app.office.void_round("dev-operator", void)  # a replay records nothing more
    page = await gov.controls.audit_page("dev-operator", page_size=0, page_token="")
    assert [r.entry.action for r in page.records] == [Action.ROUND_VOIDED, Action.CONTROL_SET]
    assert page.records[0].entry.actor == "operator:dev-operator"
    assert page.records[0].entry.reason == "dealer error"
    assert page.records[1].entry.details["scope"] == (
        "operator=dev-operator brand=demo-casino variant=classic-resplit")
    everything = await gov.controls.audit_page(None, page_size=1, page_token="")
    assert everything.next_before and len(everything.records) == 1
    report = await verify_chain(gov.audit.rows())
    assert report.intact and report.rows == 4  # the platform file loaded at start, first


async def test_a_platform_file_is_recorded_when_its_content_changes() -> None:
    h = await harness()
    audit = _gov(h).audit
    started = [r async for r in audit.rows()]
    assert [(r.entry.action, r.entry.subject, r.entry.details["sha256"]) for r in started] == [
        (Action.CONFIGURATION_LOADED, "configuration:platform_file",
         hashlib.sha256(DEFAULT_PLATFORM_FILE.read_bytes()).hexdigest())]
    assert not await record_configuration(audit, "platform_file",
                                          DEFAULT_PLATFORM_FILE.read_bytes())
    assert await record_configuration(audit, "platform_file", b'{"operators": []}')
    assert not await record_configuration(audit, "platform_file", b'{"operators": []}')
    rows = [r async for r in audit.rows()]
    assert [r.entry.action for r in rows] == [Action.CONFIGURATION_LOADED,
                                              Action.CONFIGURATION_CHANGED]


async def test_an_operator_key_is_no_administrator_key_and_the_reverse() -> None:
    h = await harness()
    assert await add_dev_admin_key(h.app) == DEV_ADMIN_KEY
    admin = _gov(h).admin
    assert (await admin.authenticate(DEV_ADMIN_KEY)).label == "sandbox dev admin key"
    with pytest.raises(Unauthenticated) as op_key:
        await admin.authenticate(DEV_KEY)
    assert op_key.value.reason == "INVALID_ADMIN_KEY"
    with pytest.raises(Unauthenticated) as admin_key:
        await h.app.office.authenticate(DEV_ADMIN_KEY)
    assert admin_key.value.reason == "INVALID_API_KEY"
    rows = [r async for r in _gov(h).audit.rows()]
    assert [r.entry.action for r in rows][1:] == [Action.ADMIN_KEY_ADDED]
    assert DEV_ADMIN_KEY not in repr(rows)


async def test_a_round_resolved_by_hand_and_a_software_mismatch_are_in_the_chain() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, _deal("d1"))
    cmd = ResolveCommand(request_id="r1", brand_id="demo-casino", player_id="alice",
                         round_id=dealt.round_id, resolution=Resolution.COMPLETE,
                         reason="player disconnected")
    await h.app.interrupted.resolve("dev-operator", cmd)
    await h.app.interrupted.resolve("dev-operator", cmd)  # a retry records nothing more
    assert h.wallet.balances["alice"] == 100_000 + 100
    await record_mismatch(_gov(h).audit)(Authentication(
        verdict=Verdict.ALTERED, checked_at=h.clock.now, whole="ab" * 32,
        detail="rgs/engine/round.py differs"))
    rows = [r async for r in _gov(h).audit.rows()][1:]  # after the platform file's row
    assert [(r.entry.action, r.entry.reason) for r in rows] == [
        (Action.ROUND_RESOLVED, "player disconnected"),
        (Action.SOFTWARE_NOT_AUTHENTIC, "NOT AUTHENTIC: rgs/engine/round.py differs")]
    assert rows[0].entry.details["total_paid"] == "200"
    assert (await verify_chain(_gov(h).audit.rows())).intact
