"""What solo play's queries, commands and settlement share: the services they call
(:class:`PlayContext`), the wallet's party of a session, and the answer of a call about a round.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from rgs.engine import Round
from rgs.math.hints import HintTables
from rgs.service import advice, fairness, money
from rgs.service.authenticity import SoftwareAuthenticity
from rgs.service.controls import ControlBoard
from rgs.service.freebets import FreeBets
from rgs.service.model import Brand, FairView, Movement, PlayResult, Session
from rgs.service.ports import CardSourceFactory, Clock, Journal, PlayerJournal
from rgs.service.positions import SessionRules
from rgs.service.session_cache import SessionCache
from rgs.wallet.port import MoneyKind, Party, Wallet, WalletError

log = logging.getLogger(__name__)


@dataclass(slots=True, kw_only=True)
class PlayContext:
    """The services solo play runs on, one instance shared by its queries, commands and
    settlement (so a test that swaps the wallet or the brands swaps them for all three)."""

    journal: Journal
    wallet: Wallet
    cards: CardSourceFactory
    brands: Mapping[str, Brand]
    clock: Clock
    test_mode: bool
    #: The analysis' caches the hints are valued from.
    hints: HintTables
    #: The operators' free bets (a Deal's free_bet_id; the credit of a free-bet round).
    free_bets: FreeBets
    #: The software authentication's word on new rounds.
    software: SoftwareAuthenticity
    #: The game controls (None: nothing is ever refused by one).
    controls: ControlBoard | None
    #: The brands' jurisdiction profiles on sessions: rules, position, reality checks.
    session_rules: SessionRules
    sessions: SessionCache


def party(session: Session) -> Party:
    """The wallet's party of a session."""
    return Party(operator_id=session.operator_id, brand_id=session.brand_id,
                 player_id=session.player_id, session_id=session.session_id,
                 currency=session.currency)


async def reconcile(pj: PlayerJournal, wallet: Wallet, session: Session,
                    open_rows: list[Movement] | None = None) -> bool:
    """Drive the player's open outbox rows (``open_rows`` when this call has just read
    them); True when there were any (the journal holds the player, so when there were
    none, there are none until this call writes one)."""
    if open_rows is None:
        open_rows = await pj.open_movements()
    if open_rows:
        await money.reconcile(pj, wallet, party(session), open_rows)
    return bool(open_rows)


async def round_answer(ctx: PlayContext, session: Session, round_id: str, rnd: Round,
                       movements: list[Movement], *, balance: int | None,
                       fetch_balance: bool = True, fair: FairView | None = None,
                       fresh_free_bets: bool = False) -> PlayResult:
    """The answer of a call about a round (``fresh_free_bets``: a free-bet round, whose
    use may have been recorded through another replica, reads the free bets left)."""
    pending = any(m.kind is MoneyKind.CREDIT and m.is_open for m in movements)
    if balance is None and fetch_balance:
        try:
            balance = await ctx.wallet.balance(party(session))
        except WalletError as exc:
            log.warning("balance not available: %s", exc)
    if balance is None:
        known = [m.balance_after for m in movements if m.balance_after is not None]
        balance = known[-1] if known else 0
    view = rnd.view()
    brand = ctx.brands.get(session.brand_id)
    shown = (advice.hints(ctx.hints, rnd.rules, view)
             if brand is not None and brand.hints else ())
    return PlayResult(round_id=round_id, view=view, balance=balance,
                      currency=session.currency, payment_pending=pending,
                      fair=fairness.with_dealt(fair, rnd.events), hints=shown,
                      position=await ctx.session_rules.in_view(session, round_id, rnd),
                      free_bets=await ctx.free_bets.left(session, fresh=fresh_free_bets))
