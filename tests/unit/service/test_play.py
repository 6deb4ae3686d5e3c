"""Play use cases over in-memory fakes, wired by the real bootstrap."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from service_fakes import DEV_KEY, OTHER_KEY, harness

from rgs.engine import Action, BoxBet, InsuranceOffer, Phase
from rgs.service.errors import (
    InvalidRequest,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    RequestConflict,
    Unauthenticated,
    Unavailable,
)
from rgs.service.model import ActCommand, CreateSessionCommand, DealCommand, SettleCommand
from rgs.wallet.port import MoneyKind, WalletUnavailable

STAND_WINS = ("TS", "6H", "9D", "7C", "9S")  # 19 v 6+7, dealer draws 9: busts
DOUBLE_ON_11 = ("5S", "6H", "6D", "TC", "TS", "9H")  # 11, double to 21; dealer 16 + 9 busts
INSURANCE = ("TS", "AH", "9D", "7C")  # 19 v A (hole 7): insurance offered, no dealer blackjack


def deal(request_id: str = "d1", *, stake: int = 100, forced: tuple[str, ...] = STAND_WINS,
         variant: str = "classic-resplit") -> DealCommand:
    return DealCommand(request_id=request_id, variant_id=variant,
                       boxes=(BoxBet(seat=1, stake=stake),), forced_cards=forced)


async def test_deal_debits_the_stake_and_the_settling_act_credits_the_win() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal(stake=500))
    assert dealt.balance == 99_500 and dealt.view.phase is Phase.PLAYER_TURN
    assert dealt.view.dealer_cards == ("6H",) and dealt.view.dealer_hole_hidden
    done = await h.app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                              expected_seq=dealt.view.seq, seat=1, hand=0,
                                              action=Action.STAND))
    assert done.view.phase is Phase.SETTLED and done.view.total_paid == 1_000
    assert done.balance == 100_500 and h.wallet.balances["alice"] == 100_500
    assert h.wallet.ids(MoneyKind.DEBIT) == [f"{dealt.round_id}:1:debit"]
    assert h.wallet.ids(MoneyKind.CREDIT) == [f"{dealt.round_id}:settle:credit"]
    assert not done.payment_pending


async def test_replayed_request_returns_the_stored_response_and_moves_no_money() -> None:
    h = await harness()
    s = await h.session()
    first = await h.app.game.deal(s, deal())
    again = await h.app.game.deal(s, deal())
    assert again == first
    assert len(h.wallet.calls) == 1 and h.wallet.balances["alice"] == 99_900


async def test_request_id_reused_for_a_different_request_is_refused() -> None:
    h = await harness()
    s = await h.session()
    await h.app.game.deal(s, deal())
    with pytest.raises(RequestConflict) as err:
        await h.app.game.deal(s, deal(stake=200))
    assert err.value.reason == "REQUEST_ID_REUSED"
    assert h.wallet.balances["alice"] == 99_900


async def test_concurrent_duplicates_execute_once_and_get_the_same_answer() -> None:
    h = await harness()
    s = await h.session()
    a, b = await asyncio.gather(h.app.game.deal(s, deal()), h.app.game.deal(s, deal()))
    assert a == b and len(h.wallet.ids(MoneyKind.DEBIT)) == 1
    assert h.wallet.balances["alice"] == 99_900


async def test_stale_expected_seq_is_refused_without_acting() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal())
    with pytest.raises(NotAllowedNow) as err:
        await h.app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                           expected_seq=dealt.view.seq + 1, seat=1, hand=0,
                                           action=Action.STAND))
    assert err.value.reason == "STALE_SEQ"
    assert (await h.app.game.get_round(s, dealt.round_id)).view.seq == dealt.view.seq


async def test_insufficient_funds_refuses_the_deal_and_changes_nothing() -> None:
    h = await harness()
    s = await h.session("bob")
    with pytest.raises(NotAllowedNow) as err:
        await h.app.game.deal(s, deal())
    assert err.value.reason == "INSUFFICIENT_FUNDS"
    assert h.wallet.balances["bob"] == 0
    assert h.journal.tables.rounds == {}
    with pytest.raises(NotFound):
        await h.app.game.get_round(s)


async def test_double_debits_its_stake_under_a_deterministic_transaction_id() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal(stake=200, forced=DOUBLE_ON_11))
    costs = {a.action: a.cost for a in dealt.view.boxes[0].hands[0].allowed}
    assert costs[Action.DOUBLE] == 200
    done = await h.app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                              expected_seq=1, seat=1, hand=0,
                                              action=Action.DOUBLE))
    assert done.view.total_staked == 400 and done.view.total_paid == 800
    assert h.wallet.ids(MoneyKind.DEBIT) == [f"{dealt.round_id}:1:debit",
                                             f"{dealt.round_id}:2:debit"]
    assert h.wallet.balances["alice"] == 100_000 - 400 + 800


async def test_insurance_debits_half_the_stake() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal(forced=INSURANCE))
    assert dealt.view.phase is Phase.INSURANCE
    insure = await h.app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                                expected_seq=1, seat=1, hand=0,
                                                action=Action.INSURE))
    assert insure.balance == 100_000 - 100 - 50
    done = await h.app.game.act(s, ActCommand(request_id="a2", round_id=dealt.round_id,
                                              expected_seq=insure.view.seq, seat=1, hand=0,
                                              action=Action.STAND))
    # 19 beats soft 18; the insurance stake is lost.
    assert done.view.total_staked == 150 and done.view.total_paid == 200
    assert h.wallet.balances["alice"] == 100_050


async def test_forced_cards_are_refused_outside_test_mode() -> None:
    h = await harness(test_mode=False)
    s = await h.session()
    with pytest.raises(PermissionDenied) as err:
        await h.app.game.deal(s, deal())
    assert err.value.reason == "FORCED_CARDS_NOT_ALLOWED" and not h.wallet.calls


async def test_journal_marks_forced_card_rounds() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal())
    stored = await h.journal.get_round(s.player_key, dealt.round_id)
    assert stored is not None and stored.forced_cards == STAND_WINS


async def test_settle_stands_every_open_hand_and_is_idempotent() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal(forced=INSURANCE))
    done = await h.app.game.settle(s, SettleCommand(request_id="st", round_id=dealt.round_id))
    assert done.view.phase is Phase.SETTLED and done.view.total_paid == 200
    again = await h.app.game.settle(s, SettleCommand(request_id="st2",
                                                     round_id=dealt.round_id))
    assert again.view == done.view and h.wallet.balances["alice"] == 100_100
    assert len(h.wallet.ids(MoneyKind.CREDIT)) == 1


async def test_unacknowledged_credit_is_pending_until_settle_pays_it() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal())
    h.wallet.fail_next = MoneyKind.CREDIT
    done = await h.app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                              expected_seq=1, seat=1, hand=0,
                                              action=Action.STAND))
    assert done.payment_pending and h.wallet.balances["alice"] == 99_900
    paid = await h.app.game.settle(s, SettleCommand(request_id="st", round_id=dealt.round_id))
    assert not paid.payment_pending and paid.balance == 100_100
    assert h.wallet.balances["alice"] == 100_100


async def test_a_replay_of_an_answer_given_while_the_win_was_pending_is_answered_paid() -> None:
    # The wallet applied the win but its answer was lost: the Act answered "payment pending".
    # The client retries the same request: the win is sent again (applied once) and the
    # retry, and every later one, answered paid.
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal())
    h.wallet.fail_next, h.wallet.apply_then_fail = MoneyKind.CREDIT, True
    stand = ActCommand(request_id="a1", round_id=dealt.round_id, expected_seq=1, seat=1,
                       hand=0, action=Action.STAND)
    done = await h.app.game.act(s, stand)
    assert done.payment_pending and done.balance == 99_900
    assert h.wallet.balances["alice"] == 100_100  # applied, answer lost
    again = await h.app.game.act(s, stand)
    assert not again.payment_pending and again.balance == 100_100
    assert again == await h.app.game.act(s, stand)
    assert len(h.wallet.ids(MoneyKind.CREDIT)) == 1 and h.wallet.balances["alice"] == 100_100


async def test_debit_of_unknown_outcome_is_rolled_back_and_the_call_fails_cleanly() -> None:
    h = await harness()
    s = await h.session()
    h.wallet.fail_next, h.wallet.apply_then_fail = MoneyKind.DEBIT, True
    with pytest.raises(Unavailable) as err:
        await h.app.game.deal(s, deal())
    assert err.value.reason == "WALLET_UNAVAILABLE"
    assert h.wallet.balances["alice"] == 100_000
    assert len(h.wallet.ids(MoneyKind.ROLLBACK)) == 1 and h.journal.tables.rounds == {}


async def test_an_unconfirmed_rollback_is_retried_on_the_next_call() -> None:
    h = await harness()
    s = await h.session()
    h.wallet.fail_next, h.wallet.apply_then_fail = MoneyKind.DEBIT, True
    original_move = h.wallet.move
    calls = 0

    async def flaky(call):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if call.kind is MoneyKind.ROLLBACK and calls == 2:
            h.wallet.calls.append(call)
            raise WalletUnavailable("rollback answer lost")
        return await original_move(call)

    h.wallet.move = flaky  # type: ignore[method-assign]
    with pytest.raises(Unavailable):
        await h.app.game.deal(s, deal())
    h.wallet.move = original_move  # type: ignore[method-assign]
    assert h.wallet.balances["alice"] == 99_900
    await h.app.game.deal(s, deal("d2"))
    assert h.wallet.balances["alice"] == 99_900  # old debit returned, new one taken


async def test_unfinished_round_is_found_and_resumed_after_a_disconnect() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal())
    found = await h.app.game.get_round(s)
    assert found.round_id == dealt.round_id and found.view == dealt.view
    with pytest.raises(NotAllowedNow) as err:
        await h.app.game.deal(s, deal("d2"))
    assert err.value.reason == "ROUND_IN_PROGRESS"
    done = await h.app.game.act(s, ActCommand(request_id="a1", round_id=found.round_id,
                                              expected_seq=found.view.seq, seat=1, hand=0,
                                              action=Action.STAND))
    assert done.view.phase is Phase.SETTLED


async def test_illegal_action_is_refused_before_any_money_moves() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal())
    with pytest.raises(NotAllowedNow) as err:
        await h.app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                           expected_seq=1, seat=1, hand=0,
                                           action=Action.SPLIT))
    assert err.value.reason == "ACTION_NOT_ALLOWED" and len(h.wallet.calls) == 1


async def test_stake_outside_the_brand_limits_is_refused() -> None:
    h = await harness()
    s = await h.session()
    with pytest.raises(NotAllowedNow) as err:
        await h.app.game.deal(s, deal(stake=100_001))
    assert err.value.reason == "STAKE_OUT_OF_LIMITS" and not h.wallet.calls


async def test_malformed_request_id_and_unknown_variant_are_invalid() -> None:
    h = await harness()
    s = await h.session()
    with pytest.raises(InvalidRequest):
        await h.app.game.deal(s, deal(""))
    with pytest.raises(InvalidRequest):
        await h.app.game.deal(s, deal(variant="baccarat"))


async def test_another_players_round_is_not_found() -> None:
    h = await harness()
    alice, bob = await h.session(), await h.session("bob")
    dealt = await h.app.game.deal(alice, deal())
    with pytest.raises(NotFound):
        await h.app.game.get_round(bob, dealt.round_id)


async def test_expired_session_is_refused() -> None:
    h = await harness()
    operator = await h.app.office.authenticate(DEV_KEY)
    new = await h.app.office.create_session(operator, CreateSessionCommand(
        request_id="s", brand_id="demo-casino", player_id="alice"))
    h.clock.now += timedelta(hours=5)
    with pytest.raises(Unauthenticated) as err:
        await h.app.game.authenticate(new.token)
    assert err.value.reason == "SESSION_EXPIRED"


async def test_operator_reaches_only_its_own_brands() -> None:
    h = await harness()
    other = await h.app.office.authenticate(OTHER_KEY)
    with pytest.raises(NotFound):
        await h.app.office.create_session(other, CreateSessionCommand(
            request_id="s", brand_id="demo-casino", player_id="alice"))
    with pytest.raises(Unauthenticated):
        await h.app.office.authenticate("not-a-key")


async def test_recall_pages_a_players_rounds_newest_first_with_every_step() -> None:
    h = await harness()
    s = await h.session()
    ids = []
    for i in range(3):
        d = await h.app.game.deal(s, deal(f"d{i}"))
        await h.app.game.settle(s, SettleCommand(request_id=f"s{i}", round_id=d.round_id))
        ids.append(d.round_id)
    first = await h.app.office.recall("dev-operator", "demo-casino", "alice", page_size=2)
    assert [r.round.round_id for r in first.rounds] == [ids[2], ids[1]]
    rest = await h.app.office.recall("dev-operator", "demo-casino", "alice", page_size=2,
                                     page_token=first.next_page_token)
    assert [r.round.round_id for r in rest.rounds] == [ids[0]] and not rest.next_page_token
    rec = rest.rounds[0]
    assert [m.kind for m in rec.movements] == [MoneyKind.DEBIT, MoneyKind.CREDIT]
    assert rec.round.total_paid == 200 and len(rec.round.events) >= 8
    empty = await h.app.office.recall("other-operator", "other-casino", "alice")
    assert empty.rounds == ()


async def test_reconciler_pays_an_open_credit_and_rolls_back_an_orphaned_debit() -> None:
    from datetime import timedelta as td

    from rgs.service import money
    from rgs.wallet.port import Party

    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal())
    h.wallet.fail_next = MoneyKind.CREDIT
    done = await h.app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                              expected_seq=1, seat=1, hand=0,
                                              action=Action.STAND))
    assert done.payment_pending
    party = Party(operator_id="dev-operator", brand_id="demo-casino",
                  player_id="alice", session_id=s.session_id, currency="EUR")
    async with h.journal.player(s.player_key) as pj:  # a call that dies after its debit
        await money.debit(pj, h.wallet, party, round_id="f" * 32, step=1, amount=300)
    assert h.wallet.balances["alice"] == 100_000 - 100 - 300
    assert await h.app.reconciler.run_once() == 0  # rows are too fresh to take over
    h.clock.now += td(minutes=5)
    assert await h.app.reconciler.run_once() == 1
    assert h.wallet.balances["alice"] == 100_000 - 100 + 200
    async with h.journal.player(s.player_key) as pj:
        assert await pj.open_movements() == []


async def test_expired_session_can_still_finish_its_round_but_not_deal() -> None:
    h = await harness()
    operator = await h.app.office.authenticate(DEV_KEY)
    new = await h.app.office.create_session(operator, CreateSessionCommand(
        request_id="s", brand_id="demo-casino", player_id="alice"))
    s = await h.app.game.authenticate(new.token)
    dealt = await h.app.game.deal(s, deal())
    h.clock.now += timedelta(hours=5)
    late = await h.app.game.authenticate(new.token, allow_expired=True)
    done = await h.app.game.settle(late, SettleCommand(request_id="st", round_id=dealt.round_id))
    assert done.view.phase is Phase.SETTLED and h.wallet.balances["alice"] == 100_100
    with pytest.raises(Unauthenticated):
        await h.app.game.authenticate(new.token)


async def test_session_token_is_stored_only_hashed_and_a_replay_gets_a_fresh_one() -> None:
    h = await harness()
    operator = await h.app.office.authenticate(DEV_KEY)
    cmd = CreateSessionCommand(request_id="s", brand_id="demo-casino", player_id="alice")
    first = await h.app.office.create_session(operator, cmd)
    again = await h.app.office.create_session(operator, cmd)
    assert again.session == first.session and again.token != first.token
    stored = repr(h.journal.tables)
    assert first.token not in stored and again.token not in stored
    for token in (first.token, again.token):
        assert (await h.app.game.authenticate(token)).session_id == first.session.session_id


async def test_void_rolls_back_every_stake_of_an_unfinished_round_and_pays_nothing() -> None:
    from rgs.service.model import VoidCommand

    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal(stake=200, forced=(*DOUBLE_ON_11, "2C")))
    cmd = VoidCommand(request_id="v1", brand_id="demo-casino", player_id="alice",
                      round_id=dealt.round_id, reason="shoe malfunction")
    voided = await h.app.office.void_round("dev-operator", cmd)
    assert voided.round.status == "voided" and h.wallet.balances["alice"] == 100_000
    assert [m.kind for m in voided.movements] == [MoneyKind.DEBIT, MoneyKind.ROLLBACK]
    assert [m.status for m in voided.movements] == ["rolled_back", "applied"]
    again = await h.app.office.void_round("dev-operator", cmd)
    assert again.round.status == "voided" and h.wallet.balances["alice"] == 100_000
    with pytest.raises(NotAllowedNow):
        await h.app.game.act(s, ActCommand(request_id="a", round_id=dealt.round_id,
                                           expected_seq=voided.round.seq, seat=1, hand=0,
                                           action=Action.STAND))
    done = await h.app.game.deal(s, deal("d2"))
    await h.app.game.settle(s, SettleCommand(request_id="st", round_id=done.round_id))
    with pytest.raises(NotAllowedNow) as err:
        await h.app.office.void_round("dev-operator", VoidCommand(
            request_id="v2", brand_id="demo-casino", player_id="alice",
            round_id=done.round_id, reason="too late"))
    assert err.value.reason == "ROUND_FINISHED"
    with pytest.raises(NotFound):
        await h.app.office.void_round("other-operator", VoidCommand(
            request_id="v3", brand_id="other-casino", player_id="alice",
            round_id=dealt.round_id, reason="not mine"))


async def test_sweeper_completes_a_round_left_too_long_on_the_players_behalf() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal(forced=INSURANCE))
    assert await h.app.reconciler.sweep_abandoned() == 0
    h.clock.now += timedelta(hours=25)
    assert await h.app.reconciler.sweep_abandoned() == 1
    done = await h.app.game.get_round(s, dealt.round_id)
    assert done.view.phase is Phase.SETTLED and done.view.total_paid == 200
    assert h.wallet.balances["alice"] == 100_100
    assert await h.app.reconciler.sweep_abandoned() == 0


async def test_a_step_retried_after_its_debit_was_rolled_back_debits_under_a_new_id() -> None:
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, deal(stake=200, forced=DOUBLE_ON_11))
    act = ActCommand(request_id="a1", round_id=dealt.round_id, expected_seq=1, seat=1, hand=0,
                     action=Action.DOUBLE)
    h.wallet.fail_next, h.wallet.apply_then_fail = MoneyKind.DEBIT, True
    with pytest.raises(Unavailable):
        await h.app.game.act(s, act)
    assert h.wallet.balances["alice"] == 100_000 - 200
    done = await h.app.game.act(s, act)
    assert done.view.total_paid == 800 and h.wallet.balances["alice"] == 100_000 - 400 + 800
    assert h.wallet.ids(MoneyKind.DEBIT) == [f"{dealt.round_id}:1:debit",
                                             f"{dealt.round_id}:2:debit",
                                             f"{dealt.round_id}:2-1:debit"]
    assert h.wallet.ids(MoneyKind.ROLLBACK) == [f"{dealt.round_id}:2:debit:rollback"]


async def test_forced_cards_the_shoe_does_not_hold_are_refused_before_any_money_moves() -> None:
    h = await harness()
    s = await h.session()
    with pytest.raises(InvalidRequest) as err:
        await h.app.game.deal(s, deal(forced=("AS",) * 7))  # six decks hold six
    assert err.value.reason == "FORCED_CARDS_INVALID" and not h.wallet.calls
    with pytest.raises(InvalidRequest) as err:
        await h.app.game.deal(s, deal(forced=("ZZ",)))
    assert err.value.reason == "INVALID_CARD" and not h.wallet.calls


async def test_two_different_decisions_on_the_same_view_apply_only_the_first() -> None:
    h = await harness()
    s = await h.session()
    pair = ("8S", "5H", "8D", "TC", "TH", "9H", "KS")
    dealt = await h.app.game.deal(s, deal(stake=200, forced=pair))
    results = await asyncio.gather(*(
        h.app.game.act(s, ActCommand(request_id=f"a-{a.value}", round_id=dealt.round_id,
                                     expected_seq=1, seat=1, hand=0, action=a))
        for a in (Action.SPLIT, Action.STAND)), return_exceptions=True)
    refused = [r for r in results if isinstance(r, NotAllowedNow)]
    assert len(refused) == 1 and refused[0].reason == "STALE_SEQ"
    assert h.wallet.ids(MoneyKind.DEBIT) == [f"{dealt.round_id}:1:debit",
                                             f"{dealt.round_id}:2:debit"]


async def test_an_insurance_setting_the_variant_lacks_is_named_as_the_client_sent_it() -> None:
    """Issue 22: the INVALID_BET message showed a Python repr, <InsuranceOffer.NEVER: 'never'>."""
    h = await harness()
    s = await h.session()
    with pytest.raises(InvalidRequest) as err:
        await h.app.game.deal(s, DealCommand(request_id="d1", variant_id="power", boxes=(
            BoxBet(seat=1, stake=100, insurance_offer=InsuranceOffer.NEVER),)))
    assert err.value.reason == "INVALID_BET"
    assert str(err.value) == ("seat 1: insurance_offer NEVER is not available in power (it "
                              "offers ALWAYS) (rule: insurance_offer_setting)")
    assert h.wallet.calls == []
