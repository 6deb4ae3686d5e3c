"""The reconciliation of the RGS's movements with a wallet's export: every mismatch named
(pure: no I/O; docs/backoffice.md).

What each RGS movement expects at the wallet:

* still open (pending, unknown, or an applied debit whose step is not committed): nothing can be
  said yet — reported as ``still_open``;
* a refused debit: absent (the wallet moved nothing);
* a booked debit: present and applied; a rolled-back debit: present and rolled back, or absent
  (its rollback reached the wallet first);
* an applied credit or rollback: present.

A present movement must agree on kind, round, player, amount and currency, and on the wallet's
own reference when both sides have one (the RGS keeps the ``wallet_transaction_id`` the wallet
answered; a row written before migration 0150, or one the wallet never answered, has none).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rgs.finance.movements import MovementLine
from rgs.finance.wallet_export import WalletRow
from rgs.service.model import MovementStatus, is_open
from rgs.wallet.port import MoneyKind


class MismatchKind(enum.StrEnum):
    """What is wrong with one movement."""

    MISSING_AT_WALLET = "missing_at_wallet"
    MISSING_IN_RGS = "missing_in_rgs"
    DUPLICATE = "duplicate"
    AMOUNT_DIFFERS = "amount_differs"
    CURRENCY_DIFFERS = "currency_differs"
    STATUS_DIFFERS = "status_differs"
    DETAILS_DIFFER = "details_differ"
    REFERENCE_DIFFERS = "reference_differs"
    STILL_OPEN = "still_open"


@dataclass(frozen=True, slots=True, kw_only=True)
class Mismatch:
    """One mismatch: which movement, and what each side says."""

    kind: MismatchKind
    transaction_id: str
    round_id: str
    player_id: str
    rgs: str
    wallet: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind.value, "transaction_id": self.transaction_id,
                "round_id": self.round_id, "player_id": self.player_id, "rgs": self.rgs,
                "wallet": self.wallet}


@dataclass(frozen=True, slots=True, kw_only=True)
class Reconciliation:
    """The outcome: how many movements each side had, how many matched, and every mismatch."""

    rgs_movements: int
    wallet_rows: int
    matched: int
    mismatches: Sequence[Mismatch] = field(default_factory=tuple)

    @property
    def clean(self) -> bool:
        return not self.mismatches

    def counts(self) -> dict[str, int]:
        """Mismatches by kind (every kind named, 0 when none)."""
        seen = Counter(m.kind for m in self.mismatches)
        return {k.value: seen[k] for k in MismatchKind}


def _rgs_text(line: MovementLine) -> str:
    return f"{line.kind} {line.amount} {line.currency} {line.status}"


def _wallet_text(row: WalletRow) -> str:
    ref = f" ({row.wallet_reference})" if row.wallet_reference else ""
    return f"{row.kind} {row.amount} {row.currency} {row.status}{ref}"


def _compare(line: MovementLine, row: WalletRow | None) -> list[tuple[MismatchKind, str]]:
    kind, status = MoneyKind(line.kind), MovementStatus(line.status)
    if is_open(kind, status):
        return [(MismatchKind.STILL_OPEN, "")]
    if row is None:
        if status in (MovementStatus.REFUSED, MovementStatus.ROLLED_BACK):
            return []
        return [(MismatchKind.MISSING_AT_WALLET, "")]
    found: list[tuple[MismatchKind, str]] = []
    if status is MovementStatus.REFUSED:
        found.append((MismatchKind.STATUS_DIFFERS, "refused here, applied at the wallet"))
    elif status is MovementStatus.ROLLED_BACK and row.status != "rolled_back":
        found.append((MismatchKind.STATUS_DIFFERS, "rolled back here, not at the wallet"))
    elif status is MovementStatus.BOOKED and row.status == "rolled_back":
        found.append((MismatchKind.STATUS_DIFFERS, "booked here, rolled back at the wallet"))
    if (row.kind, row.round_id, row.player_id) != (line.kind, line.round_id, line.player_id):
        found.append((MismatchKind.DETAILS_DIFFER, "kind, round or player"))
    if row.amount != line.amount:
        found.append((MismatchKind.AMOUNT_DIFFERS, f"by {row.amount - line.amount}"))
    if row.currency != line.currency:
        found.append((MismatchKind.CURRENCY_DIFFERS, ""))
    if line.wallet_reference and row.wallet_reference \
            and line.wallet_reference != row.wallet_reference:
        found.append((MismatchKind.REFERENCE_DIFFERS,
                      f"the RGS kept {line.wallet_reference}"))
    return found


def reconcile(lines: Iterable[MovementLine], rows: Iterable[WalletRow], *,
              known_elsewhere: frozenset[str] = frozenset()) -> Reconciliation:
    """Compare the RGS's movements of a window with the wallet's export of it.

    ``known_elsewhere`` holds the ids the RGS has just outside the window (a wallet's clock and
    the RGS's differ by the call's duration): an export row with such an id is not missing.
    """
    rgs: dict[str, MovementLine] = {}
    mismatches: list[Mismatch] = []
    for line in lines:
        if line.transaction_id in rgs:
            mismatches.append(Mismatch(kind=MismatchKind.DUPLICATE,
                                       transaction_id=line.transaction_id,
                                       round_id=line.round_id, player_id=line.player_id,
                                       rgs=f"listed twice: {_rgs_text(line)}", wallet=""))
            continue
        rgs[line.transaction_id] = line
    wallet: dict[str, WalletRow] = {}
    total_rows = 0
    for row in rows:
        total_rows += 1
        if row.transaction_id in wallet:
            mismatches.append(Mismatch(kind=MismatchKind.DUPLICATE,
                                       transaction_id=row.transaction_id, round_id=row.round_id,
                                       player_id=row.player_id, rgs="",
                                       wallet=f"exported twice: {_wallet_text(row)}"))
            continue
        wallet[row.transaction_id] = row
    matched = 0
    for txn, line in rgs.items():
        theirs = wallet.get(txn)
        found = _compare(line, theirs)
        if not found:
            matched += 1
        for kind, detail in found:
            wallet_side = _wallet_text(theirs) if theirs else "absent"
            mismatches.append(Mismatch(
                kind=kind, transaction_id=txn, round_id=line.round_id, player_id=line.player_id,
                rgs=_rgs_text(line), wallet=f"{wallet_side}{f'; {detail}' if detail else ''}"))
    for txn, row in wallet.items():
        if txn not in rgs and txn not in known_elsewhere:
            mismatches.append(Mismatch(kind=MismatchKind.MISSING_IN_RGS, transaction_id=txn,
                                       round_id=row.round_id, player_id=row.player_id,
                                       rgs="absent", wallet=_wallet_text(row)))
    return Reconciliation(rgs_movements=len(rgs), wallet_rows=total_rows, matched=matched,
                          mismatches=tuple(mismatches))
