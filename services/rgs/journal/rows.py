"""Rows of the journal's statements turned into the service's values, where more than one
adapter module reads the same shape."""

from __future__ import annotations

from datetime import datetime

import asyncpg
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


def movement(r: asyncpg.Record) -> Movement:
    """An outbox row read with ``statements.MOVEMENT_COLUMNS``."""
    return Movement(transaction_id=r["transaction_id"], round_id=r["round_id"],
                    kind=MoneyKind(r["kind"]), amount=r["amount"],
                    status=MovementStatus(r["status"]),
                    balance_after=r["balance_after"],
                    debit_transaction_id=r["debit_transaction_id"], session_id=r["session_id"],
                    currency=r["currency"], attempts=r["attempts"],
                    last_error=r["last_error"], brand_id=r["brand_id"],
                    created_at=r["created_at"], promotional=bool(r["promotional"]),
                    wallet_reference=r["wallet_reference"])
