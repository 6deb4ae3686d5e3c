"""Bet Behinds' live insurance decisions on rows of their own while insurance is open.

With the dealer's ace up, every Bet Behind whose preset is ``ask`` decides live: a third of a
thousand Bet Behinds may send DecideInsurance within the same seconds. Kept in the table's
state, each decision would be a transition that rewrites the whole document (every Bet Behind
of the round) under the table's lock, one after the other. So a Bet Behind's decision is a row
of its own (``table_behind_insurance``), inserted with its debit's booking and the command's
answer in one short transaction that takes the table's turn lock shared and checks that
insurance is still open on the same round
(:meth:`~rgs.service.tables.ports.TableLink.decide_insurance`), as a Bet Behind placed while
betting is open is (:mod:`rgs.service.tables.behind`). The table's state, version and event
number stay as they are, so every reader's decoded state and round stay valid.

Every transition of the table while insurance is open (a seat's own decision, the close of
insurance) sees the rows merged into the state's decisions (:func:`merged`); what it writes
back is split (:func:`stored`): while insurance is open on the same round the rows stay rows,
and once it closed the state held them (applied to the round) and every row is deleted. The
close announces each one's ``insurance_decided`` (to its own player only, as before), since
none was announced when it was made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rgs.service.tables.model import BehindInsurance, InsuranceChoice, TablePhase, TableState


def key(c: InsuranceChoice) -> tuple[int, str]:
    """A decision's key in its round: (seat, player key; empty for the seat's own)."""
    return c.seat, c.player


def merged(state: TableState, rows: Sequence[InsuranceChoice]) -> TableState:
    """The state with the round's decision rows among its decisions (the state's own first)."""
    if not rows:
        return state
    return replace(state, insurance=(*state.insurance, *rows))


def stored(state: TableState, round_id: str,
           rows: Sequence[InsuranceChoice]) -> tuple[TableState, bool]:
    """What a transition that saw ``rows`` (of ``round_id``) merged into its state writes:
    the state document, and whether the round's rows are to be deleted (insurance closed:
    the state held them when it was applied)."""
    if not rows:
        return state, False
    if state.phase is TablePhase.INSURANCE and state.round_id == round_id:
        keys = {key(c) for c in rows}
        return replace(state, insurance=tuple(c for c in state.insurance
                                              if key(c) not in keys)), False
    return state, True


def asks(state: TableState) -> int:
    """How many of the round's Bet Behinds decide insurance live (preset ``ask``)."""
    return sum(1 for b in state.behind if b.insurance is BehindInsurance.ASK)
