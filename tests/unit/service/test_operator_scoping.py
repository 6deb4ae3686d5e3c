"""Players are scoped by operator, and what one player may have open is defined (issue 12).

Rules pinned: one unfinished round per player per brand and currency, the context a session
plays in, so whatever blocks a Deal is found by GetRound in that session; request ids live in one
namespace per kind of caller (operator back office, player session, the server itself); the same
player id at two operators is two players; a round keeps the brand options it was dealt with.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from service_fakes import DEV_KEY, OTHER_KEY, harness

from rgs.engine import Action, BoxBet, Phase
from rgs.service.errors import NotAllowedNow, NotFound, RequestConflict
from rgs.service.model import (
    ActCommand,
    CreateSessionCommand,
    DealCommand,
    SettleCommand,
    VoidCommand,
)

pytestmark = pytest.mark.asyncio

BET = (BoxBet(seat=1, stake=100),)
OPEN = ("TS", "6H", "9D", "7C")  # 19 v 6 with no dealer draw yet: the round stays open


async def test_a_round_open_at_one_brand_neither_blocks_nor_hides_at_another() -> None:
    """Found: an unfinished round at demo-casino made a Deal at demo-casino-usd answer
    ROUND_IN_PROGRESS ('GetRound finds it'), while GetRound in that session answered NOT_FOUND:
    the client was stuck."""
    h = await harness()
    eur = await h.session(brand_id="demo-casino")
    usd = await h.session(brand_id="demo-casino-usd")
    first = await h.app.game.deal(eur, DealCommand(request_id="d1", variant_id="classic-resplit",
                                                   boxes=BET, forced_cards=OPEN))
    with pytest.raises(NotFound):
        await h.app.game.get_round(usd)
    second = await h.app.game.deal(usd, DealCommand(request_id="d2",
                                                    variant_id="classic-resplit", boxes=BET,
                                                    forced_cards=OPEN))
    assert (await h.app.game.get_round(eur)).round_id == first.round_id
    assert (await h.app.game.get_round(usd)).round_id == second.round_id
    # Within one session's context the rule holds, and what blocks is what GetRound shows.
    with pytest.raises(NotAllowedNow) as err:
        await h.app.game.deal(usd, DealCommand(request_id="d3", variant_id="classic-resplit",
                                               boxes=BET))
    assert err.value.reason == "ROUND_IN_PROGRESS"
    assert (await h.app.game.get_round(usd)).round_id == second.round_id
    # A round is read and played only in its own context.
    with pytest.raises(NotFound):
        await h.app.game.get_round(usd, first.round_id)


async def test_one_brand_in_two_currencies_keeps_one_open_round_per_currency() -> None:
    h = await harness()
    operator = await h.app.office.authenticate(OTHER_KEY)
    sessions = []
    for cur in ("EUR", "USD"):
        new = await h.app.office.create_session(operator, CreateSessionCommand(
            request_id=f"s-{cur}", brand_id="other-casino", player_id="alice", currency=cur))
        sessions.append(await h.app.game.authenticate(new.token))
    assert [s.currency for s in sessions] == ["EUR", "USD"]
    for i, s in enumerate(sessions):
        dealt = await h.app.game.deal(s, DealCommand(
            request_id=f"d{i}", variant_id="classic-resplit", boxes=BET, forced_cards=OPEN))
        assert dealt.currency == s.currency
        assert (await h.app.game.get_round(s)).round_id == dealt.round_id


async def test_a_stored_answer_is_given_only_in_the_context_it_was_given_in() -> None:
    """Issue 22: a Deal, Act or Settle resent with its request id from the same player's
    session in another brand or currency answered that context's stored round (and, at a
    hints brand, its decision values). It is a reuse of the id now, refused; the same replay in
    the first session is answered as before."""
    h = await harness()
    operator = await h.app.office.authenticate(OTHER_KEY)
    eur, usd = [await h.app.game.authenticate((await h.app.office.create_session(
        operator, CreateSessionCommand(request_id=f"s-{cur}", brand_id="other-casino",
                                       player_id="alice", currency=cur))).token)
        for cur in ("EUR", "USD")]
    deal = DealCommand(request_id="d", variant_id="classic-resplit", boxes=BET,
                       forced_cards=OPEN)
    dealt = await h.app.game.deal(eur, deal)
    act = ActCommand(request_id="a", round_id=dealt.round_id, expected_seq=1, seat=1, hand=0,
                     action=Action.HIT)
    hit = await h.app.game.act(eur, act)
    settle = SettleCommand(request_id="st", round_id=dealt.round_id)
    settled = await h.app.game.settle(eur, settle)
    calls = len(h.wallet.calls)
    for replay in (h.app.game.deal(usd, deal), h.app.game.act(usd, act),
                   h.app.game.settle(usd, settle)):
        with pytest.raises(RequestConflict) as err:
            await replay
        assert err.value.reason == "REQUEST_ID_REUSED" and "brand" in str(err.value)
    assert len(h.wallet.calls) == calls  # nothing reached the wallet
    assert (await h.app.game.deal(eur, deal)).round_id == dealt.round_id
    assert (await h.app.game.act(eur, act)).view == hit.view
    assert (await h.app.game.settle(eur, settle)).view == settled.view


async def test_request_ids_of_operator_and_player_never_collide() -> None:
    """Found: a player who reused (or guessed) an id the operator used blocked the operator's
    CreateSession or VoidRound with REQUEST_ID_REUSED."""
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, DealCommand(request_id="shared-id", variant_id="power",
                                                 boxes=BET, forced_cards=OPEN))
    operator = await h.app.office.authenticate(DEV_KEY)
    new = await h.app.office.create_session(operator, CreateSessionCommand(
        request_id="shared-id", brand_id="demo-casino", player_id="alice"))
    assert new.session.player_id == "alice"
    voided = await h.app.office.void_round(operator, VoidCommand(
        request_id="shared-id-2", brand_id="demo-casino", player_id="alice",
        round_id=dealt.round_id, reason="dispute"))
    assert voided.round.status == "voided"
    # And the player's own replay of its id still answers its own stored Deal.
    again = await h.app.game.deal(s, DealCommand(request_id="shared-id", variant_id="power",
                                                 boxes=BET, forced_cards=OPEN))
    assert again.round_id == dealt.round_id
    # A player reusing the operator's VoidRound id for its next Deal is not blocked either.
    fresh = await h.app.game.deal(s, DealCommand(request_id="shared-id-2",
                                                 variant_id="power", boxes=BET))
    assert fresh.round_id != dealt.round_id


async def test_a_player_cannot_take_the_sweepers_request_id_to_get_a_round_voided() -> None:
    """Found while there: the sweeper settled an abandoned round under `sweep:{round id}` in the
    player's namespace. A player who had used that id for an Act made the sweeper's Settle a
    REQUEST_ID_REUSED, which voided the round: every stake back, a free option on a bad hand."""
    h = await harness()
    s = await h.session()
    dealt = await h.app.game.deal(s, DealCommand(
        request_id="d1", variant_id="classic-resplit", boxes=(BoxBet(seat=1, stake=100),),
        forced_cards=("8S", "6H", "8D", "TC", "2C")))
    hit = await h.app.game.act(s, ActCommand(
        request_id=f"sweep:{dealt.round_id}", round_id=dealt.round_id, expected_seq=1, seat=1,
        hand=0, action=Action.HIT))
    assert hit.view.phase is Phase.PLAYER_TURN
    h.clock.now += timedelta(hours=25)
    assert await h.app.reconciler.sweep_abandoned() == 1
    settled = h.journal.tables.rounds[(s.player_key, dealt.round_id)]
    assert settled.status == "settled"


async def test_the_same_player_id_at_two_operators_is_two_players() -> None:
    h = await harness()
    dev = await h.session(brand_id="demo-casino", key=DEV_KEY)
    other = await h.session(brand_id="other-casino", key=OTHER_KEY)
    assert dev.player_id == other.player_id == "alice"
    assert dev.player_key != other.player_key
    a = await h.app.game.deal(dev, DealCommand(request_id="d", variant_id="classic-resplit",
                                               boxes=BET, forced_cards=OPEN))
    b = await h.app.game.deal(other, DealCommand(request_id="d", variant_id="classic-resplit",
                                                 boxes=BET, forced_cards=OPEN))
    assert a.round_id != b.round_id
    with pytest.raises(NotFound):
        await h.app.game.get_round(other, a.round_id)
    parties = {(c.party.operator_id, c.party.brand_id) for c in h.wallet.calls}
    assert parties == {("dev-operator", "demo-casino"), ("other-operator", "other-casino")}
