"""What both halves of a shared table's use cases stand on: the configuration, loading and
restoring a table's round, the money of a step (debits, undo, payments after the commit) and the
settlement of a round. :mod:`.service` holds the players' commands, :mod:`.transitions` the
transitions the table clock drives."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta

from rgs.codec import decode_event, decode_value, encode_value, event_kind
from rgs.engine import (
    Action,
    EngineError,
    Phase,
    ReplayMismatch,
    Round,
    RuleSet,
)
from rgs.service import money
from rgs.service.common import check_request_id, request_hash, translate_engine
from rgs.service.errors import (
    Busy,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    RequestConflict,
    Unavailable,
)
from rgs.service.fairness import dealt_order, draw_seed
from rgs.service.model import Movement, MovementStatus, Session, StoredRequest
from rgs.service.ports import (
    CardSourceFactory,
    CardSourceUnavailable,
    Clock,
    JournalLeaseLost,
    JournalRejected,
    PlayerJournal,
)
from rgs.service.restore import restore
from rgs.service.tables import fairness, public
from rgs.service.tables.model import (
    Behind,
    BehindInsurance,
    StoredTable,
    TableAnswer,
    TableConfig,
    TableEvent,
    TablePhase,
    TableState,
    Who,
)
from rgs.service.tables.ports import (
    HeldPlayer,
    RoundRecord,
    TableCommit,
    TableConflict,
    TableJournal,
)
from rgs.variants import VARIANTS
from rgs.wallet.port import MoneyKind, Party, Wallet, transaction_id

log = logging.getLogger(__name__)

#: How often a command re-reads a table that moved on under it before answering Busy.
_RETRIES = 8


def _h(player_key: str) -> str:
    """A short, stable tag of a player in transaction ids (each wallet sees one id per move)."""
    return hashlib.sha256(player_key.encode()).hexdigest()[:12]


def _who(session: Session) -> Who:
    return Who(player_key=session.player_key, operator_id=session.operator_id,
               brand_id=session.brand_id, player_id=session.player_id,
               session_id=session.session_id)


def _party(who: Who, currency: str) -> Party:
    return Party(operator_id=who.operator_id, brand_id=who.brand_id, player_id=who.player_id,
                 session_id=who.session_id, currency=currency)


@dataclass
class _Step:
    """A transition being built: the new state, its events and its money."""

    state: TableState
    events: list[tuple[str, str]] = field(default_factory=list)
    booked: list[tuple[str, str]] = field(default_factory=list)
    movements: list[tuple[str, Movement]] = field(default_factory=list)
    round: RoundRecord | None = None
    #: Debits made for this step, rolled back if it does not commit.
    debits: list[tuple[Who, Movement]] = field(default_factory=list)



class TableCore:
    """A shared table's state, money and settlement, for the commands and the clock."""

    def __init__(self, *, tables: TableJournal, wallet: Wallet, cards: CardSourceFactory,
                 configs: Mapping[str, TableConfig], clock: Clock,
                 test_mode: bool = False) -> None:
        self._tables = tables
        self._wallet = wallet
        self._cards = cards
        self._configs = configs
        self._clock = clock
        self._test_mode = test_mode

    # ------------------------------------------------------------------ configuration

    def config(self, table_id: str) -> TableConfig:
        cfg = self._configs.get(table_id)
        if cfg is None:
            raise NotFound("no such table", reason="TABLE_NOT_FOUND")
        return cfg

    def tables_for_brands(self, brands: Sequence[str]) -> list[TableConfig]:
        """The tables any of ``brands`` offers, in configuration order."""
        wanted = set(brands)
        return [c for c in self._configs.values() if wanted & set(c.brands)]

    def _rules(self, cfg: TableConfig) -> RuleSet:
        return VARIANTS[cfg.variant]

    def _admitted(self, session: Session, table_id: str, request_id: str, method: str,
                  cmd: object) -> tuple[TableConfig, str]:
        """A player's command checked before anything is read: its request id, the table, the
        session's brand and currency; the table's configuration and the command's fingerprint."""
        check_request_id(request_id)
        cfg = self.config(table_id)
        self._admit(session, cfg)
        return cfg, request_hash(method, cmd)

    def _admit(self, session: Session, cfg: TableConfig) -> None:
        if session.brand_id not in cfg.brands:
            raise PermissionDenied(f"brand {session.brand_id} does not offer table {cfg.id}",
                                   reason="TABLE_NOT_OFFERED")
        if session.currency != cfg.currency:
            raise NotAllowedNow(f"table {cfg.id} plays in {cfg.currency}; open a session in "
                                f"{cfg.currency} to sit here", reason="WRONG_CURRENCY")

    async def open_tables(self) -> None:
        """Create every configured table's row (at start; idempotent), each with a committed
        seed for its first round (a table without one gets it when its betting opens)."""
        for cfg in self._configs.values():
            try:
                seed = draw_seed(self._cards.picker()).hex()
            except CardSourceUnavailable:
                seed = ""
            await self._tables.ensure_table(cfg.id, TableState(next_seed=seed))

    # ------------------------------------------------------------------ reading

    async def _load(self, table_id: str) -> StoredTable:
        t = await self._tables.load(table_id)
        if t is None:
            raise NotFound("no such table", reason="TABLE_NOT_FOUND")
        return t

    async def _round(self, cfg: TableConfig, state: TableState) -> Round | None:
        if state.phase not in (TablePhase.INSURANCE, TablePhase.PLAYING):
            return None
        rec = await self._tables.get_round(state.round_id)
        if rec is None:
            raise Unavailable("the table's round is missing", reason="ROUND_UNRECOVERABLE")
        return self._restore(cfg, rec, state.forced)

    def _restore(self, cfg: TableConfig, rec: RoundRecord, forced: tuple[str, ...]) -> Round:
        events = [decode_event(k, p) for k, p in rec.events]
        try:
            pick = self._cards.picker()
        except CardSourceUnavailable as exc:
            def pick(n: int, _exc: CardSourceUnavailable = exc) -> int:
                raise CardSourceUnavailable(str(_exc))
        try:
            if rec.fair is not None and rec.fair.verifiable:
                try:
                    return restore(self._rules(cfg), events, pick, forced,
                                   source=fairness.source(rec.fair))
                except ReplayMismatch:
                    # Only a replica of a release without provably fair table rounds (a
                    # rolling upgrade) deals a fair round's cards from elsewhere: the round
                    # goes on from the shoe and will not verify.
                    log.error("table round %s departs from its seeds' card order; it goes on "
                              "from the shoe", rec.round_id)
            return restore(self._rules(cfg), events, pick, forced)
        except EngineError as exc:
            raise translate_engine(exc) from exc

    async def snapshot(self, table_id: str, *, hints: bool = False) -> tuple[int, str]:
        """(newest event number, the table's public snapshot; with ``hints``, for a player
        whose brand shows decision values, with them)."""
        cfg = self.config(table_id)
        t = await self._load(table_id)
        return t.last_seq, public.snapshot(table_id, t.last_seq, t.state,
                                           await self._round(cfg, t.state), hints=hints)

    async def watch(self, table_id: str, from_seq: int | None, *, hints: bool = False,
                    poll_s: float = 1.0) -> AsyncIterator[TableEvent | tuple[int, str]]:
        """Everything that happens at a table: with ``from_seq`` the events numbered above it
        (each exactly once, in order), else a snapshot ``(seq, json)`` (``hints`` as for
        :meth:`snapshot`) and then the events above it. Events carry no decision values. They
        are read from the journal; the wake-up only says when to look."""
        self.config(table_id)
        if from_seq is None:
            seq, snap = await self.snapshot(table_id, hints=hints)
            yield seq, snap
        else:
            seq = from_seq
        async with self._tables.subscribe(table_id) as wake:
            while True:
                batch = await self._tables.events_after(table_id, seq, 200)
                for e in batch:
                    seq = e.seq
                    yield e
                if not batch:
                    await wake(poll_s)

    async def recall(self, operator_id: str, round_id: str) -> tuple[RoundRecord, Round | None]:
        """A table round with every player's stakes and results (engine events, hole card
        included once settled) and, of the money, only ``operator_id``'s own players'."""
        rec = await self._tables.get_round(round_id)
        if rec is None or not any(op == operator_id for _, op, _, _ in rec.players):
            raise NotFound("no such round", reason="ROUND_NOT_FOUND")
        return replace(rec, players=tuple(p for p in rec.players if p[1] == operator_id)), None

    # ------------------------------------------------------------------ commands

    async def _answered(self, table_id: str, player_key: str, request_id: str, method: str,
                        fingerprint: str, *, hints: bool = False) -> TableAnswer | None:
        """The stored answer of a request already committed (None when there is none); its
        snapshot without decision values unless ``hints`` (the player may retry from a session
        of another brand of their operator)."""
        rec = await self._tables.find_request(table_id, player_key, request_id)
        if rec is None:
            return None
        if rec.method != method or rec.request_hash != fingerprint:
            raise RequestConflict("request_id was already used for a different request",
                                  reason="REQUEST_ID_REUSED")
        answer = decode_value(TableAnswer, rec.response)
        if hints:
            return answer
        return replace(answer, snapshot=public.without_hints(answer.snapshot))

    async def _command(self, session: Session, table_id: str, *, request_id: str,
                       method: str, cmd: object, build: Callable[[TableConfig, StoredTable,
                                                     Callable[[Sequence[str]],
                                                              Awaitable[None]] | None],
                                                    Awaitable[tuple[_Step, Sequence[str]]]],
                       hints: bool = False) -> TableAnswer:
        """Run a player's command: replay its stored answer, or build the transition (under
        the journals of the players whose money it moves) and commit it, re-reading the table
        when it moved on meanwhile. The answer's snapshot has decision values with ``hints``
        (the player's brand shows them)."""
        cfg, fingerprint = self._admitted(session, table_id, request_id, method, cmd)
        for _ in range(_RETRIES):
            answered = await self._answered(table_id, session.player_key, request_id,
                                            method, fingerprint, hints=hints)
            if answered is not None:
                return answered
            t = await self._load(table_id)
            try:
                return await self._attempt(session, cfg, t, request_id=request_id, method=method,
                                           fingerprint=fingerprint, build=build, hints=hints)
            except TableConflict:
                continue
        raise Busy("the table is busy; retry", reason="REQUEST_IN_PROGRESS")

    async def _attempt(self, session: Session, cfg: TableConfig, t: StoredTable, *,
                       request_id: str, method: str, fingerprint: str,
                       build: Callable[..., Awaitable[tuple[_Step, Sequence[str]]]],
                       hints: bool = False) -> TableAnswer:
        step, _ = await build(cfg, t, None)
        return await self._commit_step(session, cfg, t, step, {}, request_id=request_id,
                                       method=method, fingerprint=fingerprint, hints=hints)

    async def _commit_step(self, session: Session, cfg: TableConfig, t: StoredTable,
                           step: _Step, held: Mapping[str, HeldPlayer], *, request_id: str,
                           method: str, fingerprint: str,
                           clock_epoch: int | None = None, hints: bool = False) -> TableAnswer:
        seq = t.last_seq + len(step.events)
        rnd = None
        if step.state.phase in (TablePhase.INSURANCE, TablePhase.PLAYING):
            # The round as the step leaves it; a step that does not move it (an insurance
            # decision, a seat taken meanwhile) shows the recorded one.
            rnd = (self._restore(cfg, step.round, step.state.forced) if step.round is not None
                   else await self._round(cfg, step.state))
        answer = TableAnswer(seq=seq, balance=None,
                             snapshot=public.snapshot(cfg.id, seq, step.state, rnd,
                                                      hints=hints))
        request = None
        if request_id:
            request = (session.player_key, StoredRequest(
                request_id=request_id, method=method, request_hash=fingerprint,
                response=encode_value(answer)))
        try:
            await self._tables.commit(TableCommit(
                table_id=cfg.id, expected_version=t.version, state=step.state,
                events=step.events, clock_epoch=clock_epoch, players=list(held.values()),
                booked=step.booked, movements=step.movements, round=step.round,
                request=request))
        except (TableConflict, JournalLeaseLost, JournalRejected):
            # Refused before the commit: nothing of the step is recorded, so its debits are
            # rolled back now (the player's journal is still held).
            await self._undo(cfg, step, held)
            raise
        # Any other failure (the database went away during COMMIT) leaves the outcome unknown:
        # the debits stay applied-but-unbooked, and the outbox rule settles them (rolled back by
        # the player's next call or the reconciler only if the step did not commit).
        await self._pay(cfg, step.movements, held)
        balance = next((m.balance_after for w, m in reversed(step.debits)
                        if w.player_key == session.player_key), None)
        return replace(answer, balance=balance)

    async def _undo(self, cfg: TableConfig, step: _Step, held: Mapping[str, HeldPlayer]) -> None:
        """Roll back the debits of a step that did not commit (best effort; the reconciler
        finishes what is left, as for a solo round)."""
        for who, m in step.debits:
            hp = held.get(who.player_key)
            if hp is None:
                continue
            try:
                await money.roll_back(hp.journal, self._wallet, _party(who, cfg.currency), m)
            except Exception as exc:
                log.warning("rollback of %s postponed: %s", m.transaction_id, exc)

    async def _pay(self, cfg: TableConfig, movements: Sequence[tuple[str, Movement]],
                   held: Mapping[str, HeldPlayer]) -> None:
        """Send the credits and refunds a transition wrote, each under its player's journal
        (the one this call already holds, else taken now); what is not confirmed stays open
        for the reconciler."""
        for key, m in movements:
            operator_id, _, player_id = key.partition("/")
            party = Party(operator_id=operator_id, brand_id=m.brand_id, player_id=player_id,
                          session_id=m.session_id, currency=m.currency)
            try:
                if key in held:
                    await self._send(held[key].journal, party, m)
                else:
                    async with self._tables.hold_players([key]) as mine:
                        await self._send(mine[key].journal, party, m)
            except Exception as exc:
                log.warning("%s %s left for the reconciler: %s", m.kind.value,
                            m.transaction_id, exc)

    async def _send(self, pj: PlayerJournal, party: Party, m: Movement) -> None:
        if m.kind is MoneyKind.CREDIT and not await self._stakes_resolved(pj, party, m.round_id):
            log.warning("credit %s waits for the player's stakes of its round", m.transaction_id)
            return
        await money.send(pj, self._wallet, party, m)
        if m.kind is MoneyKind.ROLLBACK:
            await pj.settle_movement(m.debit_transaction_id, MovementStatus.ROLLED_BACK, None)

    async def _stakes_resolved(self, pj: PlayerJournal, party: Party, round_id: str) -> bool:
        """Settle the player's open debits and rollbacks of ``round_id`` (a sit-out refund the
        wallet did not confirm yet); True when none is left open, so the credit may go."""
        def pending(rows: Sequence[Movement]) -> list[Movement]:
            return [r for r in rows if r.round_id == round_id and r.kind is not MoneyKind.CREDIT
                    and r.is_open]
        rows = pending(await pj.open_movements())
        if rows:
            await money.reconcile(pj, self._wallet, party, rows)
            rows = pending(await pj.open_movements())
        return not rows

    async def _debit(self, cfg: TableConfig, step: _Step, held: Mapping[str, HeldPlayer],
                     who: Who, *, round_id: str, tag: str, amount: int) -> Movement:
        """Take a stake from ``who``'s wallet for ``step`` (raises the wallet's refusal)."""
        pj = held[who.player_key].journal
        m, _ = await money.debit(pj, self._wallet, _party(who, cfg.currency),
                                 round_id=round_id, step=tag, amount=amount)  # type: ignore[arg-type]
        m = replace(m, status=MovementStatus.APPLIED)
        step.debits.append((who, m))
        step.booked.append((who.player_key, m.transaction_id))
        return m

    # ---- seats

    @staticmethod
    def _follows(b: Behind, action: Action) -> bool:
        if action in (Action.DOUBLE, Action.POWER_DOUBLE):
            return b.follow_double
        if action in (Action.SPLIT, Action.POWER_SPLIT):
            return b.follow_split
        return False

    @staticmethod
    def _insurance_complete(s: TableState, rnd: Round) -> bool:
        decided = {(c.seat, c.player) for c in s.insurance}
        for box in rnd.view().boxes:
            if box.insurance_allowed and (box.seat, "") not in decided:
                return False
        return all((b.seat, b.who.player_key) in decided for b in s.behind
                   if b.insurance is BehindInsurance.ASK)

    # ------------------------------------------------------------------ transitions

    def _after_play(self, cfg: TableConfig, s: TableState, rnd: Round, start: int,
                    step: _Step) -> None:
        """The state, events and round record after the engine moved from event ``start``;
        when the round ended, the credits and the next betting round."""
        step.events.extend(public.round_events(rnd.events[start:]))
        status = rnd.phase.value
        step.round = RoundRecord(round_id=s.round_id, round_no=s.round_no,
                                 variant=cfg.variant, status=status,
                                 events=tuple((event_kind(e), _enc(e)) for e in rnd.events),
                                 fair=s.fair)
        if rnd.finished:
            self._finish(cfg, s, rnd, step)
            return
        phase = TablePhase.INSURANCE if rnd.phase is Phase.INSURANCE else TablePhase.PLAYING
        step.state = replace(step.state if step.state.round_id == s.round_id else s,
                             phase=phase,
                             deadline=self._clock() + timedelta(seconds=cfg.decision_s))
        if rnd.to_act is not None and phase is TablePhase.PLAYING:
            step.events.append(public.event("decision_due", seat=rnd.to_act[0],
                                            hand=rnd.to_act[1], deadline=step.state.deadline))

    def _finish(self, cfg: TableConfig, s: TableState, rnd: Round, step: _Step) -> None:
        """Settlement: one credit per player (seated or behind) to their own wallet, Hot
        Players, each player's share recorded; the table goes back to idle."""
        whos = {x.who.player_key: x.who for x in s.seats}
        whos.update({b.who.player_key: b.who for b in s.behind})
        by_player = rnd.money_by_player()
        players = []
        for key, (staked, paid) in by_player.items():
            who = whos[key]
            players.append((key, who.operator_id, staked, paid))
            m = Movement(transaction_id=transaction_id(s.round_id, f"pay{_h(key)}",
                                                       MoneyKind.CREDIT),
                         round_id=s.round_id, kind=MoneyKind.CREDIT, amount=paid,
                         session_id=who.session_id, currency=cfg.currency,
                         brand_id=who.brand_id)
            step.movements.append((key, m))
        own = {}
        for seat_no, (st, pd) in rnd.money_by_seat().items():
            own[seat_no] = pd > st
        seats = tuple(replace(x, hot=(x.hot + 1 if own.get(x.seat) else 0))
                      if x.seat in own else x for x in s.seats)
        dealt = dealt_order(rnd.events)
        step.state = fairness.idle_after(s, seats=seats, fair=s.fair, dealt=dealt)
        assert step.round is not None
        step.round = replace(step.round, players=tuple(players))
        # The round is over: its server seed is revealed here, and in recall from now on.
        step.events.append(public.event(
            "round_finished", round_id=s.round_id,
            results=[{"player_id": whos[k].player_id, "staked": st, "paid": pd}
                     for k, (st, pd) in by_player.items()],
            hot=[{"seat": x.seat, "hot": x.hot} for x in seats],
            fair=(fairness.public(s.fair, revealed=True, dealt=dealt) if s.fair is not None
                  else None),
            next_commitment=fairness.next_commitment(s)))



def _enc(e: object) -> str:
    from rgs.codec import encode_event
    return encode_event(e)  # type: ignore[arg-type]
