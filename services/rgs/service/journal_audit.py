"""``rgs audit journal``'s checks of one solo round, as a restored (or any) journal holds it.

* **It replays from its events**: the engine rebuilds it from its journal (its seeds' card
  order when it is provably fair) and produces exactly the same events, with the header's
  status, stakes and payout.
* **Its movements have the state it implies**: the stakes it took are booked debits summing to
  its ``total_staked`` (a free-bet round takes none); a settled round's credits sum to its
  ``total_paid``; an unfinished round has no credit; a voided round's rollbacks give back what
  it refunded; a rollback the wallet applied has its debit rolled back. A movement still open
  (pending, unknown, or an applied debit whose step did not commit) is not a fault: it is
  listed, and the reconciler drives it to its end once the replicas run (a point-in-time
  restore cuts through calls in flight).

Nothing here reads a clock or a database: the command (rgs.cli.audit) feeds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rgs.engine import CardSource, EngineError
from rgs.rng.fair import fair_source
from rgs.service.errors import ServiceError
from rgs.service.model import Movement, MovementStatus, StoredRound
from rgs.service.ports import CardSourceUnavailable
from rgs.service.restore import restore_stored
from rgs.wallet.port import MoneyKind


class _NoCards:
    """A card source factory that deals nothing: an audit only rebuilds what was dealt."""

    def picker(self) -> object:
        raise CardSourceUnavailable("the audit deals no card")

    @staticmethod
    def fair_source(server_seed_hex: str, client_seed: str, round_number: int,
                    decks: int) -> CardSource:
        """A fair round's card order, drawn afresh (an audit reads each round once)."""
        return fair_source(bytes.fromhex(server_seed_hex), client_seed, round_number, decks)


@dataclass(frozen=True, slots=True)
class RoundAudit:
    """What the audit found in one round."""

    round_id: str
    #: Faults: a replay that departs, a header or a movement that does not match.
    problems: tuple[str, ...]
    #: Movements still open (the reconciler's work), by transaction id.
    open_movements: tuple[str, ...]


def audit_round(stored: StoredRound, movements: Sequence[Movement], *,
                free_bet: bool = False) -> RoundAudit:
    """Check ``stored`` against its events and its ``movements`` (module docstring)."""
    problems: list[str] = []
    rid = stored.round_id
    try:
        rnd = restore_stored(_NoCards(), stored)  # type: ignore[arg-type]
    except (EngineError, ServiceError, CardSourceUnavailable) as exc:
        problems.append(f"round {rid}: does not replay from its events ({exc})")
    else:
        replayed = (rnd.phase.value, rnd.total_staked, rnd.total_paid)
        header = (stored.status, stored.total_staked, stored.total_paid)
        if replayed != header:
            problems.append(f"round {rid}: header (status, staked, paid) {header} but its "
                            f"events replay to {replayed}")
    open_ids = tuple(m.transaction_id for m in movements if m.is_open)
    final = [m for m in movements if not m.is_open]
    booked = sum(m.amount for m in final
                 if m.kind is MoneyKind.DEBIT and m.status is MovementStatus.BOOKED)
    rolled = sum(m.amount for m in final
                 if m.kind is MoneyKind.DEBIT and m.status is MovementStatus.ROLLED_BACK)
    credits = sum(m.amount for m in final if m.kind is MoneyKind.CREDIT)
    refunds = sum(m.amount for m in final if m.kind is MoneyKind.ROLLBACK)
    by_id = {m.transaction_id: m for m in movements}
    for rb in final:
        debit = by_id.get(rb.debit_transaction_id) if rb.kind is MoneyKind.ROLLBACK else None
        if (debit is not None and rb.status is MovementStatus.APPLIED
                and debit.status is not MovementStatus.ROLLED_BACK):
            # A release before the rollback's outcome said both in one write could leave this
            # (a crash between two writes): the wallet gave the stake back.
            problems.append(f"round {rid}: debit {debit.transaction_id} is {debit.status.value} "
                            f"but its rollback {rb.transaction_id} was applied")
    open_debits = any(m.kind is MoneyKind.DEBIT for m in movements if m.is_open)
    open_credits = any(m.kind is not MoneyKind.DEBIT for m in movements if m.is_open)
    if stored.status == "voided":
        if not open_credits and refunds != stored.total_paid:
            problems.append(f"round {rid}: voided with {stored.total_paid} refunded but its "
                            f"rollbacks give back {refunds}")
    else:
        if not free_bet and not open_debits and booked != stored.total_staked:
            problems.append(f"round {rid}: {stored.total_staked} staked but its booked debits "
                            f"are {booked}")
        if stored.status == "settled":
            if not open_credits and credits != stored.total_paid:
                problems.append(f"round {rid}: settled paying {stored.total_paid} but its "
                                f"credits are {credits}")
        elif credits or open_credits:
            problems.append(f"round {rid}: unfinished ({stored.status}) but credited")
        if refunds and not rolled:
            problems.append(f"round {rid}: a rollback without a rolled-back debit")
    return RoundAudit(round_id=rid, problems=tuple(problems), open_movements=open_ids)
