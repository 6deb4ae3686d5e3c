"""Rounds that cannot be continued are voided automatically; the sweeper journals what it did.

Rules pinned: a round whose journalled events no longer rebuild it (or whose variant is gone)
is voided by the sweeper — every stake rolled back, nothing paid, ``RoundVoided`` with the
reason — and the sweeper's own decisions and voids are journalled under request ids of its own.
A round whose stake is still in doubt does not go on, so no rollback ever follows its credit.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from service_fakes import Harness, harness

from rgs.engine import BoxBet, PlayerActed, RoundVoided
from rgs.service.model import DealCommand
from rgs.wallet.port import MoneyKind

STAND_WINS = ("TS", "6H", "9D", "7C", "9S")


async def _dealt(h: Harness, stake: int = 200) -> tuple[str, str]:
    s = await h.session()
    dealt = await h.app.game.deal(s, DealCommand(
        request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=stake),),
        forced_cards=STAND_WINS))
    return s.player_key, dealt.round_id


async def test_sweeper_voids_a_round_whose_events_no_longer_rebuild_it() -> None:
    h = await harness()
    key, rid = await _dealt(h)
    assert h.wallet.balances["alice"] == 100_000 - 200
    stored = h.journal.tables.rounds[(key, rid)]
    # A lost card event: the journal no longer replays to the same round.
    h.journal.tables.rounds[(key, rid)] = replace(
        stored, events=(*stored.events[:2], *stored.events[3:]))
    h.clock.now += timedelta(hours=25)
    assert await h.app.reconciler.sweep_abandoned() == 1
    voided = h.journal.tables.rounds[(key, rid)]
    assert voided.status == "voided" and voided.finished
    last = voided.events[-1]
    assert isinstance(last, RoundVoided) and last.reason.startswith(
        "automatic void: ROUND_UNRECOVERABLE")
    assert (last.total_staked, last.total_refunded) == (200, 200)
    moves = await h.journal.movements(key, rid)
    assert [(m.kind, m.status, m.amount) for m in moves] == [
        (MoneyKind.DEBIT, "rolled_back", 200), (MoneyKind.ROLLBACK, "applied", 200)]
    assert h.wallet.balances["alice"] == 100_000
    assert (key, "system", f"autovoid:{rid}") in h.journal.tables.requests
    assert await h.app.reconciler.sweep_abandoned() == 0


async def test_sweeper_voids_a_round_of_a_variant_no_longer_known() -> None:
    h = await harness()
    key, rid = await _dealt(h, stake=300)
    h.journal.tables.rounds[(key, rid)] = replace(h.journal.tables.rounds[(key, rid)],
                                                  variant="retired-variant")
    h.clock.now += timedelta(hours=25)
    assert await h.app.reconciler.sweep_abandoned() == 1
    assert h.journal.tables.rounds[(key, rid)].status == "voided"
    assert h.wallet.balances["alice"] == 100_000


async def test_a_rollback_the_wallet_does_not_confirm_is_retried_until_it_does() -> None:
    h = await harness()
    key, rid = await _dealt(h)
    stored = h.journal.tables.rounds[(key, rid)]
    h.journal.tables.rounds[(key, rid)] = replace(stored, events=stored.events[:1])
    h.clock.now += timedelta(hours=25)
    h.wallet.down = True
    assert await h.app.reconciler.sweep_abandoned() == 1  # voided; the rollback is open
    assert h.journal.tables.rounds[(key, rid)].status == "voided"
    assert h.wallet.balances["alice"] == 100_000 - 200
    h.wallet.down = False
    h.clock.now += timedelta(minutes=10)
    assert await h.app.reconciler.run_once() == 1
    assert h.wallet.balances["alice"] == 100_000
    assert [m.status for m in await h.journal.movements(key, rid)] == ["rolled_back", "applied"]


async def test_sweeper_journals_its_decisions_under_its_own_request_id() -> None:
    h = await harness()
    key, rid = await _dealt(h)
    h.clock.now += timedelta(hours=25)
    assert await h.app.reconciler.sweep_abandoned() == 1
    done = h.journal.tables.rounds[(key, rid)]
    assert done.status == "settled" and (done.total_staked, done.total_paid) == (200, 400)
    assert [e.action.value for e in done.events if isinstance(e, PlayerActed)] == ["stand"]
    assert (key, "system", f"sweep:{rid}") in h.journal.tables.requests
    assert h.wallet.balances["alice"] == 100_000 - 200 + 400


async def test_a_round_with_a_stake_in_doubt_does_not_go_on_so_no_rollback_follows_its_credit(
        ) -> None:
    from rgs.engine import Action, Phase
    from rgs.service.errors import Unavailable
    from rgs.service.model import ActCommand
    from rgs.wallet.port import MoneyCall, MoneyResult, WalletUnavailable

    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, DealCommand(
        request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=200),),
        forced_cards=("5S", "6H", "6D", "TC", "TS", "9H")))
    faults = {"debit_after_apply": True, "rollbacks": True}
    inner = h.wallet.move

    async def move(call: MoneyCall) -> MoneyResult:
        if call.kind is MoneyKind.DEBIT and faults["debit_after_apply"]:
            faults["debit_after_apply"] = False
            h.wallet._apply(call)
            raise WalletUnavailable("timed out after applying")
        if call.kind is MoneyKind.ROLLBACK and faults["rollbacks"]:
            raise WalletUnavailable("timed out")
        return await inner(call)

    h.wallet.move = move  # type: ignore[method-assign]
    double = ActCommand(request_id="a1", round_id=dealt.round_id, expected_seq=1, seat=1,
                        hand=0, action=Action.DOUBLE)
    stand = ActCommand(request_id="a2", round_id=dealt.round_id, expected_seq=1, seat=1,
                       hand=0, action=Action.STAND)
    with pytest.raises(Unavailable):
        await h.app.game.act(s, double)
    assert h.wallet.balances["alice"] == 100_000 - 400  # the double's stake is in doubt
    with pytest.raises(Unavailable) as err:  # the player gives up doubling: not yet
        await h.app.game.act(s, stand)
    assert err.value.reason == "WALLET_UNAVAILABLE"
    view = await h.app.game.get_round(s, dealt.round_id)
    assert view.view.phase is Phase.PLAYER_TURN and view.view.seq == 1
    faults["rollbacks"] = False
    done = await h.app.game.act(s, stand)
    assert done.view.phase is Phase.SETTLED and (done.view.total_staked,
                                                 done.view.total_paid) == (200, 400)
    kinds = [c.kind for c in h.wallet.calls]
    assert kinds.index(MoneyKind.CREDIT) > max(
        i for i, k in enumerate(kinds) if k is MoneyKind.ROLLBACK)
    assert h.wallet.balances["alice"] == 100_000 - 200 + 400


async def test_a_bug_in_one_abandoned_round_does_not_stop_the_sweep_of_the_others() -> None:
    h = await harness()
    alice = await h.session()
    bob = await h.session("bob")
    h.wallet.balances["bob"] = 1_000
    first = await h.app.game.deal(alice, DealCommand(
        request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=200),),
        forced_cards=STAND_WINS))
    second = await h.app.game.deal(bob, DealCommand(
        request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=300),),
        forced_cards=STAND_WINS))
    settle = h.app.game.settle

    async def buggy(session: object, cmd: object, **kw: object) -> object:
        if getattr(cmd, "round_id", "") == first.round_id:
            raise RuntimeError("a bug")
        return await settle(session, cmd, **kw)  # type: ignore[arg-type]

    h.app.game.settle = buggy  # type: ignore[method-assign,assignment]
    h.clock.now += timedelta(hours=25)
    assert await h.app.reconciler.sweep_abandoned() == 1
    assert h.journal.tables.rounds[(bob.player_key, second.round_id)].status == "settled"
    assert h.wallet.balances["bob"] == 1_000 - 300 + 600
    assert not h.journal.tables.rounds[(alice.player_key, first.round_id)].finished
