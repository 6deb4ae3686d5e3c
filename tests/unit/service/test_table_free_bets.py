"""Free bets at a shared table (docs/freebets.md): a free bet on the player's own seat's main
bet debits nothing of it, the round's credit is the engine's payout less the free stake (marked
promotional), and everything else the player stakes is their own money; each player's money
from the fake wallet, to the cent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from service_fakes import DEV_KEY
from table_fakes import START, T, Tables, tables

from rgs.engine import Action
from rgs.service.errors import InvalidRequest, NotAllowedNow, NotFound
from rgs.service.freebets import FreeBetGrant
from rgs.service.tables.model import BetCommand, TableAct, TablePhase
from rgs.wallet.port import MoneyKind

pytestmark = pytest.mark.asyncio

EXPIRES = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)  # the harness clock starts a day before
#: seat 1: 6 5 (doubles onto T: 21); seat 3: T 9; dealer 9, hole 7, draws T and busts.
CARDS = ["6S", "TH", "9D", "5H", "9C", "7S", "TD", "TC"]
#: seat 1 alone: T 7 (17) against the dealer's 9 T (19).
LOSES = ["TS", "9D", "7H", "TC"]


async def _grant(t: Tables, grant_id: str = "promo-1", *, player: str = "ann", count: int = 1,
                 value: int = 1000, variants: tuple[str, ...] = (),
                 table_ids: tuple[str, ...] = ()) -> FreeBetGrant:
    operator = await t.h.app.office.authenticate(DEV_KEY)
    return await t.h.app.game.free_bets.grant(FreeBetGrant(
        operator_id=operator, grant_id=grant_id, brand_id="demo-casino", player_id=player,
        currency="EUR", value=value, count=count, variants=variants, tables=table_ids,
        expires_at=EXPIRES))


async def _usage(t: Tables, grant_id: str = "promo-1") -> tuple[int, int, int]:
    operator = await t.h.app.office.authenticate(DEV_KEY)
    u = await t.h.app.game.free_bets.usage(operator, grant_id)
    return u.used, u.left, u.paid


def _credits(t: Tables, name: str) -> list[tuple[int, bool]]:
    return [(c.amount, c.promotional) for c in t.h.wallet.applied.values()
            if c.party.player_id == name and c.kind is MoneyKind.CREDIT]


async def test_a_free_bet_at_a_table_pays_the_winnings_only_and_the_rest_is_own_money(
        ) -> None:
    """Ann's free 10.00 on seat 1 with Perfect Pairs 1.00 of her own doubles (10.00 of her
    own) onto 21 and wins 40.00: credited 30.00, promotional. Ben beside her plays for money."""
    t = await tables()
    await t.player("ann")
    await t.player("ben")
    await t.sit("ann", 1)
    await t.sit("ben", 3)
    await _grant(t, table_ids=(T,))
    placed = await t.bet("ann", "b1", BetCommand(seat=1, stake=1000, perfect_pairs=100,
                                                 free_bet_id="promo-1"))
    assert placed.balance == t.balance("ann") == START - 100  # the side bet only
    assert t.debits("ann") == [100]
    assert await _usage(t) == (1, 0, 0)  # used from the bet on
    await t.bet("ben", "b1", BetCommand(seat=3, stake=2000))
    await t.deal_now("ann", "dn", CARDS)
    await t.deal_now("ben", "dn")
    await t.clock()
    view = await t.service.view(T)
    assert view.phase is TablePhase.PLAYING
    await t.service.act(t.players["ann"], T, "a1", TableAct(
        round_id=view.round_id, seat=1, hand=0, action=Action.DOUBLE))
    assert t.debits("ann") == [100, 1000]  # the double is her own money
    await t.service.act(t.players["ben"], T, "a1", TableAct(
        round_id=view.round_id, seat=3, hand=0, action=Action.STAND))
    await t.clock()
    assert (await t.service.view(T)).phase is TablePhase.IDLE
    assert _credits(t, "ann") == [(3000, True)]  # 40.00 paid less the free 10.00
    assert _credits(t, "ben") == [(4000, False)]
    assert t.balance("ann") == START - 100 - 1000 + 3000
    assert t.balance("ben") == START - 2000 + 4000
    assert await _usage(t) == (1, 0, 3000)
    # The grant is used up: the next round's free bet is refused and nothing moves.
    with pytest.raises(NotAllowedNow) as used:
        await t.bet("ann", "b2", BetCommand(seat=1, stake=1000, free_bet_id="promo-1"))
    assert used.value.reason == "FREE_BET_USED"
    assert t.balance("ann") == START - 100 - 1000 + 3000


async def test_a_lost_free_bet_alone_debits_and_credits_nothing() -> None:
    t = await tables()
    await t.player("ann")
    await t.sit("ann", 1)
    await _grant(t)  # no variant nor table listed: every game of the brand
    placed = await t.bet("ann", "b1", BetCommand(seat=1, stake=1000, free_bet_id="promo-1"))
    assert placed.balance == START and t.debits("ann") == []
    await t.deal_now("ann", "dn", LOSES)
    await t.clock()
    view = await t.service.view(T)
    await t.service.act(t.players["ann"], T, "a1", TableAct(
        round_id=view.round_id, seat=1, hand=0, action=Action.STAND))
    await t.clock()
    assert (await t.service.view(T)).phase is TablePhase.IDLE
    assert t.balance("ann") == START
    assert all(amount == 0 for amount, _ in _credits(t, "ann"))
    assert await _usage(t) == (1, 0, 0)


async def test_free_bets_a_table_refuses_take_nothing() -> None:
    t = await tables()
    await t.player("ann")
    await t.player("ben")
    await t.sit("ann", 1)
    await t.sit("ben", 3)
    await _grant(t, "solo-only", variants=("classic-resplit",))
    await _grant(t, "promo-1", count=2)
    await _grant(t, "bens", player="ben")
    await t.bet("ben", "b0", BetCommand(seat=3, stake=1000))
    refused: list[tuple[str, BetCommand]] = [
        ("FREE_BET_VALUE_MISMATCH", BetCommand(seat=1, stake=2000, free_bet_id="promo-1")),
        ("FREE_BET_NOT_FOR_VARIANT", BetCommand(seat=1, stake=1000, free_bet_id="solo-only")),
        ("FREE_BET_NOT_FOUND", BetCommand(seat=1, stake=1000, free_bet_id="bens")),
        ("INVALID_BET", BetCommand(seat=3, stake=1000, behind=True, free_bet_id="promo-1")),
    ]
    for i, (reason, bet) in enumerate(refused):
        with pytest.raises((InvalidRequest, NotAllowedNow, NotFound)) as no:
            await t.bet("ann", f"r{i}", bet)
        assert no.value.reason == reason, bet
    with pytest.raises(InvalidRequest) as two:  # one free bet per round
        await t.bet("ann", "r9", BetCommand(seat=1, stake=1000, free_bet_id="promo-1"),
                    BetCommand(seat=3, stake=1000, behind=True, free_bet_id="promo-1"))
    assert two.value.reason == "INVALID_BET"
    assert t.balance("ann") == START and t.debits("ann") == []
    assert await _usage(t) == (0, 2, 0)
    assert await _usage(t, "solo-only") == (0, 1, 0)


async def test_a_bet_the_table_does_not_take_gives_its_free_bet_back() -> None:
    """Ann's free bet goes with a Bet Behind her wallet cannot pay: the command is refused, so
    the free bet is hers to play again and nothing is debited."""
    t = await tables()
    await t.player("ann")
    await t.player("ben")
    await t.sit("ann", 1)
    await t.sit("ben", 3)
    await _grant(t)
    await t.bet("ben", "b0", BetCommand(seat=3, stake=1000))
    t.h.wallet.balances["ann"] = 500
    with pytest.raises(Exception) as refused:
        await t.bet("ann", "b1", BetCommand(seat=1, stake=1000, free_bet_id="promo-1"),
                    BetCommand(seat=3, stake=1000, behind=True))
    assert getattr(refused.value, "reason", "") == "INSUFFICIENT_FUNDS"
    assert await _usage(t) == (0, 1, 0)
    assert t.balance("ann") == 500 and t.debits("ann") == []
    placed = await t.bet("ann", "b2", BetCommand(seat=1, stake=1000, free_bet_id="promo-1"))
    assert placed.balance == 500 and await _usage(t) == (1, 0, 0)
