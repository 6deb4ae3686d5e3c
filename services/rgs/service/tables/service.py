"""The shared tables' use cases, composed: the players' commands
(:mod:`~rgs.service.tables.commands`, run by :mod:`~rgs.service.tables.runner`), the transitions
the table clock drives (:mod:`~rgs.service.tables.transitions`), each player's money
(:mod:`~rgs.service.tables.money`), the commit turns (:mod:`~rgs.service.tables.turns`) and the
watchers' feeds (:mod:`~rgs.service.tables.feed`), behind one facade the edges and the clock
call.

Money stays each player's own: a stake is debited from the player's operator's wallet when it is
placed (under that player's journal, with the solo rounds' outbox, :mod:`rgs.service.money`)
and booked by the transition that records the bet; a Bet Behind on a seat that sits the round
out is refunded at once (a rollback of its debit); the settlement writes one credit per player
in the transition that ends the round and pays them after the commit (the reconciler of any
replica retries what is not confirmed).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence

from rgs.math.hints import HintTables
from rgs.service.authenticity import SoftwareAuthenticity
from rgs.service.controls import ControlBoard
from rgs.service.errors import NotFound
from rgs.service.fairness import draw_seed
from rgs.service.freebets import FreeBets
from rgs.service.jurisdiction import JurisdictionProfile
from rgs.service.model import Channel, Session
from rgs.service.ports import CardSourceFactory, CardSourceUnavailable, Clock
from rgs.service.tables import public
from rgs.service.tables.announce import BehindAnnouncer
from rgs.service.tables.answers import TableAnswer
from rgs.service.tables.commands import BettingOpener, TableCommands
from rgs.service.tables.decisions import DecisionCommands
from rgs.service.tables.feed import Feeds
from rgs.service.tables.model import (
    BetCommand,
    TableAct,
    TableConfig,
    TableEvent,
    TablePhase,
    TableState,
)
from rgs.service.tables.money import TableMoney
from rgs.service.tables.ports import TableJournal
from rgs.service.tables.presence import Presence
from rgs.service.tables.recall import OperatorTableRound, TableRecall
from rgs.service.tables.rounds import Rounds
from rgs.service.tables.runner import CommandRunner, with_rows
from rgs.service.tables.transitions import ClockTransitions
from rgs.service.tables.turns import Turns
from rgs.service.tables.views import TableView
from rgs.wallet.port import Wallet

log = logging.getLogger(__name__)

#: The server's bound on a table command's waits (a connection, the player's journal, the
#: table's commit turn), seconds: past it the command answers TABLE_BUSY.
COMMAND_LIMIT_S = 10.0

#: The commands a game control refuses (by the runner's method names).
_NEW_PLAY = frozenset({"take_seat", "place_bets", "deal_now"})


class TableService:
    """Shared tables: commands from players (any replica) and the clock's transitions."""

    def __init__(self, *, tables: TableJournal, wallet: Wallet, cards: CardSourceFactory,
                 configs: Mapping[str, TableConfig], clock: Clock,
                 test_mode: bool = False, command_limit_s: float = COMMAND_LIMIT_S,
                 lock_wait_s: float = 5.0, feed_poll_s: float = 1.0,
                 software: SoftwareAuthenticity | None = None,
                 controls: ControlBoard | None = None,
                 profiles: Mapping[str, JurisdictionProfile] | None = None,
                 free_bets: FreeBets | None = None, behind_rows: bool = True,
                 hints: HintTables | None = None) -> None:
        self._tables = tables
        #: The analysis' caches the hints are valued from (the app's; else this service's own).
        self.hints = hints if hints is not None else HintTables()
        #: The software authentication's word on new bets (always admitted without one).
        self.software = software if software is not None else SoftwareAuthenticity()
        #: The game controls: a disabled table takes no new seat, bet or Deal Now.
        self._controls = controls
        self._cards = cards
        self._configs = configs
        self.turns = Turns()
        self.money = TableMoney(wallet=wallet, tables=tables,
                                free_bets=free_bets.store if free_bets else None)
        self.rounds = Rounds(cards)
        self.feeds = Feeds(tables, poll_s=feed_poll_s)
        self.recalls = TableRecall(tables, free_bets.store if free_bets else None)
        # Watchers are vouched for a few times per the shortest away_s of the tables.
        self.presence = Presence(tables, clock, interval_s=min(
            [5.0, *(c.away_s / 3 for c in configs.values())]))
        self.runner = CommandRunner(tables=tables, money=self.money, turns=self.turns,
                                    rounds=self.rounds, limit_s=command_limit_s,
                                    lock_wait_s=lock_wait_s,
                                    open_betting=BettingOpener(turns=self.turns, cards=cards,
                                                               clock=clock),
                                    clock=clock, gate=self._gate, hints=self.hints)
        self.announcer = BehindAnnouncer(tables=tables, turns=self.turns,
                                         limit_s=command_limit_s)
        self._commands = TableCommands(runner=self.runner, money=self.money, turns=self.turns,
                                       rounds=self.rounds, cards=cards, clock=clock,
                                       test_mode=test_mode, profiles=profiles,
                                       free_bets=free_bets, behind_rows=behind_rows)
        self._decisions = DecisionCommands(runner=self.runner, money=self.money,
                                           rounds=self.rounds, clock=clock,
                                           behind_rows=behind_rows)
        self._clock_transitions = ClockTransitions(
            tables=tables, money=self.money, turns=self.turns, rounds=self.rounds,
            cards=cards, clock=clock, limit_s=command_limit_s)

    # ------------------------------------------------------------------ configuration

    def config(self, table_id: str) -> TableConfig:
        cfg = self._configs.get(table_id)
        if cfg is None:
            raise NotFound("no such table", reason="TABLE_NOT_FOUND")
        return cfg

    def _gate(self, session: Session, cfg: TableConfig, method: str) -> None:
        """Refuse a new seat, bet or Deal Now where a game control applies (a replayed request
        still gets its answer; leaving, decisions and insurance go on: rounds in play
        finish)."""
        if self._controls is not None and method in _NEW_PLAY:
            self._controls.check(session.brand_id, cfg.variant, cfg.id)

    def tables_for_brands(self, brands: Sequence[str]) -> list[TableConfig]:
        """The tables any of ``brands`` offers, in configuration order."""
        wanted = set(brands)
        return [c for c in self._configs.values() if wanted & set(c.brands)]

    async def open_tables(self) -> None:
        """Create every configured table's row (at start; idempotent), each with a committed
        seed for its first round (a table without one gets it when its betting opens)."""
        for cfg in self._configs.values():
            try:
                seed = draw_seed(self._cards.picker()).hex()
            except CardSourceUnavailable:
                seed = ""
            await self._tables.ensure_table(cfg.id, TableState(next_seed=seed))

    async def aclose(self, timeout_s: float = 10.0) -> None:
        """Let the commands under way and the payments after them finish (at shutdown)."""
        await self.presence.aclose()
        await self.runner.drain(timeout_s)
        await self.announcer.drain(timeout_s)
        await self.money.drain(timeout_s)

    # ------------------------------------------------------------------ reading

    async def seats_free(self, table_id: str) -> int:
        """How many of the table's seats nobody holds now (for a lobby)."""
        cfg = self.config(table_id)
        t = await self._tables.load(table_id)
        return cfg.seats - (len(t.state.seats) if t is not None else 0)

    async def view(self, table_id: str, *, hints: bool = False) -> TableView:
        """The table as it is (with ``hints``, for a player whose brand shows decision values,
        with them)."""
        cfg = self.config(table_id)
        t = await self._tables.load(table_id)
        if t is None:
            raise NotFound("no such table", reason="TABLE_NOT_FOUND")
        rec = (await self._tables.get_round(t.state.round_id)
               if t.state.phase in (TablePhase.INSURANCE, TablePhase.PLAYING) else None)
        last, last_names = await self.rounds.last(cfg, t.state, self._tables.get_round)
        # (With the rows of its own phase: Bet Behinds, live insurance decisions.)
        state = await with_rows(self._tables, table_id, t.state)
        return public.view(table_id, t.last_seq, state,
                           self.rounds.current(cfg, t.state, rec),
                           hints=self.hints if hints else None,
                           currency=cfg.currency, last=last, last_names=last_names)

    async def watch(self, session: Session, table_id: str, from_seq: int | None, *,
                    hints: bool = False) -> AsyncIterator[TableEvent | TableView]:
        """Everything that happens at a table, for a player whose brand offers it in the
        session's currency: with ``from_seq`` the events numbered above it (each exactly once,
        in order), else the table's view (``hints`` as for :meth:`view`) and then the events
        above it. Events carry no decision values. While it runs the player counts as
        watching (their seat is kept)."""
        async with contextlib.aclosing(self.watch_batches(session, table_id, from_seq,
                                                          hints=hints)) as items:
            async for item in items:
                if isinstance(item, TableView):
                    yield item
                else:
                    for e in item:
                        yield e

    async def watch_batches(self, session: Session, table_id: str, from_seq: int | None, *,
                            hints: bool = False
                            ) -> AsyncGenerator[list[TableEvent] | TableView, None]:
        """:meth:`watch` with the events in batches: each one every event this replica's feed
        has for the caller when it pulls (never empty), so a watcher that fell behind catches
        up in a few messages."""
        CommandRunner.admit(session, self.config(table_id))
        async with self.presence.watching(table_id, session):
            if from_seq is None:
                v = await self.view(table_id, hints=hints)
                yield v
                seq = v.seq
            else:
                seq = from_seq
            async with contextlib.aclosing(self.feeds.batches(table_id, seq)) as batches:
                async for batch in batches:
                    yield batch

    async def recall(self, operator_id: str, round_id: str, *,
                     table_id: str = "") -> OperatorTableRound:
        """A finished table round with every player's stakes and results (engine events, hole
        card included) and, of the money, only ``operator_id``'s own players' (every movement,
        refunds included); at ``table_id`` when it is given."""
        return await self.recalls.operator_round(operator_id, round_id, table_id=table_id)

    # ------------------------------------------------------------------ commands

    async def take_seat(self, session: Session, table_id: str, request_id: str,
                        seat: int, *, hints: bool = False) -> TableAnswer:
        return await self._commands.take_seat(session, self.config(table_id), request_id,
                                              seat, hints=hints)

    async def leave_seat(self, session: Session, table_id: str, request_id: str,
                         seat: int, *, hints: bool = False) -> TableAnswer:
        answer = await self._commands.leave_seat(session, self.config(table_id), request_id,
                                                 seat, hints=hints)
        self.announcer.nudge(table_id)  # (a Bet Behind on the seat may have been returned)
        return answer

    async def place_bets(self, session: Session, table_id: str, request_id: str,
                         bets: Sequence[BetCommand], client_seed: str = "", *,
                         hints: bool = False, channel: Channel | None = None) -> TableAnswer:
        self.software.admit_new_round()  # a stake starts a new round: refused when not authentic
        answer = await self._commands.place_bets(session, self.config(table_id), request_id,
                                                 bets, client_seed, hints=hints,
                                                 channel=channel)
        if any(b.behind for b in bets):  # the seats' totals are announced
            self.announcer.nudge(table_id)
        return answer

    async def deal_now(self, session: Session, table_id: str, request_id: str,
                       forced_cards: tuple[str, ...] = (), *,
                       hints: bool = False) -> TableAnswer:
        return await self._commands.deal_now(session, self.config(table_id), request_id,
                                             forced_cards, hints=hints)

    async def act(self, session: Session, table_id: str, request_id: str,
                  cmd: TableAct, *, hints: bool = False) -> TableAnswer:
        return await self._decisions.act(session, self.config(table_id), request_id, cmd,
                                        hints=hints)

    async def decide_insurance(self, session: Session, table_id: str, request_id: str, *,
                               round_id: str, seat: int, take: bool,
                               behind: bool, hints: bool = False) -> TableAnswer:
        return await self._decisions.decide_insurance(
            session, self.config(table_id), request_id, round_id=round_id, seat=seat,
            take=take, behind=behind, hints=hints)

    # ------------------------------------------------------------------ the clock

    async def tick(self, table_id: str, epoch: int) -> bool:
        """Fire the table's deadline if it is due (the clock's lease holder only)."""
        return await self._clock_transitions.tick(self.config(table_id), epoch)
