"""``rgs audit journal``'s checks of one shared-table round, as a restored (or any) journal
holds it: the table's counterpart of :mod:`rgs.service.journal_audit`.

* **It replays from its events**: the engine rebuilds it from its row's events (from its seeds'
  card order when it is provably fair: a card that is not its seeds' is a fault) and produces
  exactly the same events, every seat's hands, Bet Behinds, side bets, insurance and Cash Out
  included; the row's status is the replayed round's phase. A round closed without a card
  (``not_dealt``, or ``voided`` at the deal) has no events.
* **Each player's share**: a settled round's row of each player (staked, paid) is what the
  replayed round gives that player (``Round.money_by_player``), no player missing or extra.
* **Each player's movements have the state the round implies**: the booked debits are what the
  player staked less a free bet's value (a debit of a stake the round did not take is rolled
  back, and its rollback gives it back); a settled round's credit is what it paid less the free
  stake (``free_bets.free_credit_less``); an unfinished round has no credit; a round closed
  without a card keeps no stake. A movement still open is the reconciler's work: it is listed,
  and the checks it would change wait for it.

Nothing here reads a clock or a database: the command (``rgs.cli.audit_journal``) feeds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rgs.codec import decode_event
from rgs.engine import Round, replay
from rgs.engine.errors import ReplayMismatch
from rgs.rng.fair import fair_source
from rgs.service.freebets import FreeBetUse
from rgs.service.journal_audit import RoundAudit
from rgs.service.model import Movement, MovementStatus
from rgs.service.tables.free_bets import free_credit_less
from rgs.service.tables.ports import RoundRecord
from rgs.variants import VARIANTS
from rgs.wallet.port import MoneyKind

#: Statuses of a round closed at betting without a card: no events, every stake given back.
_UNDEALT = ("not_dealt", "voided")


def _replayed(rec: RoundRecord, problems: list[str]) -> Round | None:
    """The round rebuilt from its row's events (None, with the problem, when it is not)."""
    rid = rec.round_id
    rules = VARIANTS.get(rec.variant)
    if rules is None:
        problems.append(f"table round {rid}: variant {rec.variant!r} is no longer known")
        return None
    try:
        events = [decode_event(kind, payload) for kind, payload in rec.events]
    except (ValueError, TypeError, KeyError) as exc:
        problems.append(f"table round {rid}: an event does not decode ({exc})")
        return None
    try:
        if rec.fair is not None and rec.fair.verifiable:
            try:
                f = rec.fair
                return replay(rules, events, source=fair_source(
                    bytes.fromhex(f.server_seed), f.client_seed, f.round_number, f.decks))
            except ReplayMismatch as exc:
                problems.append(f"table round {rid}: its cards are not its seeds' card order "
                                f"({exc})")
        return replay(rules, events)
    except Exception as exc:  # an audit names whatever stops a replay, and goes on
        problems.append(f"table round {rid}: does not replay from its events ({exc})")
        return None


def _credit_less(rnd: Round, free: FreeBetUse | None) -> int:
    return 0 if free is None else free_credit_less(rnd.view(), free.seat, free.value)


def _player(rid: str, key: str, status: str, moves: Sequence[Movement], *,
            staked: int, credit: int | None, free: FreeBetUse | None) -> list[str]:
    """The checks of one player's movements in the round; ``credit`` None: none is due."""
    problems: list[str] = []
    who = f"table round {rid}: player {key}"
    final = [m for m in moves if not m.is_open]
    open_debit = any(m.kind is MoneyKind.DEBIT for m in moves if m.is_open)
    open_rollback = any(m.kind is MoneyKind.ROLLBACK for m in moves if m.is_open)
    open_credit = any(m.kind is MoneyKind.CREDIT for m in moves if m.is_open)
    booked = sum(m.amount for m in final
                 if m.kind is MoneyKind.DEBIT and m.status is MovementStatus.BOOKED)
    rolled = sum(m.amount for m in final
                 if m.kind is MoneyKind.DEBIT and m.status is MovementStatus.ROLLED_BACK)
    refunds = sum(m.amount for m in final if m.kind is MoneyKind.ROLLBACK
                  and m.status is not MovementStatus.REFUSED)
    credits = sum(m.amount for m in final if m.kind is MoneyKind.CREDIT)
    # A rollback in flight leaves its debit booked until the wallet confirms it.
    if not (open_debit or open_rollback):
        expected = staked - (free.value if free is not None else 0)
        if status in _UNDEALT:
            expected = 0
        if booked != expected:
            problems.append(f"{who}: {expected} of stakes kept but the booked debits are "
                            f"{booked}")
        if refunds != rolled:
            problems.append(f"{who}: {rolled} of debits rolled back but the rollbacks give "
                            f"back {refunds}")
    if credit is None:
        if credits or open_credit:
            problems.append(f"{who}: credited in a round that paid nothing yet ({status})")
    elif not open_credit and credits != credit:
        problems.append(f"{who}: the round pays {credit} but the credits are {credits}")
    return problems


def audit_table_round(rec: RoundRecord, movements: Mapping[str, Sequence[Movement]],
                      free_bets: Mapping[str, FreeBetUse] | None = None) -> RoundAudit:
    """Check the table round ``rec`` against its events and each player's ``movements`` (by
    player key), with the free bets staked in it by player key (module docstring)."""
    free_bets = free_bets or {}
    rid = rec.round_id
    problems: list[str] = []
    open_ids = tuple(m.transaction_id for moves in movements.values() for m in moves
                     if m.is_open)
    shares: dict[str, tuple[int, int]] = {}
    rnd: Round | None = None
    if not rec.events:
        if rec.status not in _UNDEALT:
            problems.append(f"table round {rid}: {rec.status} but no events (half-written)")
            return RoundAudit(round_id=rid, problems=tuple(problems), open_movements=open_ids)
    else:
        rnd = _replayed(rec, problems)
        if rnd is None:
            return RoundAudit(round_id=rid, problems=tuple(problems), open_movements=open_ids)
        if rnd.phase.value != rec.status:
            problems.append(f"table round {rid}: status {rec.status} but its events replay to "
                            f"{rnd.phase.value}")
        shares = dict(rnd.money_by_player())
    settled = rec.status == "settled"
    if settled:
        recorded = {key: (staked, paid) for key, _, staked, paid in rec.players}
        if recorded != shares:
            problems.append(f"table round {rid}: players' shares (staked, paid) "
                            f"{dict(sorted(recorded.items()))} but its events replay to "
                            f"{dict(sorted(shares.items()))}")
    for key in sorted({*shares, *movements}):
        staked, paid = shares.get(key, (0, 0))
        free = free_bets.get(key)
        credit = paid - _credit_less(rnd, free) if settled and rnd is not None else None
        problems += _player(rid, key, rec.status, movements.get(key, ()), staked=staked,
                            credit=credit, free=free)
    return RoundAudit(round_id=rid, problems=tuple(problems), open_movements=open_ids)
