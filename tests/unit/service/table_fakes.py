"""Shared tables through the real bootstrap with fakes: the in-memory tables' journal over the
in-memory journal, the fake wallet, a clock the test moves and the table clock run by hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from service_fakes import OTHER_KEY, Harness, harness

from rgs.config import RgsSettings
from rgs.config import platform as load_platform
from rgs.engine import TableLimits
from rgs.platform_file import Platform
from rgs.service.model import Session
from rgs.service.tables.answers import TableAnswer
from rgs.service.tables.model import BetCommand, TableConfig, TableEvent
from rgs.service.tables.service import TableService

T = "vip-u"
START = 1_000_000
BETTING_S = 30.0
DECISION_S = 15.0


def table_config(table_id: str = T, **more: Any) -> TableConfig:
    fields: dict[str, Any] = {
        "id": table_id, "variant": "vip-platinum", "seats": 7, "currency": "EUR",
        "limits": TableLimits(main_min=1000, main_max=500000, side_min=100, side_max=50000),
        "brands": ("demo-casino", "other-casino"), "betting_s": BETTING_S,
        "decision_s": DECISION_S, "sit_out_rounds": 2, "away_s": 3600.0, **more}
    return TableConfig(**fields)


def table_platform(*configs: TableConfig) -> Platform:
    """The shipped platform with these shared tables instead of its own."""
    base = load_platform(RgsSettings())
    tables = configs or (table_config(),)
    return Platform(operators=base.operators, brands=base.brands,
                    tables={c.id: c for c in tables})


@dataclass
class Tables:
    """A harness with shared tables, and its players' sessions by name."""

    h: Harness
    players: dict[str, Session] = field(default_factory=dict)

    @property
    def service(self) -> TableService:
        assert self.h.app.tables is not None
        return self.h.app.tables

    def balance(self, name: str) -> int:
        """The player's balance as the wallet has it."""
        return self.h.wallet.balances[name]

    def debits(self, name: str) -> list[int]:
        """The amounts of the player's debits the wallet applied."""
        return [c.amount for c in self.h.wallet.applied.values()
                if c.party.player_id == name and c.kind.value == "debit"]

    async def player(self, name: str, *, other: bool = False) -> Session:
        """A player with START in the wallet and a session (``other``: other-operator's)."""
        self.h.wallet.balances[name] = START
        s = await (self.h.session(name, "other-casino", OTHER_KEY) if other
                   else self.h.session(name))
        self.players[name] = s
        return s

    async def sit(self, name: str, seat: int, table_id: str = T) -> TableAnswer:
        return await self.service.take_seat(self.players[name], table_id, f"seat-{name}",
                                            seat)

    async def bet(self, name: str, request_id: str, *bets: BetCommand,
                  table_id: str = T) -> TableAnswer:
        return await self.service.place_bets(self.players[name], table_id, request_id, bets)

    async def deal_now(self, name: str, request_id: str, cards: list[str] | None = None,
                       table_id: str = T) -> TableAnswer:
        return await self.service.deal_now(self.players[name], table_id, request_id,
                                           tuple(cards or ()))

    async def clock(self, advance_s: float = 0.0) -> int:
        """Move the clock on and let the table clock fire whatever is due, then wait for the
        payments it sent; how many transitions it committed."""
        self.h.clock.now += timedelta(seconds=advance_s)
        clock = self.h.app.table_clock
        assert clock is not None
        fired = 0
        while n := await clock.run_once():
            fired += n
        await self.service.money.drain(5.0)
        return fired

    async def events(self, from_seq: int = 0, table_id: str = T) -> list[TableEvent]:
        """Every event numbered above ``from_seq``, as the journal has them."""
        assert self.h.table_journal is not None
        return await self.h.table_journal.events_after(table_id, from_seq, 10_000)

    async def kinds(self, from_seq: int = 0, table_id: str = T) -> list[str]:
        return [e.kind for e in await self.events(from_seq, table_id)]


async def tables(*configs: TableConfig, **settings: Any) -> Tables:
    return Tables(h=await harness(tables=True, platform=table_platform(*configs), **settings))
