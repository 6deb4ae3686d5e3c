"""Wallet transaction ids have one home (rgs.wallet.port.transaction_id) and keep the exact form
operators' wallets and existing journals already hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rgs
from rgs.wallet.port import MoneyKind, step_and_attempt, transaction_id

ROOT = Path(rgs.__file__).parent


@pytest.mark.parametrize(("step", "kind", "attempt", "expected"), [
    (1, MoneyKind.DEBIT, 0, "0123abcd:1:debit"),
    (2, MoneyKind.DEBIT, 1, "0123abcd:2-1:debit"),
    ("settle", MoneyKind.CREDIT, 0, "0123abcd:settle:credit"),
    (2, MoneyKind.ROLLBACK, 0, "0123abcd:2:debit:rollback"),
    (2, MoneyKind.ROLLBACK, 1, "0123abcd:2-1:debit:rollback"),
])
def test_ids_keep_their_published_form(step: int | str, kind: MoneyKind, attempt: int,
                                       expected: str) -> None:
    made = transaction_id("0123abcd", step, kind, attempt=attempt)
    assert made == expected
    assert step_and_attempt(made, "0123abcd") == (str(step), attempt)


def test_no_other_module_spells_a_transaction_id() -> None:
    spelled = re.compile(r"""["'][^"']*:(debit|credit|rollback)\b""")
    offenders = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                 if "generated" not in p.parts and p.name != "port.py"
                 and spelled.search(p.read_text("utf-8"))]
    assert offenders == []
