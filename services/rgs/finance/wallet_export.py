"""The wallet export format a reconciliation reads (docs/backoffice.md): one row per money
movement the wallet applied, in CSV (a header row, then one row per movement) or JSON (an array
of objects, or ``{"transactions": [...]}``).

Columns: ``transaction_id`` (the RGS's id, as sent), ``wallet_reference`` (the wallet's own id
for it), ``kind`` (debit, credit, rollback), ``round_id``, ``player_id`` (the operator's player
id), ``amount`` (integer minor units), ``currency`` (ISO 4217), ``status`` (``applied``, or
``rolled_back`` for a debit a rollback cancelled) and ``created_at`` (ISO 8601). The first five
and amount and currency are required; the rest may be empty.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

COLUMNS = ("transaction_id", "wallet_reference", "kind", "round_id", "player_id", "amount",
           "currency", "status", "created_at")
"""The export's columns, in order."""

REQUIRED = ("transaction_id", "kind", "round_id", "player_id", "amount", "currency")
KINDS = frozenset({"debit", "credit", "rollback"})
WALLET_STATUSES = frozenset({"applied", "rolled_back", ""})


class ExportError(ValueError):
    """A wallet export that cannot be read; the message names the row and the column."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WalletRow:
    """One movement as the wallet exported it."""

    transaction_id: str
    wallet_reference: str
    kind: str
    round_id: str
    player_id: str
    amount: int
    currency: str
    status: str
    created_at: str

    def as_dict(self) -> dict[str, Any]:
        return {c: getattr(self, c) for c in COLUMNS}


def _bad(number: int, raw: Mapping[str, Any]) -> ExportError:
    where = f"row {number}"
    for column in REQUIRED:
        if raw.get(column) in (None, ""):
            return ExportError(f"{where}: column {column} is missing or empty")
    kind = str(raw["kind"]).strip().lower()
    if kind not in KINDS:
        return ExportError(f"{where}: kind {raw['kind']!r} is not debit, credit or rollback")
    status = str(raw.get("status") or "").strip().lower()
    if status not in WALLET_STATUSES:
        return ExportError(f"{where}: status {raw['status']!r} is not applied or rolled_back")
    return ExportError(f"{where}: amount {raw['amount']!r} is not a whole number of minor "
                       "units")


def _row(number: int, raw: Mapping[str, Any]) -> WalletRow:
    """One row; the checks are written for speed (100,000 rows a second matter), the message
    of a bad row is made by :func:`_bad`."""
    g = raw.get
    txn, kind, amount = g("transaction_id"), g("kind"), g("amount")
    round_id, player, currency = g("round_id"), g("player_id"), g("currency")
    status = g("status") or "applied"
    if kind not in KINDS and isinstance(kind, str):
        kind = kind.strip().lower()
    if status not in WALLET_STATUSES and isinstance(status, str):
        status = status.strip().lower()
    if type(amount) is str and amount.isdigit():
        amount = int(amount)
    elif type(amount) is not int:
        amount = None
    if (not (txn and round_id and player and currency) or amount is None
            or kind not in KINDS or status not in WALLET_STATUSES):
        raise _bad(number, raw)
    return WalletRow(
        transaction_id=str(txn), kind=kind, wallet_reference=str(g("wallet_reference") or ""),
        round_id=str(round_id), player_id=str(player), amount=amount,
        currency=str(currency).strip().upper(), status=status,
        created_at=str(g("created_at") or ""))


def parse(text: str, *, fmt: str | None = None) -> list[WalletRow]:
    """The rows of an export in ``fmt`` ("csv" or "json"; guessed from the first character when
    None). Raises :class:`ExportError` naming the first bad row."""
    fmt = fmt or ("json" if text.lstrip()[:1] in ("[", "{") else "csv")
    if fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ExportError(f"not JSON: {exc}") from exc
        if isinstance(data, dict):
            data = data.get("transactions")
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ExportError("JSON export must be an array of objects "
                              "(or {\"transactions\": [...]})")
        return [_row(i, r) for i, r in enumerate(data, start=1)]
    if fmt != "csv":
        raise ExportError(f"unknown export format {fmt!r}: csv or json")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or ())]
    if missing:
        raise ExportError(f"CSV header lacks {', '.join(missing)} (columns: {', '.join(COLUMNS)})")
    return [_row(i, r) for i, r in enumerate(reader, start=2)]


def render(rows: Iterable[WalletRow], *, fmt: str = "csv") -> str:
    """The export of ``rows`` in ``fmt``."""
    if fmt == "json":
        return json.dumps([r.as_dict() for r in rows], indent=1) + "\n"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow(r.as_dict())
    return out.getvalue()
