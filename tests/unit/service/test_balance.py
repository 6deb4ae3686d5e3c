"""The player's balance before the first round: from the wallet at CreateSession (unset when the
wallet does not answer, the session opening all the same) and from GameService.balance."""

from __future__ import annotations

import pytest
from service_fakes import DEV_KEY, harness

from rgs.service.errors import Unavailable
from rgs.service.model import CreateSessionCommand

pytestmark = pytest.mark.asyncio


async def test_create_session_answers_the_wallet_balance() -> None:
    h = await harness()
    operator = await h.app.office.authenticate(DEV_KEY)
    new = await h.app.office.create_session(operator, CreateSessionCommand(
        request_id="s1", brand_id="demo-casino", player_id="alice"))
    assert new.balance == 100_000
    session = await h.app.game.authenticate(new.token)
    assert await h.app.game.balance(session) == 100_000


async def test_a_session_opens_without_a_balance_when_the_wallet_is_down() -> None:
    h = await harness()
    h.wallet.down = True
    operator = await h.app.office.authenticate(DEV_KEY)
    new = await h.app.office.create_session(operator, CreateSessionCommand(
        request_id="s1", brand_id="demo-casino", player_id="alice"))
    assert new.balance is None
    session = await h.app.game.authenticate(new.token)
    assert await h.app.game.balance_or_none(session) is None
    with pytest.raises(Unavailable) as err:
        await h.app.game.balance(session)
    assert err.value.reason == "WALLET_UNAVAILABLE"
