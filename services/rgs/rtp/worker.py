"""The background worker: reads settled rounds from the journal in order, values each one
(:func:`rgs.rtp.expected.round_figures`) and stores the figures with its cursor in one
transaction (migration 0190), so a restart resumes where it stopped and values no round twice.

It runs as its own process (``rgs rtp worker``), never inside ``rgs serve``: the valuation is
CPU work (a few milliseconds a round, bench/rtp.py), and no player's call waits for it. It
reads rounds settled at least :data:`SETTLE_LAG` ago, so a round committed a moment late with
an earlier ``finished_at`` is not passed over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from rgs.codec import decode_event, decode_value
from rgs.engine import Event, RoundStarted, RuleSet
from rgs.rtp.expected import RoundFigures, is_demo, round_figures
from rgs.rtp.sheets import par_figures
from rgs.variants import VARIANTS
from rgs.variants.options import OptionError, VariantOptions, effective_rules

log = logging.getLogger(__name__)

#: Rounds settled more recently than this are left for the next pass.
SETTLE_LAG: Final = timedelta(seconds=5)
#: The start of time for a cursor never written.
EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)

Q_CURSOR = "SELECT finished_at, round_key FROM rtp_cursor WHERE source = $1"
Q_SAVE_CURSOR = """
INSERT INTO rtp_cursor (source, finished_at, round_key) VALUES ($1, $2, $3)
ON CONFLICT (source) DO UPDATE SET finished_at = EXCLUDED.finished_at,
    round_key = EXCLUDED.round_key, updated_at = clock_timestamp()"""
Q_SOLO = """
SELECT r.player_key, r.round_id, r.brand_id, r.variant, r.options::text AS options,
       r.finished_at, r.player_key || '/' || r.round_id AS round_key,
       array_agg(e.kind ORDER BY e.event_no) AS kinds,
       array_agg(e.payload::text ORDER BY e.event_no) AS payloads
FROM rounds r JOIN round_events e ON e.player_key = r.player_key AND e.round_id = r.round_id
WHERE r.status = 'settled' AND cardinality(r.forced_cards) = 0
  AND r.finished_at < $3
  AND (r.finished_at, r.player_key || '/' || r.round_id) > ($1, $2)
GROUP BY r.player_key, r.round_id
ORDER BY r.finished_at, round_key LIMIT $4"""
Q_TABLE = """
SELECT table_id, round_id, variant, events::text AS events, finished_at,
       table_id || '/' || round_id AS round_key
FROM table_rounds
WHERE status = 'settled' AND finished_at < $3
  AND (finished_at, table_id || '/' || round_id) > ($1, $2)
ORDER BY finished_at, round_key LIMIT $4"""
Q_INSERT = """
INSERT INTO rtp_rounds (source, round_key, brand_id, variant, table_id, stake_band, channel,
    settled_at, base_stake, observed_net, par_net, expected_net, regret, faults)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
ON CONFLICT (source, round_key) DO NOTHING"""


def stake_band(base_stake: int) -> str:
    """The round's stake band by its base stake in minor units, by powers of ten:
    ``"100-999"`` (1.00 to 9.99 in a two-decimal currency)."""
    low = 1
    while low * 10 <= base_stake:
        low *= 10
    return f"{low}-{low * 10 - 1}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Valued:
    """A round read from the journal and its figures."""

    source: str
    round_key: str
    brand: str
    variant: str
    table: str
    settled_at: datetime
    figures: RoundFigures


#: Rules of a round from its variant and the options stored with it.
RulesFor = Callable[[str, VariantOptions], RuleSet | None]


def rules_for(variant: str, options: VariantOptions) -> RuleSet | None:
    """The rules a round was dealt under (None: a variant no longer known)."""
    base = VARIANTS.get(variant)
    if base is None:
        return None
    try:
        return effective_rules(base, options)
    except OptionError:
        return None


def value(rules: RuleSet, events: Sequence[Event]) -> RoundFigures | None:
    """A round's figures, or None when it is left out (voided, demo, no main bet)."""
    if not events or not isinstance(events[0], RoundStarted) or is_demo(events[0]):
        return None
    return round_figures(rules, events, par_figures(rules))


class RtpWorker:
    """Values the journal's settled rounds in batches; :meth:`step` does one batch per source."""

    def __init__(self, pool: Any, *, batch: int = 200, resolve: RulesFor = rules_for,
                 on_round: Callable[[Valued], None] | None = None) -> None:
        self.pool = pool
        self.batch = batch
        self.resolve = resolve
        self.on_round = on_round

    async def _cursor(self, conn: Any, source: str) -> tuple[datetime, str]:
        row = await conn.fetchrow(Q_CURSOR, source)
        return (EPOCH, "") if row is None else (row["finished_at"], row["round_key"])

    def _solo(self, r: Any) -> Valued | None:
        options = decode_value(VariantOptions, r["options"])
        rules = self.resolve(r["variant"], options)
        if rules is None:
            return None
        events = [decode_event(k, p) for k, p in zip(r["kinds"], r["payloads"], strict=True)]
        figs = value(rules, events)
        return None if figs is None else Valued(
            source="solo", round_key=r["round_key"], brand=r["brand_id"], variant=r["variant"],
            table="", settled_at=r["finished_at"], figures=figs)

    def _table(self, r: Any) -> Valued | None:
        rules = self.resolve(r["variant"], VariantOptions())
        if rules is None:
            return None
        events = [decode_event(k, p) for k, p in json.loads(r["events"])]
        figs = value(rules, events)
        return None if figs is None else Valued(
            source="table", round_key=r["round_key"], brand="", variant=r["variant"],
            table=r["table_id"], settled_at=r["finished_at"], figures=figs)

    async def step(self, now: datetime | None = None) -> int:
        """Value the next batch of each source; return how many rounds were read."""
        until = (now or datetime.now(UTC)) - SETTLE_LAG
        read = 0
        for source, query, one in (("solo", Q_SOLO, self._solo), ("table", Q_TABLE, self._table)):
            async with self.pool.acquire() as conn:
                at, key = await self._cursor(conn, source)
                rows = await conn.fetch(query, at, key, until, self.batch)
            if not rows:
                continue
            valued = []
            for r in rows:
                try:
                    v = one(r)
                except Exception:  # a round the monitor cannot value must not stop the rest
                    log.exception("rtp: cannot value round %s", r["round_key"])
                    v = None
                if v is not None:
                    valued.append(v)
            async with self.pool.acquire() as conn, conn.transaction():
                await conn.executemany(Q_INSERT, [_row(v) for v in valued])
                last = rows[-1]
                await conn.execute(Q_SAVE_CURSOR, source, last["finished_at"], last["round_key"])
            for v in valued:
                if self.on_round is not None:
                    self.on_round(v)
            read += len(rows)
        return read

    async def run(self, stop: asyncio.Event, *, idle_s: float = 5.0) -> None:
        """Value rounds until ``stop`` is set, resting ``idle_s`` when there are none."""
        while not stop.is_set():
            if await self.step() == 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), idle_s)


def _row(v: Valued) -> tuple[Any, ...]:
    f = v.figures
    return (v.source, v.round_key, v.brand, v.variant, v.table, stake_band(f.base_stake),
            "unknown", v.settled_at, f.base_stake, f.observed_net, f.par_net, f.expected_net,
            f.regret, list(f.faults))
