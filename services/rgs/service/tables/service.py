"""The shared tables' use cases: the players' commands and the transitions the table clock
drives (betting close, insurance close, a decision's time-out).

Every transition is one journal transaction with a compare-and-set on the table's version
(:class:`~rgs.service.tables.ports.TableCommit`); a clock-driven one also checks the clock's
lease epoch. Money stays each player's own: a stake is debited from the player's operator's
wallet when it is placed (under that player's journal, with the solo rounds' outbox,
:mod:`rgs.service.money`) and booked by the transition that records the bet; a Bet Behind on a
seat that sits the round out is refunded at once (a rollback of its debit); the settlement
writes one credit per player in the transition that ends the round and pays them after the
commit (the reconciler of any replica retries what is not confirmed).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta

from rgs.codec import decode_event, decode_value, encode_value, event_kind
from rgs.engine import (
    Action,
    BehindBet,
    BoxBet,
    EngineError,
    Phase,
    Round,
    RuleSet,
    SideBetKind,
)
from rgs.engine.timeout import timeout_decision
from rgs.service import money
from rgs.service.common import check_request_id, request_hash, translate_engine
from rgs.service.errors import (
    Busy,
    InvalidRequest,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    RequestConflict,
    Unavailable,
)
from rgs.service.model import Movement, MovementStatus, Session, StoredRequest
from rgs.service.ports import (
    CardSourceFactory,
    CardSourceUnavailable,
    Clock,
    JournalBusy,
    JournalLeaseLost,
    JournalRejected,
    PlayerJournal,
)
from rgs.service.restore import deal_source, restore
from rgs.service.tables import public
from rgs.service.tables.model import (
    Behind,
    BehindInsurance,
    BetCommand,
    InsuranceChoice,
    Seat,
    SeatBet,
    StoredTable,
    TableAct,
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


class TableService:
    """Shared tables: commands from players (any replica) and the clock's transitions."""

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

    def _admit(self, session: Session, cfg: TableConfig) -> None:
        if session.brand_id not in cfg.brands:
            raise PermissionDenied(f"brand {session.brand_id} does not offer table {cfg.id}",
                                   reason="TABLE_NOT_OFFERED")
        if session.currency != cfg.currency:
            raise NotAllowedNow(f"table {cfg.id} plays in {cfg.currency}; open a session in "
                                f"{cfg.currency} to sit here", reason="WRONG_CURRENCY")

    async def open_tables(self) -> None:
        """Create every configured table's row (at start; idempotent)."""
        for cfg in self._configs.values():
            await self._tables.ensure_table(cfg.id, TableState())

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
            return restore(self._rules(cfg), events, pick, forced)
        except EngineError as exc:
            raise translate_engine(exc) from exc

    async def snapshot(self, table_id: str) -> tuple[int, str]:
        """(newest event number, the table's public snapshot)."""
        cfg = self.config(table_id)
        t = await self._load(table_id)
        return t.last_seq, public.snapshot(table_id, t.last_seq, t.state,
                                           await self._round(cfg, t.state))

    async def watch(self, table_id: str, from_seq: int | None, *,
                    poll_s: float = 1.0) -> AsyncIterator[TableEvent | tuple[int, str]]:
        """Everything that happens at a table: with ``from_seq`` the events numbered above it
        (each exactly once, in order), else a snapshot ``(seq, json)`` and then the events
        above it. Events are read from the journal; the wake-up only says when to look."""
        self.config(table_id)
        if from_seq is None:
            seq, snap = await self.snapshot(table_id)
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

    async def _command(self, session: Session, table_id: str, *, request_id: str,
                       method: str, cmd: object, build: Callable[[TableConfig, StoredTable,
                                                     Callable[[Sequence[str]],
                                                              Awaitable[None]] | None],
                                                    Awaitable[tuple[_Step, Sequence[str]]]]
                       ) -> TableAnswer:
        """Run a player's command: replay its stored answer, or build the transition (under
        the journals of the players whose money it moves) and commit it, re-reading the table
        when it moved on meanwhile."""
        check_request_id(request_id)
        cfg = self.config(table_id)
        self._admit(session, cfg)
        fingerprint = request_hash(method, cmd)
        for _ in range(_RETRIES):
            rec = await self._tables.find_request(table_id, session.player_key, request_id)
            if rec is not None:
                if rec.method != method or rec.request_hash != fingerprint:
                    raise RequestConflict("request_id was already used for a different "
                                          "request", reason="REQUEST_ID_REUSED")
                return decode_value(TableAnswer, rec.response)
            t = await self._load(table_id)
            try:
                return await self._attempt(session, cfg, t, request_id=request_id, method=method,
                                           fingerprint=fingerprint, build=build)
            except TableConflict:
                continue
        raise Busy("the table is busy; retry", reason="REQUEST_IN_PROGRESS")

    async def _attempt(self, session: Session, cfg: TableConfig, t: StoredTable, *,
                       request_id: str, method: str, fingerprint: str,
                       build: Callable[..., Awaitable[tuple[_Step, Sequence[str]]]]
                       ) -> TableAnswer:
        step, _ = await build(cfg, t, None)
        return await self._commit_step(session, cfg, t, step, {}, request_id=request_id,
                                       method=method, fingerprint=fingerprint)

    async def _commit_step(self, session: Session, cfg: TableConfig, t: StoredTable,
                           step: _Step, held: Mapping[str, HeldPlayer], *, request_id: str,
                           method: str, fingerprint: str,
                           clock_epoch: int | None = None) -> TableAnswer:
        seq = t.last_seq + len(step.events)
        rnd = None
        if step.round is not None and step.state.phase in (TablePhase.INSURANCE,
                                                           TablePhase.PLAYING):
            rnd = self._restore(cfg, step.round, step.state.forced)
        answer = TableAnswer(seq=seq, balance=None,
                             snapshot=public.snapshot(cfg.id, seq, step.state, rnd))
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

    async def take_seat(self, session: Session, table_id: str, request_id: str,
                        seat: int) -> TableAnswer:
        who = _who(session)

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            if type(seat) is not int or not 1 <= seat <= cfg.seats:
                raise InvalidRequest(f"seat must be 1..{cfg.seats}", reason="INVALID_SEAT",
                                     field="seat")
            if any(x.who.player_key == who.player_key for x in s.seats):
                raise NotAllowedNow("you already have a seat at this table",
                                    reason="ALREADY_SEATED")
            if s.seat(seat) is not None:
                raise NotAllowedNow(f"seat {seat} is taken; pick a free one",
                                    reason="SEAT_TAKEN")
            state = replace(s, seats=tuple(sorted((*s.seats, Seat(seat=seat, who=who)),
                                                  key=lambda x: x.seat)))
            return _Step(state=state, events=[public.event(
                "seat_taken", seat=seat, player_id=who.player_id)]), ()

        return await self._command(session, table_id, request_id=request_id,
                                   method="take_seat", cmd=(seat,), build=build)

    async def leave_seat(self, session: Session, table_id: str, request_id: str,
                         seat: int) -> TableAnswer:
        who = _who(session)

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            taken = s.seat(seat)
            if taken is None or taken.who.player_key != who.player_key:
                raise NotAllowedNow(f"seat {seat} is not yours", reason="NOT_YOUR_SEAT")
            if s.bet(seat) is not None:
                raise NotAllowedNow("your bet on this seat is in play; leave after the round",
                                    reason="BET_IN_PLAY")
            state = replace(s, seats=tuple(x for x in s.seats if x.seat != seat))
            return _Step(state=state, events=[public.event(
                "seat_left", seat=seat, player_id=who.player_id)]), ()

        return await self._command(session, table_id, request_id=request_id,
                                   method="leave_seat", cmd=(seat,), build=build)

    # ---- bets

    async def place_bets(self, session: Session, table_id: str, request_id: str,
                         bets: Sequence[BetCommand]) -> TableAnswer:
        who = _who(session)
        bets = tuple(bets)
        if not bets:
            raise InvalidRequest("place at least one bet", reason="INVALID_BET", field="bets")

        async def build(cfg: TableConfig, t: StoredTable, with_money: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            if s.phase not in (TablePhase.IDLE, TablePhase.BETTING):
                raise NotAllowedNow("betting is closed; bet on the next round",
                                    reason="BETTING_CLOSED")
            rules = self._rules(cfg)
            state = s
            events: list[tuple[str, str]] = []
            if s.phase is TablePhase.IDLE:
                # 96 bits: short enough that every money id of the round fits a wallet's 64
                # characters with its player tag, retry number and rollback suffix (the longest
                # is a follow's rollback: see rgs.wallet.port.transaction_id).
                round_id = secrets.token_hex(12)
                state = replace(s, phase=TablePhase.BETTING, round_id=round_id,
                                round_no=s.round_no + 1,
                                deadline=self._clock() + timedelta(seconds=cfg.betting_s))
                events.append(public.event("betting_opened", round_id=round_id,
                                           round_no=state.round_no,
                                           deadline=state.deadline))
            seen: set[tuple[int, bool]] = set()
            for b in bets:
                self._check_bet(cfg, rules, state, who, b)
                if (b.seat, b.behind) in seen:
                    raise InvalidRequest(f"two bets on seat {b.seat}", reason="INVALID_BET")
                seen.add((b.seat, b.behind))
            step = _Step(state=state, events=events)
            return step, (who.player_key,)

        async def funded(cfg: TableConfig, t: StoredTable, held: Mapping[str, HeldPlayer],
                         step: _Step) -> _Step:
            state = step.state
            for b in bets:
                if b.behind:
                    tag = f"bh{b.seat}x{_h(who.player_key)}"
                    m = await self._debit(cfg, step, held, who, round_id=state.round_id,
                                   tag=tag, amount=b.stake)
                    state = replace(state, behind=(*state.behind, Behind(
                        seat=b.seat, who=who, stake=b.stake, follow_double=b.follow_double,
                        follow_split=b.follow_split, insurance=b.insurance,
                        debit=m.transaction_id)))
                    step.events.append(public.event(
                        "behind_placed", seat=b.seat, player_id=who.player_id, stake=b.stake,
                        follow_double=b.follow_double, follow_split=b.follow_split,
                        insurance=b.insurance.value))
                else:
                    sb = SeatBet(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                                 twenty_one_plus_three=b.twenty_one_plus_three,
                                 twenty_plus=b.twenty_plus)
                    m = await self._debit(cfg, step, held, who, round_id=state.round_id,
                                   tag=f"seat{b.seat}", amount=sb.total)
                    state = replace(state, bets=tuple(sorted(
                        (*state.bets, replace(sb, debit=m.transaction_id)),
                        key=lambda x: x.seat)))
                    step.events.append(public.event(
                        "bet_placed", seat=b.seat, player_id=who.player_id, stake=b.stake,
                        perfect_pairs=b.perfect_pairs,
                        twenty_one_plus_three=b.twenty_one_plus_three,
                        twenty_plus=b.twenty_plus))
            step.state = state
            return step

        return await self._money_command(session, table_id, request_id=request_id,
                                         method="place_bets", cmd=bets, build=build,
                                         funded=funded)

    def _check_bet(self, cfg: TableConfig, rules: RuleSet, s: TableState, who: Who,
                   b: BetCommand) -> None:
        lim = cfg.limits
        for name, amount in (("stake", b.stake), ("perfect_pairs", b.perfect_pairs),
                             ("twenty_one_plus_three", b.twenty_one_plus_three),
                             ("twenty_plus", b.twenty_plus)):
            if type(amount) is not int or amount < 0:
                raise InvalidRequest(f"{name} must be a non-negative integer of minor units",
                                     reason="INVALID_BET", field=name)
        if not lim.main_min <= b.stake <= lim.main_max:
            raise NotAllowedNow(f"seat {b.seat}: stake {b.stake} is outside the table limits "
                                f"{lim.main_min}..{lim.main_max}", reason="STAKE_OUT_OF_LIMITS")
        seat = s.seat(b.seat)
        if b.behind:
            if rules.bet_behind is False:
                raise NotAllowedNow(f"table {cfg.id} has no Bet Behind", reason="INVALID_BET")
            if b.perfect_pairs or b.twenty_one_plus_three or b.twenty_plus:
                raise InvalidRequest("a Bet Behind has no side bets", reason="INVALID_BET")
            if seat is None:
                raise NotAllowedNow(f"nobody sits at seat {b.seat}", reason="SEAT_EMPTY")
            if seat.who.player_key == who.player_key:
                raise NotAllowedNow("a Bet Behind goes on another player's seat, never your "
                                    "own", reason="BET_BEHIND_OWN_SEAT")
            if any(x.seat == b.seat and x.who.player_key == who.player_key
                   for x in s.behind):
                raise NotAllowedNow(f"you already bet behind seat {b.seat}",
                                    reason="ALREADY_BET")
            return
        if seat is None or seat.who.player_key != who.player_key:
            raise NotAllowedNow(f"seat {b.seat} is not yours; take a seat first",
                                reason="NOT_YOUR_SEAT")
        if s.bet(b.seat) is not None:
            raise NotAllowedNow(f"seat {b.seat} already has its bet for this round",
                                reason="ALREADY_BET")
        offered = rules.side_bets
        for kind, amount in ((SideBetKind.PERFECT_PAIRS, b.perfect_pairs),
                             (SideBetKind.TWENTY_ONE_PLUS_THREE, b.twenty_one_plus_three),
                             (SideBetKind.TWENTY_PLUS, b.twenty_plus)):
            if not amount:
                continue
            if kind not in offered:
                raise NotAllowedNow(f"table {cfg.id} does not offer {kind.value}",
                                    reason="INVALID_BET")
            if not lim.side_min <= amount <= lim.side_max:
                raise NotAllowedNow(f"{kind.value} {amount} is outside the table limits "
                                    f"{lim.side_min}..{lim.side_max}",
                                    reason="STAKE_OUT_OF_LIMITS")

    async def _money_command(self, session: Session, table_id: str, *, request_id: str,
                             method: str, cmd: object,
                             build: Callable[..., Awaitable[tuple[_Step, Sequence[str]]]],
                             funded: Callable[..., Awaitable[_Step]]) -> TableAnswer:
        """A command that moves money: checked first without, then again under the journals
        of the players it debits; debits, then one commit that books them."""
        check_request_id(request_id)
        cfg = self.config(table_id)
        self._admit(session, cfg)
        fingerprint = request_hash(method, cmd)
        for _ in range(_RETRIES):
            rec = await self._tables.find_request(table_id, session.player_key, request_id)
            if rec is not None:
                if rec.method != method or rec.request_hash != fingerprint:
                    raise RequestConflict("request_id was already used for a different "
                                          "request", reason="REQUEST_ID_REUSED")
                return decode_value(TableAnswer, rec.response)
            t = await self._load(table_id)
            step, keys = await build(cfg, t, None)
            try:
                async with self._tables.hold_players(keys) as held:
                    # Under the players' journals: settle their open outbox rows first, and
                    # answer a duplicate that committed meanwhile from its record.
                    for hp in held.values():
                        rows = await hp.journal.open_movements()
                        if rows:
                            # Each row carries its own brand, session and currency; the
                            # wallet knows the player by the key's operator and player ids.
                            operator_id, _, player_id = hp.key.partition("/")
                            await money.reconcile(hp.journal, self._wallet, Party(
                                operator_id=operator_id, brand_id=rows[0].brand_id,
                                player_id=player_id, session_id=rows[0].session_id,
                                currency=rows[0].currency), rows)
                    if await self._tables.find_request(table_id, session.player_key,
                                                       request_id) is not None:
                        continue
                    step = await funded(cfg, t, held, step)
                    return await self._commit_step(session, cfg, t, step, held,
                                                   request_id=request_id, method=method,
                                                   fingerprint=fingerprint)
            except TableConflict:
                continue
            except JournalBusy as exc:
                raise Busy("your journal is busy with another call; retry",
                           reason="REQUEST_IN_PROGRESS") from exc
        raise Busy("the table is busy; retry", reason="REQUEST_IN_PROGRESS")

    async def deal_now(self, session: Session, table_id: str, request_id: str,
                       forced_cards: tuple[str, ...] = ()) -> TableAnswer:
        """The player is ready: once every seated player who bet pressed it, betting closes."""
        who = _who(session)
        if forced_cards and not self._test_mode:
            raise PermissionDenied("forced cards are accepted in test mode only",
                                   reason="FORCED_CARDS_NOT_ALLOWED")

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            mine = [b for b in s.bets
                    if (st := s.seat(b.seat)) is not None and st.who.player_key == who.player_key]
            if s.phase is not TablePhase.BETTING or not mine:
                raise NotAllowedNow("Deal Now is for a seated player who has bet, while "
                                    "betting is open", reason="BETTING_CLOSED")
            bets = tuple(replace(b, deal_now=True) if b in mine else b for b in s.bets)
            state = replace(s, bets=bets, forced=forced_cards or s.forced)
            events = [public.event("deal_now", seat=b.seat, player_id=who.player_id)
                      for b in mine]
            if all(b.deal_now for b in bets):
                state = replace(state, deadline=self._clock())
                events.append(public.event("betting_closing", reason="deal_now"))
            return _Step(state=state, events=events), ()

        return await self._command(session, table_id, request_id=request_id,
                                   method="deal_now", cmd=forced_cards, build=build)

    # ---- decisions

    async def act(self, session: Session, table_id: str, request_id: str,
                  cmd: TableAct) -> TableAnswer:
        who = _who(session)

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            if s.phase is not TablePhase.PLAYING or s.round_id != cmd.round_id:
                raise NotAllowedNow("no decision of this round is awaited now",
                                    reason="WRONG_PHASE")
            seat = s.seat(cmd.seat)
            if seat is None or seat.who.player_key != who.player_key:
                raise NotAllowedNow(f"seat {cmd.seat} is not yours", reason="NOT_YOUR_SEAT")
            keys = [who.player_key, *(b.who.player_key for b in s.behind
                                      if b.seat == cmd.seat and self._follows(b, cmd.action))]
            return _Step(state=s), keys

        async def funded(cfg: TableConfig, t: StoredTable, held: Mapping[str, HeldPlayer],
                         step: _Step) -> _Step:
            s = t.state
            rnd = await self._round(cfg, s)
            assert rnd is not None
            try:
                rnd.verify(cmd.seat, cmd.hand, cmd.action)
                cost = next((la.cost for la in rnd.legal_actions(cmd.seat, cmd.hand)
                             if la.action is cmd.action), 0)
            except EngineError as exc:
                raise translate_engine(exc) from exc
            tag = f"a{rnd.seq + 1}"
            if cost:
                await self._debit(cfg, step, held, who, round_id=s.round_id,
                                   tag=tag, amount=cost)
            unfunded: set[str] = set()
            if cmd.hand == 0:
                for b in s.behind:
                    if b.seat != cmd.seat or not self._follows(b, cmd.action):
                        continue
                    try:
                        await self._debit(cfg, step, held, b.who, round_id=s.round_id,
                                   tag=f"{tag}x{_h(b.who.player_key)}", amount=b.stake)
                    except (NotAllowedNow, Unavailable) as exc:
                        log.info("Bet Behind of %s does not follow: %s", b.who.player_id, exc)
                        unfunded.add(b.who.player_key)
            start = len(rnd.events)
            try:
                rnd.act(cmd.seat, cmd.hand, cmd.action, unfunded=frozenset(unfunded))
            except (EngineError, CardSourceUnavailable) as exc:
                await self._undo(cfg, step, held)
                step.debits.clear()
                if isinstance(exc, CardSourceUnavailable):
                    raise
                raise translate_engine(exc) from exc
            self._after_play(cfg, s, rnd, start, step)
            return step

        return await self._money_command(session, table_id, request_id=request_id, method="act",
                                         cmd=cmd, build=build, funded=funded)

    @staticmethod
    def _follows(b: Behind, action: Action) -> bool:
        if action in (Action.DOUBLE, Action.POWER_DOUBLE):
            return b.follow_double
        if action in (Action.SPLIT, Action.POWER_SPLIT):
            return b.follow_split
        return False

    async def decide_insurance(self, session: Session, table_id: str, request_id: str, *,
                               round_id: str, seat: int, take: bool,
                               behind: bool) -> TableAnswer:
        """A seat player's insurance decision, or a Bet Behind player's live one (preset
        ``ask``), while insurance is open; applied when it closes."""
        who = _who(session)
        player = who.player_key if behind else ""

        async def build(cfg: TableConfig, t: StoredTable, _m: object
                        ) -> tuple[_Step, Sequence[str]]:
            s = t.state
            if s.phase is not TablePhase.INSURANCE or s.round_id != round_id:
                raise NotAllowedNow("insurance is not open", reason="WRONG_PHASE")
            if behind:
                mine = next((b for b in s.behind if b.seat == seat
                             and b.who.player_key == who.player_key), None)
                if mine is None or mine.insurance is not BehindInsurance.ASK:
                    raise NotAllowedNow("you have no Bet Behind on this seat that asks for "
                                        "insurance", reason="NOT_YOUR_SEAT")
            else:
                st = s.seat(seat)
                if st is None or st.who.player_key != who.player_key:
                    raise NotAllowedNow(f"seat {seat} is not yours", reason="NOT_YOUR_SEAT")
            if any(c.seat == seat and c.player == player for c in s.insurance):
                raise NotAllowedNow("insurance is already decided", reason="ACTION_NOT_ALLOWED")
            return _Step(state=s), (who.player_key,) if take else ()

        async def funded(cfg: TableConfig, t: StoredTable, held: Mapping[str, HeldPlayer],
                         step: _Step) -> _Step:
            s = t.state
            rnd = await self._round(cfg, s)
            assert rnd is not None
            view = next((b for b in rnd.view().boxes if b.seat == seat), None)
            if view is None:
                raise NotAllowedNow(f"seat {seat} has no box in this round",
                                    reason="NOT_YOUR_SEAT")
            debit = ""
            if behind:
                reason = rnd.behind_insurance_refusal(seat, who.player_key)
                if reason is not None:
                    raise NotAllowedNow(reason, reason="ACTION_NOT_ALLOWED")
                stake = next(b.stake for b in s.behind
                             if b.seat == seat and b.who.player_key == who.player_key)
                cost = stake // 2
            else:
                if not view.insurance_allowed:
                    raise NotAllowedNow(f"seat {seat} is not offered insurance",
                                        reason="ACTION_NOT_ALLOWED")
                cost = next(la.cost for la in view.insurance_allowed
                            if la.action is Action.INSURE)
            if take and held:
                tag = f"ins{seat}" + (f"x{_h(who.player_key)}" if behind else "")
                debit = (await self._debit(cfg, step, held, who, round_id=s.round_id,
                                   tag=tag, amount=cost)).transaction_id
            state = replace(s, insurance=(*s.insurance, InsuranceChoice(
                seat=seat, player=player, take=take, debit=debit)))
            step.events.append(public.event("insurance_decided", seat=seat,
                                            player_id=who.player_id, behind=behind,
                                            take=take))
            if self._insurance_complete(state, rnd):
                state = replace(state, deadline=self._clock())
            step.state = state
            return step

        return await self._money_command(session, table_id, request_id=request_id,
                                         method="insurance",
                                         cmd=(round_id, seat, take, behind), build=build,
                                         funded=funded)

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
                                 events=tuple((event_kind(e), _enc(e)) for e in rnd.events))
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
        step.state = TableState(phase=TablePhase.IDLE, round_no=s.round_no, seats=seats)
        assert step.round is not None
        step.round = replace(step.round, players=tuple(players))
        step.events.append(public.event(
            "round_finished", round_id=s.round_id,
            results=[{"player_id": whos[k].player_id, "staked": st, "paid": pd}
                     for k, (st, pd) in by_player.items()],
            hot=[{"seat": x.seat, "hot": x.hot} for x in seats]))

    async def tick(self, table_id: str, epoch: int) -> bool:
        """Fire the table's deadline if it is due (the clock's holder only: every write checks
        ``epoch``). True when a transition was committed."""
        cfg = self.config(table_id)
        t = await self._load(table_id)
        s = t.state
        if s.deadline is None or s.deadline > self._clock():
            return False
        if s.phase is TablePhase.BETTING:
            await self._close_betting(cfg, t, epoch)
        elif s.phase is TablePhase.INSURANCE:
            await self._close_insurance(cfg, t, epoch)
        elif s.phase is TablePhase.PLAYING:
            await self._time_out(cfg, t, epoch)
        else:
            return False
        return True

    async def _clock_commit(self, cfg: TableConfig, t: StoredTable, step: _Step, epoch: int,
                            held: Mapping[str, HeldPlayer] | None = None) -> None:
        nobody = Session(session_id="", player_key="", operator_id="", brand_id="",
                         player_id="", currency="", expires_at=self._clock())
        await self._commit_step(nobody, cfg, t, step, held or {}, request_id="", method="",
                                fingerprint="", clock_epoch=epoch)

    async def _close_betting(self, cfg: TableConfig, t: StoredTable, epoch: int) -> None:
        s = t.state
        step = _Step(state=s)
        betting = {b.seat for b in s.bets}
        kept = []
        for b in s.behind:
            if b.seat in betting:
                kept.append(b)
                continue
            debit = Movement(transaction_id=b.debit, round_id=s.round_id,
                             kind=MoneyKind.DEBIT, amount=b.stake,
                             session_id=b.who.session_id, currency=cfg.currency,
                             brand_id=b.who.brand_id)
            step.movements.append((b.who.player_key, money.rollback_of(debit)))
            step.events.append(public.event("behind_refunded", seat=b.seat,
                                            player_id=b.who.player_id, amount=b.stake,
                                            reason="seat_sat_out"))
        step.events.append(public.event("betting_closed", round_id=s.round_id,
                                        seats=sorted(betting)))
        if not s.bets:
            step.state = TableState(phase=TablePhase.IDLE, round_no=s.round_no, seats=s.seats)
            await self._clock_commit(cfg, t, step, epoch)
            return
        whos = {x.seat: x.who for x in s.seats}
        boxes = [BoxBet(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                        twenty_one_plus_three=b.twenty_one_plus_three,
                        twenty_plus=b.twenty_plus, player=whos[b.seat].player_key,
                        behind=tuple(BehindBet(player=x.who.player_key, stake=x.stake,
                                               follow_double=x.follow_double,
                                               follow_split=x.follow_split)
                                     for x in kept if x.seat == b.seat))
                 for b in s.bets]
        state = replace(s, behind=tuple(kept))
        try:
            rnd = Round.deal(self._rules(cfg), deal_source(self._rules(cfg),
                                                          self._cards.picker(), s.forced),
                             boxes, cfg.limits)
        except (EngineError, CardSourceUnavailable) as exc:
            # The round cannot be dealt: void it, every stake refunded.
            log.error("table %s round %s voided: %s", cfg.id, s.round_id, exc)
            for sb in s.bets:
                w = whos[sb.seat]
                debit = Movement(transaction_id=sb.debit, round_id=s.round_id,
                                 kind=MoneyKind.DEBIT, amount=sb.total,
                                 session_id=w.session_id, currency=cfg.currency,
                                 brand_id=w.brand_id)
                step.movements.append((w.player_key, money.rollback_of(debit)))
            for x in kept:
                debit = Movement(transaction_id=x.debit, round_id=s.round_id,
                                 kind=MoneyKind.DEBIT, amount=x.stake,
                                 session_id=x.who.session_id, currency=cfg.currency,
                                 brand_id=x.who.brand_id)
                step.movements.append((x.who.player_key, money.rollback_of(debit)))
            step.events.append(public.event("round_voided", round_id=s.round_id,
                                            reason=type(exc).__name__))
            step.state = TableState(phase=TablePhase.IDLE, round_no=s.round_no, seats=s.seats)
            await self._clock_commit(cfg, t, step, epoch)
            return
        step.state = state
        self._after_play(cfg, state, rnd, 0, step)
        await self._clock_commit(cfg, t, step, epoch)

    async def _close_insurance(self, cfg: TableConfig, t: StoredTable, epoch: int) -> None:
        s = t.state
        rnd = await self._round(cfg, s)
        assert rnd is not None
        step = _Step(state=s)
        start = len(rnd.events)
        always = [b for b in s.behind if b.insurance is BehindInsurance.ALWAYS
                  and rnd.behind_insurance_refusal(b.seat, b.who.player_key) is None]
        taken = [c for c in s.insurance if c.player and c.take]
        async with self._tables.hold_players([b.who.player_key for b in always]) as held:
            for b in always:
                try:
                    await self._debit(cfg, step, held, b.who, round_id=s.round_id,
                                   tag=f"ins{b.seat}x{_h(b.who.player_key)}", amount=b.stake // 2)
                    rnd.insure_behind(b.seat, b.who.player_key)
                except (NotAllowedNow, Unavailable) as exc:
                    log.info("Bet Behind insurance of %s not funded: %s", b.who.player_id, exc)
            for c in taken:
                if rnd.behind_insurance_refusal(c.seat, c.player) is None:
                    rnd.insure_behind(c.seat, c.player)
            decided = {c.seat: c.take for c in s.insurance if not c.player}
            for box in rnd.view().boxes:
                if box.insurance_allowed and not rnd.finished:
                    take = decided.get(box.seat, False)
                    rnd.act(box.seat, 0, Action.INSURE if take else Action.DECLINE_INSURANCE)
            self._after_play(cfg, s, rnd, start, step)
            if not rnd.finished:
                step.state = replace(step.state, insurance=())
            await self._clock_commit(cfg, t, step, epoch, held)

    async def _time_out(self, cfg: TableConfig, t: StoredTable, epoch: int) -> None:
        s = t.state
        rnd = await self._round(cfg, s)
        assert rnd is not None
        decision = timeout_decision(rnd)
        if decision is None:
            return
        step = _Step(state=s)
        start = len(rnd.events)
        seat, hand, action = decision
        rnd.act(seat, hand, action)
        step.events.append(public.event("decision_timed_out", seat=seat, hand=hand,
                                        action=action.value))
        self._after_play(cfg, s, rnd, start, step)
        await self._clock_commit(cfg, t, step, epoch)


def _enc(e: object) -> str:
    from rgs.codec import encode_event
    return encode_event(e)  # type: ignore[arg-type]

