"""Play use cases, as the edges, the reconciler and the tests call them: one facade over solo
play's queries (:mod:`rgs.service.play_queries`: sessions, variants, balance, reads) and its
commands (:mod:`rgs.service.play_commands`: Deal, Act, Settle), which commit and pay through
one collaborator (:mod:`rgs.service.settlement`), all on one shared
:class:`~rgs.service.play_context.PlayContext`.
"""

from __future__ import annotations

from collections.abc import Mapping

from rgs.engine import RuleSet, TableLimits
from rgs.math.hints import HintTables
from rgs.service.authenticity import SoftwareAuthenticity
from rgs.service.controls import ControlBoard
from rgs.service.freebets import FreeBets
from rgs.service.model import (
    ActCommand,
    Brand,
    Channel,
    DealCommand,
    PlayResult,
    RequestScope,
    Session,
    SettleCommand,
    StoredRound,
)
from rgs.service.play_commands import PlayCommands
from rgs.service.play_context import PlayContext
from rgs.service.play_queries import PlayQueries
from rgs.service.ports import CardSourceFactory, Clock, Journal
from rgs.service.positions import SessionRules
from rgs.service.session_cache import SessionCache
from rgs.service.settlement import Settlement
from rgs.wallet.port import Wallet


class GameService:
    """The game client's use cases: the queries and the commands behind one name."""

    def __init__(self, *, journal: Journal, wallet: Wallet, cards: CardSourceFactory,
                 brands: Mapping[str, Brand], clock: Clock, test_mode: bool = False,
                 sessions: SessionCache | None = None,
                 software: SoftwareAuthenticity | None = None,
                 controls: ControlBoard | None = None,
                 free_bets: FreeBets | None = None, hints: HintTables | None = None) -> None:
        #: What the queries, the commands and the settlement share (the app's hint caches,
        #: else this service's own; no free bets, and every new round admitted, without them).
        self.context = PlayContext(
            journal=journal, wallet=wallet, cards=cards, brands=brands, clock=clock,
            test_mode=test_mode, hints=hints if hints is not None else HintTables(),
            free_bets=free_bets if free_bets is not None else FreeBets.none(clock),
            software=software if software is not None else SoftwareAuthenticity(),
            controls=controls, sessions=sessions if sessions is not None else SessionCache(),
            session_rules=SessionRules(journal=journal, brands=brands, clock=clock))
        self.queries = PlayQueries(self.context)
        self.commands = PlayCommands(self.context, self.queries, Settlement(self.context))

    @property
    def hints(self) -> HintTables:
        """The analysis' caches the hints are valued from."""
        return self.context.hints

    @property
    def free_bets(self) -> FreeBets:
        """The operators' free bets (a Deal's free_bet_id; the credit of a free-bet round)."""
        return self.context.free_bets

    @property
    def software(self) -> SoftwareAuthenticity:
        """The software authentication's word on new rounds."""
        return self.context.software

    @property
    def controls(self) -> ControlBoard | None:
        """The game controls (None: nothing is ever refused by one)."""
        return self.context.controls

    @property
    def session_rules(self) -> SessionRules:
        """The brands' jurisdiction profiles on sessions: rules, position, reality checks."""
        return self.context.session_rules

    # ------------------------------------------------------------------ queries

    async def authenticate(self, token: str, *, allow_expired: bool = False) -> Session:
        """See :meth:`PlayQueries.authenticate`."""
        return await self.queries.authenticate(token, allow_expired=allow_expired)

    async def balance(self, session: Session) -> int:
        """The player's balance now, as the operator's wallet reports it."""
        return await self.queries.balance(session)

    async def balance_or_none(self, session: Session) -> int | None:
        """The player's balance, or None when the wallet does not answer."""
        return await self.queries.balance_or_none(session)

    def brands(self) -> tuple[Brand, ...]:
        """Every brand this service plays for."""
        return self.queries.brands()

    def brand(self, session: Session) -> Brand:
        """The session's brand (brands are loaded at start and never disappear)."""
        return self.queries.brand(session)

    def variants(self, session: Session) -> list[tuple[RuleSet, TableLimits]]:
        """See :meth:`PlayQueries.variants`."""
        return self.queries.variants(session)

    async def next_commitment(self, session: Session) -> str:
        """See :meth:`PlayQueries.next_commitment`."""
        return await self.queries.next_commitment(session)

    async def last_rounds(self, session: Session) -> list[StoredRound]:
        """See :meth:`PlayQueries.last_rounds`."""
        return await self.queries.last_rounds(session)

    async def get_round(self, session: Session, round_id: str = "") -> PlayResult:
        """A round's public view; without an id, the player's unfinished round."""
        return await self.queries.get_round(session, round_id)

    # ------------------------------------------------------------------ commands

    async def deal(self, session: Session, cmd: DealCommand, *,
                   channel: Channel | None = None) -> PlayResult:
        """See :meth:`PlayCommands.deal`."""
        return await self.commands.deal(session, cmd, channel=channel)

    async def act(self, session: Session, cmd: ActCommand) -> PlayResult:
        """Apply one decision; debit its stake first when it adds one."""
        return await self.commands.act(session, cmd)

    async def settle(self, session: Session, cmd: SettleCommand, *,
                     scope: RequestScope = RequestScope.PLAYER) -> PlayResult:
        """See :meth:`PlayCommands.settle`."""
        return await self.commands.settle(session, cmd, scope=scope)
