"""Money moves exactly once, whatever fails: random rounds of every variant with random
decisions while the wallet randomly fails before or after applying calls. After the faults stop
and everything is settled and reconciled, the wallet holds exactly what the journal says."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from service_fakes import harness

from rgs.engine import Action, BoxBet, Phase
from rgs.service.errors import NotAllowedNow, ServiceError, Unavailable
from rgs.service.model import ActCommand, DealCommand, SettleCommand
from rgs.variants import VARIANTS
from rgs.wallet.port import MoneyKind

START = 100_000


def _bets(rng: random.Random, variant: str) -> tuple[BoxBet, ...]:
    rules = VARIANTS[variant]
    boxes = []
    for seat in rng.sample(range(1, rules.max_boxes + 1), rng.randint(1, min(3, rules.max_boxes))):
        side = {k.value: rng.choice([0, 100]) for k in rules.side_bets}
        boxes.append(BoxBet(seat=seat, stake=rng.choice([1000, 1500, 2500]), **side))
    return tuple(boxes)


@pytest.mark.parametrize("seed", range(4))
async def test_wallet_matches_the_journal_after_random_play_under_wallet_faults(
        seed: int) -> None:
    rng = random.Random(seed)
    h = await harness(seed=seed)
    s = await h.session()
    round_ids: set[str] = set()
    for n in range(25):
        variant = rng.choice(list(VARIANTS))
        deal = DealCommand(request_id=f"d{n}", variant_id=variant, boxes=_bets(rng, variant))
        view = None
        for _ in range(3):  # a client retries a failed call with the same request id
            h.wallet.fail_next = rng.choice([None, None, MoneyKind.DEBIT, MoneyKind.CREDIT])
            h.wallet.apply_then_fail = rng.random() < 0.5
            try:
                res = await h.app.game.deal(s, deal)
                view, round_id = res.view, res.round_id
                round_ids.add(round_id)
                break
            except ServiceError:
                continue
        steps = 0
        while view is not None and view.phase in (Phase.INSURANCE, Phase.PLAYER_TURN):
            steps += 1
            if view.phase is Phase.INSURANCE:
                box = next(b for b in view.boxes if b.insurance_allowed)
                seat, hand, allowed = box.seat, 0, box.insurance_allowed
            else:
                assert view.to_act is not None
                seat, hand = view.to_act
                bx = next(b for b in view.boxes if b.seat == seat)
                allowed = bx.hands[hand].allowed
            action: Action = rng.choice(allowed).action
            h.wallet.fail_next = rng.choice([None, None, None, MoneyKind.DEBIT, MoneyKind.CREDIT])
            h.wallet.apply_then_fail = rng.random() < 0.5
            try:
                view = (await h.app.game.act(s, ActCommand(
                    request_id=f"a{n}-{steps}", round_id=round_id, expected_seq=view.seq,
                    seat=seat, hand=hand, action=action))).view
            except (Unavailable, NotAllowedNow):
                view = (await h.app.game.get_round(s, round_id)).view
    # Faults stop; every round is finished and every open outbox row reconciled.
    h.wallet.fail_next = None
    for rid in round_ids:
        await h.app.game.settle(s, SettleCommand(request_id=f"final-{rid}", round_id=rid))
    h.clock.now += timedelta(minutes=10)
    await h.app.reconciler.run_once()
    rounds = [r for (k, _), r in h.journal.tables.rounds.items() if k == s.player_key]
    assert rounds and all(r.finished for r in rounds)
    staked = sum(r.total_staked for r in rounds)
    paid = sum(r.total_paid for r in rounds)
    assert h.wallet.balances["alice"] == START - staked + paid
    async with h.journal.player(s.player_key) as pj:
        assert await pj.open_movements() == []
