"""Rows of the journal's statements turned into the service's values, where more than one
adapter module reads the same shape."""

from __future__ import annotations

from datetime import datetime

import orjson

from rgs.service.model import Movement, MovementStatus
from rgs.wallet.port import MoneyKind


def movements_json(text: str) -> list[Movement]:
    """Outbox rows sent as a JSON array of arrays (``statements.MOVEMENT_JSON``)."""
    return [Movement(transaction_id=a[0], round_id=a[1], kind=MoneyKind(a[2]), amount=a[3],
                     status=MovementStatus(a[4]), balance_after=a[5],
                     debit_transaction_id=a[6], session_id=a[7], currency=a[8], attempts=a[9],
                     last_error=a[10], brand_id=a[11], created_at=datetime.fromisoformat(a[12]),
                     wallet_reference=a[13] or "",
                     promotional=bool(a[14]) if len(a) > 14 else False)
            for a in orjson.loads(text)]
