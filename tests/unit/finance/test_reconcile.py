"""The reconciliation names every kind of mismatch a wallet export can have against the RGS's
movements, and nothing when they agree."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from rgs.finance.movements import Cursor, MovementLine
from rgs.finance.reconcile import MismatchKind, reconcile
from rgs.finance.wallet_export import ExportError, WalletRow, parse, render

AT = datetime(2026, 12, 1, 12, tzinfo=UTC)


def _line(txn: str, kind: str = "debit", amount: int = 500, status: str = "booked",
          currency: str = "EUR", player: str = "p1") -> MovementLine:
    return MovementLine(transaction_id=txn, round_id=txn.partition(":")[0], player_id=player,
                        brand_id="b", kind=kind, amount=amount, currency=currency,
                        status=status, attempts=1, wallet_reference="", table_id="",
                        variant="classic", created_at=AT)


def _row(line: MovementLine, status: str = "applied") -> WalletRow:
    return WalletRow(transaction_id=line.transaction_id, wallet_reference="sw-1",
                     kind=line.kind, round_id=line.round_id, player_id=line.player_id,
                     amount=line.amount, currency=line.currency, status=status,
                     created_at=AT.isoformat())


def _ledger() -> list[MovementLine]:
    return [_line("r1:0:debit"), _line("r1:settle:credit", "credit", 1000, "applied"),
            _line("r2:0:debit"), _line("r2:settle:credit", "credit", 0, "applied"),
            _line("r3:0:debit", status="rolled_back"),
            _line("r3:0:debit:rollback", "rollback", 500, "applied"),
            _line("r4:0:debit", status="refused")]


def _export(lines: list[MovementLine]) -> list[WalletRow]:
    out = []
    for m in lines:
        if m.status == "refused":
            continue
        out.append(_row(m, "rolled_back" if m.status == "rolled_back" else "applied"))
    return out


def test_a_ledger_and_its_own_export_agree() -> None:
    lines = _ledger()
    out = reconcile(lines, _export(lines))
    assert out.clean and out.matched == len(lines)
    assert set(out.counts().values()) == {0}


def test_a_reference_is_compared_only_when_both_sides_have_one() -> None:
    kept = replace(_line("r1:0:debit"), wallet_reference="sw-1")
    same, none = _row(kept), replace(_row(kept), wallet_reference="")
    assert reconcile([kept], [same]).clean and reconcile([kept], [none]).clean
    other = reconcile([kept], [replace(same, wallet_reference="sw-2")])
    (m,) = other.mismatches
    assert (m.kind, m.wallet) == (MismatchKind.REFERENCE_DIFFERS,
                                  "debit 500 EUR applied (sw-2); the RGS kept sw-1")


def test_a_rolled_back_debit_the_wallet_never_saw_is_no_mismatch() -> None:
    lines = _ledger()
    rows = [r for r in _export(lines) if r.transaction_id != "r3:0:debit"]
    assert reconcile(lines, rows).clean


def test_every_kind_of_mismatch_seeded_into_an_export_is_found() -> None:
    lines = [*_ledger(), _line("r5:0:debit", status="unknown"),
             _line("r6:0:debit"), _line("r7:0:debit", player="p2"),
             replace(_line("r8:0:debit"), wallet_reference="sw-8")]
    rows = {r.transaction_id: r for r in _export(lines)}
    del rows["r1:settle:credit"]                                           # missing at wallet
    rows["r2:0:debit"] = replace(rows["r2:0:debit"], amount=499)           # amount differs
    rows["r6:0:debit"] = replace(rows["r6:0:debit"], currency="USD")       # currency differs
    rows["r7:0:debit"] = replace(rows["r7:0:debit"], player_id="p3")       # details differ
    rows["r4:0:debit"] = _row(_line("r4:0:debit"))                         # refused here
    # r8: the RGS kept sw-8, the export says sw-1                          # reference differs
    extra = _row(_line("r9:settle:credit", "credit", 700, "applied"))      # missing in RGS
    dup = rows["r3:0:debit:rollback"]                                      # duplicate
    out = reconcile(lines, [*rows.values(), extra, dup])
    got = {(m.kind, m.transaction_id) for m in out.mismatches}
    assert got == {
        (MismatchKind.MISSING_AT_WALLET, "r1:settle:credit"),
        (MismatchKind.AMOUNT_DIFFERS, "r2:0:debit"),
        (MismatchKind.CURRENCY_DIFFERS, "r6:0:debit"),
        (MismatchKind.DETAILS_DIFFER, "r7:0:debit"),
        (MismatchKind.STATUS_DIFFERS, "r4:0:debit"),
        (MismatchKind.MISSING_IN_RGS, "r9:settle:credit"),
        (MismatchKind.DUPLICATE, "r3:0:debit:rollback"),
        (MismatchKind.STILL_OPEN, "r5:0:debit"),
        (MismatchKind.REFERENCE_DIFFERS, "r8:0:debit"),
    }
    assert {k for k, n in out.counts().items() if n} == {k.value for k in MismatchKind}
    amount = next(m for m in out.mismatches if m.kind is MismatchKind.AMOUNT_DIFFERS)
    assert "by -1" in amount.wallet and "sw-1" in amount.wallet


def test_an_export_row_the_rgs_has_just_outside_the_window_is_not_missing() -> None:
    lines = _ledger()
    late = _row(_line("r0:settle:credit", "credit", 5, "applied"))
    assert not reconcile(lines, [*_export(lines), late],
                         known_elsewhere=frozenset({"r0:settle:credit"})).mismatches


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_the_export_format_round_trips(fmt: str) -> None:
    rows = _export(_ledger())
    assert parse(render(rows, fmt=fmt)) == rows


@pytest.mark.parametrize(("text", "says"), [
    ("transaction_id,kind\nx,debit\n", "CSV header lacks round_id"),
    ('[{"transaction_id": "t", "kind": "bet", "round_id": "r", "player_id": "p", '
     '"amount": 1, "currency": "EUR"}]', "kind 'bet'"),
    ('[{"transaction_id": "t", "kind": "debit", "round_id": "r", "player_id": "p", '
     '"amount": 1.5, "currency": "EUR"}]', "whole number of minor units"),
    ('{"rows": []}', "array of objects"),
    ("[1", "not JSON"),
])
def test_a_bad_export_says_which_row_and_column(text: str, says: str) -> None:
    with pytest.raises(ExportError, match=says):
        parse(text)


def test_a_cursor_round_trips_and_a_forged_one_is_refused() -> None:
    c = Cursor(AT, "op/p1", "r1:0:debit")
    assert Cursor.decode(c.encode()) == c
    with pytest.raises(ValueError, match="not a cursor"):
        Cursor.decode("garbage!")
