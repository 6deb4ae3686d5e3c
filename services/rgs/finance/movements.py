"""One operator's money movements between two times, from the journal's outbox
(``wallet_transactions``), page by page in (created_at, player key, transaction id) order.

The cursor is the last row's key, printed as an opaque string: a listing resumes after it, and
since a row's ``created_at`` never changes, a movement written during the listing is either in a
later page or after ``to``; none is listed twice. The read follows the index
``wallet_transactions_by_operator`` (migration 0120). Demo play's movements (``demo``, migration
0170) are virtual money and never listed, so neither reconciliation nor GGR sees them.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rgs.journal.translate import translated
from rgs.service.identifiers import is_table_round_id

PAGE_SIZE = 5000
"""Rows per page (and per database read) unless the caller asks for fewer."""

Q_PAGE = """
SELECT w.transaction_id, w.round_id, w.player_key, w.kind, w.amount, w.currency, w.status,
       w.attempts, w.brand_id, w.created_at, coalesce(w.wallet_reference, '') AS wallet_reference,
       coalesce(r.variant, t.variant, '') AS variant, coalesce(t.table_id, '') AS table_id
FROM wallet_transactions w
LEFT JOIN rounds r ON r.player_key = w.player_key AND r.round_id = w.round_id
LEFT JOIN table_rounds t ON t.round_id = w.round_id
WHERE split_part(w.player_key, '/', 1) = $1 AND NOT w.demo
  AND w.created_at >= $2 AND w.created_at < $3
  AND (w.created_at, w.player_key, w.transaction_id) > ($4, $5, $6)
ORDER BY w.created_at, w.player_key, w.transaction_id
LIMIT $7
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class MovementLine:
    """One money movement as the back office lists it."""

    transaction_id: str
    round_id: str
    player_id: str
    brand_id: str
    kind: str          # debit, credit, rollback
    amount: int        # minor units
    currency: str
    status: str        # the outbox status (docs/backoffice.md)
    attempts: int
    #: The wallet's own reference (``wallet_transaction_id``) kept with the outcome; "" until
    #: the wallet answered, or for a row written before migration 0150.
    wallet_reference: str
    table_id: str      # "" for a solo round
    variant: str
    created_at: datetime

    @property
    def at_table(self) -> bool:
        """True for a shared table's round."""
        return bool(self.table_id) or is_table_round_id(self.round_id)

    def as_dict(self) -> dict[str, Any]:
        """The line as JSON-ready values (the time in ISO 8601)."""
        return {"transaction_id": self.transaction_id, "round_id": self.round_id,
                "player_id": self.player_id, "brand_id": self.brand_id, "kind": self.kind,
                "amount": self.amount, "currency": self.currency, "status": self.status,
                "attempts": self.attempts, "wallet_reference": self.wallet_reference,
                "table_id": self.table_id, "at_table": self.at_table,
                "variant": self.variant, "created_at": self.created_at.isoformat()}


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a listing resumes: the last row's key."""

    created_at: datetime
    player_key: str
    transaction_id: str

    def encode(self) -> str:
        raw = json.dumps([self.created_at.isoformat(), self.player_key, self.transaction_id])
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """The cursor printed by :meth:`encode`; ValueError when it is not one."""
        try:
            at, key, txn = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            return cls(datetime.fromisoformat(at), str(key), str(txn))
        except (ValueError, TypeError) as exc:
            raise ValueError("not a cursor printed by this listing") from exc


def _line(row: Any) -> MovementLine:
    _, _, player_id = row["player_key"].partition("/")
    return MovementLine(
        transaction_id=row["transaction_id"], round_id=row["round_id"], player_id=player_id,
        brand_id=row["brand_id"], kind=row["kind"], amount=int(row["amount"]),
        currency=row["currency"], status=row["status"], attempts=int(row["attempts"]),
        wallet_reference=row["wallet_reference"], table_id=row["table_id"], variant=row["variant"],
        created_at=row["created_at"])


@translated
async def page(pool: Any, operator_id: str, start: datetime, end: datetime, *,
               after: Cursor | None = None, limit: int = PAGE_SIZE
               ) -> tuple[list[MovementLine], Cursor | None]:
    """One page of the operator's movements in ``[start, end)`` after ``after``, and the
    cursor of the next page (None when this was the last)."""
    first = after or Cursor(datetime.min.replace(tzinfo=start.tzinfo), "", "")
    rows = await pool.fetch(Q_PAGE, operator_id, start, end, first.created_at,
                            first.player_key, first.transaction_id, limit)
    lines = [_line(r) for r in rows]
    if len(rows) < limit:
        return lines, None
    last = rows[-1]
    return lines, Cursor(last["created_at"], last["player_key"], last["transaction_id"])


async def every(pool: Any, operator_id: str, start: datetime, end: datetime, *,
                after: Cursor | None = None) -> AsyncIterator[MovementLine]:
    """Every movement of the operator in ``[start, end)``, read page by page."""
    cursor = after
    while True:
        lines, cursor = await page(pool, operator_id, start, end, after=cursor)
        for line in lines:
            yield line
        if cursor is None:
            return
