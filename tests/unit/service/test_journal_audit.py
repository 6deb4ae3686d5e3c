"""rgs audit journal's round check (rgs.service.journal_audit) on rounds the real use cases
wrote to the in-memory journal: a consistent round passes; a header, an event or a movement
that does not match what the round implies is named."""

from __future__ import annotations

from dataclasses import replace

from service_fakes import harness

from rgs.engine import Action, BoxBet
from rgs.service.journal_audit import audit_round
from rgs.service.model import ActCommand, DealCommand, Movement, MovementStatus, StoredRound
from rgs.wallet.port import MoneyKind

STAND_WINS = ("TS", "6H", "9D", "7C", "9S")


async def _rounds() -> tuple[list[tuple[StoredRound, list[Movement]]], str]:
    h = await harness()
    s = await h.session()
    out: list[tuple[StoredRound, list[Movement]]] = []
    dealt = await h.app.game.deal(s, DealCommand(request_id="d1", variant_id="classic-resplit",
                                                 boxes=(BoxBet(seat=1, stake=500),),
                                                 forced_cards=STAND_WINS))
    async with h.journal.player(s.player_key) as player:
        got = await player.get_round(dealt.round_id)
        assert got is not None
        out.append((got, await player.movements(dealt.round_id)))
    await h.app.game.act(s, ActCommand(request_id="a1", round_id=dealt.round_id,
                                       expected_seq=dealt.view.seq, seat=1, hand=0,
                                       action=Action.STAND))
    async with h.journal.player(s.player_key) as player:
        got = await player.get_round(dealt.round_id)
        assert got is not None
        out.append((got, await player.movements(dealt.round_id)))
    return out, dealt.round_id


async def test_an_open_and_a_settled_round_audit_clean_and_tampering_is_named() -> None:
    (open_, settled), rid = await _rounds()
    for stored, moves in (open_, settled):
        assert stored is not None
        found = audit_round(stored, moves)
        assert found.problems == () and found.open_movements == ()
    stored, moves = settled
    # A header that says it paid more than its events do.
    bad = audit_round(replace(stored, total_paid=stored.total_paid + 1), moves)
    assert any("replay to" in p for p in bad.problems)
    assert any("credits are" in p for p in bad.problems)
    # A credit missing from the outbox; a debit that is not booked.
    no_credit = [m for m in moves if m.kind is not MoneyKind.CREDIT]
    assert any("credits are 0" in p for p in audit_round(stored, no_credit).problems)
    unbooked = [replace(m, status=MovementStatus.REFUSED) if m.kind is MoneyKind.DEBIT else m
                for m in moves]
    assert any("booked debits are 0" in p for p in audit_round(stored, unbooked).problems)
    # An event dropped: the round no longer replays to its header.
    cut = replace(stored, events=stored.events[:-1])
    assert audit_round(cut, moves).problems
    # A credit still pending is the reconciler's work, not a fault.
    pending = [replace(m, status=MovementStatus.PENDING) if m.kind is MoneyKind.CREDIT else m
               for m in moves]
    found = audit_round(stored, pending)
    assert found.problems == () and len(found.open_movements) == 1
    assert rid == stored.round_id


async def test_a_debit_left_booked_after_its_rollback_was_applied_is_named() -> None:
    # What a crash between two writes left before a rollback's outcome marked its debit in the
    # same write (the chaos test's failure): the wallet gave the stake back, the journal still
    # counts it booked.
    (open_, _), _ = await _rounds()
    stored, moves = open_
    debit = next(m for m in moves if m.kind is MoneyKind.DEBIT)
    rollback = replace(debit, transaction_id=f"{debit.transaction_id}:rollback",
                       kind=MoneyKind.ROLLBACK, debit_transaction_id=debit.transaction_id,
                       status=MovementStatus.APPLIED)
    found = audit_round(stored, [*moves, rollback])
    assert [p for p in found.problems if "its rollback" in p] == [
        f"round {stored.round_id}: debit {debit.transaction_id} is booked but its rollback "
        f"{rollback.transaction_id} was applied"]
    marked = [replace(m, status=MovementStatus.ROLLED_BACK) if m is debit else m for m in moves]
    assert not [p for p in audit_round(stored, [*marked, rollback]).problems
                if "its rollback" in p]
