"""Commit-then-pay for solo play: a command's step is committed in one transaction (the round's
new events, its header, the request's answer and, when the round just ended, the credit's outbox
row), then the round's win is paid and the paid answer stored with the credit's outcome, the
call's last write. Deal, Act and Settle all end here (:mod:`rgs.service.play_commands`).

The shared tables pay after their own commit (:mod:`rgs.service.tables.money`); they do not
come through here: their commit is the table's transition, not the player's journal, no answer
of theirs is stored with the player's request, and their credits wait for the round's stakes.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from rgs.codec import encode_value
from rgs.engine import Round
from rgs.service import fairness, money
from rgs.service.errors import NotAllowedNow, Unavailable
from rgs.service.model import (
    Movement,
    PlayResult,
    RequestScope,
    Session,
    StoredRequest,
    StoredRound,
)
from rgs.service.play_context import PlayContext, party, reconcile, round_answer
from rgs.service.ports import PlayerJournal
from rgs.service.restore import restore_stored
from rgs.service.writes import PaidAnswer, StepWrite

log = logging.getLogger(__name__)


class Settlement:
    """Commits a solo play step and pays the win of the round it ended."""

    def __init__(self, ctx: PlayContext) -> None:
        self._ctx = ctx

    async def commit(self, pj: PlayerJournal, session: Session, step: StepWrite, rnd: Round,
                     *, balance: int | None, request: tuple[str, str, str],
                     already_finished: bool = False,
                     scope: RequestScope = RequestScope.PLAYER,
                     round_movements: list[Movement] | None = None) -> PlayResult:
        """Commit the step atomically, then pay the round's win if it just ended. ``step``: what
        the command wrote (the round, its new events, the debits it books, a Deal's next seed);
        the request's answer, the credit's outbox row and whether the commit is the call's last
        write are added here."""
        ctx = self._ctx
        header = step.round
        credit: Movement | None = None
        if rnd.finished and not already_finished:
            credit = await ctx.free_bets.credit(session, header, rnd.view())
        request_id, method, fingerprint = request
        # The round's stored movements tell a balance when this call moved none (the last one
        # the wallet reported: an Act that moves no money does not ask the wallet), and a win
        # still unpaid when the round had finished before; a round that moved money in this
        # call and was unfinished before has neither to tell.
        movements = ([] if balance is not None and not already_finished
                     else round_movements if round_movements is not None
                     else await pj.movements(header.round_id))
        result = await round_answer(ctx, session, header.round_id, rnd,
                                    [*movements, *([credit] if credit else [])],
                                    balance=balance, fetch_balance=False,
                                    fair=fairness.view(header),
                                    fresh_free_bets=header.free_bet is not None)
        record = StoredRequest(request_id=request_id, method=method,
                               request_hash=fingerprint, response=encode_value(result),
                               scope=scope)
        # Unless a finished round is looked after again, the commit is the call's last write:
        # the player's journal is given back with it, and a win is paid after it.
        await pj.commit_round(replace(step, request=record,
                                      movements=(*step.movements, *((credit,) if credit else ())),
                                      last=not already_finished))
        if credit is not None:
            return await self._pay(pj, session, credit, result, request_id=request_id,
                                   scope=scope)
        if already_finished:
            return await self._answer_again(pj, session, header, rnd, request_id=request_id,
                                            scope=scope)
        return result

    async def replayed(self, pj: PlayerJournal, session: Session, stored: PlayResult, *,
                       request_id: str, scope: RequestScope) -> PlayResult:
        """A replayed request's stored answer. One stored while its round's win was still
        being paid (the retry came before the wallet's answer was written, or the paying call
        died) is answered again once the outbox has settled the credit."""
        if not stored.payment_pending:
            return stored
        header = await pj.get_round(stored.round_id)
        if header is None or not header.finished:
            return stored
        return await self._answer_again(pj, session, header,
                                        restore_stored(self._ctx.cards, header),
                                        request_id=request_id, scope=scope)

    async def _answer_again(self, pj: PlayerJournal, session: Session, header: StoredRound,
                            rnd: Round, *, request_id: str, scope: RequestScope) -> PlayResult:
        """Settle of a finished round: retry its credit if the outbox still has it open, and
        store the answer as it stands after that."""
        await reconcile(pj, self._ctx.wallet, session)
        fresh = await round_answer(self._ctx, session, header.round_id, rnd,
                                   await pj.movements(header.round_id), balance=None,
                                   fair=fairness.view(header),
                                   fresh_free_bets=header.free_bet is not None)
        await pj.update_response(request_id, encode_value(fresh), scope)
        return fresh

    async def _pay(self, pj: PlayerJournal, session: Session, credit: Movement,
                   result: PlayResult, *, request_id: str, scope: RequestScope
                   ) -> PlayResult:
        """Send the credit the call's last write committed; its outcome and the paid answer
        are written a moment later with other players' (``result`` is the answer while the
        credit is pending: the stored one until then)."""
        try:
            answer = await money.pay_after_release(pj, self._ctx.wallet, party(session), credit)
        except (NotAllowedNow, Unavailable) as exc:
            # The round is settled in the journal; the credit stays open in the outbox and is
            # retried by Settle or the player's next call. The player is told it is pending.
            log.warning("credit %s not confirmed: %s", credit.transaction_id, exc)
            return result
        paid = replace(result, balance=answer.balance, payment_pending=False)
        await pj.answer_later(PaidAnswer(
            transaction_id=credit.transaction_id, balance_after=answer.balance,
            wallet_reference=answer.wallet_reference, request_id=request_id,
            response=encode_value(paid), scope=scope))
        return paid
