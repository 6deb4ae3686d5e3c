"""The background worker: reads settled rounds from the journal in order, values each one
(:func:`rgs.rtp.expected.party_figures`) and stores the figures with its cursor in one
transaction (migration 0190), so a restart resumes where it stopped and values no round twice.
A solo round is one row, under its brand and the channel its Deal came through (migration
0210); a table round is one row per brand and channel of its bettors (seated and behind), so
each group's rows are distinct rounds and its standard error counts them right.

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
from rgs.math.hints import HintTables
from rgs.rtp.expected import Party, RoundFigures, is_demo, party_figures
from rgs.rtp.sheets import ParSheets
from rgs.service.tables.rounds import table_rules
from rgs.variants import VARIANTS
from rgs.variants.options import OptionError, VariantOptions, effective_rules

log = logging.getLogger(__name__)

#: Rounds settled more recently than this are left for the next pass.
SETTLE_LAG: Final = timedelta(seconds=5)
#: The start of time for a cursor never written.
EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)

Q_CURSOR = "SELECT finished_at, round_key FROM rtp_cursor WHERE source = $1"
#: The cursor only moves forward: a second worker that valued an earlier batch (two replicas
#: at once, by mistake or during a node partition) never sends it back.
Q_SAVE_CURSOR = """
INSERT INTO rtp_cursor (source, finished_at, round_key) VALUES ($1, $2, $3)
ON CONFLICT (source) DO UPDATE SET finished_at = EXCLUDED.finished_at,
    round_key = EXCLUDED.round_key, updated_at = clock_timestamp()
WHERE (rtp_cursor.finished_at, rtp_cursor.round_key)
      < (EXCLUDED.finished_at, EXCLUDED.round_key)"""
#: The next batch of settled solo rounds after the cursor ($1, $2) settled before $3: the
#: batch first, in the order of index rounds_settled_order (migration 0211: a range scan that
#: stops at the LIMIT), then each round's events. Demo (play-money, ``rounds.demo``) and
#: test-mode (forced-card) rounds are passed over.
Q_SOLO = """
SELECT r.player_key, r.round_id, r.brand_id, r.variant, r.options, r.channel, r.finished_at,
       r.round_key, ev.kinds, ev.payloads
FROM (SELECT player_key, round_id, brand_id, variant, options::text AS options, channel,
             finished_at, player_key || '/' || round_id AS round_key
        FROM rounds
       WHERE status = 'settled' AND finished_at < $3
         AND (finished_at, player_key || '/' || round_id) > ($1, $2)
         AND NOT demo AND cardinality(forced_cards) = 0
       ORDER BY finished_at, player_key || '/' || round_id LIMIT $4) r
CROSS JOIN LATERAL (
    SELECT array_agg(e.kind ORDER BY e.event_no) AS kinds,
           array_agg(e.payload::text ORDER BY e.event_no) AS payloads
      FROM round_events e WHERE e.player_key = r.player_key AND e.round_id = r.round_id) ev
ORDER BY r.finished_at, r.round_key"""
#: The next batch of settled table rounds, in the order of table_rounds_settled_order; a
#: round dealt with forced cards (test mode: its provably fair record says it never verifies)
#: is passed over.
Q_TABLE = """
SELECT table_id, round_id, variant, events::text AS events, bettors::text AS bettors,
       finished_at, table_id || '/' || round_id AS round_key
FROM table_rounds
WHERE status = 'settled' AND finished_at < $3
  AND (finished_at, table_id || '/' || round_id) > ($1, $2)
  AND (fair IS NULL OR (fair->>'verifiable')::boolean IS NOT FALSE)
ORDER BY finished_at, table_id || '/' || round_id LIMIT $4"""
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


#: The channel label of a round whose channel the journal does not say (dealt in process, or
#: by a release before migration 0210).
UNKNOWN: Final = "unknown"


@dataclass(frozen=True, slots=True, kw_only=True)
class Valued:
    """A round read from the journal and its figures: a solo round whole; a table round's
    share of one brand and channel (its players of that brand who bet through that edge)."""

    source: str
    round_key: str
    brand: str
    variant: str
    table: str
    channel: str
    settled_at: datetime
    figures: RoundFigures


#: Rules of a round from its variant and the options stored with it.
RulesFor = Callable[[str, VariantOptions], RuleSet | None]
#: Rules of a table round from its variant.
TableRulesFor = Callable[[str], RuleSet | None]


def rules_for(variant: str, options: VariantOptions) -> RuleSet | None:
    """The rules a solo round was dealt under: its variant with the brand's options stored
    with the round (None: a variant no longer known)."""
    base = VARIANTS.get(variant)
    if base is None:
        return None
    try:
        return effective_rules(base, options)
    except OptionError:
        return None


def table_rules_for(variant: str) -> RuleSet | None:
    """The rules a table round was dealt under: the shared tables' own
    (:func:`rgs.service.tables.rounds.table_rules`; None: a variant no longer known)."""
    return table_rules(variant) if variant in VARIANTS else None


def value(tables: HintTables, sheets: ParSheets, rules: RuleSet, events: Sequence[Event],
          party: Party | None = None) -> dict[str, RoundFigures]:
    """A round's figures by party (:func:`rgs.rtp.expected.party_figures`; one part, keyed
    "", without ``party``), or none when it is left out (voided, no card dealt)."""
    if not events or not isinstance(events[0], RoundStarted) or is_demo(events[0]):
        return {}
    par = sheets.figures(rules)
    if party is None:
        return party_figures(rules, events, par, tables=tables)
    return party_figures(rules, events, par, party, tables=tables)


def _bettors(text: str | None) -> dict[str, tuple[str, str]]:
    """A table round's bettors (migration 0210) by player key: (brand, channel)."""
    return {b["player_key"]: (b["brand_id"], b.get("channel") or UNKNOWN)
            for b in json.loads(text or "[]")}


class RtpWorker:
    """Values the journal's settled rounds in batches; :meth:`step` does one batch per source."""

    def __init__(self, pool: Any, *, batch: int = 200, resolve: RulesFor = rules_for,
                 resolve_table: TableRulesFor = table_rules_for,
                 on_round: Callable[[Valued], None] | None = None) -> None:
        self.pool = pool
        self.batch = batch
        self.resolve = resolve
        self.resolve_table = resolve_table
        self.on_round = on_round
        #: The analysis' caches and the PAR sheets' figures the rounds are valued from (this
        #: worker's own).
        self.hints = HintTables()
        self.sheets = ParSheets()

    async def _cursor(self, conn: Any, source: str) -> tuple[datetime, str]:
        row = await conn.fetchrow(Q_CURSOR, source)
        return (EPOCH, "") if row is None else (row["finished_at"], row["round_key"])

    def _solo(self, r: Any) -> list[Valued]:
        options = decode_value(VariantOptions, r["options"])
        rules = self.resolve(r["variant"], options)
        if rules is None:
            return []
        events = [decode_event(k, p) for k, p in zip(r["kinds"], r["payloads"], strict=True)]
        return [Valued(source="solo", round_key=r["round_key"], brand=r["brand_id"],
                       variant=r["variant"], table="", channel=r["channel"] or UNKNOWN,
                       settled_at=r["finished_at"], figures=f)
                for f in value(self.hints, self.sheets, rules, events).values()]

    def _table(self, r: Any) -> list[Valued]:
        rules = self.resolve_table(r["variant"])
        if rules is None:
            return []
        events = [decode_event(k, p) for k, p in json.loads(r["events"])]
        bettors = _bettors(r["bettors"])

        def party(_seat: int, player: str) -> str:
            return "/".join(bettors.get(player, ("", UNKNOWN)))

        out = []
        for key, f in sorted(value(self.hints, self.sheets, rules, events, party).items()):
            brand, channel = key.rsplit("/", 1)
            out.append(Valued(source="table", round_key=f"{r['round_key']}/{key}", brand=brand,
                              variant=r["variant"], table=r["table_id"], channel=channel,
                              settled_at=r["finished_at"], figures=f))
        return out

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
            valued: list[Valued] = []
            for r in rows:
                try:
                    valued += one(r)
                except Exception:  # a round the monitor cannot value must not stop the rest
                    log.exception("rtp: cannot value round %s", r["round_key"])
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
            v.channel, v.settled_at, f.base_stake, f.observed_net, f.par_net, f.expected_net,
            f.regret, list(f.faults))
