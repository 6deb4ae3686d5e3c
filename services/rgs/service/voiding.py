"""Voiding a round: journal ``RoundVoided`` and, in the same commit, a rollback outbox row for
every stake the round took; nothing is paid.

Used by the operator's ``VoidRound`` and by the sweeper when a round cannot be continued (its
events no longer rebuild it). Such a round cannot be restored by the engine either, so its
``RoundVoided`` event is then written from the journal's own totals.
"""

from __future__ import annotations

from dataclasses import replace

from rgs.engine import EngineError, RoundVoided
from rgs.service.audit import Action, AuditEntry, AuditTrail
from rgs.service.errors import NotAllowedNow
from rgs.service.model import MovementStatus, StoredRequest, StoredRound
from rgs.service.money import rollback_of
from rgs.service.ports import PlayerJournal
from rgs.service.restore import restore
from rgs.service.writes import StepWrite
from rgs.variants import VARIANTS
from rgs.variants.options import OptionError, effective_rules
from rgs.wallet.port import MoneyKind


async def void(pj: PlayerJournal, stored: StoredRound, *, reason: str,
               request: StoredRequest | None) -> None:
    """Void an unfinished round; its rollbacks are sent after this returns (and retried by the
    reconciler until the wallet confirms them)."""
    movements = await pj.movements(stored.round_id)
    if stored.finished or any(m.kind is MoneyKind.CREDIT for m in movements):
        # A debit is never rolled back once a credit of its round exists.
        raise NotAllowedNow("a finished round cannot be voided", reason="ROUND_FINISHED")
    rollbacks = [rollback_of(m) for m in movements
                 if m.kind is MoneyKind.DEBIT and m.status is MovementStatus.BOOKED]
    header = _rebuilt(stored, reason)
    if header is None:
        refunded = sum(m.amount for m in rollbacks)
        header = replace(stored, seq=stored.seq + 1, status="voided", total_paid=refunded,
                         events=(*stored.events, RoundVoided(
                             reason=reason, total_staked=stored.total_staked,
                             total_refunded=refunded)))
    await pj.commit_round(StepWrite(round=header, new_events_from=len(stored.events),
                                    request=request, movements=tuple(rollbacks)))


def _rebuilt(stored: StoredRound, reason: str) -> StoredRound | None:
    """The voided header from the engine, or None when the engine cannot rebuild the round."""
    base = VARIANTS.get(stored.variant)
    if base is None:
        return None
    try:
        rules = effective_rules(base, stored.options)
        rnd = restore(rules, stored.events, _no_draw, stored.forced_cards)
        rnd.void(reason)
    except (EngineError, OptionError):
        return None
    return replace(stored, seq=rnd.seq, status=rnd.phase.value, total_staked=rnd.total_staked,
                   total_paid=rnd.total_paid, events=rnd.events)


def _no_draw(n: int) -> int:
    raise AssertionError("voiding a round draws no card")


async def record_void(audit: AuditTrail | None, actor: str, stored: StoredRound, *,
                      reason: str, request_id: str) -> None:
    """Record a void in the audit trail, once: a replayed VoidRound (its first answer lost
    with a failed audit write, say) records it then and never twice."""
    if audit is None:
        return
    await audit.record_change(AuditEntry(
        actor=actor, action=Action.ROUND_VOIDED, subject=f"round:{stored.round_id}",
        reason=reason, operator_id=stored.operator_id,
        details={"brand_id": stored.brand_id, "player_id": stored.player_id,
                 "request_id": request_id, "total_staked": str(stored.total_staked)}),
        first_action=Action.ROUND_VOIDED)
