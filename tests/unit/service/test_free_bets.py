"""Free bets in solo play: grants, the Deal that stakes one, and the money rule (winnings only
on the free stake, stake and winnings on the player's own money), per wallet to the cent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from service_fakes import DEV_KEY, Harness, harness

from rgs.engine import Action, BoxBet, Phase, RoundView
from rgs.engine.model import BoxView, HandStatus, HandView
from rgs.service.audit import Action as Audited
from rgs.service.errors import InvalidRequest, NotAllowedNow, NotFound
from rgs.service.freebets import FreeBetGrant, GrantStatus, free_bet_credit
from rgs.service.model import ActCommand, DealCommand, PlayResult, Session
from rgs.wallet.port import MoneyKind

STAND_WINS = ("TS", "6H", "9D", "7C", "9S")  # 19 v 6+7, dealer draws 9: busts
DOUBLE_ON_11 = ("5S", "6H", "6D", "TC", "TS", "9H")  # 11, double to 21; dealer 16 + 9 busts
PUSH = ("TS", "TH", "9D", "9C")  # 19 v 19
LOSES = ("TS", "TH", "7D", "9C")  # 17 v 19
VARIANT = "classic-resplit"
EXPIRES = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)  # the harness clock starts a day before


async def _grant(h: Harness, grant_id: str = "promo-1", *, count: int = 3, value: int = 1000,
                 variants: tuple[str, ...] = (VARIANT,), player_id: str = "alice"
                 ) -> FreeBetGrant:
    operator = await h.app.office.authenticate(DEV_KEY)
    return await h.app.game.free_bets.grant(FreeBetGrant(
        operator_id=operator, grant_id=grant_id, brand_id="demo-casino", player_id=player_id,
        currency="EUR", value=value, count=count, variants=variants,
        expires_at=EXPIRES))


def _deal(rid: str, forced: tuple[str, ...], *, stake: int = 1000, free: str = "promo-1",
          variant: str = VARIANT, **box: int) -> DealCommand:
    return DealCommand(request_id=rid, variant_id=variant, forced_cards=forced,
                       boxes=(BoxBet(seat=1, stake=stake, **box),), free_bet_id=free)


async def _act(h: Harness, s: Session, r: PlayResult, rid: str, action: Action) -> PlayResult:
    return await h.app.game.act(s, ActCommand(request_id=rid, round_id=r.round_id,
                                              expected_seq=r.view.seq, seat=1, hand=0,
                                              action=action))


async def test_a_free_bet_that_wins_credits_the_winnings_only() -> None:
    h = await harness()
    s = await h.session()
    await _grant(h)
    dealt = await h.app.game.deal(s, _deal("d1", STAND_WINS))
    assert h.wallet.ids(MoneyKind.DEBIT) == []  # the free stake debits nothing
    assert dealt.balance == 100_000
    # Every view shows the free bets left (the one this round stakes is used).
    assert [(f.grant_id, f.value, f.left, f.variants) for f in dealt.free_bets] == [
        ("promo-1", 1000, 2, (VARIANT,))]
    done = await _act(h, s, dealt, "a1", Action.STAND)
    assert done.view.total_paid == 2000  # the engine's round is as a paid one's
    credit = h.wallet.applied[f"{dealt.round_id}:settle:credit"]
    assert credit.amount == 1000 and h.wallet.balances["alice"] == 101_000
    assert credit.promotional  # the win of a free bet is promotional money


async def test_a_free_bet_doubled_and_won_pays_the_documented_amount() -> None:
    h = await harness()
    s = await h.session()
    await _grant(h)
    dealt = await h.app.game.deal(s, _deal("d1", DOUBLE_ON_11))
    doubled = await _act(h, s, dealt, "a1", Action.DOUBLE)
    # free 10.00, the double's 10.00 from the player; the hand of 20.00 wins 40.00: the free
    # 10.00 is not returned, so 30.00 is credited; the player is 20.00 up.
    assert [c.amount for c in h.wallet.calls if c.kind is MoneyKind.DEBIT] == [1000]
    credit = h.wallet.applied[f"{dealt.round_id}:settle:credit"]
    assert doubled.view.total_paid == 4000 and credit.amount == 3000 and credit.promotional
    assert h.wallet.balances["alice"] == 102_000


async def test_a_push_returns_nothing_and_a_loss_costs_nothing_and_each_uses_a_free_bet(
        ) -> None:
    h = await harness()
    s = await h.session()
    await _grant(h, count=2)
    push = await _act(h, s, await h.app.game.deal(s, _deal("d1", PUSH)), "a1", Action.STAND)
    lost = await _act(h, s, await h.app.game.deal(s, _deal("d2", LOSES)), "a2", Action.STAND)
    assert push.view.total_paid == 1000 and lost.view.total_paid == 0
    assert [c.amount for c in h.wallet.calls if c.kind is MoneyKind.CREDIT] == [0, 0]
    assert h.wallet.balances["alice"] == 100_000
    operator = await h.app.office.authenticate(DEV_KEY)
    usage = await h.app.game.free_bets.usage(operator, "promo-1")
    assert (usage.used, usage.paid, usage.left, usage.status) == (2, 0, 0, GrantStatus.USED)
    with pytest.raises(NotAllowedNow) as used:
        await h.app.game.deal(s, _deal("d3", STAND_WINS))
    assert used.value.reason == "FREE_BET_USED"


async def test_side_bets_are_the_players_own_money() -> None:
    h = await harness()
    s = await h.session()
    await _grant(h, variants=())  # every variant
    await h.app.game.deal(s, _deal("d1", STAND_WINS, variant="vip-platinum", perfect_pairs=200))
    assert [c.amount for c in h.wallet.calls if c.kind is MoneyKind.DEBIT] == [200]
    assert h.wallet.balances["alice"] == 99_800


async def test_a_round_without_a_free_bet_pays_in_full_and_is_not_promotional() -> None:
    h = await harness()
    s = await h.session()
    await _grant(h)
    dealt = await h.app.game.deal(s, _deal("d1", STAND_WINS, free=""))
    await _act(h, s, dealt, "a1", Action.STAND)
    credit = h.wallet.applied[f"{dealt.round_id}:settle:credit"]
    assert (credit.amount, credit.promotional) == (2000, False)
    assert h.wallet.balances["alice"] == 101_000


async def test_refusals_say_why_and_move_nothing() -> None:
    h = await harness()
    s = await h.session()
    await _grant(h)
    await _grant(h, "bob-only", player_id="bob")
    cases = [(_deal("d1", STAND_WINS, free="nope"), NotFound, "FREE_BET_NOT_FOUND"),
             (_deal("d2", STAND_WINS, free="bob-only"), NotFound, "FREE_BET_NOT_FOUND"),
             (_deal("d3", STAND_WINS, stake=500), InvalidRequest, "FREE_BET_VALUE_MISMATCH"),
             (_deal("d4", STAND_WINS, variant="vegas-20-plus"), NotAllowedNow,
              "FREE_BET_NOT_FOR_VARIANT")]
    for cmd, error, reason in cases:
        with pytest.raises(error) as refused:
            await h.app.game.deal(s, cmd)
        assert refused.value.reason == reason
    h.clock.now += timedelta(days=2)
    with pytest.raises(NotAllowedNow) as expired:
        await h.app.game.deal(s, _deal("d5", STAND_WINS))
    assert expired.value.reason == "FREE_BET_EXPIRED"
    assert h.wallet.calls == [] and h.wallet.balances["alice"] == 100_000
    operator = await h.app.office.authenticate(DEV_KEY)
    report = {u.grant.grant_id: u for u in await h.app.game.free_bets.report(operator)}
    assert report["promo-1"].status is GrantStatus.EXPIRED and report["promo-1"].expired == 3


async def test_a_grant_is_idempotent_and_revocable_while_unused_with_an_audit_row() -> None:
    h = await harness()
    s = await h.session()
    first = await _grant(h)
    assert await _grant(h) == first
    with pytest.raises(NotAllowedNow) as conflict:
        await _grant(h, count=5)
    assert conflict.value.reason == "FREE_BET_GRANT_CONFLICT"
    operator = await h.app.office.authenticate(DEV_KEY)
    revoked = await h.app.game.free_bets.revoke(operator, "promo-1", "sent by mistake")
    assert revoked.status is GrantStatus.REVOKED and revoked.left == 0
    with pytest.raises(NotAllowedNow) as refused:
        await h.app.game.deal(s, _deal("d1", STAND_WINS))
    assert refused.value.reason == "FREE_BET_REVOKED"
    await _grant(h, "promo-2")
    await h.app.game.deal(s, _deal("d2", STAND_WINS, free="promo-2"))
    with pytest.raises(NotAllowedNow) as used:
        await h.app.game.free_bets.revoke(operator, "promo-2")
    assert used.value.reason == "FREE_BET_USED"
    assert h.app.governance is not None
    page = await h.app.governance.audit.page(operator_id=None, before=0, limit=100)
    actions = [r.entry.action for r in page.records]
    assert actions.count(Audited.FREE_BET_GRANTED) == 2
    assert actions.count(Audited.FREE_BET_REVOKED) == 1


async def test_a_free_blackjack_settled_at_the_deal_credits_its_winnings() -> None:
    h = await harness()
    s = await h.session()
    await _grant(h)
    dealt = await h.app.game.deal(s, _deal("d1", ("AS", "6H", "KD", "7C")))
    assert dealt.view.total_paid == 2500  # 3:2 on 10.00, the stake back
    credit = h.wallet.applied[f"{dealt.round_id}:settle:credit"]
    assert (credit.amount, credit.promotional) == (1500, True)
    assert h.wallet.ids(MoneyKind.DEBIT) == [] and h.wallet.balances["alice"] == 101_500


def _split_view(first: int, second: int) -> RoundView:
    hands = tuple(HandView(index=i, cards=(), total=0, soft=False, stake=1000,
                           status=HandStatus.SETTLED, outcome=None, payout=p, from_split=i > 0,
                           doubled=False, allowed=()) for i, p in enumerate((first, second)))
    box = BoxView(seat=1, stake=1000, hands=hands, side_bets=(), insurance_offered=False,
                  insurance_stake=0, insurance_payout=0, insurance_allowed=())
    return RoundView(variant=VARIANT, phase=Phase.SETTLED, seq=4, dealer_cards=(),
                     dealer_total=0, dealer_soft=False, dealer_hole_hidden=False, boxes=(box,),
                     to_act=None, total_staked=2000, total_paid=first + second)


@pytest.mark.parametrize(("first", "second", "credited"), [
    (0, 2000, 2000),  # the free hand lost: the split hand (own money) is paid in full
    (2000, 0, 1000),  # the free hand won: its winnings only
    (2000, 2000, 3000),
    (1000, 1000, 1000),  # both pushed: the split stake comes back, the free one does not
])
def test_after_a_split_the_first_hand_carries_the_free_stake(first: int, second: int,
                                                             credited: int) -> None:
    assert free_bet_credit(_split_view(first, second), 1, 1000) == credited
