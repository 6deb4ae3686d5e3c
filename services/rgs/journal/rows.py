"""Rows of the journal's statements turned into the service's values, where more than one
adapter module reads the same shape."""

from __future__ import annotations

from datetime import datetime

import asyncpg
import orjson

from rgs.codec import decode_event, decode_value
from rgs.service.model import (
    Channel,
    FairRecord,
    Movement,
    MovementStatus,
    RoundFreeBet,
    Session,
    SessionSeed,
    StoredRound,
)
from rgs.variants.options import VariantOptions
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


def row_session(r: asyncpg.Record) -> Session:
    return Session(session_id=r["session_id"], player_key=r["player_key"],
                   operator_id=r["operator_id"], brand_id=r["brand_id"],
                   player_id=r["player_id"], currency=r["currency"], expires_at=r["expires_at"],
                   nickname=r["nickname"], started_at=r["started_at"],
                   reality_check_s=r["reality_check_s"] or 0, language=r["language"] or "")


def row_movement(r: asyncpg.Record) -> Movement:
    return Movement(transaction_id=r["transaction_id"], round_id=r["round_id"],
                    kind=MoneyKind(r["kind"]), amount=r["amount"],
                    status=MovementStatus(r["status"]),
                    balance_after=r["balance_after"],
                    debit_transaction_id=r["debit_transaction_id"], session_id=r["session_id"],
                    currency=r["currency"], attempts=r["attempts"],
                    last_error=r["last_error"], brand_id=r["brand_id"],
                    created_at=r["created_at"], promotional=bool(r["promotional"]),
                    wallet_reference=r["wallet_reference"])


def row_round(r: asyncpg.Record | None) -> StoredRound | None:
    if r is None:
        return None
    return StoredRound(
        round_id=r["round_id"], player_key=r["player_key"], session_id=r["session_id"],
        operator_id=r["operator_id"], brand_id=r["brand_id"], player_id=r["player_id"],
        currency=r["currency"], variant=r["variant"], seq=r["seq"], status=r["status"],
        forced_cards=tuple(r["forced_cards"]), total_staked=r["total_staked"],
        total_paid=r["total_paid"], created_at=r["created_at"], finished_at=r["finished_at"],
        updated_at=r["updated_at"],
        options=decode_value(VariantOptions, r["options"]),
        fair=_fair(r["fair"]), free_bet=_free_bet(r["free_bet"]),
        channel=None if r["channel"] is None else Channel(r["channel"]),
        events=tuple(decode_event(kind, payload) for kind, payload in orjson.loads(r["events"])))


def _free_bet(text: str | None) -> RoundFreeBet | None:
    if text is None:
        return None
    grant_id, value, seat = orjson.loads(text)
    return RoundFreeBet(grant_id=grant_id, value=value, seat=seat)


def _fair(text: str | None) -> FairRecord | None:
    if text is None:
        return None
    f = orjson.loads(text)
    return FairRecord(server_seed=f["server_seed"], commitment=f["commitment"],
                      client_seed=f["client_seed"], round_number=f["round_number"],
                      decks=f["decks"], next_commitment=f["next_commitment"])


def row_seed(r: asyncpg.Record | None) -> SessionSeed | None:
    if r is None:
        return None
    return SessionSeed(session_id=r["session_id"], server_seed=r["server_seed"],
                       commitment=r["commitment"], round_number=r["round_number"])
