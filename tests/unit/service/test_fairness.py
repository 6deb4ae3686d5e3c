"""Provably fair rounds in the service layer (in-memory fakes): the seed is stored before the
round is dealt, shown only once it is over, spent only by a round that took the stake."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import pytest
from service_fakes import harness

from rgs.codec import to_jsonable
from rgs.engine import BoxBet, CardDealt, Phase
from rgs.rng.fair import card_order
from rgs.service.errors import InvalidRequest, NotAllowedNow
from rgs.service.fingerprints import request_hash, sha256_hex
from rgs.service.model import DealCommand, SettleCommand


def fair_deal(request_id: str = "d1", *, stake: int = 100, client_seed: str = "x"
              ) -> DealCommand:
    return DealCommand(request_id=request_id, variant_id="classic-resplit",
                       boxes=(BoxBet(seat=1, stake=stake),), client_seed=client_seed)


async def test_the_seed_is_stored_before_the_round_and_shown_only_once_it_is_over() -> None:
    h = await harness()
    s = await h.session()
    committed = await h.app.game.next_commitment(s)
    for i in range(30):  # until a round stays open after the deal
        dealt = await h.app.game.deal(s, fair_deal(f"d{i}"))
        if dealt.view.phase is not Phase.SETTLED:
            break
        committed = await h.app.game.next_commitment(s)
    assert dealt.fair is not None and dealt.fair.commitment == committed
    stored = h.journal.tables.round_seeds[(s.player_key, dealt.round_id)]
    assert hashlib.sha256(bytes.fromhex(stored.server_seed)).hexdigest() == committed
    assert dealt.fair.server_seed == ""
    # Nothing the player or an operator can read holds the seed while the round is open.
    answers = [r.response for r in h.journal.tables.requests.values()]
    assert not any(stored.server_seed in a for a in answers)
    reread = await h.app.game.get_round(s, dealt.round_id)
    assert reread.fair is not None and reread.fair.server_seed == ""
    settled = await h.app.game.settle(s, SettleCommand(request_id="s", round_id=dealt.round_id))
    assert settled.fair is not None and settled.fair.server_seed == stored.server_seed
    rnd = h.journal.tables.rounds[(s.player_key, dealt.round_id)]
    cards = [e.card for e in rnd.events if isinstance(e, CardDealt)]
    assert cards == card_order(bytes.fromhex(stored.server_seed), "x", stored.round_number,
                               6)[:len(cards)]
    assert settled.fair.next_commitment == await h.app.game.next_commitment(s)


async def test_a_refused_deal_spends_no_seed_and_a_replayed_deal_no_second_one() -> None:
    h = await harness()
    s = await h.session()
    committed = await h.app.game.next_commitment(s)
    with pytest.raises(NotAllowedNow):
        await h.app.game.deal(s, fair_deal(stake=10_000_000))  # beyond the balance
    assert await h.app.game.next_commitment(s) == committed
    with pytest.raises(InvalidRequest, match="client_seed"):
        await h.app.game.deal(s, fair_deal(client_seed="x" * 65))
    first = await h.app.game.deal(s, fair_deal("d"))
    again = await h.app.game.deal(s, fair_deal("d"))
    assert first == again and first.fair is not None and first.fair.commitment == committed
    assert len(h.journal.tables.round_seeds) == 1


async def test_a_round_whose_cards_depart_from_its_seeds_still_finishes() -> None:
    """A rolling upgrade: a replica without fair rounds continued it from the shoe. The round
    must stay playable (it simply will not verify)."""
    h = await harness()
    s = await h.session()
    for i in range(30):
        dealt = await h.app.game.deal(s, fair_deal(f"d{i}"))
        if dealt.view.phase is not Phase.SETTLED:
            break
    key = (s.player_key, dealt.round_id)
    h.journal.tables.round_seeds[key] = replace(h.journal.tables.round_seeds[key],
                                                client_seed="another")
    assert (await h.app.game.get_round(s, dealt.round_id)).round_id == dealt.round_id
    done = await h.app.game.settle(s, SettleCommand(request_id="s", round_id=dealt.round_id))
    assert done.view.phase is Phase.SETTLED


def test_a_deal_without_client_seed_keeps_the_previous_releases_fingerprint() -> None:
    """A Deal sent to a replica of the previous release and retried after the upgrade is a
    replay, not a reused request id."""
    cmd = fair_deal(client_seed="")
    before = to_jsonable(cmd)
    del before["client_seed"]  # the command as the previous release encoded it
    old = sha256_hex("deal\n" + json.dumps(before, separators=(",", ":"), sort_keys=True))
    assert request_hash("deal", cmd, added=("client_seed",)) == old
    seeded = fair_deal(client_seed="x")
    assert request_hash("deal", seeded, added=("client_seed",)) != old
