"""How a player's table command runs, whatever it does.

1. Admission (request id, table, brand, currency), then the table read and the request's
   stored answer (a retry is answered from it), then the command's *plan* on the table as read:
   a refusal that needs nothing held is answered here.
2. One pooled connection (a :class:`~rgs.service.tables.ports.TableLink`), taken before
   anything else is waited for. On it the players' journals whose money the plan moves: the
   caller's is waited for, others' (a Bet Behind that follows) are tried once. Their open outbox
   rows are settled, the stored answer is looked for again and the plan made again on the table
   as it is now, then the stakes are debited.
3. The table's commit turn (:mod:`~rgs.service.tables.turns`): the transition is computed under
   the table's row lock from the table as it is then. Refused there (betting closed meanwhile),
   its stakes are returned at once and the refusal says so (ErrorInfo metadata ``refund``).
4. The caller's own payments go before the answer, with its balance; everyone else's after the
   connection is given back, in the background.

Every wait counts against the server's bound on a table command: past it the command answers
``TABLE_BUSY`` (UNAVAILABLE, retryable) with nothing of it standing. A command runs to its end
even when its caller went away (the gRPC call cancelled): its retry finds the stored answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

import orjson

from rgs.codec import encode_value
from rgs.engine import Round
from rgs.math.hints import HintTables
from rgs.service.errors import (
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    RequestConflict,
    ServiceError,
    TableBusy,
    Unavailable,
)
from rgs.service.fingerprints import request_hash
from rgs.service.identifiers import check_request_id
from rgs.service.model import Movement, Session, StoredRequest
from rgs.service.ports import JournalError, JournalLeaseLost, JournalUnavailable
from rgs.service.tables import behind, live_insurance, public, seats
from rgs.service.tables.answers import TableAnswer
from rgs.service.tables.model import (
    AnswerRecord,
    Behind,
    InsuranceChoice,
    StoredTable,
    TableConfig,
    TablePhase,
    TableState,
    Who,
)
from rgs.service.tables.money import Funding, TableMoney
from rgs.service.tables.ports import (
    BehindPlacement,
    BehindRefused,
    HeldPlayer,
    InsuranceDecision,
    NotCommitted,
    RoundRecord,
    TableJournal,
    TableLink,
    TableLocked,
)
from rgs.service.tables.rounds import Rounds
from rgs.service.tables.turns import (
    Answered,
    Applied,
    ApplyOne,
    Batch,
    Deadline,
    Step,
    Turn,
    Turns,
    View,
)
from rgs.service.tables.views import TableView

log = logging.getLogger(__name__)

_T = TypeVar("_T")


def who_of(session: Session, table_id: str) -> Who:
    """The session's player at a table, named as the table shows them."""
    return Who(player_key=session.player_key, operator_id=session.operator_id,
               brand_id=session.brand_id, player_id=session.player_id,
               session_id=session.session_id,
               name=session.nickname or public.pseudonym(table_id, session.player_key))


class RoundReader:
    """Where a plan reads the round in play: the link's connection, or the pool before one is
    held."""

    def __init__(self, read: Callable[[str], Awaitable[RoundRecord | None]]) -> None:
        self.get_round = read


@dataclass(frozen=True, slots=True, kw_only=True)
class Placing:
    """Bet Behinds to place on rows of their own (:mod:`~rgs.service.tables.behind`), on the
    round their stakes were taken for, and the table as the answer shows it."""

    round_id: str
    bets: tuple[Behind, ...]
    state: TableState


@dataclass(frozen=True, slots=True, kw_only=True)
class Deciding:
    """A Bet Behind's live insurance decision to record on a row of its own
    (:mod:`~rgs.service.tables.live_insurance`), the table as the answer shows it, and the
    transition that closes insurance at once when every decision is in."""

    round_id: str
    choice: InsuranceChoice
    #: The table as the answer shows it: the player's own Bet Behinds and decisions with the
    #: seats' (the seats' Bet Behind totals as last announced).
    state: TableState
    #: The round in play, for the answer (read only).
    live: Round | None
    #: How many decisions on rows make every Bet Behind that asks decided.
    needed: int
    close: ApplyOne


@dataclass(kw_only=True)
class Plan:
    """What a command does, decided from the table as read."""

    #: The transition, computed under the table's lock (raises a refusal).
    apply: Callable[[View, Funding], Step]
    #: Players whose journals it holds while it moves their money: the caller's first.
    keys: tuple[str, ...] = ()
    #: The stakes, debited under those journals before the transition.
    fund: Callable[[Funding], Awaitable[None]] | None = None
    #: A bet on an idle table: betting opens first (a transition of its own).
    opens_betting: bool = False
    #: Bet Behinds placed on rows of their own instead of by a transition (``apply`` is then
    #: not run): made from the stakes taken.
    place: Callable[[Funding], Placing] | None = None
    #: A Bet Behind's live insurance decision recorded on a row of its own instead of by a
    #: transition (``apply`` is then not run): made from the stake taken, if any.
    decide: Callable[[Funding], Deciding] | None = None


PlanFn = Callable[[TableConfig, StoredTable, RoundReader], Awaitable[Plan]]


class CommandRunner:
    """Runs the players' commands of the shared tables on this replica."""

    def __init__(self, *, tables: TableJournal, money: TableMoney, turns: Turns,
                 rounds: Rounds, limit_s: float, lock_wait_s: float,
                 open_betting: Callable[[TableLink, TableConfig, Deadline], Awaitable[None]],
                 clock: Callable[[], datetime],
                 gate: Callable[[Session, TableConfig, str], None] | None = None,
                 hints: HintTables) -> None:
        self._tables = tables
        #: The app's analysis caches, for the views of players whose brand shows hints.
        self._hints = hints
        #: Refuses a new (not replayed) command by its method name (the game controls).
        self._gate = gate
        self._clock = clock
        self._money = money
        self._turns = turns
        self._rounds = rounds
        self._limit_s = limit_s
        self._lock_wait_s = lock_wait_s
        self._open_betting = open_betting
        self._inflight: set[asyncio.Task[TableAnswer]] = set()

    @staticmethod
    def admit(session: Session, cfg: TableConfig) -> None:
        if session.brand_id not in cfg.brands:
            raise PermissionDenied(f"brand {session.brand_id} does not offer table {cfg.id}",
                                   reason="TABLE_NOT_OFFERED")
        if session.currency != cfg.currency:
            raise NotAllowedNow(f"table {cfg.id} plays in {cfg.currency}; open a session in "
                                f"{cfg.currency} to sit here", reason="WRONG_CURRENCY")

    async def run(self, session: Session, cfg: TableConfig, *, request_id: str, method: str,
                  cmd: object, plan: PlanFn, hints: bool = False) -> TableAnswer:
        """Run a player's command to its end (even when the caller goes away meanwhile)."""
        check_request_id(request_id)
        self.admit(session, cfg)
        fingerprint = request_hash(method, cmd)
        task = asyncio.get_running_loop().create_task(self._run(
            session, cfg, request_id=request_id, method=method, fingerprint=fingerprint,
            plan=plan, hints=hints))
        self._inflight.add(task)
        task.add_done_callback(_forget(self._inflight))
        return await asyncio.shield(task)

    async def drain(self, timeout_s: float) -> None:
        """Let the commands under way finish (at shutdown)."""
        if self._inflight:
            await asyncio.wait(set(self._inflight), timeout=timeout_s)

    async def _run(self, session: Session, cfg: TableConfig, *, request_id: str, method: str,
                   fingerprint: str, plan: PlanFn, hints: bool) -> TableAnswer:
        key = session.player_key
        req = _Request(key=key, request_id=request_id, method=method, fingerprint=fingerprint,
                       hints=hints)
        deadline = Deadline(self._limit_s)
        pool = RoundReader(self._tables.get_round)
        # The table and the request from one snapshot: a transition that answered the request
        # is in that table, or the answer is there.
        t, rec = await self._tables.load_with_request(cfg.id, key, request_id)
        answered = await self._answered(cfg, req, rec)
        if answered is not None:
            return answered
        if self._gate is not None:
            self._gate(session, cfg, method)
        p = await plan(cfg, _found(t), pool)
        if p.opens_betting:
            async with self._tables.link(deadline.left()) as link:
                await self._open_betting(link, cfg, deadline)
            # Read again, the request too: a duplicate may have been placed meanwhile.
            t, rec = await self._tables.load_with_request(cfg.id, key, request_id)
            answered = await self._answered(cfg, req, rec)
            if answered is not None:
                return answered
            p = await plan(cfg, _found(t), pool)
        async with self._tables.link(deadline.left()) as link:
            async with link.hold_players(
                    p.keys, waiting=(key,), first=(cfg.id, request_id),
                    wait_s=max(min(self._lock_wait_s, deadline.left()), 0.001)) as held:
                funding = Funding(held=held)
                if held:
                    read = await link.command_read(cfg.id, key, request_id)
                    answered = await self._answered(cfg, req, read.request, link)
                    if answered is not None:
                        return answered
                    await self._settle_open(held, key, read.open_movements)
                    funding.round_movements[key] = (None if read.open_movements
                                                    else read.round_movements)
                    # The plan sees the player's own rows of the round too (Bet Behinds,
                    # live insurance decisions).
                    table = _found(read.table)
                    table = replace(table, state=live_insurance.merged(
                        behind.merged(table.state, read.behind), read.insurance))
                    p = await plan(cfg, table, RoundReader(link.get_round))
                    await self._fund(cfg, p, funding)
                movements: list[tuple[str, Movement]] = []
                balances: dict[str, int] = {}
                if held and p.place is not None:
                    placed = await self._place(cfg, req, link, p.place(funding),
                                               funding=funding, epoch=held[key].epoch,
                                               deadline=deadline)
                    if isinstance(placed, TableAnswer):
                        return placed
                    batch = Batch(seq=placed[0], state=placed[1], round=None, whole=False)
                elif p.decide is not None:
                    deciding = p.decide(funding)
                    decided = await self._decide(cfg, req, link, deciding, funding=funding,
                                                 held=held, deadline=deadline)
                    if isinstance(decided, TableAnswer):
                        return decided
                    batch = Batch(seq=decided, state=deciding.state, round=None,
                                  live=deciding.live, whole=False)
                else:
                    turn = Turn(apply=self._applier(session, cfg, p, funding,
                                                    request_id=request_id, method=method,
                                                    fingerprint=fingerprint),
                                players=[(k, h.epoch) for k, h in held.items()],
                                request=(key, request_id))
                    try:
                        applied = await self._turns.take(link, cfg.id, turn, deadline)
                    except Answered:
                        stored = await self._lookup(cfg, req, link)
                        assert stored is not None, "a request found answered has its answer"
                        return stored
                    except (ServiceError, NotCommitted, JournalLeaseLost) as exc:
                        return await self._refused(cfg, req, link, funding, exc)
                    except JournalUnavailable as exc:
                        # The commit's outcome is unknown: the debits stay open in the outbox,
                        # which books or returns them (a retry with the same request id tells).
                        log.warning("table %s: %s", cfg.id, exc)
                        raise
                    assert applied is not None and turn.batch is not None
                    batch, movements = turn.batch, applied.step.movements
                    balances = await self._money.pay_held(movements, held)
            # The connection is given back: everyone else's payments go now, and the answer's
            # view is made (it may read the last round: never while holding a connection).
            self._money.pay_later([(k, m) for k, m in movements if k not in held])
        return TableAnswer(seq=batch.seq, balance=balances.get(key, funding.balance),
                           view=await self._view(cfg, batch, hints))

    async def _place(self, cfg: TableConfig, req: _Request, link: TableLink, placing: Placing,
                     *, funding: Funding, epoch: int, deadline: Deadline
                     ) -> tuple[int, TableState] | TableAnswer:
        """Bet Behinds placed on rows of their own: (the table's event number, the table as
        the answer shows it), or the answer of a refusal (the stakes returned)."""
        placement = BehindPlacement(round_id=placing.round_id, bets=placing.bets,
                                    player=(req.key, epoch), booked=funding.booked(),
                                    request=_record(req))
        seq = await self._row(cfg, req, link, funding, link.place_behind(
            cfg.id, placement, wait_s=max(deadline.left(), 0.001)), closed=_BETTING_CLOSED)
        return seq if isinstance(seq, TableAnswer) else (seq, placing.state)

    async def _decide(self, cfg: TableConfig, req: _Request, link: TableLink,
                      deciding: Deciding, *, funding: Funding,
                      held: Mapping[str, HeldPlayer], deadline: Deadline) -> int | TableAnswer:
        """A Bet Behind's live insurance decision recorded on a row of its own: the table's
        event number, or the answer of a refusal (the stake returned). The last decision of
        the round closes insurance at once (as the last seat's does)."""
        mine = held.get(req.key)
        decision = InsuranceDecision(
            round_id=deciding.round_id, choice=deciding.choice,
            player=(req.key, mine.epoch) if mine is not None else None,
            booked=funding.booked(), request=_record(req))
        decided = await self._row(cfg, req, link, funding, link.decide_insurance(
            cfg.id, decision, wait_s=max(deadline.left(), 0.001)), closed=_INSURANCE_CLOSED)
        if isinstance(decided, TableAnswer):
            return decided
        if decided.decided >= deciding.needed:
            # Recorded whatever this does: the clock closes insurance at its deadline.
            with suppress(ServiceError, JournalError):
                await self._turns.take(link, cfg.id, Turn(apply=deciding.close), deadline)
        return decided.seq

    async def _row(self, cfg: TableConfig, req: _Request, link: TableLink, funding: Funding,
                   write: Awaitable[_T], *, closed: tuple[str, str]) -> _T | TableAnswer:
        """A command's row of its own written (``write``: a Bet Behind placed, a live
        insurance decision), or the answer of a refusal (its stakes returned at once;
        ``closed``: the refusal when its phase was over)."""
        try:
            return await write
        except (NotCommitted, JournalLeaseLost) as exc:
            return await self._refused(cfg, req, link, funding, _row_refusal(exc, closed))
        except JournalUnavailable as exc:
            # The commit's outcome is unknown: the debits stay open in the outbox, which
            # books or returns them (a retry with the same request id tells).
            log.warning("table %s: %s", cfg.id, exc)
            raise

    async def _settle_open(self, held: Mapping[str, HeldPlayer], key: str,
                           own: list[Movement]) -> None:
        """Settle the open outbox rows of the players held (the caller's as read with its
        journal) before any of their money moves."""
        if own:
            await self._money.reconcile(held[key], own)
        others = {k: h for k, h in held.items() if k != key}
        if others:
            await self._money.reconcile_held(others)

    async def _fund(self, cfg: TableConfig, p: Plan, funding: Funding) -> None:
        if p.fund is None:
            return
        try:
            await p.fund(funding)
        except BaseException:
            if funding.taken:  # a later stake of the same command was refused
                await self._money.undo(cfg, funding)
            raise

    async def _refused(self, cfg: TableConfig, req: _Request, link: TableLink,
                       funding: Funding, exc: Exception) -> TableAnswer:
        """A transition the table did not take: its stakes go back at once, and the refusal
        says so (unless a duplicate of the request was answered meanwhile: its answer)."""
        refund = ""
        if funding.taken:
            given = bool(funding.debits)
            done = await self._money.undo(cfg, funding)
            refund = ("done" if done else "pending") if given else ""
        stored = await self._lookup(cfg, req, link)
        if stored is not None:
            return stored
        if isinstance(exc, TableLocked):
            exc = TableBusy(f"table {cfg.id} did not take the command within its bound; "
                            "nothing of it stands, retry", reason="TABLE_BUSY")
        if isinstance(exc, ServiceError):
            if refund:
                exc.metadata["refund"] = refund
            raise exc
        # Nothing of it was recorded: retryable, and the stakes said for.
        log.warning("table %s: %s not recorded: %s", cfg.id, req.method, exc)
        raise Unavailable(f"the table did not record the command ({exc}); retry with the "
                          "same request id", reason="JOURNAL_UNAVAILABLE",
                          metadata={"refund": refund} if refund else None) from exc

    async def _load(self, table_id: str, link: TableLink | None = None) -> StoredTable:
        t = await (link.load(table_id) if link is not None else self._tables.load(table_id))
        if t is None:
            raise NotFound("no such table", reason="TABLE_NOT_FOUND")
        return t

    def _applier(self, session: Session, cfg: TableConfig, p: Plan, funding: Funding, *,
                 request_id: str, method: str, fingerprint: str) -> Callable[[View], Applied]:
        who = who_of(session, cfg.id)

        def apply(view: View) -> Applied:
            step = p.apply(view, funding)
            # The player acted at the table: their seat is theirs a while longer, and is
            # played with this session from now on.
            step.state = seats.touch(step.state, who, now=self._clock(),
                                     expires_at=session.expires_at)
            # The record keeps the command's event number; a retry answered from it shows
            # the table as it is then.
            record = AnswerRecord(seq=view.seq + len(step.events))
            request = (session.player_key, StoredRequest(
                request_id=request_id, method=method, request_hash=fingerprint,
                response=encode_value(record)))
            return Applied(step=step, request=request)
        return apply

    async def _view(self, cfg: TableConfig, batch: Batch, hints: bool) -> TableView:
        """The table as a batch left it (made once per batch and kind of viewer)."""
        made = batch.views.get(hints)
        if made is None:
            rnd = batch.live if batch.live is not None else self._rounds.current(
                cfg, batch.state, batch.round)
            if batch.ended is not None:
                names = dict(batch.ended_round.names) if batch.ended_round else {}
                self._rounds.remember(batch.state.revealed.round_id
                                      if batch.state.revealed else "", batch.ended, names)
            last, last_names = await self._rounds.last(cfg, batch.state,
                                                       self._tables.get_round)
            made = batch.views[hints] = public.view(
                cfg.id, batch.seq, batch.state, rnd, hints=self._hints if hints else None,
                currency=cfg.currency,
                last=last, last_names=last_names, whole=batch.whole,
                round_shown=self._rounds.shown(rnd) if rnd is not None else None)
        return made

    async def _lookup(self, cfg: TableConfig, req: _Request,
                      link: TableLink) -> TableAnswer | None:
        """The stored answer of the request if it was committed by now (else None)."""
        return await self._answered(cfg, req, await link.find_request(
            cfg.id, req.key, req.request_id), link)

    async def _answered(self, cfg: TableConfig, req: _Request, rec: StoredRequest | None,
                        link: TableLink | None = None) -> TableAnswer | None:
        """The answer of a request already committed (None without a record): its event
        number, and the table as it is now (read before a connection is held: with the
        player's own rows, a Bet Behind placed or a live decision, as their first answer
        showed them)."""
        seq = _recorded_seq(rec, req.method, req.fingerprint)
        if seq is None:
            return None
        t = await self._load(cfg.id, link)
        if link is None:
            t = replace(t, state=await with_rows(self._tables, cfg.id, t.state,
                                                 player=req.key))
        rec_round = None
        if t.state.phase in (TablePhase.INSURANCE, TablePhase.PLAYING):
            rec_round = await (link.get_round(t.state.round_id) if link is not None
                               else self._tables.get_round(t.state.round_id))
        read = link.get_round if link is not None else self._tables.get_round
        last, last_names = await self._rounds.last(cfg, t.state, read)
        return TableAnswer(seq=seq, balance=None, view=public.view(
            cfg.id, t.last_seq, t.state, self._rounds.current(cfg, t.state, rec_round),
            hints=self._hints if req.hints else None, currency=cfg.currency, last=last,
            last_names=last_names,
            whole=t.state.phase is not TablePhase.BETTING))


@dataclass(frozen=True, slots=True, kw_only=True)
class _Request:
    """A command's request: whose, its id and fingerprint, and how its answer is shown."""

    key: str
    request_id: str
    method: str
    fingerprint: str
    hints: bool


async def with_rows(tables: TableJournal, table_id: str, state: TableState, *,
                    player: str | None = None) -> TableState:
    """The table's state with the rows of its phase merged in (the Bet Behinds while betting
    is open, the live insurance decisions while insurance is), all of them or ``player``'s
    own; read on the pool (never while a command holds its connection)."""
    if state.phase is TablePhase.BETTING:
        bets = await tables.behind_rows(table_id, state.round_id)
        return behind.merged(state, [b for b in bets if player in (None, b.who.player_key)])
    if state.phase is TablePhase.INSURANCE:
        made = await tables.insurance_rows(table_id, state.round_id)
        return live_insurance.merged(state, [c for c in made if player in (None, c.player)])
    return state


def _record(req: _Request) -> Callable[[int], StoredRequest]:
    """A command's idempotency record, made from the table's event number."""
    def record(seq: int) -> StoredRequest:
        return StoredRequest(request_id=req.request_id, method=req.method,
                             request_hash=req.fingerprint,
                             response=encode_value(AnswerRecord(seq=seq)))
    return record


#: (message, reason) of a row refused because its phase was over.
_BETTING_CLOSED = ("betting closed before your bet reached the table; bet on the next round",
                   "BETTING_CLOSED")
_INSURANCE_CLOSED = ("insurance closed before your decision reached the table", "WRONG_PHASE")


def _row_refusal(exc: Exception, closed: tuple[str, str]) -> Exception:
    """What the player is told of a row the table did not take (a refusal of the table's, or
    the failure as it is); ``closed``: when its phase was over."""
    if not isinstance(exc, BehindRefused):
        return exc
    if exc.reason == "closed":
        return NotAllowedNow(closed[0], reason=closed[1])
    return {
        "already_bet": NotAllowedNow("you already bet behind that seat this round",
                                     reason="ALREADY_BET"),
        "already_decided": NotAllowedNow("insurance is already decided",
                                         reason="ACTION_NOT_ALLOWED"),
        "lease_lost": JournalLeaseLost("your journal was taken over by another call"),
    }.get(exc.reason, exc)


def _found(t: StoredTable | None) -> StoredTable:
    if t is None:
        raise NotFound("no such table", reason="TABLE_NOT_FOUND")
    return t


def _recorded_seq(rec: StoredRequest | None, method: str, fingerprint: str) -> int | None:
    """The event number a request's record keeps (None when there is no record)."""
    if rec is None:
        return None
    if rec.method != method or rec.request_hash != fingerprint:
        raise RequestConflict("request_id was already used for a different request",
                              reason="REQUEST_ID_REUSED")
    # (A record of an earlier release kept the whole answer; its seq is read alike.)
    return int(orjson.loads(rec.response)["seq"])


def _forget(tasks: set[asyncio.Task[TableAnswer]]) -> Callable[[asyncio.Task[TableAnswer]], None]:
    def done(task: asyncio.Task[TableAnswer]) -> None:
        tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: the caller may have gone away
    return done
