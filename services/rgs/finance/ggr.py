"""Gross gaming revenue per brand, variant, table, day and currency, from the movements listing
(pure: no I/O; docs/backoffice.md).

GGR is real-money stakes minus real-money wins: ``staked`` is the sum of booked debits (a debit
refused or rolled back took nothing), ``paid`` the sum of applied credits. Free-bet stakes are
kept apart in ``free_bet_staked`` and never count in ``staked`` or ``ggr`` (a free stake is never
debited): a free stake counts in the group of its round's first movement, on that movement's day
(:mod:`rgs.finance.free_stakes`). A movement counts on the UTC day it was written, as the
wallet's ledger books it, so a day's figures agree to the cent with the wallet. ``open`` counts
the movements still open in a group: its figures may still change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from types import MappingProxyType

from rgs.finance.movements import MovementLine
from rgs.locales.amounts import exponent
from rgs.service.model import MovementStatus, is_open
from rgs.wallet.port import MoneyKind

GroupKey = tuple[str, str, str, str, str]
"""(brand, variant, table id or "", day as YYYY-MM-DD, currency)."""


@dataclass(slots=True, kw_only=True)
class GgrLine:
    """One group's figures (money in the group's currency, integer minor units)."""

    brand_id: str
    variant: str
    table_id: str
    day: str
    currency: str
    rounds: int = 0
    players: int = 0
    staked: int = 0
    paid: int = 0
    free_bet_staked: int = 0
    open: int = 0
    _rounds: set[str] = field(default_factory=set, repr=False)
    _players: set[str] = field(default_factory=set, repr=False)

    @property
    def ggr(self) -> int:
        """Real-money stakes minus real-money wins."""
        return self.staked - self.paid

    @property
    def rtp(self) -> float | None:
        """Observed return to player, paid / staked (None with nothing staked)."""
        return self.paid / self.staked if self.staked else None

    def as_dict(self) -> dict[str, object]:
        return {"brand_id": self.brand_id, "variant": self.variant, "table_id": self.table_id,
                "day": self.day, "currency": self.currency, "rounds": self.rounds,
                "players": self.players, "staked": self.staked, "paid": self.paid,
                "ggr": self.ggr, "rtp": None if self.rtp is None else round(self.rtp, 6),
                "free_bet_staked": self.free_bet_staked, "open": self.open}


COLUMNS = ("brand_id", "variant", "table_id", "day", "currency", "rounds", "players", "staked",
           "paid", "ggr", "rtp", "free_bet_staked", "open")
"""The report's columns, in order (the CSV header)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Total:
    """Every group in one reporting currency (minor units, rounded half to even per group)."""

    currency: str
    staked: int
    paid: int
    ggr: int
    free_bet_staked: int


_NO_FREE_STAKES: Mapping[str, int] = MappingProxyType({})


def report(lines: Iterable[MovementLine],
           free_stakes: Mapping[str, int] = _NO_FREE_STAKES) -> list[GgrLine]:
    """The groups of ``lines``, sorted by day, brand, variant, table and currency.

    ``free_stakes``: the free stake of each free-bet round, by the transaction id of the round's
    first movement (:func:`rgs.finance.free_stakes.of_window`); it counts in that movement's
    group, in ``free_bet_staked`` only.
    """
    groups: dict[GroupKey, GgrLine] = {}
    for m in lines:
        key = (m.brand_id, m.variant, m.table_id, m.created_at.date().isoformat(), m.currency)
        g = groups.get(key)
        if g is None:
            g = groups[key] = GgrLine(brand_id=key[0], variant=key[1], table_id=key[2],
                                      day=key[3], currency=key[4])
        g.free_bet_staked += free_stakes.get(m.transaction_id, 0)
        kind, status = MoneyKind(m.kind), MovementStatus(m.status)
        if is_open(kind, status):
            g.open += 1
            continue
        if kind is MoneyKind.DEBIT and status is MovementStatus.BOOKED:
            g.staked += m.amount
        elif kind is MoneyKind.CREDIT and status is MovementStatus.APPLIED:
            g.paid += m.amount
        else:
            continue
        g._rounds.add(m.round_id)
        g._players.add(m.player_id)
    for g in groups.values():
        g.rounds, g.players = len(g._rounds), len(g._players)
    return sorted(groups.values(),
                  key=lambda g: (g.day, g.brand_id, g.variant, g.table_id, g.currency))


def parse_rates(text: str) -> dict[str, Decimal]:
    """``EUR=1.08,GBP=1.27``: units of the reporting currency per unit of each currency.
    ValueError naming the bad part."""
    rates: dict[str, Decimal] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        code, _, value = part.partition("=")
        try:
            rate = Decimal(value)
        except ArithmeticError:
            rate = Decimal(-1)
        if len(code.strip()) != 3 or not rate.is_finite() or rate <= 0:
            raise ValueError(f"rate {part!r}: write CODE=RATE, e.g. EUR=1.08 (a positive "
                             "number of reporting-currency units per unit)")
        rates[code.strip().upper()] = rate
    return rates


def _convert(amount: int, currency: str, rate: Decimal, into: str) -> int:
    major = Decimal(amount).scaleb(-exponent(currency)) * rate
    return int(major.scaleb(exponent(into)).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def total(groups: Iterable[GgrLine], into: str, rates: Mapping[str, Decimal]) -> Total:
    """Every group converted into ``into`` (its own rate is 1 unless given). KeyError naming a
    currency without a rate."""
    into = into.upper()
    staked = paid = free = 0
    for g in groups:
        rate = rates.get(g.currency, Decimal(1) if g.currency == into else None)
        if rate is None:
            raise KeyError(g.currency)
        staked += _convert(g.staked, g.currency, rate, into)
        paid += _convert(g.paid, g.currency, rate, into)
        free += _convert(g.free_bet_staked, g.currency, rate, into)
    return Total(currency=into, staked=staked, paid=paid, ggr=staked - paid,
                 free_bet_staked=free)
