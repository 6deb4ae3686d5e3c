"""What a table command answers: the table's newest event number, the caller's balance and
the table as the command left it."""

from __future__ import annotations

from dataclasses import dataclass

from rgs.service.tables.views import TableView


@dataclass(frozen=True, slots=True, kw_only=True)
class TableAnswer:
    """A command's answer: the table's newest event number, the caller's balance after the
    money the command moved (None when it moved none or the wallet did not say) and the
    table's view."""

    seq: int
    balance: int | None
    view: TableView
